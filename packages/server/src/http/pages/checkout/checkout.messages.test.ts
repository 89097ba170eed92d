import { describe, expect, it } from 'vitest';
import { paidWith } from './checkout.messages.js';

describe('how the receipt says the buyer paid', () => {
  it('names a card by its last four, a wallet by its name and the card behind it, a bank method by its name', () => {
    expect(paidWith({ method: 'card', cardLast4: '4242' }, 'en')).toBe('Card ending in 4242');
    expect(paidWith({ method: null, cardLast4: '4242' }, 'es')).toBe('Tarjeta terminada en 4242');
    expect(paidWith({ method: 'apple_pay', cardLast4: '0005' }, 'en')).toBe('Apple Pay, card ending in 0005');
    expect(paidWith({ method: 'google_pay', cardLast4: '0005' }, 'es')).toBe('Google Pay, tarjeta terminada en 0005');
    expect(paidWith({ method: 'ideal', cardLast4: null }, 'en')).toBe('iDEAL');
    expect(paidWith({ method: 'p24', cardLast4: null }, 'es')).toBe('Przelewy24');
  });

  it('says nothing it does not know', () => {
    expect(paidWith({ method: 'some_new_method', cardLast4: null }, 'en')).toBeNull();
    expect(paidWith({ method: null, cardLast4: null }, 'en')).toBeNull();
    expect(paidWith(null, 'en')).toBeNull();
    expect(paidWith(undefined, 'en')).toBeNull();
  });
});
