import { parseCode, timeVerdict, WINDOW } from './admission-code.js';
import { importIssuerKey, signaturesValid, type Key } from './admission-crypto.js';

/**
 * A scanner kit: what a door needs to check a show's rotating codes without the service (GET
 * /v1/shows/{showId}/scanner-kit), and the offline verifier that reads it. No secret and no
 * personal data in a kit: the show's issuer public keys, and per ticket its serial, the
 * partner's ticket id and seat, the lowest epoch still valid and why it admits no one.
 * Defined once here for the service that builds kits and every verifier that reads them.
 */

/** Why a ticket of a kit admits no one; '' when it may be admitted. */
export type KitTicketState = '' | 'revoked' | 'listed' | 'deleted' | 'admitted' | 'cancelled';

/** A scanner kit, version 1. Columns, one entry per ticket with a code, in serial order. */
export interface ScannerKit {
  v: 1;
  externalReferenceEventId: string;
  showId: string;
  /** When the service built it (ISO): a scanner corrects its clock by it. */
  serverTime: string;
  /** After this (ISO) the kit is too old to trust: the verifier answers `kit_expired`. */
  validUntil: string;
  /**
   * Present on a delta (`?since=`): the kit holds only the tickets that changed since then (with
   * an overlap), to be merged into the door's kit with {@link mergeKit}. Absent on a whole kit.
   */
  since?: string;
  window: { past: number; future: number };
  /** The show's issuer keys: the 2-byte tag codes carry, and the raw Ed25519 public key (base64url). */
  keys: { tag: number; publicKey: string }[];
  tickets: {
    serial: number[];
    ticketId: string[];
    section: (string | null)[];
    row: (string | null)[];
    seat: (string | null)[];
    /** The lowest epoch still valid: a code of an earlier one is a seller's after a resale, or an old phone's. */
    minEpoch: number[];
    state: KitTicketState[];
  };
}

/**
 * Every offline verdict: the online reasons a kit can tell (not `other_show`: a kit is one
 * show's, so another show's code is `unknown`), and `kit_expired`. Only `admitted` lets the
 * holder in.
 */
export const OFFLINE_REASONS = ['admitted', 'already_admitted', 'revoked', 'expired', 'not_yet_valid', 'forged', 'malformed', 'unknown', 'listed', 'deleted', 'cancelled', 'kit_expired'] as const;
/** An offline verdict (see {@link OFFLINE_REASONS}). */
export type OfflineReason = (typeof OFFLINE_REASONS)[number];

/** What a door is told about a scan. */
export interface OfflineResult {
  /** Let the holder in: this scan admitted the ticket, or is the very scan that did, again. */
  valid: boolean;
  reason: OfflineReason;
  /** The same text as the scan that admitted the ticket on this scanner (a retry, not a second person). */
  repeat: boolean;
  /** The ticket the code names, once its signatures are checked (null for malformed, unknown, forged codes and `kit_expired`). */
  ticket: { serial: number; ticketId: string; section: string | null; row: string | null; seat: string | null } | null;
}

/** A kit's verifier: checks texts at `nowMs` (the scanner's clock, corrected by the kit's `serverTime`), remembering what it admitted. */
export interface KitVerifier {
  /**
   * The verdict on a scanned text (surrounding white space and lower case are tolerated) at
   * `nowMs`, milliseconds since the epoch on the service's clock: the door's `Date.now()`
   * corrected by the offset to the kit's `serverTime` measured when it was fetched. Explicit,
   * so a door whose own clock is off is not silently trusted. Admits each ticket once.
   */
  verify(text: string, nowMs: number): Promise<OfflineResult>;
  /** The serials this verifier admitted, with the text that did it (to sync once online, and to seed a verifier of a fresher kit). */
  readonly admitted: ReadonlyMap<number, string>;
}

/** What a verifier starts from besides its kit. */
export interface KitVerifierOptions {
  /**
   * What this door admitted before (a previous verifier's `admitted`): a verifier made from a
   * fresher kit goes on refusing a second entry on those tickets, synced or not.
   */
  admitted?: Iterable<readonly [number, string]>;
}

/**
 * A verifier of `kit`: each code's two signatures against the kit's issuer key (no secret
 * needed), its step within the window, its epoch against the ticket's lowest valid one, the
 * ticket's state, and the tickets this scanner already admitted (once each; the same text again
 * is a `repeat`). The memory of what it admitted is its own (in memory), seeded by
 * `opts.admitted`.
 *
 * @throws Error when `kit` is a delta (merge it into a whole kit with {@link mergeKit} first) or
 *   of another version than 1
 */
export async function createKitVerifier(kit: ScannerKit, opts: KitVerifierOptions = {}): Promise<KitVerifier> {
  if (kit.v !== 1) throw new Error(`createKitVerifier: a kit of version ${String(kit.v)}, this verifier reads version 1`);
  if (kit.since !== undefined) throw new Error('createKitVerifier: a delta (`since`) lists only the tickets changed: merge it into the door’s kit with mergeKit first');
  const keys = new Map<number, Key>();
  for (const k of kit.keys) keys.set(k.tag, await importIssuerKey(fromBase64Url(k.publicKey)));
  const bySerial = new Map(kit.tickets.serial.map((s, i) => [s, i]));
  const validUntil = Date.parse(kit.validUntil);
  const admitted = new Map<number, string>(opts.admitted ?? []);
  return {
    admitted,
    async verify(text, nowMs) {
      const refused = (reason: OfflineReason, ticket: OfflineResult['ticket'] = null): OfflineResult => ({ valid: false, reason, repeat: false, ticket });
      if (!(nowMs <= validUntil)) return refused('kit_expired');
      const parsed = parseCode(text);
      if (!parsed.ok) return refused('malformed');
      const code = parsed.code;
      const key = keys.get(code.keyTag);
      const i = bySerial.get(code.serial);
      if (!key || i === undefined) return refused('unknown');
      if (!(await signaturesValid(code, key))) return refused('forged');
      const t = kit.tickets;
      const ticket = { serial: code.serial, ticketId: t.ticketId[i]!, section: t.section[i] ?? null, row: t.row[i] ?? null, seat: t.seat[i] ?? null };
      const canonical = text.trim().toUpperCase();
      const mine = admitted.get(code.serial);
      if (mine !== undefined) return mine === canonical ? { valid: true, reason: 'admitted', repeat: true, ticket } : refused('already_admitted', ticket);
      const state = t.state[i] ?? '';
      if (state === 'admitted') return refused('already_admitted', ticket);
      if (state !== '') return refused(state, ticket);
      if (code.epoch < (t.minEpoch[i] ?? 0)) return refused('revoked', ticket);
      const time = timeVerdict(code, nowMs);
      if (time !== 'current') return refused(time, ticket);
      admitted.set(code.serial, canonical);
      return { valid: true, reason: 'admitted', repeat: false, ticket };
    },
  };
}

/**
 * The door's kit after `next`: `next` itself when it is a whole kit; a delta's tickets replace
 * or join the base's by serial (kept in serial order), its keys, times and window win.
 *
 * @throws Error when the delta is of another show
 */
export function mergeKit(base: ScannerKit, next: ScannerKit): ScannerKit {
  if (next.since === undefined) return next;
  if (base.showId !== next.showId || base.externalReferenceEventId !== next.externalReferenceEventId) throw new Error('mergeKit: a delta of another show');
  const rows = new Map<number, number>();
  const merged: ScannerKit['tickets'] = { serial: [], ticketId: [], section: [], row: [], seat: [], minEpoch: [], state: [] };
  const columns = Object.keys(merged) as (keyof ScannerKit['tickets'])[];
  const put = (from: ScannerKit['tickets'], i: number) => {
    const serial = from.serial[i]!;
    let at = rows.get(serial);
    if (at === undefined) {
      at = merged.serial.length;
      rows.set(serial, at);
    }
    for (const c of columns) (merged[c] as unknown[])[at] = from[c][i];
  };
  base.tickets.serial.forEach((_, i) => put(base.tickets, i));
  next.tickets.serial.forEach((_, i) => put(next.tickets, i));
  const order = merged.serial.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  const tickets = Object.fromEntries(columns.map((c) => [c, order.map(([, i]) => merged[c][i])])) as ScannerKit['tickets'];
  const { since: _since, ...whole } = next;
  return { ...whole, tickets };
}

/** The window every kit of this version states. */
export const KIT_WINDOW = { past: WINDOW.past, future: WINDOW.future } as const;

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
