/**
 * Countries a seller's payout account may be opened in with the payout provider (Stripe
 * Connect, Express): the European Economic Area, the United Kingdom and Switzerland, where a
 * European platform's transfers reach without cross-border payouts, and the United States,
 * Canada and Australia. An account's country is fixed when it is opened (Stripe takes the
 * platform's own when none is given), so the seller says it before the account exists.
 */
export const PAYOUT_COUNTRIES = [
  'AT', 'AU', 'BE', 'BG', 'CA', 'CH', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GR', 'HR',
  'HU', 'IE', 'IS', 'IT', 'LI', 'LT', 'LU', 'LV', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'US',
] as const;

export type PayoutCountry = (typeof PAYOUT_COUNTRIES)[number];

const KNOWN: ReadonlySet<string> = new Set(PAYOUT_COUNTRIES);

/** The ISO 3166-1 alpha-2 code, when it is one payouts can go to (any case, spaces around); else null. */
export function payoutCountry(value: string | null | undefined): PayoutCountry | null {
  const code = (value ?? '').trim().toUpperCase();
  return KNOWN.has(code) ? (code as PayoutCountry) : null;
}

/** The named, sorted lists already made, per language (the pages' few languages: made once, not per page view). */
const optionsByLang = new Map<string, readonly { code: PayoutCountry; name: string }[]>();

/** The countries with their names in `lang` (the platform's ICU data), in that language's alphabetical order. */
export function payoutCountryOptions(lang: string): readonly { code: PayoutCountry; name: string }[] {
  let options = optionsByLang.get(lang);
  if (!options) {
    const names = new Intl.DisplayNames([lang], { type: 'region' });
    const collator = new Intl.Collator(lang);
    options = PAYOUT_COUNTRIES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => collator.compare(a.name, b.name));
    optionsByLang.set(lang, options);
  }
  return options;
}
