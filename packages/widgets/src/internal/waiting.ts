import { html, nothing, type TemplateResult } from 'lit';
import type { Lang } from '@resale/shared/lang';
import { ResaleCtaClickEvent, type CtaClickDetail } from '../events/cta-click.js';
import { cssProps } from './css-props.js';
import { withReturnTo } from './cta.js';
import { t, ticketCount } from './i18n.js';
import { isObject, safeUrl } from './safe.js';

/**
 * The show's waiting list, as the buy access layer says it on a call to action (`waitingList`,
 * while the organiser has it on and resale is open):
 * - with nothing for sale, {@link renderWaitingJoin} puts "Join the waiting list" (the market's
 *   join form) where the disabled button would be, and "12 fans waiting" under it: a fan is
 *   never left at a dead end;
 * - {@link renderWaitingPlace}: the fan's own place in line (answers signed for the fan), "You
 *   are #3 in line for 2 tickets", linking the market where they can leave. An offer holding
 *   tickets for the fan is the fan's own hold (`yourHold`, held.ts) and is said there.
 * Anything not understood (no count, a URL that is not http(s)) renders nothing: the component
 * falls back to what it showed without a list.
 */

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/** The join link of a call to action: only with nothing for sale, a usable `joinUrl` and the fan not already in line. */
function joinOf(cta: { enabled?: unknown; waitingList?: unknown }): { url: string; fans: number } | undefined {
  const w = cta.waitingList;
  if (cta.enabled === true || !isObject(w) || !isCount(w['fans']) || w['yours'] !== undefined) return undefined;
  const url = safeUrl(w['joinUrl']);
  return url ? { url, fans: w['fans'] } : undefined;
}

/** What {@link renderWaitingJoin} and {@link renderWaitingPlace} need. */
export interface WaitingInput {
  /** The call to action that may carry `waitingList`. */
  cta: { enabled?: unknown; waitingList?: unknown };
  lang: Lang;
  /** The element that dispatches `resale-cta-click`. */
  host: HTMLElement;
  /** What the component's own call to action sends, without `url` and `waitingList`. */
  detail: Omit<CtaClickDetail, 'url' | 'waitingList'>;
  /** The way back to the partner, as `renderCta` takes it. */
  returnTo?: string | undefined;
  /** The call to action's colours, for the join link. */
  colors?: { background?: string | undefined; text?: string | undefined };
  /** Say how many fans wait under the link (the buy button does; each category of a list would repeat it). */
  count?: boolean;
}

/** A link that dispatches the cancelable `resale-cta-click` (`waitingList: kind`) before it navigates. */
function link(input: WaitingInput, kind: 'join' | 'place', url: string, text: string, part: string, cls: string, colored: boolean): TemplateResult {
  const href = withReturnTo(url, input.returnTo);
  const onClick = (e: MouseEvent) => {
    if (!input.host.dispatchEvent(new ResaleCtaClickEvent({ ...input.detail, url: href, waitingList: kind }))) e.preventDefault();
  };
  const props = colored ? { '--_cta-bg': input.colors?.background, '--_cta-fg': input.colors?.text } : {};
  return html`<a class=${cls} part=${part} href=${href} ${cssProps(props)} @click=${onClick}>${text}</a>`;
}

/**
 * "Join the waiting list" in place of a disabled call to action, and with `count` "12 fans
 * waiting" under it (nothing when nobody waits yet); undefined when the call to action offers no
 * join (tickets for sale, no list, the fan already in line, nothing usable): render the call to
 * action as usual then.
 */
export function renderWaitingJoin(input: WaitingInput): TemplateResult | undefined {
  const join = joinOf(input.cta);
  if (!join) return undefined;
  const fans = join.fans;
  return html`${link(input, 'join', join.url, t(input.lang, 'waitingJoin'), 'cta waiting-join', 'cta waiting-join', true)}${input.count && fans > 0
    ? html`<p class="waiting-fans" part="waiting-fans">${t(input.lang, fans === 1 ? 'waitingFans_one' : 'waitingFans_other', { n: new Intl.NumberFormat(input.lang).format(fans) })}</p>`
    : nothing}`;
}

/**
 * The fan's place in line ("You are #3 in line for 2 tickets · See your place"), or `nothing`
 * when the answer carries none, it is not understood, or an offer already holds tickets for the
 * fan (said by their own hold).
 */
export function renderWaitingPlace(input: WaitingInput): TemplateResult | typeof nothing {
  const w = input.cta.waitingList;
  const yours = isObject(w) ? w['yours'] : undefined;
  if (!isObject(yours) || yours['state'] !== 'WAITING' || !isCount(yours['position']) || yours['position'] < 1 || !isCount(yours['quantity']) || yours['quantity'] < 1) return nothing;
  const url = safeUrl(yours['url']);
  if (!url) return nothing;
  const lang = input.lang;
  return html`<p class="waiting-place" part="waiting-place">
    ${t(lang, 'waitingPlace', { position: new Intl.NumberFormat(lang).format(yours['position']), count: ticketCount(lang, yours['quantity']) })}
    ${link(input, 'place', url, t(lang, 'waitingPlaceLink'), 'waiting-place-link', 'waiting-place-link', false)}
  </p>`;
}

/** Whether a call to action carries the fan's place in line (for an element that says it once for several). */
export function hasWaitingPlace(cta: { waitingList?: unknown } | null | undefined): boolean {
  const w = cta?.waitingList;
  return isObject(w) && isObject(w['yours']) && w['yours']['state'] === 'WAITING';
}
