import { html, nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import { renderCta, returnAddress } from '../../internal/cta.js';
import { Clock, renderYourHold, reservedNote } from '../../internal/held.js';
import { pickColors } from '../../internal/safe.js';
import { renderWaitingJoin, renderWaitingPlace } from '../../internal/waiting.js';
import type { BuyButtonComponent } from '../../internal/types.js';
import { buttonStyles } from './buy-button.styles.js';

/**
 * The "buy resale tickets" button of an event page. Colours: the call to action's when
 * configured, else the component's, else the `--resale-color-primary` / `--resale-color-on-primary`
 * tokens; anything but `#rgb`/`#rrggbb` is ignored.
 * The link carries `returnTo` (the `return-to` attribute, else the page's address), so the
 * market, the checkout and its receipt link back to the partner.
 *
 * Tickets held in checkouts (the call to action's `yourHold` and `reserved`): the fan's own hold
 * shows above the button (unless `hold-elsewhere`), with the time left, "Continue to checkout" and "Release them"; a
 * disabled button with tickets reserved by others says under it when they may be back on sale.
 *
 * The show's waiting list (the call to action's `waitingList`): with nothing for sale, "Join the
 * waiting list" replaces the disabled button, with "12 fans waiting" under it; a fan in line
 * (answers signed for the fan) sees "You are #3 in line for 2 tickets" and a link to their place.
 *
 * @csspart cta - the button-looking link (`<a>`), or `<button disabled>` (then also `cta-disabled`)
 * @csspart cta-disabled - the disabled `<button>` (no offer, or no http(s) URL)
 * @csspart reserved - under a disabled button: "Reserved by another fan — may be back at 18:42"
 * @csspart your-hold - the fan's own hold: "You have 2 tickets reserved (4:59 left)" and its links
 * @csspart your-hold-title - its sentence (or "Your reservation has ended")
 * @csspart your-hold-time - the time left, "(4:59 left)"
 * @csspart your-hold-continue - the link to the fan's checkout
 * @csspart your-hold-release - the link to release the tickets (the market page)
 * @csspart waiting-join - "Join the waiting list" (also `cta`), in place of the disabled button
 * @csspart waiting-fans - under it: "12 fans waiting"
 * @csspart waiting-place - the fan's place in line: "You are #3 in line for 2 tickets."
 * @csspart waiting-place-link - its link to the market, where the fan can leave the line
 * @cssproperty --resale-color-primary - background when the server sends no colours
 * @cssproperty --resale-color-on-primary - text colour when the server sends no colours
 * @event resale-cta-click - before navigating; cancelable
 */
export class ResaleBuyButton extends ResaleElement {
  static override styles = buttonStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
    returnTo: { type: String, attribute: 'return-to' },
    holdElsewhere: { type: Boolean, attribute: 'hold-elsewhere' },
  };

  /** The `buyButton` item of the buy access layer. */
  declare component: BuyButtonComponent | undefined;
  /**
   * The partner page the market links back to ("Back to …"); default: this page's address. The
   * market shows it only when it is on one of the partner's allowed origins.
   */
  declare returnTo: string | undefined;
  /**
   * The fan's own hold is shown by another element of the page (the categories list, in its
   * category): the button leaves it out rather than say it twice. `<resale-access-layer>` sets it.
   */
  declare holdElsewhere: boolean;

  readonly #clock = new Clock(this);

  override render() {
    const button = this.component?.buyButton;
    if (!button || button.visible !== true) return nothing;
    const cta = button.callToAction;
    const colors = pickColors(cta.colors, button.colors);
    const returnTo = returnAddress(this.returnTo);
    const detail = { componentClass: 'buyButton' };
    const note = cta.enabled === true ? undefined : reservedNote(this.locale, cta.reserved, this.#clock);
    const hold = this.holdElsewhere ? nothing : renderYourHold({ cta, lang: this.locale, clock: this.#clock, host: this, detail, returnTo, colors });
    const waiting = { cta, lang: this.locale, host: this, detail, returnTo, colors };
    const place = renderWaitingPlace(waiting);
    const action = renderWaitingJoin({ ...waiting, count: true }) ?? renderCta({ cta, colors, host: this, detail, returnTo });
    return html`${hold}${action}${note ? html`<p class="reserved" part="reserved">${note}</p>` : nothing}${place}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-buy-button': ResaleBuyButton;
  }
}
