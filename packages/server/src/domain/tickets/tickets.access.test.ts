import { describe, expect, it } from 'vitest';
import { accessView, qrUnlockAt } from './tickets.access.js';

const H = 3_600_000;
const start = Date.parse('2026-05-01T19:00:00Z');

describe('qrUnlockAt', () => {
  it('takes a qrUnlock rule first, then ticketDelivery, then the partner default', () => {
    const base = { startsAt: start, configuration: {}, partnerHoursBeforeShow: 3 };
    expect(qrUnlockAt(base)).toBe(start - 3 * H);
    expect(qrUnlockAt({ ...base, configuration: { ticketDelivery: { time: { when: 'BEFORE', seconds: 7200 } } } })).toBe(start - 2 * H);
    expect(qrUnlockAt({ ...base, configuration: { ticketDelivery: { time: { when: 'AFTER', seconds: 600 } } } })).toBe(start + 600_000);
    const withDelivery = { ...base, configuration: { ticketDelivery: { time: { when: 'BEFORE' as const, seconds: 7200 } } } };
    expect(qrUnlockAt({ ...withDelivery, qrUnlockRule: { hoursBeforeShow: 24 } })).toBe(start - 24 * H);
    expect(qrUnlockAt({ ...withDelivery, qrUnlockRule: { unlockAt: 123 } })).toBe(123);
  });
});

describe('accessView', () => {
  const base = { now: start - H, state: 'VALID' as const, unlockAt: start - 3 * H, startsAt: start, redemption: undefined, hasWillCallNumber: true };

  it('shows the QR only once unlocked, and never for listed, sold, used or invalid tickets', () => {
    expect(accessView(base)).toMatchObject({ showQr: true, qrAbsence: null, showWillCall: false });
    expect(accessView({ ...base, now: start - 4 * H })).toMatchObject({ showQr: false, qrAbsence: 'locked' });
    expect(accessView({ ...base, state: 'LISTED' })).toMatchObject({ showQr: false, qrAbsence: 'listed' });
    expect(accessView({ ...base, state: 'SOLD' })).toMatchObject({ showQr: false, qrAbsence: 'transferred' });
    expect(accessView({ ...base, state: 'ADMITTED' })).toMatchObject({ showQr: false, qrAbsence: 'used' });
    expect(accessView({ ...base, state: 'CANCELLED' })).toMatchObject({ showQr: false, qrAbsence: 'invalid' });
  });

  it('follows the will-call policy and its window', () => {
    expect(accessView({ ...base, redemption: { policy: 'NONE' } })).toMatchObject({ showQr: true, showWillCall: false });
    expect(accessView({ ...base, redemption: { policy: 'OPTIONAL' } })).toMatchObject({ showQr: true, showWillCall: true });
    expect(accessView({ ...base, redemption: { policy: 'MANDATORY' } })).toMatchObject({ showQr: false, showWillCall: true, qrAbsence: 'will_call_only' });
    const windowed = { policy: 'OPTIONAL' as const, hoursBeforeShow: 168 };
    expect(accessView({ ...base, now: start - 169 * H, redemption: windowed }).showWillCall).toBe(false);
    expect(accessView({ ...base, now: start - 167 * H, redemption: windowed }).showWillCall).toBe(true);
    expect(accessView({ ...base, redemption: { policy: 'OPTIONAL' }, hasWillCallNumber: false }).showWillCall).toBe(false);
    // MANDATORY without a number: the pick-up details stand in for it (the QR is never shown).
    expect(accessView({ ...base, redemption: { policy: 'MANDATORY' }, hasWillCallNumber: false })).toMatchObject({ showQr: false, showWillCall: true, qrAbsence: 'will_call_only' });
    expect(accessView({ ...base, redemption: { policy: 'MANDATORY' }, state: 'SOLD' }).showWillCall).toBe(false);
  });
});
