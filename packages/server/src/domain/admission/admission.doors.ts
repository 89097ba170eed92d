import { and, asc, eq, isNull } from 'drizzle-orm';
import { serializeOn } from '../../db/dialect.js';
import type { Db, Tx } from '../../db/client.js';
import { hashSecret, randomToken, safeEqual } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Kernel } from '../../lib/kernel.js';
import { showWithEvent } from '../events/events.queries.js';
import type { EventRow, ShowRow } from '../events/events.queries.js';
import { CERTIFICATE_AFTER_START_MS } from './admission.service.js';
import { admissionDoors, type AdmissionDoorRow } from './admission.table.js';

/**
 * The doors of a show (`admission_doors`, this module's): links that open the venue's scanner
 * page for one show, so door staff need no console account and no API key. A door's token is
 * its whole credential: it checks codes of its show only (verify, the kit, the sync of offline
 * scans), and nothing else of the partner. Made and revoked in the console (flows/console-doors.ts
 * audits each); the token is shown once and kept only as its hash, like API keys.
 */

/** A door token's prefix: tells it from the partner's keys in a log or a support ticket. */
export const DOOR_TOKEN_PREFIX = 'door_';

/** The longest label of a door. */
export const MAX_DOOR_LABEL = 60;

/** Doors a show may have at once (not revoked): a stadium has dozens of gates, not thousands. */
export const MAX_DOORS_PER_SHOW = 200;

/** How stale a door's `lastSeenAt` may get before a call writes it again (a write per scan would be waste). */
const SEEN_EVERY_MS = 60_000;

/** A door as the console lists it. */
export interface DoorView {
  doorId: string;
  label: string;
  createdAt: number;
  createdBy: string;
  /** When the link stops working: 12 hours after the show starts (the codes' own end). */
  expiresAt: number;
  revokedAt: number | null;
  lastSeenAt: number | null;
  /** `live`, `revoked` or `expired`, at the time it was read. */
  status: 'live' | 'revoked' | 'expired';
}

/** The door a token opened, with its show: what every door call works on. */
export interface OpenedDoor {
  door: AdmissionDoorRow;
  show: ShowRow;
  event: EventRow;
  expiresAt: number;
}

/** Why a token opens no door (the page tells staff to ask for a new link, whichever it is). */
export type ClosedDoor = 'unknown' | 'revoked' | 'expired';

/** When a door of `show` stops working. */
export const doorExpiry = (show: Pick<ShowRow, 'startsAt'>): number => show.startsAt + CERTIFICATE_AFTER_START_MS;

/** A door's status at `now`, its link ending at `expiresAt` ({@link doorExpiry}): what the console lists and what its token opens. */
function doorStatus(door: Pick<AdmissionDoorRow, 'revokedAt'>, expiresAt: number, now: number): DoorView['status'] {
  return door.revokedAt !== null ? 'revoked' : now >= expiresAt ? 'expired' : 'live';
}

/**
 * A door's label as typed: trimmed, 1 to {@link MAX_DOOR_LABEL} characters, no line breaks
 * (control characters are refused by the request's own checks before this).
 *
 * @throws ApiError 400 on `label`
 */
export function doorLabel(typed: string): string {
  const label = typed.trim().replace(/\s+/g, ' ');
  if (label.length === 0) throw ApiError.field('missing_field', 'label', 'Name the door (for example "North gate 3")');
  if (label.length > MAX_DOOR_LABEL) throw ApiError.field('out_of_range', 'label', `A door's name is at most ${MAX_DOOR_LABEL} characters`);
  return label;
}

export class DoorsService {
  constructor(private readonly deps: Pick<Kernel, 'clock'>) {}

  /**
   * Makes a door of the show `showPk` (the partner's: the caller found it), named `label`. The
   * token is returned once and never again: only its hash is kept.
   *
   * A live door's name is unique in its show, whatever the letter case: the webhooks and the
   * console tell doors apart by it, and a form sent twice (a reload of the page that showed the
   * link) is refused rather than making a second door nobody holds the link of.
   *
   * @throws ApiError 400 on `label` (empty, too long); 409 on `label`, `door_name_taken`, when a
   *   live door of the show has the name; 409 past {@link MAX_DOORS_PER_SHOW} live doors
   */
  async create(tx: Tx, partnerId: string, showPk: string, input: { label: string; createdBy: string }): Promise<{ door: AdmissionDoorRow; token: string }> {
    const label = doorLabel(input.label);
    // Two makes of one show at once (a double click, on PostgreSQL) one after the other: the second sees the first's name.
    await serializeOn(tx, `doors:${showPk}`);
    const live = await tx.select({ label: admissionDoors.label }).from(admissionDoors).where(and(eq(admissionDoors.showPk, showPk), isNull(admissionDoors.revokedAt)));
    if (live.some((d) => d.label.toLowerCase() === label.toLowerCase())) throw ApiError.conflict(`A live door of this show is named "${label}" already: name this one otherwise, or revoke that one first`, 'label', 'door_name_taken');
    if (live.length >= MAX_DOORS_PER_SHOW) throw ApiError.conflict(`A show has at most ${MAX_DOORS_PER_SHOW} doors: revoke some first`, 'label');
    const now = this.deps.clock.now();
    const token = DOOR_TOKEN_PREFIX + randomToken(256);
    const door: AdmissionDoorRow = { id: newId('door'), partnerId, showPk, label, tokenHash: hashSecret(token), createdBy: input.createdBy, revokedAt: null, lastSeenAt: null, createdAt: now, updatedAt: now };
    await tx.insert(admissionDoors).values(door);
    return { door, token };
  }

  /**
   * Revokes the partner's door `doorId` of the show `showPk`: its link stops working at once.
   * Revoking a revoked door changes nothing. Returns the door before and after.
   *
   * @throws ApiError 404 for an unknown door, another show's or another partner's
   */
  async revoke(tx: Tx, partnerId: string, showPk: string, doorId: string): Promise<{ before: AdmissionDoorRow; after: AdmissionDoorRow }> {
    const before = (await tx.select().from(admissionDoors).where(and(eq(admissionDoors.id, doorId), eq(admissionDoors.partnerId, partnerId), eq(admissionDoors.showPk, showPk))).limit(1))[0];
    if (!before) throw ApiError.notFound('door', doorId);
    if (before.revokedAt !== null) return { before, after: before };
    const now = this.deps.clock.now();
    await tx.update(admissionDoors).set({ revokedAt: now, updatedAt: now }).where(eq(admissionDoors.id, doorId));
    return { before, after: { ...before, revokedAt: now, updatedAt: now } };
  }

  /** The doors of a show, oldest first, as the console lists them (`show`: for their expiry). */
  async listOfShow(tx: Tx, show: Pick<ShowRow, 'id' | 'startsAt'>): Promise<DoorView[]> {
    const rows = await tx.select().from(admissionDoors).where(eq(admissionDoors.showPk, show.id)).orderBy(asc(admissionDoors.createdAt), asc(admissionDoors.id));
    const now = this.deps.clock.now();
    const expiresAt = doorExpiry(show);
    return rows.map((r) => ({
      doorId: r.id,
      label: r.label,
      createdAt: r.createdAt,
      createdBy: r.createdBy,
      expiresAt,
      revokedAt: r.revokedAt,
      lastSeenAt: r.lastSeenAt,
      status: doorStatus(r, expiresAt, now),
    }));
  }

  /**
   * The door `presented` (a door token) opens, with its show; or why it opens none. Marks the
   * door seen (at most once a minute: its own short write).
   */
  async open(db: Db, presented: string): Promise<OpenedDoor | ClosedDoor> {
    if (!presented.startsWith(DOOR_TOKEN_PREFIX)) return 'unknown';
    const hash = hashSecret(presented);
    const found = await db.read(async (tx) => {
      const door = (await tx.select().from(admissionDoors).where(eq(admissionDoors.tokenHash, hash)).limit(1))[0];
      if (!door || !safeEqual(door.tokenHash, hash)) return undefined;
      const owner = await showWithEvent(tx, door.showPk);
      return owner ? { door, ...owner } : undefined;
    });
    if (!found) return 'unknown';
    const now = this.deps.clock.now();
    const expiresAt = doorExpiry(found.show);
    const status = doorStatus(found.door, expiresAt, now);
    if (status !== 'live') return status;
    if (found.door.lastSeenAt === null || now - found.door.lastSeenAt >= SEEN_EVERY_MS) {
      await db.transact(async (tx) => await tx.update(admissionDoors).set({ lastSeenAt: now }).where(eq(admissionDoors.id, found.door.id)));
    }
    return { ...found, expiresAt };
  }
}
