import { nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import type { BuyBannerComponent } from '../../internal/types.js';
import { renderBanner } from './banner-template.js';
import { bannerStyles } from './buy-banner.styles.js';

/**
 * A banner telling fans that resale tickets exist for the event, with one call to action.
 *
 * @csspart base - the banner surface (`<section>`)
 * @csspart image - the optional image
 * @csspart body - title and description
 * @csspart title - the heading
 * @csspart description - the text
 * @csspart cta - the call to action (`<a>`, or `<button disabled>`; then also `cta-disabled`)
 * @cssproperty --resale-color-surface - banner background when the server sends none
 * @event resale-cta-click - before the call to action navigates; cancelable
 */
export class ResaleBuyBanner extends ResaleElement {
  static override styles = bannerStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
  };

  /** The `buyBanner` item of the buy access layer. */
  declare component: BuyBannerComponent | undefined;

  override render() {
    const banner = this.component?.buyBanner;
    return banner ? renderBanner(this, banner, 'buyBanner') : nothing;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-buy-banner': ResaleBuyBanner;
  }
}
