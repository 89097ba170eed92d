import { nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import { renderCta, returnAddress } from '../../internal/cta.js';
import { pickColors } from '../../internal/safe.js';
import type { BuyButtonComponent } from '../../internal/types.js';
import { buttonStyles } from './buy-button.styles.js';

/**
 * The "buy resale tickets" button of an event page. Colours: the call to action's when
 * configured, else the component's, else the `--resale-color-primary` / `--resale-color-on-primary`
 * tokens; anything but `#rgb`/`#rrggbb` is ignored.
 * The link carries `returnTo` (the `return-to` attribute, else the page's address), so the
 * market, the checkout and its receipt link back to the partner.
 *
 * @csspart cta - the button-looking link (`<a>`), or `<button disabled>` (then also `cta-disabled`)
 * @csspart cta-disabled - the disabled `<button>` (no offer, or no http(s) URL)
 * @cssproperty --resale-color-primary - background when the server sends no colours
 * @cssproperty --resale-color-on-primary - text colour when the server sends no colours
 * @event resale-cta-click - before navigating; cancelable
 */
export class ResaleBuyButton extends ResaleElement {
  static override styles = buttonStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
    returnTo: { type: String, attribute: 'return-to' },
  };

  /** The `buyButton` item of the buy access layer. */
  declare component: BuyButtonComponent | undefined;
  /**
   * The partner page the market links back to ("Back to …"); default: this page's address. The
   * market shows it only when it is on one of the partner's allowed origins.
   */
  declare returnTo: string | undefined;

  override render() {
    const button = this.component?.buyButton;
    if (!button || button.visible !== true) return nothing;
    const colors = pickColors(button.callToAction.colors, button.colors);
    return renderCta({ cta: button.callToAction, colors, host: this, detail: { componentClass: 'buyButton' }, returnTo: returnAddress(this.returnTo) });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-buy-button': ResaleBuyButton;
  }
}
