import { nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import type { SellBannerComponent } from '../../internal/types.js';
import { renderBanner } from '../buy-banner/banner-template.js';
import { sellBannerStyles } from './sell-banner.styles.js';

/**
 * The sell banner of the sell access layer (`components[]` of `POST /v1/wrapper/accesslayer`),
 * typically above a My tickets page. The partner's server calls the API (private key) and passes
 * the component in.
 *
 * @csspart base - the banner surface
 * @csspart image - the optional image
 * @csspart body - title and description
 * @csspart title - the heading
 * @csspart description - the text
 * @csspart cta - the call to action
 * @csspart cta-disabled - the call to action when disabled (a `<button disabled>`)
 * @event resale-cta-click - before the call to action navigates; cancelable
 */
export class ResaleSellBanner extends ResaleElement {
  static override styles = sellBannerStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
  };

  /** The `sellBanner` component. */
  declare component: SellBannerComponent | undefined;

  override render() {
    const banner = this.component?.sellBanner;
    return banner ? renderBanner(this, banner, 'sellBanner') : nothing;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-sell-banner': ResaleSellBanner;
  }
}
