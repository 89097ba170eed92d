import type { Db, Tx } from '../db/client.js';
import { GroupCommit } from '../db/group-commit.js';
import type { AdmissionService, VerifyResult } from '../domain/admission/admission.service.js';
import type { WebhooksService } from '../domain/webhooks/webhooks.service.js';
import { toIso } from '../lib/clock.js';

/** What a scan at the door composes: the admission module's check, and the partner's webhook. */
export type AdmitScanDeps = { admission: AdmissionService; webhooks: WebhooksService };

/**
 * The most scans one group commits together (see {@link scanTransactions}): about 2 ms of the
 * connection at the measured cost of a scan, while every other request of the process waits.
 */
const SCAN_GROUP_MAX = 32;

const scanGroups = new WeakMap<Db, GroupCommit>();

/**
 * The transactions a door's online scans run in (`respondInTransaction`'s `transact`), one
 * runner per database. Each scan is a write transaction (the admission, the scan's hash, the
 * webhook); on SQLite, those that arrive together share one transaction and one durable commit,
 * each in a savepoint of its own, so each stays all-or-nothing and is answered only once its
 * group has committed (db/group-commit.ts). One by one, the flush of each commit (about 0.2 ms,
 * blocking the one connection) alone bounded a process to some 4,000 scans a second, with
 * nothing else done. On PostgreSQL each scan is its own transaction, as before.
 *
 * @example respondInTransaction(c, { db: deps.db, transact: scanTransactions(deps.db) }, 200, (tx) => admitScan(deps, tx, partnerId, text))
 */
export function scanTransactions(db: Db): GroupCommit['transact'] {
  let group = scanGroups.get(db);
  if (group === undefined) scanGroups.set(db, (group = new GroupCommit(db, SCAN_GROUP_MAX)));
  return group.transact;
}

/** A scan's verdict with the ticket named by the partner's ids, as the scan API answers it. */
export interface ScanAnswer extends Omit<VerifyResult, 'ticket'> {
  ticket: { ticketId: string; externalReferenceEventId: string; showId: string; seat: { section: string | null; row: string | null; seat: string | null } } | null;
}

/** The door link a scan came through (admission.doors.ts), as the `ticket.admitted` webhook names it. */
export interface ScanDoor {
  id: string;
  label: string;
}

/** Where and when a scan was made: the door's show (a ticket of another is `other_show`), its time (a sync's `scannedAt`; default now), and the door link when it came through one. */
export interface ScanPlace {
  showPk?: string | undefined;
  at?: number | undefined;
  door?: ScanDoor | undefined;
}

/**
 * A scanned text checked for `partnerId` (admission `verify`, which admits the ticket once) and,
 * when this scan admitted it, `ticket.admitted` queued in the same transaction, naming the door
 * link it came through (null: the partner's own scanner): a retry of the same scan, or a
 * refusal, sends nothing.
 */
export async function admitScan(deps: AdmitScanDeps, tx: Tx, partnerId: string, text: string, place: ScanPlace = {}, source: 'code' | 'sync' = 'code'): Promise<ScanAnswer> {
  const r = await deps.admission.verify(tx, partnerId, text, { showPk: place.showPk, at: place.at });
  const ticket = r.ticket ? { ticketId: r.ticket.ticketId, externalReferenceEventId: r.ticket.externalReferenceEventId, showId: r.ticket.showId, seat: { section: r.ticket.section, row: r.ticket.row, seat: r.ticket.seat } } : null;
  if (r.valid && !r.repeat && ticket && r.admittedAt !== null) {
    await deps.webhooks.enqueue(tx, partnerId, {
      action: 'ticket.admitted',
      resourceKey: `ticket:${ticket.ticketId}`,
      data: { ticketId: ticket.ticketId, eventId: ticket.externalReferenceEventId, showId: ticket.showId, seat: ticket.seat, admittedAt: toIso(r.admittedAt), source, door: place.door ? { doorId: place.door.id, name: place.door.label } : null },
    });
  }
  return { ...r, ticket };
}

/** A scan a door recorded offline: the text it read, and when (the door's clock, corrected by its kit's `serverTime`). */
export interface OfflineScan {
  text: string;
  scannedAt: number;
}

/**
 * Scans recorded offline at a door of show `showPk`, synced when it is back online: each checked
 * as the door checked it, at its `scannedAt` (the code's step against that moment; the ticket's
 * owner, phone and state as they are now), earliest first, so within a sync the earliest scan
 * of a ticket admits it (dated `scannedAt`, `ticket.admitted` with `source: sync`) and any later
 * one answers `already_admitted`: one ticket, two entries, for the venue to follow up. A ticket
 * an earlier sync or an online scan admitted stays admitted as first recorded: the service
 * records the first admission it learns of. The same scan synced again is a `repeat`. Answers
 * in the order given. `door`: the door link that synced them, named in each webhook.
 */
export async function syncScans(deps: AdmitScanDeps, tx: Tx, partnerId: string, showPk: string, scans: readonly OfflineScan[], door?: ScanDoor): Promise<ScanAnswer[]> {
  const order = scans.map((s, i) => ({ ...s, i })).sort((a, b) => a.scannedAt - b.scannedAt || a.i - b.i);
  const answers: ScanAnswer[] = new Array(scans.length);
  for (const s of order) answers[s.i] = await admitScan(deps, tx, partnerId, s.text, { showPk, at: s.scannedAt, door }, 'sync');
  return answers;
}
