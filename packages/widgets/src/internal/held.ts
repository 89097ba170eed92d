import { html, nothing, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { Lang } from '@resale/shared/lang';
import { localeOf } from '@resale/shared/format';
import { ResaleCtaClickEvent, type CtaClickDetail } from '../events/cta-click.js';
import { cssProps, type CssProps } from './css-props.js';
import { withReturnTo } from './cta.js';
import { t, ticketCount, type MessageKey } from './i18n.js';
import { isObject, safeUrl } from './safe.js';

/**
 * Tickets held in checkouts, as the buy access layer says them on a call to action:
 * - `yourHold` (answers the partner's server signed for the fan): the fan's own checkout still
 *   holding tickets, rendered by {@link renderYourHold} with the time left ticking, the way back
 *   to the checkout and the way to release them;
 * - `reserved`: tickets of the scope in other checkouts, said by {@link reservedNote} where
 *   "none for sale" would be ("Reserved by another fan — may be back at 18:42").
 * The time is read with `Date.now()` (tests move it with Vitest's fake timers) and kept current by
 * a {@link Clock} on the element.
 */

/** The longest delay `setTimeout` keeps (about 24.8 days); a later wake-up is re-armed then. */
const MAX_DELAY = 2 ** 31 - 1;

/**
 * Re-renders its element when what it shows changes with time: each render reads {@link now}
 * once and asks {@link wakeAt} for the next moment that changes it (the next second of a
 * countdown, the time a hold ends); after the render one timer is armed for the earliest of them.
 * No timer runs while nothing asked, nor while the element is out of the page.
 */
export class Clock implements ReactiveController {
  readonly #host: ReactiveControllerHost & HTMLElement;
  #wake = Infinity;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(host: ReactiveControllerHost & HTMLElement) {
    this.#host = host;
    host.addController(this);
  }

  /** The time, in milliseconds since the epoch. */
  now(): number {
    return Date.now();
  }

  /** Asks for a render at `at` (ms): the earliest moment asked during a render wins. */
  wakeAt(at: number): void {
    if (at < this.#wake) this.#wake = at;
  }

  hostConnected(): void {
    // Back in the page: render with the time now (a countdown may have ended meanwhile), which
    // arms the timer again. Before the first render this is the update already pending.
    this.#host.requestUpdate();
  }

  hostUpdate(): void {
    this.#wake = Infinity;
  }

  hostUpdated(): void {
    this.#stop();
    if (this.#wake === Infinity || !this.#host.isConnected) return;
    const delay = Math.min(Math.max(0, this.#wake - this.now()), MAX_DELAY);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#host.requestUpdate();
    }, delay);
  }

  hostDisconnected(): void {
    this.#stop();
  }

  #stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n > 0;
const instant = (value: unknown): number => (typeof value === 'string' ? Date.parse(value) : NaN);

/** `hh:mm` in the viewer's time zone, written as the service's pages write times (`en` as en-GB: 24-hour). */
export function clockTime(lang: Lang, ms: number): string {
  return new Intl.DateTimeFormat(localeOf(lang), { hour: '2-digit', minute: '2-digit' }).format(ms);
}

/** `m:ss` of a number of seconds (`75:00` past an hour: holds last minutes). */
export function minutesSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * The note for tickets of a scope held in other checkouts, or undefined when `reserved` is absent
 * or not understood: "Reserved by another fan — may be back at 18:42" (`whose: 'others'`, an
 * answer signed for the fan), "Reserved in a checkout — …" (`any`: the public answer cannot tell
 * whose), "… may be back any moment" once `backAt` is past, without the second half when `backAt`
 * is not a date. `count` starts it with the tickets instead ("2 tickets reserved by other fans —
 * …"), for a list's counts. A future `backAt` asks the clock to render again then.
 */
export function reservedNote(lang: Lang, reserved: unknown, clock: Clock, count = false): string | undefined {
  if (!isObject(reserved) || !isCount(reserved['tickets'])) return undefined;
  const n = reserved['tickets'];
  const plural = n === 1 ? 'one' : 'other';
  const whose = reserved['whose'] === 'others' ? 'others' : 'any';
  const what = t(lang, `${count ? 'heldCount' : 'held'}_${whose}_${plural}` as MessageKey, { count: ticketCount(lang, n) });
  const backAt = instant(reserved['backAt']);
  if (Number.isNaN(backAt)) return what;
  const now = clock.now();
  if (backAt > now) clock.wakeAt(backAt);
  const when = backAt > now ? t(lang, `backAt_${plural}`, { time: clockTime(lang, backAt) }) : t(lang, `backSoon_${plural}`);
  return `${what} — ${when}`;
}

/** What {@link renderYourHold} needs. */
export interface HoldInput {
  /** The call to action that may carry `yourHold`. */
  cta: { yourHold?: unknown };
  lang: Lang;
  clock: Clock;
  /** The element that dispatches `resale-cta-click`. */
  host: HTMLElement;
  /** What the component's own call to action sends, without `url` and `hold`. */
  detail: Omit<CtaClickDetail, 'url' | 'hold'>;
  /** The way back to the partner, as {@link renderCta} takes it. */
  returnTo?: string | undefined;
  /** The call to action's colours, for the Continue link. */
  colors?: { background?: string | undefined; text?: string | undefined };
}

/**
 * The fan's own hold of a call to action (`yourHold`), or `nothing` when there is none or it is
 * not usable (no tickets, no date, a URL that is not http(s): no link is ever made of one):
 * "You have 2 tickets reserved", the time left (`m:ss`, every second), "Continue to checkout"
 * (the checkout) and "Release them" (the market page). Both links carry `returnTo` and dispatch
 * the cancelable `resale-cta-click` (`hold: 'continue' | 'release'`). At 0 it says "Your
 * reservation has ended" and the links go. A polite live region speaks only when less than 5
 * minutes, then less than 1 minute, are left, and at the end: never each second.
 */
export function renderYourHold({ cta, lang, clock, host, detail, returnTo, colors }: HoldInput): TemplateResult | typeof nothing {
  const hold = cta.yourHold;
  if (!isObject(hold) || !isCount(hold['tickets'])) return nothing;
  const expiresAt = instant(hold['expiresAt']);
  const checkout = safeUrl(hold['url']);
  const release = safeUrl(hold['releaseUrl']);
  if (Number.isNaN(expiresAt) || !checkout || !release) return nothing;
  const n = hold['tickets'];
  const plural = n === 1 ? 'one' : 'other';
  const left = Math.max(0, expiresAt - clock.now());
  const seconds = Math.ceil(left / 1000);
  // The next change of the seconds shown (the end included).
  if (seconds > 0) clock.wakeAt(clock.now() + (left - (seconds - 1) * 1000));
  const announcement = seconds <= 0 ? t(lang, 'holdEnded') : seconds < 60 ? t(lang, 'holdUnderOneMinute') : seconds < 300 ? t(lang, 'holdUnderFiveMinutes') : '';
  const link = (kind: 'continue' | 'release', url: string, text: string, part: string, cls: string, props: CssProps = {}) => {
    const href = withReturnTo(url, returnTo);
    const onClick = (e: MouseEvent) => {
      if (!host.dispatchEvent(new ResaleCtaClickEvent({ ...detail, url: href, hold: kind }))) e.preventDefault();
    };
    return html`<a class=${cls} part=${part} href=${href} ${cssProps(props)} @click=${onClick}>${text}</a>`;
  };
  const ended = seconds <= 0;
  // One template for both states, so the live region stays the same node and its change is spoken.
  // Once ended, the visible sentence is the live region's: hidden from assistive technology, read once.
  return html`<div class="your-hold" part="your-hold" ?data-ended=${ended}>
    ${ended
      ? html`<p class="your-hold-title" part="your-hold-title" aria-hidden="true">${t(lang, 'holdEnded')}</p>`
      : html`<p class="your-hold-title" part="your-hold-title">
            ${t(lang, `yourHold_${plural}`, { count: ticketCount(lang, n) })}
            <span class="your-hold-time" part="your-hold-time" role="timer">${t(lang, 'holdLeft', { time: minutesSeconds(seconds) })}</span>
          </p>
          <div class="your-hold-actions">
            ${link('continue', checkout, t(lang, 'continueCheckout'), 'your-hold-continue', 'cta your-hold-continue', { '--_cta-bg': colors?.background, '--_cta-fg': colors?.text })}
            ${link('release', release, t(lang, `release_${plural}`), 'your-hold-release', 'your-hold-release')}
          </div>`}
    <span class="visually-hidden" role="status" aria-live="polite">${announcement}</span>
  </div>`;
}
