import { luhn, type CardInput } from './payments.provider.js';

/** The card form's fields, in the order the form shows them (and the error summary lists them). */
export const CARD_FIELDS = ['cardNumber', 'expiry', 'cvc', 'cardName'] as const;
export type CardField = (typeof CARD_FIELDS)[number];

/** Why a field was refused: keys of the checkout's messages. */
export type CardFieldError = 'badCard' | 'badExpiry' | 'expiredCard' | 'expiryTooFar' | 'badCvc' | 'badName';

/**
 * What the buyer typed, shown again in a form with errors so nothing has to be typed twice:
 * the card number, the expiry and the name, but never the security code (card rules forbid
 * keeping it after the request, and it is three digits to type again).
 *
 * Why the card number may come back in the page: in this sandbox form the number is posted
 * to the service anyway, and answering it back to the same browser, in a page that is never
 * cached (`no-store`), never logged, and carries no third-party script (CSP), exposes it to
 * nobody new, while making a buyer retype sixteen digits for a typo in the date loses sales.
 * A real provider's hosted card fields keep the number off the service altogether.
 */
export interface TypedCard {
  cardNumber: string;
  expiry: string;
  cardName: string;
}

/** Longest name on a card taken. */
const MAX_NAME = 100;
/** A card expiring later than this many years ahead is a typo. */
const MAX_YEARS_AHEAD = 20;

/**
 * An expiry date as buyers type it: `MM/YY`, `MMYY`, `MM / YY`, `MM-YY`, `M/YY`, with a
 * four-digit year too (`12/2029`). A card is valid through the last day of its month (UTC,
 * as the payment provider counts).
 *
 * @example parseExpiry('1229', Date.parse('2026-03-01')) // { ok: true, month: 12, year: 2029 }
 * @example parseExpiry('02/26', Date.parse('2026-03-01')) // { ok: false, error: 'expiredCard' }
 */
export function parseExpiry(text: string, now: number): { ok: true; month: number; year: number } | { ok: false; error: 'badExpiry' | 'expiredCard' | 'expiryTooFar' } {
  const t = text.trim();
  const m = /^(\d{1,2})\s*[/.-]\s*(\d{2}|\d{4})$/.exec(t) ?? /^(\d{2})(\d{2}|\d{4})$/.exec(t.replace(/\s+/g, ''));
  const month = m ? Number(m[1]) : 0;
  if (!m || month < 1 || month > 12) return { ok: false, error: 'badExpiry' };
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  const today = new Date(now);
  const current = today.getUTCFullYear() * 12 + today.getUTCMonth() + 1;
  if (year * 12 + month < current) return { ok: false, error: 'expiredCard' };
  if (year > today.getUTCFullYear() + MAX_YEARS_AHEAD) return { ok: false, error: 'expiryTooFar' };
  return { ok: true, month, year };
}

/**
 * Reads the card form: the card to charge, or the errors of each wrong field; and what was
 * typed, to show again (see {@link TypedCard}). The card is never stored nor logged.
 */
export function readCard(form: Record<string, unknown>, now: number): { card: CardInput | null; typed: TypedCard; errors: Partial<Record<CardField, CardFieldError>> } {
  const str = (k: CardField) => (typeof form[k] === 'string' ? (form[k] as string) : '');
  // Bounded, so a huge post is not echoed whole; hono/jsx escapes what is.
  const typed: TypedCard = { cardNumber: str('cardNumber').slice(0, 40), expiry: str('expiry').slice(0, 20), cardName: str('cardName').slice(0, MAX_NAME + 20) };
  const errors: Partial<Record<CardField, CardFieldError>> = {};
  const number = str('cardNumber').replace(/[\s-]/g, '');
  // Checked here (Luhn) rather than sent to the provider: a typo is a field error, not a decline.
  if (!/^\d{12,19}$/.test(number) || !luhn(number)) errors.cardNumber = 'badCard';
  const expiry = parseExpiry(str('expiry'), now);
  if (!expiry.ok) errors.expiry = expiry.error;
  const cvc = str('cvc').trim();
  if (!/^\d{3,4}$/.test(cvc)) errors.cvc = 'badCvc';
  const name = str('cardName').trim().replace(/\s+/g, ' ');
  if (name.length > MAX_NAME) errors.cardName = 'badName';
  if (Object.keys(errors).length > 0 || !expiry.ok) return { card: null, typed, errors };
  return { card: { number, expMonth: expiry.month, expYear: expiry.year, cvc, ...(name ? { name } : {}) }, typed, errors };
}
