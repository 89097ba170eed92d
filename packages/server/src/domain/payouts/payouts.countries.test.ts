import { describe, expect, it } from 'vitest';
import { PAYOUT_COUNTRIES, payoutCountry, payoutCountryOptions } from './payouts.countries.js';

describe('the countries payouts can go to', () => {
  it('reads a country code in any case, and nothing else', () => {
    expect(payoutCountry('es')).toBe('ES');
    expect(payoutCountry(' GB ')).toBe('GB');
    for (const bad of ['', 'KP', 'ESP', 'Spain', null, undefined, 'E', '<script>']) expect(payoutCountry(bad), String(bad)).toBeNull();
  });

  it('names each in the page’s language, in that language’s order', () => {
    const es = payoutCountryOptions('es');
    expect(es).toHaveLength(PAYOUT_COUNTRIES.length);
    expect(es.find((o) => o.code === 'DE')!.name).toBe('Alemania');
    expect(es[0]!.code).toBe('DE');
    const en = payoutCountryOptions('en');
    expect(en.find((o) => o.code === 'GB')!.name).toBe('United Kingdom');
    expect(en.map((o) => o.name)).toEqual([...en.map((o) => o.name)].sort((a, b) => a.localeCompare(b, 'en')));
  });
});
