/**
 * The card networks a card number belongs to, told from its first digits (the issuer
 * identification ranges the networks publish), so the checkout can name the card as it is
 * typed. Naming is a courtesy only: whether a card is accepted is the payment provider's to
 * say. The hosted pages' script writes this function's own source into itself (as it does
 * `percentOf`), so it must stay self-contained: no import, no closure, ES2015.
 *
 * @example cardBrand('4242 4242') // 'Visa'
 * @example cardBrand('2223 0031') // 'Mastercard'
 * @example cardBrand('12') // null
 */
export function cardBrand(typed: string): string | null {
  var digits = String(typed).replace(/[\s-]/g, '');
  if (!/^\d{2,19}$/.test(digits)) return null;
  var n = function (len: number): number {
    return Number(digits.slice(0, len));
  };
  if (digits.charAt(0) === '4') return 'Visa';
  if ((n(2) >= 51 && n(2) <= 55) || (digits.length >= 4 && n(4) >= 2221 && n(4) <= 2720)) return 'Mastercard';
  if (n(2) === 34 || n(2) === 37) return 'American Express';
  if (digits.length >= 4 && (n(4) === 6011 || (n(3) >= 644 && n(3) <= 649))) return 'Discover';
  if (n(2) === 65) return 'Discover';
  if (digits.length >= 4 && n(4) >= 3528 && n(4) <= 3589) return 'JCB';
  if (n(2) === 36 || n(2) === 38 || n(2) === 39 || (digits.length >= 3 && n(3) >= 300 && n(3) <= 305)) return 'Diners Club';
  if (n(2) === 62) return 'UnionPay';
  if (digits.length >= 4 && ['5018', '5020', '5038', '6304', '6759', '6761', '6763'].indexOf(digits.slice(0, 4)) >= 0) return 'Maestro';
  return null;
}
