import { html, type TemplateResult } from 'lit';
import { ResaleCtaClickEvent, type CtaClickDetail } from '../events/cta-click.js';
import { cssProps } from './css-props.js';
import { safeUrl } from './safe.js';

/** What {@link renderCta} needs. */
export interface CtaInput {
  cta: { text: string; url: string; enabled: boolean };
  /** Already validated colours, highest priority first resolved by the caller. */
  colors?: { background?: string | undefined; text?: string | undefined };
  /** The element that dispatches `resale-cta-click`. */
  host: HTMLElement;
  detail: Omit<CtaClickDetail, 'url'>;
  /** Extra part names beside `cta`. */
  part?: string;
}

/**
 * A call to action: an `<a href>` when enabled with an http(s) URL, otherwise a disabled
 * `<button>` (a link without a safe URL has nowhere to go). The text is a text binding.
 * Colours go in as custom properties through {@link cssProps} (CSSOM writes, never a `style`
 * attribute), so they apply under a CSP without 'unsafe-inline'.
 * A click first dispatches the cancelable `resale-cta-click`; `preventDefault()` on it stops the
 * navigation.
 */
export function renderCta({ cta, colors, host, detail, part }: CtaInput): TemplateResult {
  const url = cta.enabled ? safeUrl(cta.url) : undefined;
  const parts = part ? `cta ${part}` : 'cta';
  if (!url) {
    return html`<button class="cta" part="${parts} cta-disabled" type="button" disabled>${cta.text}</button>`;
  }
  const onClick = (e: MouseEvent) => {
    const proceed = host.dispatchEvent(new ResaleCtaClickEvent({ ...detail, url }));
    if (!proceed) e.preventDefault();
  };
  return html`<a class="cta" part=${parts} href=${url} ${cssProps({ '--_cta-bg': colors?.background, '--_cta-fg': colors?.text })} @click=${onClick}>${cta.text}</a>`;
}
