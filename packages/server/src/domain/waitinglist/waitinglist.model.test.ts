import { describe, expect, it } from 'vitest';
import { quietHoursEnd } from './waitinglist.model.js';

const NIGHT = { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' };
const at = (iso: string) => Date.parse(iso);

describe('quiet hours: when a fan offered tickets at a given moment is told', () => {
  it('answers the end of a window that wraps midnight, from its evening and from its morning part', () => {
    expect(quietHoursEnd(NIGHT, at('2026-04-20T23:30:00+02:00'))).toBe(at('2026-04-21T08:00:00+02:00'));
    expect(quietHoursEnd(NIGHT, at('2026-04-20T22:00:00+02:00'))).toBe(at('2026-04-21T08:00:00+02:00'));
    expect(quietHoursEnd(NIGHT, at('2026-04-21T03:00:00+02:00'))).toBe(at('2026-04-21T08:00:00+02:00'));
    // The last day of a month and of a year roll over.
    expect(quietHoursEnd(NIGHT, at('2026-12-31T23:00:00+01:00'))).toBe(at('2027-01-01T08:00:00+01:00'));
  });

  it('answers null outside the window, at its end, and without quiet hours', () => {
    expect(quietHoursEnd(NIGHT, at('2026-04-21T08:00:00+02:00'))).toBeNull();
    expect(quietHoursEnd(NIGHT, at('2026-04-21T21:59:00+02:00'))).toBeNull();
    expect(quietHoursEnd(NIGHT, at('2026-04-21T12:00:00+02:00'))).toBeNull();
    expect(quietHoursEnd(null, at('2026-04-21T03:00:00+02:00'))).toBeNull();
  });

  it('reads a window within one day', () => {
    const lunch = { start: '13:00', end: '15:30', timeZone: 'America/New_York' };
    expect(quietHoursEnd(lunch, at('2026-07-10T14:00:00-04:00'))).toBe(at('2026-07-10T15:30:00-04:00'));
    expect(quietHoursEnd(lunch, at('2026-07-10T12:59:00-04:00'))).toBeNull();
    expect(quietHoursEnd(lunch, at('2026-07-10T15:30:00-04:00'))).toBeNull();
  });

  it('keeps the venue’s local hours across daylight-saving changes, an end the change skips moving forward by the gap', () => {
    // Madrid, 29 March 2026: 02:00 becomes 03:00. A night ending at 08:00 ends at 08:00 CEST.
    expect(quietHoursEnd(NIGHT, at('2026-03-28T23:00:00+01:00'))).toBe(at('2026-03-29T08:00:00+02:00'));
    // A window ending at 02:30 that night: 02:30 never happens, so it ends at 03:30 CEST.
    expect(quietHoursEnd({ start: '22:00', end: '02:30', timeZone: 'Europe/Madrid' }, at('2026-03-28T23:00:00+01:00'))).toBe(at('2026-03-29T03:30:00+02:00'));
    // 25 October 2026: 03:00 becomes 02:00. The night ends at 08:00 CET, nine hours later.
    expect(quietHoursEnd(NIGHT, at('2026-10-24T23:00:00+02:00'))).toBe(at('2026-10-25T08:00:00+01:00'));
    // The zone is the window's own: the same night in Tokyo.
    expect(quietHoursEnd({ ...NIGHT, timeZone: 'Asia/Tokyo' }, at('2026-04-20T23:30:00+09:00'))).toBe(at('2026-04-21T08:00:00+09:00'));
  });
});
