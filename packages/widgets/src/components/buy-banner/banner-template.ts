import { html, nothing, type TemplateResult } from 'lit';
import { cssProps } from '../../internal/css-props.js';
import { renderCta } from '../../internal/cta.js';
import { pickColors, safeUrl } from '../../internal/safe.js';
import type { BuyBanner, SellBanner } from '../../internal/types.js';

/**
 * The banner body shared by `<resale-buy-banner>` and `<resale-sell-banner>`. The banner's
 * colours paint its surface; its call to action uses its own colours when configured, else the
 * banner's colours inverted, so the button keeps the contrast the partner chose for the text.
 * `returnTo` (buy banner only) goes on the call to action's link (see `withReturnTo`).
 */
export function renderBanner(host: HTMLElement, banner: BuyBanner | SellBanner, componentClass: 'buyBanner' | 'sellBanner', returnTo?: string): TemplateResult | typeof nothing {
  if (!banner || banner.visible !== true) return nothing;
  const surface = pickColors(banner.colors);
  const cta = pickColors(banner.callToAction.colors, { background: surface.text, text: surface.background });
  const image = safeUrl(banner.image);
  return html`<section class="base" part="base" aria-labelledby="title" ${cssProps({ '--_banner-bg': surface.background, '--_banner-fg': surface.text })}>
    ${image ? html`<img class="image" part="image" src=${image} alt="" loading="lazy" />` : nothing}
    <div class="body" part="body">
      <h2 class="title" part="title" id="title">${banner.title}</h2>
      <p class="description" part="description">${banner.description}</p>
    </div>
    ${renderCta({ cta: banner.callToAction, colors: cta, host, detail: { componentClass }, returnTo })}
  </section>`;
}
