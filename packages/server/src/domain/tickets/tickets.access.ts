import type { Configuration } from '../events/events.schemas.js';

/**
 * When a ticket's QR becomes visible in the secure view, and when its will-call number is
 * shown. Pure functions: the caller gathers the inputs.
 *
 * Unlock moment, first that applies:
 * 1. a `qrUnlock` rule of the ticket's option or combination (`unlockAt`, or `hoursBeforeShow`);
 * 2. the show's effective `configuration.ticketDelivery.time` (BEFORE/AFTER the start, in seconds);
 * 3. the partner's `qrLockHoursBeforeShow` (default 3 hours).
 */
export interface UnlockInputs {
  startsAt: number;
  qrUnlockRule?: { hoursBeforeShow?: number; unlockAt?: number } | undefined;
  configuration: Configuration;
  partnerHoursBeforeShow: number;
}

export function qrUnlockAt(i: UnlockInputs): number {
  const rule = i.qrUnlockRule;
  if (rule?.unlockAt !== undefined) return rule.unlockAt;
  if (rule?.hoursBeforeShow !== undefined) return i.startsAt - rule.hoursBeforeShow * 3_600_000;
  const delivery = i.configuration.ticketDelivery?.time;
  if (delivery) return delivery.when === 'BEFORE' ? i.startsAt - delivery.seconds * 1000 : i.startsAt + delivery.seconds * 1000;
  return i.startsAt - i.partnerHoursBeforeShow * 3_600_000;
}

/** What the secure view may show of the ticket's access credentials right now. */
export interface AccessView {
  /** The QR (or code) is in the page. */
  showQr: boolean;
  /** The will-call number is in the page. */
  showWillCall: boolean;
  /** Why the QR is absent, for the page to explain. */
  qrAbsence: null | 'locked' | 'listed' | 'transferred' | 'used' | 'invalid' | 'will_call_only';
  unlockAt: number;
}

export interface AccessInputs {
  now: number;
  state: 'VALID' | 'LISTED' | 'SOLD' | 'ADMITTED' | 'DELETED' | 'CANCELLED';
  unlockAt: number;
  startsAt: number;
  redemption: Configuration['redemption'];
  hasWillCallNumber: boolean;
}

/**
 * The rules of the secure view:
 * - a listed ticket's QR is hidden from the seller; a sold one is gone for good; admitted,
 *   deleted or cancelled tickets show none;
 * - before the unlock moment the QR is not in the page at all;
 * - will-call (`redemption.policy`): NONE shows the QR only; OPTIONAL shows the number beside
 *   the QR; MANDATORY shows only the number (and the instructions), never a QR, or without a
 *   number the pick-up details (ticket id and holder). The number appears from
 *   `hoursBeforeShow` before the show (at once when that is not set).
 */
export function accessView(i: AccessInputs): AccessView {
  const policy = i.redemption?.policy ?? 'NONE';
  const usable = i.state === 'VALID';
  const willCallFrom = i.redemption?.hoursBeforeShow === undefined ? -Infinity : i.startsAt - i.redemption.hoursBeforeShow * 3_600_000;
  // MANDATORY without a number (no order number, no willCallNumber) still shows the pick-up
  // details: the ticket id and its holder (the spec's other pick-up datum). OPTIONAL without a
  // number has the QR, nothing to add.
  const showWillCall = usable && policy !== 'NONE' && (i.hasWillCallNumber || policy === 'MANDATORY') && i.now >= willCallFrom;
  const base = { showWillCall, unlockAt: i.unlockAt };
  if (i.state === 'LISTED') return { ...base, showQr: false, qrAbsence: 'listed' };
  if (i.state === 'SOLD') return { ...base, showQr: false, qrAbsence: 'transferred' };
  if (i.state === 'ADMITTED') return { ...base, showQr: false, qrAbsence: 'used' };
  if (i.state === 'DELETED' || i.state === 'CANCELLED') return { ...base, showQr: false, qrAbsence: 'invalid' };
  if (policy === 'MANDATORY') return { ...base, showQr: false, qrAbsence: 'will_call_only' };
  if (i.now < i.unlockAt) return { ...base, showQr: false, qrAbsence: 'locked' };
  return { ...base, showQr: true, qrAbsence: null };
}
