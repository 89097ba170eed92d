import { describe, expect, it } from 'vitest';
import { placeText, ticketName } from './seats.js';

describe('ticketName', () => {
  it('names a ticket by its category, then its place, in the page’s language', () => {
    expect(ticketName('VIP', { section: 'A', row: '2', seat: '7' }, 'en')).toBe('VIP · Section A · Row 2 · Seat 7');
    expect(ticketName('VIP', { section: 'A', row: '2', seat: '7' }, 'es')).toBe('VIP · Sector A · Fila 2 · Asiento 7');
    expect(ticketName('General', { section: null, row: null, seat: null }, 'en')).toBe('General');
  });

  it('says a section named as its category once (“Stalls · Row A · Seat 5”, not “Stalls · Section Stalls …”)', () => {
    expect(ticketName('Stalls', { section: 'Stalls', row: 'A', seat: '5' }, 'en')).toBe('Stalls · Row A · Seat 5');
    expect(ticketName('Stalls', { section: ' stalls ', row: 'A', seat: '5' }, 'en')).toBe('Stalls · Row A · Seat 5');
    // The place alone still names its section.
    expect(placeText({ section: 'Stalls', row: 'A', seat: '5' }, 'en')).toBe('Section Stalls · Row A · Seat 5');
  });
});
