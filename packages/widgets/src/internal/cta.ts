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
  /**
   * The partner page to come back to, already resolved by {@link returnAddress}: added to the
   * link as `returnTo` (see {@link withReturnTo}). Buy components pass it; sell components do not.
   */
  returnTo?: string | undefined;
}

/**
 * Whether a call to action leads somewhere: enabled, with an http(s) URL. The buy banner and the
 * buy modal exist only to send fans to offers, so they render only when this holds.
 */
export function isOffered(cta: { enabled?: unknown; url?: unknown } | null | undefined): boolean {
  return cta?.enabled === true && safeUrl(cta.url) !== undefined;
}

/** The query parameter the market page reads its way back to the partner from (the spec's `returnTo`). */
export const RETURN_TO_PARAM = 'returnTo';

/**
 * Where the fan comes back to from the market: the element's `return-to` when it is an http(s)
 * URL, else the page the element is on (`location.href` without its fragment), else undefined
 * (a page that is not http(s), such as `about:blank`). The market page shows it as "Back to …"
 * only when its origin is one of the partner's allowed origins (or the partner's server tagged
 * it), so a value put here by anyone else never becomes an open redirect.
 */
export function returnAddress(value: string | null | undefined): string | undefined {
  const given = safeUrl(value);
  if (given) return given;
  if (typeof location === 'undefined') return undefined;
  const here = safeUrl(location.href);
  return here?.split('#')[0];
}

/**
 * `url` with `returnTo` set to `back`, unless it already carries one: a URL the partner's server
 * made through the buying-flow entry URL API has a tagged `returnTo` the market trusts, which a
 * page's address must not replace. Other parameters (`oneTimeToken` included) are kept.
 *
 * @example withReturnTo('https://resale.example/market/p/e?showId=s1', 'https://tickets.example/e/1') // '…?showId=s1&returnTo=https%3A%2F%2Ftickets.example%2Fe%2F1'
 */
export function withReturnTo(url: string, back: string | undefined): string {
  if (!back) return url;
  const u = new URL(url);
  if (u.searchParams.has(RETURN_TO_PARAM)) return url;
  u.searchParams.set(RETURN_TO_PARAM, back);
  return u.href;
}

/**
 * A call to action: an `<a href>` when enabled with an http(s) URL, otherwise a disabled
 * `<button>` (a link without a safe URL has nowhere to go). The text is a text binding.
 * Colours go in as custom properties through {@link cssProps} (CSSOM writes, never a `style`
 * attribute), so they apply under a CSP without 'unsafe-inline'.
 * A click first dispatches the cancelable `resale-cta-click` (its `url` is the link's, `returnTo`
 * included); `preventDefault()` on it stops the navigation.
 */
export function renderCta({ cta, colors, host, detail, part, returnTo }: CtaInput): TemplateResult {
  const safe = cta.enabled ? safeUrl(cta.url) : undefined;
  const url = safe && withReturnTo(safe, returnTo);
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
