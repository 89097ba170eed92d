import { ApiError } from './errors.js';

/**
 * Money is integer minor units plus an ISO 4217 currency in storage and arithmetic;
 * the API speaks decimal numbers (or numeric strings) in major units, as the spec does.
 *
 * Conversion goes through the decimal string, never through float multiplication, so
 * `19.99` is exactly 1999 cents. A value with more decimals than the currency has is
 * refused rather than silently rounded: a partner's price is never changed by us.
 */

const digitsCache = new Map<string, number>();

/** Number of minor-unit digits of a currency (EUR 2, JPY 0, KWD 3). */
export function currencyDigits(currency: string): number {
  const code = currency.toUpperCase();
  const cached = digitsCache.get(code);
  if (cached !== undefined) return cached;
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
    .maximumFractionDigits ?? 2;
  digitsCache.set(code, digits);
  return digits;
}

let known: Set<string> | null = null;

/** True when `code` is an ISO 4217 currency code Intl knows (any letter case). */
export function isCurrency(code: string): boolean {
  if (!/^[A-Za-z]{3}$/.test(code)) return false;
  known ??= new Set(Intl.supportedValuesOf('currency'));
  return known.has(code.toUpperCase());
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Converts a decimal amount in major units to integer minor units.
 *
 * @throws ApiError 400 `invalid_value` naming `path` when the amount is not a plain
 *   non-negative decimal or has more decimals than the currency allows.
 * @example toMinor('19.99', 'EUR', 'price') // 1999
 */
export function toMinor(amount: number | string, currency: string, path = 'price'): number {
  const text = typeof amount === 'number' ? numberToPlainString(amount) : amount.trim();
  const m = text === null ? null : DECIMAL.exec(text);
  if (!m) throw ApiError.field('invalid_value', path, `${path} must be a decimal amount such as 19.99`);
  if (m[1]) throw ApiError.field('out_of_range', path, `${path} must not be negative`);
  const digits = currencyDigits(currency);
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) {
    throw ApiError.field('invalid_value', path, `${path} has more decimals than ${currency.toUpperCase()} allows (${digits})`);
  }
  const minor = BigInt(m[2]!) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw ApiError.field('out_of_range', path, `${path} is too large`);
  return Number(minor);
}

/** Converts integer minor units back to a number in major units for the wire. */
export function toMajor(minor: number, currency: string): number {
  const digits = currencyDigits(currency);
  return Number((minor / 10 ** digits).toFixed(digits));
}

function numberToPlainString(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const s = String(n);
  return /e/i.test(s) ? null : s;
}
