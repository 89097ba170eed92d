import { nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import { isOffered, returnAddress } from '../../internal/cta.js';
import type { BuyBannerComponent } from '../../internal/types.js';
import { renderBanner } from './banner-template.js';
import { bannerStyles } from './buy-banner.styles.js';

/**
 * A banner telling fans that resale tickets exist for the event, with one call to action.
 *
 * It renders only while there is something to buy: a banner whose call to action is disabled
 * (nothing for sale, or resale closed) or has no http(s) URL renders nothing, so a sold-out
 * page never advertises resale with a greyed button. Its link carries `returnTo` (the
 * `return-to` attribute, else the page's address).
 *
 * @csspart base - the banner surface (`<section>`)
 * @csspart image - the optional image
 * @csspart body - title and description
 * @csspart title - the heading
 * @csspart description - the text
 * @csspart cta - the call to action (`<a>`)
 * @cssproperty --resale-color-surface - banner background when the server sends none
 * @event resale-cta-click - before the call to action navigates; cancelable
 */
export class ResaleBuyBanner extends ResaleElement {
  static override styles = bannerStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
    returnTo: { type: String, attribute: 'return-to' },
  };

  /** The `buyBanner` item of the buy access layer. */
  declare component: BuyBannerComponent | undefined;
  /**
   * The partner page the market links back to ("Back to …"); default: this page's address. The
   * market shows it only when it is on one of the partner's allowed origins.
   */
  declare returnTo: string | undefined;

  override render() {
    const banner = this.component?.buyBanner;
    return banner && isOffered(banner.callToAction) ? renderBanner(this, banner, 'buyBanner', returnAddress(this.returnTo)) : nothing;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-buy-banner': ResaleBuyBanner;
  }
}
