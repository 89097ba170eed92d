import { describe, expect, it } from 'vitest';
import { cardBrand } from './cards.js';

describe('cardBrand', () => {
  it('names each network from its first digits, spaces and dashes ignored', () => {
    expect(cardBrand('4242 4242 4242 4242')).toBe('Visa');
    expect(cardBrand('5555-5555')).toBe('Mastercard');
    expect(cardBrand('2223003122003222')).toBe('Mastercard');
    expect(cardBrand('2721')).toBeNull();
    expect(cardBrand('3782 822463 10005')).toBe('American Express');
    expect(cardBrand('6011 1111')).toBe('Discover');
    expect(cardBrand('6445')).toBe('Discover');
    expect(cardBrand('3530 1113')).toBe('JCB');
    expect(cardBrand('3056 9309')).toBe('Diners Club');
    expect(cardBrand('6200 0000')).toBe('UnionPay');
    expect(cardBrand('6759 6498')).toBe('Maestro');
  });

  it('names nothing before two digits, for unknown ranges or for what is not a number', () => {
    expect(cardBrand('')).toBeNull();
    expect(cardBrand('5')).toBeNull();
    expect(cardBrand('1234 5678')).toBeNull();
    expect(cardBrand('42x2')).toBeNull();
    expect(cardBrand('4'.repeat(20))).toBeNull();
  });

  it('runs from its own source, as the pages’ script embeds it', () => {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the embedding is the point
    const embedded = new Function(`${cardBrand.toString()}; return cardBrand;`)() as typeof cardBrand;
    expect(embedded('4000 0025 0000 3155')).toBe('Visa');
    expect(embedded('3782')).toBe('American Express');
  });
});
