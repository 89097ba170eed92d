import type { Lang } from '@resale/shared/lang';
import type { PriceLimits } from '../../../domain/listings/listings.pricing.js';
import { currencyDigits } from '../../../lib/money.js';
import { sm } from './sell.messages.js';

/**
 * The sell pages' money in words and the price rules they show, pure functions shared by the
 * loads (an error that names the face value) and the views (prices, limits, breakdowns).
 */

/** An amount in minor units as the page shows it: "€45.50". */
export function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** An amount in minor units as typed in a price field ("45.50"); empty for none. */
export function typed(minor: number | null, currency: string): string {
  return minor === null ? '' : (minor / 10 ** currencyDigits(currency)).toFixed(currencyDigits(currency));
}

/**
 * What the seller may ask, said before they type: the face value and the organiser's range (or
 * that there is none). While fans wait under a face-value cap, the cap comes first and says why
 * the price cannot go higher (it stands in for the face value it names).
 */
export function limitsText(l: PriceLimits, currency: string, lang: Lang): string {
  const f = (m: number) => money(m, currency, lang);
  const cap = l.cap === null ? '' : `${l.cap.fans === 1 ? sm(lang, 'waitingCapOne', { price: f(l.cap.capMinor) }) : sm(lang, 'waitingCap', { fans: new Intl.NumberFormat(lang).format(l.cap.fans), price: f(l.cap.capMinor) })} `;
  if (l.fixedMinor !== null) return cap + sm(lang, 'priceFixed', { price: f(l.fixedMinor) });
  const face = cap !== '' ? cap : l.originalMinor !== null ? `${sm(lang, 'faceValue', { price: f(l.originalMinor) })} ` : '';
  // Under the cap a maximum equal to it was said by the cap's sentence; a lower one (the rules') still counts.
  const max = l.cap !== null && l.maxMinor === l.cap.capMinor ? null : l.maxMinor;
  if (l.minMinor !== null && max !== null) return face + sm(lang, 'priceRange', { min: f(l.minMinor), max: f(max) });
  if (l.minMinor !== null) return face + sm(lang, 'priceMin', { min: f(l.minMinor) });
  if (max !== null) return face + sm(lang, 'priceMax', { max: f(max) });
  return l.cap !== null ? cap.trimEnd() : face + sm(lang, 'priceNoLimit');
}

/** Whether a price asks more than the ticket's face value (publishing it then needs the seller's confirmation). */
export function aboveFace(priceMinor: number | null, limits: PriceLimits): boolean {
  if (priceMinor === null || limits.fixedMinor !== null || limits.originalMinor === null || limits.originalMinor <= 0) return false;
  // A price outside the organiser's range is refused anyway: no confirmation to ask for.
  if ((limits.maxMinor !== null && priceMinor > limits.maxMinor) || (limits.minMinor !== null && priceMinor < limits.minMinor)) return false;
  return priceMinor > limits.originalMinor;
}

/** How far above face value, in words: "8×" from twice up, "12 % above" below. */
export function howFarAbove(priceMinor: number, faceMinor: number, lang: Lang): string {
  const ratio = priceMinor / faceMinor;
  if (ratio >= 2) return sm(lang, 'timesFace', { times: new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(ratio) });
  return sm(lang, 'percentAboveFace', { percent: new Intl.NumberFormat(lang, { maximumFractionDigits: 0 }).format(Math.max(1, Math.round((ratio - 1) * 100))) });
}
