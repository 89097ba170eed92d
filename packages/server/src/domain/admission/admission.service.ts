import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { certificateBytes, certificateHead, parseCode, timeVerdict } from '@resale/shared/admission-code';
import { admissionCodesOf } from '../events/events.model.js';
import { partnerOf } from '../partners/partners.queries.js';
import type { Tx } from '../../db/client.js';
import { serializeOn } from '../../db/dialect.js';
import type { SecretBox } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import type { Kernel } from '../../lib/kernel.js';
import { showScanRef, showWithEvent, type ShowScanRef } from '../events/events.queries.js';
import { ticketByPk, ticketForScan, ticketRowsOfShow, type TicketRow, type TicketScanRow } from '../tickets/tickets.queries.js';
import { KIT_WINDOW, type KitTicketState, type ScannerKit } from '@resale/shared/admission-kit';
import { toIso } from '../../lib/clock.js';
import type { TicketsService } from '../tickets/tickets.service.js';
import { deviceTagKey, issuerKey, newIssuer, signCertificate, tagValid } from './admission.keys.js';
import { admissionCredentials, admissionIssuers, type AdmissionIssuerRow } from './admission.table.js';
import { OpenedTagSecrets } from './admission.secrets.js';
import { scanStatements, type ScanCredential } from './admission.statements.js';

/**
 * Rotating admission codes for ticketShield shows (the format: @resale/shared/admission-code;
 * the keys: admission.keys.ts). This module owns `admission_issuers` and
 * `admission_credentials`: it certifies a holder's phone for a ticket ({@link bind}) and checks a
 * scanned code online, admitting the ticket once ({@link verify}); the ticket's state stays the
 * tickets module's (its conditional admission).
 *
 * Revocation needs no event: a credential names the holder it was issued to and the one phone
 * certified for them, and a code is checked against both and against the ticket's current
 * owner and state. So a resale or an owner change (the ticket's owner is someone else), a new
 * phone (a new epoch and key), a listing, a deletion, an admission or a cancelled show refuse
 * the old codes at once, online.
 */

/** Why a scan was refused or admitted (`reason` of POST /v1/tickets/admission/verify). */
export const VERIFY_REASONS = ['admitted', 'already_admitted', 'revoked', 'expired', 'not_yet_valid', 'forged', 'malformed', 'unknown', 'other_show', 'listed', 'deleted', 'cancelled'] as const;
export type VerifyReason = (typeof VERIFY_REASONS)[number];

/** What a scanner is told. */
export interface VerifyResult {
  /** Let the holder in: this scan admitted the ticket (or is the very scan that did, again). */
  valid: boolean;
  reason: VerifyReason;
  /** The same scan (the same text) as the one that admitted the ticket: a door's retry, not a second person. */
  repeat: boolean;
  /**
   * The ticket, once the code named one of the partner's (null for malformed, unknown or forged
   * codes), with the partner's ids of its show and event (what a scan's answer names it by).
   */
  ticket: { ticketPk: string; ticketId: string; showPk: string; showId: string; externalReferenceEventId: string; section: string | null; row: string | null; seat: string | null } | null;
  /** When the ticket was admitted (by this scan or an earlier one); null when it was not. */
  admittedAt: number | null;
}

/** What a phone receives when it is certified for a ticket. */
export interface Binding {
  /** The certificate (110 bytes) the phone puts in every code. */
  certificate: Uint8Array;
  /** The phone's tag key (32 bytes): sent once, imported by the page as a non-extractable HMAC key. */
  tagKey: Uint8Array;
  serial: number;
  epoch: number;
  rotationSeconds: number;
  /** When the certificate's codes stop being valid (clock ms). */
  notAfter: number;
  /** This replaced the holder's earlier phone (whose codes are refused from now on). */
  moved: boolean;
}

/** Phones a holder may certify for one ticket in a day (a lost phone, a new one, a browser reset: not a stream of them). */
export const BINDS_PER_DAY = 5;
const DAY_MS = 86_400_000;

/** A certificate's codes are valid until this long after the show starts (late entries, a delayed start). */
export const CERTIFICATE_AFTER_START_MS = 12 * 3_600_000;

/** How long a scanner may trust a kit (a scanner online fetches a fresh one far more often). */
export const KIT_VALID_MS = 12 * 3_600_000;

/** How far before a delta's `since` changes are sent again: longer than any transaction of the service. */
export const KIT_DELTA_OVERLAP_MS = 60_000;

/** The lock of a show's issuer and serials. */
const lockKey = (showPk: string) => `admission:${showPk}`;
/** The lock of one credential (a show's serial), taken by a scan and by a phone's certification: after the show's lock, never before it. */
const credentialLockKey = (showPk: string, serial: number) => `admission:${showPk}:${serial}`;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const fromB64 = (text: string) => Buffer.from(text, 'base64url');
/** What a credential remembers of the scan that admitted its ticket (not the text: a hash of it). */
const scanHash = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64url');

export class AdmissionService {
  /** The issuers' tag secrets the online check has opened (admission.secrets.ts). */
  private readonly secrets: OpenedTagSecrets;

  constructor(private readonly deps: Pick<Kernel, 'clock'> & { box: SecretBox; tickets: TicketsService }) {
    this.secrets = new OpenedTagSecrets(deps.box);
  }

  /**
   * Certifies a phone (its Ed25519 public key, 32 bytes) for the ticket `ticketPk`'s current
   * holder, at the show's step (`rotationSeconds` of its admission codes). The first time, the
   * ticket gets its serial (and the show its issuer); a phone certified again, or the ticket's
   * holder changed, starts a new epoch: every earlier phone's codes are refused from then on
   * (`moved` says a phone of the same holder was replaced: the caller tells the holder). A
   * holder may certify {@link BINDS_PER_DAY} phones a day for a ticket. Proving the caller is
   * the holder is the caller's part.
   *
   * @throws ApiError 404 unknown ticket (or another partner's); 409 (reason `ticket_not_valid`) a
   *   ticket that is not VALID (listed, sold, admitted, deleted, cancelled); 409 (reason
   *   `codes_off`) a show whose venue does not scan rotating codes; 429 (reason
   *   `too_many_devices`) past the day's phones, with `Retry-After`; 400 on `publicKey` when it
   *   is not 32 bytes
   */
  async bind(tx: Tx, partnerId: string, ticketPk: string, devicePublicKey: Uint8Array): Promise<Binding> {
    if (devicePublicKey.length !== 32) throw ApiError.field('invalid_format', 'publicKey', 'An Ed25519 public key is 32 bytes');
    const ticket = await ticketByPk(tx, ticketPk);
    if (!ticket || ticket.partnerId !== partnerId) throw ApiError.notFound('ticket');
    if (ticket.state !== 'VALID') throw ApiError.conflict(`Ticket '${ticket.ticketId}' is ${ticket.state}: it has no code`, undefined, 'ticket_not_valid');
    const found = await showWithEvent(tx, ticket.showPk);
    if (!found) throw new Error(`admission.bind: ticket ${ticketPk} names show ${ticket.showPk}, which does not exist`);
    const codes = admissionCodesOf(found.show, (await partnerOf(tx, partnerId)).settings);
    if (!codes.rotating) throw ApiError.conflict(`The venue of show '${found.show.showId}' does not scan rotating codes`, undefined, 'codes_off');
    await serializeOn(tx, lockKey(ticket.showPk));
    const issuer = await this.issuerOf(tx, partnerId, ticket.showPk);
    const now = this.deps.clock.now();
    let existing = (await tx.select().from(admissionCredentials).where(eq(admissionCredentials.ticketPk, ticketPk)).limit(1))[0];
    if (existing) {
      // The credential's own lock, which a scan of it holds (verify): read again once held.
      await serializeOn(tx, credentialLockKey(ticket.showPk, existing.serial));
      existing = (await tx.select().from(admissionCredentials).where(eq(admissionCredentials.ticketPk, ticketPk)).limit(1))[0]!;
    }
    let serial: number;
    let epoch: number;
    let moved = false;
    // The day's phones: a window that opens with the first certification and lasts a day.
    let recentBinds = 1;
    let bindsSince = now;
    if (existing) {
      serial = existing.serial;
      const sameHolder = existing.ownerPk === ticket.ownerPk;
      moved = sameHolder && existing.deviceKey !== null;
      // A phone already bound at this epoch, or a new holder: a new epoch voids every earlier code.
      epoch = existing.deviceKey !== null || !sameHolder ? existing.epoch + 1 : existing.epoch;
      if (sameHolder && existing.bindsSince !== null && now - existing.bindsSince < DAY_MS) {
        recentBinds = existing.recentBinds + 1;
        bindsSince = existing.bindsSince;
        if (recentBinds > BINDS_PER_DAY) {
          const retryAfter = Math.ceil((existing.bindsSince + DAY_MS - now) / 1000);
          throw new ApiError(429, 'rate_limited', `This ticket's code was moved to ${BINDS_PER_DAY} phones today: try again later`, { reason: 'too_many_devices', headers: { 'Retry-After': String(retryAfter) } });
        }
      }
    } else {
      serial = issuer.lastSerial + 1;
      epoch = 1;
      await tx.update(admissionIssuers).set({ lastSerial: serial, updatedAt: now }).where(eq(admissionIssuers.showPk, ticket.showPk));
    }
    const notAfter = found.show.startsAt + CERTIFICATE_AFTER_START_MS;
    const head = certificateHead({ keyTag: issuer.keyTag, serial, epoch, rotation: codes.rotationSeconds, notAfterMinutes: Math.floor(notAfter / 60_000), devicePublicKey });
    const certificate = certificateBytes(head, signCertificate(issuerKey(fromB64(this.deps.box.open(issuer.privateKeySealed))), head));
    const values = { serial, epoch, ownerPk: ticket.ownerPk, deviceKey: b64(devicePublicKey), boundAt: now, recentBinds, bindsSince, admittedScan: null, updatedAt: now };
    await tx
      .insert(admissionCredentials)
      .values({ ticketPk, partnerId, showPk: ticket.showPk, ...values, createdAt: now })
      .onConflictDoUpdate({ target: admissionCredentials.ticketPk, set: values });
    const tagKey = deviceTagKey(fromB64(this.deps.box.open(issuer.tagSecretSealed)), serial, epoch, devicePublicKey);
    return { certificate, tagKey, serial, epoch, rotationSeconds: codes.rotationSeconds, notAfter: Math.floor(notAfter / 60_000) * 60_000, moved };
  }

  /**
   * Whether `devicePublicKey` (32 bytes) is the phone certified for the ticket's current holder:
   * `current`; `moved` when another phone (or an earlier holder's) is; `none` when no phone is.
   * What the holder's page asks while online, to stop showing a code that no longer admits.
   */
  async deviceStatus(tx: Tx, ticket: { id: string; ownerPk: string }, devicePublicKey: Uint8Array | null): Promise<'current' | 'moved' | 'none'> {
    const c = (await tx.select({ ownerPk: admissionCredentials.ownerPk, deviceKey: admissionCredentials.deviceKey }).from(admissionCredentials).where(eq(admissionCredentials.ticketPk, ticket.id)).limit(1))[0];
    if (!c || c.deviceKey === null || c.ownerPk !== ticket.ownerPk) return 'none';
    return devicePublicKey !== null && c.deviceKey === b64(devicePublicKey) ? 'current' : 'moved';
  }

  /**
   * Checks a scanned text for `partnerId` and, when it is a current code of a ticket its holder
   * may use, admits the ticket: once, whatever the concurrency (the tickets module's
   * conditional statement). The same scan again answers `admitted` with `repeat`; any other
   * scan of an admitted ticket `already_admitted`. Cheapest checks first; the tag last but one
   * (a keyed hash), the admission's write last. `showPk`: the door's show, when the scanner
   * names one (`other_show` for a ticket of another). `at`: when the door scanned it (a scan
   * recorded offline and synced later: its code is checked at that moment, and the admission
   * dated then); now by default.
   */
  async verify(tx: Tx, partnerId: string, text: string, opts: { showPk?: string | undefined; at?: number | undefined } = {}): Promise<VerifyResult> {
    const refused = (reason: VerifyReason, ticket: VerifyResult['ticket'] = null, admittedAt: number | null = null): VerifyResult => ({ valid: false, reason, repeat: false, ticket, admittedAt });
    const parsed = parseCode(text);
    if (!parsed.ok) return refused('malformed');
    const code = parsed.code;
    // Prepared once per connection (admission.statements.ts): a door's scans run these for every code.
    const scans = scanStatements(tx);
    const issuer = await scans.issuerByTag(partnerId, code.keyTag);
    if (!issuer) return refused('unknown');
    // A phone certified meanwhile (bind, another transaction) waits for this scan, or this scan
    // for it: never read the old phone's credential and admit after the new one committed.
    await serializeOn(tx, credentialLockKey(issuer.showPk, code.serial));
    const credential = await scans.credentialBySerial(issuer.showPk, code.serial);
    if (!credential) return refused('unknown');
    const ticket = await ticketForScan(tx, credential.ticketPk);
    if (!ticket) return refused('unknown');
    // Before naming the ticket: a code whose tag is wrong proves nothing about it. The show's
    // secret is opened once per process, not at every scan (admission.secrets.ts).
    const tagKey = deviceTagKey(this.secrets.tagSecret(issuer.tagSecretSealed), code.serial, code.epoch, code.devicePublicKey);
    if (!tagValid(tagKey, code)) return refused('forged');
    // Read once: its status below, and its ids for the answer.
    const show = await showScanRef(tx, ticket.showPk);
    if (!show) throw new Error(`admission.verify: ticket ${ticket.id} names show ${ticket.showPk}, which does not exist`);
    const named = ticketOf(ticket, show);
    if (opts.showPk !== undefined && opts.showPk !== ticket.showPk) return refused('other_show', named);
    const hash = scanHash(code.bytes);
    if (ticket.state === 'ADMITTED') return credential.admittedScan === hash ? { valid: true, reason: 'admitted', repeat: true, ticket: named, admittedAt: ticket.admittedAt } : refused('already_admitted', named, ticket.admittedAt);
    const stateRefusal = refusalOfState(ticket.state);
    if (stateRefusal) return refused(stateRefusal, named);
    if (show.status === 'CANCELLED') return refused('cancelled', named);
    if (!isCurrent(credential, ticket, code)) return refused('revoked', named);
    const at = opts.at ?? this.deps.clock.now();
    const time = timeVerdict(code, at);
    if (time !== 'current') return refused(time, named);
    // The row as read above (VALID), admitted by the tickets module's conditional statement.
    const refusal = await this.deps.tickets.admitAsRead(tx, partnerId, ticket, at);
    // Changed hands between the read and the admission (a transfer committed meanwhile): the code is the former holder's.
    if (refusal?.reason === 'changed_hands') return refused('revoked', named);
    if (refusal) {
      // Another scan won the race: the same scan (a door's retry through another process) reads as it did.
      const now = (await ticketByPk(tx, ticket.id))!;
      const winner = (await tx.select({ admittedScan: admissionCredentials.admittedScan }).from(admissionCredentials).where(eq(admissionCredentials.ticketPk, ticket.id)).limit(1))[0];
      if (refusal.reason === 'already_admitted' && winner?.admittedScan === hash) return { valid: true, reason: 'admitted', repeat: true, ticket: named, admittedAt: now.admittedAt };
      return refused(refusal.reason, named, now.admittedAt);
    }
    await scans.recordAdmittedScan(ticket.id, hash, this.deps.clock.now());
    return { valid: true, reason: 'admitted', repeat: false, ticket: named, admittedAt: at };
  }

  /**
   * The scanner kit of a show (@resale/shared/admission-kit): its issuer keys and, per ticket
   * with a code, the serial, the partner's ticket id and seat, the lowest epoch still valid (one
   * more than the credential's when the ticket changed hands since: the seller's phone is
   * refused) and why it admits no one. Valid for 12 hours, or until 12 hours after the show
   * starts if that is sooner. No secret and no personal data.
   *
   * `since` (a door's last kit's `serverTime`): a delta, only the tickets whose credential or
   * ticket changed from {@link KIT_DELTA_OVERLAP_MS} before it (a transaction that began before
   * the last kit and committed after it is not missed), to merge with `mergeKit`. A whole kit
   * instead when `since` is older than a kit's life, ahead of now, or the show changed since (a
   * cancellation touches every ticket).
   */
  async kit(tx: Tx, showPk: string, opts: { since?: number | undefined } = {}): Promise<ScannerKit> {
    const found = await showWithEvent(tx, showPk);
    if (!found) throw ApiError.notFound('show');
    const now = this.deps.clock.now();
    const from = opts.since === undefined ? null : opts.since - KIT_DELTA_OVERLAP_MS;
    const delta = from !== null && opts.since! <= now && opts.since! > now - KIT_VALID_MS && found.show.updatedAt < from;
    const issuer = (await tx.select().from(admissionIssuers).where(eq(admissionIssuers.showPk, showPk)).limit(1))[0];
    const credentials = (await tx.select().from(admissionCredentials).where(eq(admissionCredentials.showPk, showPk))).sort((a, b) => a.serial - b.serial);
    const tickets = new Map((await ticketRowsOfShow(tx, showPk)).map((t) => [t.id, t]));
    const cancelled = found.show.status === 'CANCELLED';
    const cols: ScannerKit['tickets'] = { serial: [], ticketId: [], section: [], row: [], seat: [], minEpoch: [], state: [] };
    for (const c of credentials) {
      const t = tickets.get(c.ticketPk);
      if (!t) continue;
      if (delta && c.updatedAt < from && t.updatedAt < from) continue;
      cols.serial.push(c.serial);
      cols.ticketId.push(t.ticketId);
      cols.section.push(t.section);
      cols.row.push(t.row);
      cols.seat.push(t.seat);
      cols.minEpoch.push(c.ownerPk === t.ownerPk ? c.epoch : c.epoch + 1);
      cols.state.push(cancelled ? 'cancelled' : kitStateOf(t.state));
    }
    return {
      v: 1,
      externalReferenceEventId: found.event.externalReferenceId,
      showId: found.show.showId,
      serverTime: toIso(now),
      validUntil: toIso(Math.min(now + KIT_VALID_MS, found.show.startsAt + CERTIFICATE_AFTER_START_MS)),
      window: { ...KIT_WINDOW },
      keys: issuer ? [{ tag: issuer.keyTag, publicKey: issuer.publicKey }] : [],
      tickets: cols,
      ...(delta ? { since: toIso(opts.since!) } : {}),
    };
  }

  /** The show's issuer, made (and sealed) the first time; under the show's lock. */
  private async issuerOf(tx: Tx, partnerId: string, showPk: string): Promise<AdmissionIssuerRow> {
    const existing = (await tx.select().from(admissionIssuers).where(eq(admissionIssuers.showPk, showPk)).limit(1))[0];
    if (existing) return existing;
    const now = this.deps.clock.now();
    // The 2-byte tag must be unique among the partner's shows: a new key until it is (1 in 65,536 a try).
    for (;;) {
      const made = newIssuer();
      const taken = (await tx.select({ showPk: admissionIssuers.showPk }).from(admissionIssuers).where(and(eq(admissionIssuers.partnerId, partnerId), eq(admissionIssuers.keyTag, made.keyTag))).limit(1))[0];
      if (taken) continue;
      const row = {
        showPk,
        partnerId,
        keyTag: made.keyTag,
        publicKey: b64(made.publicKey),
        privateKeySealed: this.deps.box.seal(made.privateKey.toString('base64url')),
        tagSecretSealed: this.deps.box.seal(made.tagSecret.toString('base64url')),
        lastSerial: 0,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(admissionIssuers).values(row);
      return row;
    }
  }
}

/** A ticket as a scan answer names it. */
function ticketOf(t: TicketScanRow, show: ShowScanRef): NonNullable<VerifyResult['ticket']> {
  return { ticketPk: t.id, ticketId: t.ticketId, showPk: t.showPk, showId: show.showId, externalReferenceEventId: show.externalReferenceEventId, section: t.section, row: t.row, seat: t.seat };
}

/** Why a ticket in this state admits no one (ADMITTED is answered apart: the same scan again is no refusal). */
function refusalOfState(state: TicketRow['state']): VerifyReason | null {
  if (state === 'LISTED') return 'listed';
  if (state === 'SOLD') return 'revoked';
  if (state === 'DELETED') return 'deleted';
  if (state === 'CANCELLED') return 'cancelled';
  return null;
}

/** A ticket's state as a kit says it ('' when it may be admitted). */
function kitStateOf(state: TicketRow['state']): KitTicketState {
  if (state === 'ADMITTED') return 'admitted';
  if (state === 'LISTED') return 'listed';
  if (state === 'SOLD') return 'revoked';
  if (state === 'DELETED') return 'deleted';
  if (state === 'CANCELLED') return 'cancelled';
  return '';
}

/** The code was made by the phone certified at the credential's epoch, for the ticket's holder now. */
function isCurrent(c: ScanCredential, t: Pick<TicketRow, 'ownerPk'>, code: { epoch: number; devicePublicKey: Uint8Array }): boolean {
  return c.ownerPk === t.ownerPk && c.epoch === code.epoch && c.deviceKey !== null && c.deviceKey === b64(code.devicePublicKey);
}
