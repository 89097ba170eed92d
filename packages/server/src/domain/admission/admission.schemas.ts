import { z } from '@hono/zod-openapi';
import { VERIFY_REASONS } from './admission.service.js';

/** The scan API's shapes (http/api/admission.routes.ts). */

/**
 * What a scanner read from a fan's phone, as read (at most 2,000 characters: a code is 160),
 * described for where it is sent: every scan endpoint's `text`.
 */
export const scannedText = (description: string) => z.string().min(1).max(2_000).openapi({ description, example: 'KNAAAAB…' });

export const VerifyBody = z
  .strictObject({
    text: scannedText('What the scanner read from the fan’s phone, as read (white space and letter case are forgiven).'),
    externalReferenceEventId: z.string().trim().min(1).max(200).optional().openapi({ description: 'With showId: the door’s show; a ticket of another answers `other_show`.', example: 'tour-2026' }),
    showId: z.string().trim().min(1).max(200).optional().openapi({ example: 'show-1' }),
  })
  .superRefine((b, ctx) => {
    if ((b.showId === undefined) !== (b.externalReferenceEventId === undefined)) ctx.addIssue({ code: 'custom', path: [b.showId === undefined ? 'showId' : 'externalReferenceEventId'], message: 'send the show as both externalReferenceEventId and showId, or neither' });
  })
  .openapi('AdmissionVerifyRequest');

export const VerifyResultSchema = z
  .object({
    valid: z.boolean().openapi({ description: 'Let the holder in.' }),
    reason: z.enum(VERIFY_REASONS).openapi({
      description:
        '`admitted` (this scan admitted the ticket; `repeat` true when it is the same scan again), `already_admitted` (another scan did), `revoked` (the ticket changed hands, or this phone is no longer the holder’s), `expired` (a code more than two steps old: a screenshot), `not_yet_valid`, `forged`, `malformed` (not a rotating code), `unknown`, `other_show`, `listed` (on sale in the market), `deleted`, `cancelled`.',
      example: 'admitted',
    }),
    repeat: z.boolean().openapi({ description: 'The very scan that admitted the ticket, again (a retry): still `valid`.' }),
    ticket: z
      .object({
        ticketId: z.string().openapi({ example: 'tk-1042' }),
        externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
        showId: z.string().openapi({ example: 'show-1' }),
        seat: z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() }).openapi({ example: { section: 'B', row: '4', seat: '11' } }),
      })
      .nullable()
      .openapi({ description: 'The ticket the code is of; null when the code names none of yours (malformed, unknown, forged).' }),
    admittedAt: z.string().nullable().openapi({ example: '2027-06-01T19:42:07.000Z' }),
  })
  .openapi('AdmissionVerifyResult');

/** Scans a sync may carry: a door's backlog of an hour at a busy gate, in pages of this size. */
export const SYNC_MAX_SCANS = 500;

export const SyncBody = z
  .strictObject({
    scans: z
      .array(
        z.strictObject({
          text: scannedText('What the scanner read, as read.'),
          scannedAt: z.iso.datetime({ offset: true }).openapi({ description: 'When the door scanned it (its clock corrected by its kit’s `serverTime`); at most a day ago and not in the future.', example: '2027-06-01T19:42:07.000Z' }),
        }),
      )
      .min(1)
      .max(SYNC_MAX_SCANS)
      .openapi({ description: `The door's offline scans, 1 to ${SYNC_MAX_SCANS}.` }),
  })
  .openapi('AdmissionSyncRequest');

export const SyncResultSchema = z
  .object({ results: z.array(VerifyResultSchema).openapi({ description: 'One verdict per scan, in the order sent.' }) })
  .openapi('AdmissionSyncResult');

export const ScannerKitQuery = z.object({
  externalReferenceEventId: z.string().trim().min(1).max(200).openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, description: 'The show’s event.', example: 'tour-2026' }),
});

export const ScannerKitDeltaQuery = ScannerKitQuery.extend({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({
      param: { name: 'since', in: 'query' },
      description: 'The `serverTime` of the door’s last kit: only the tickets changed since then (`since` in the answer; merge them by serial). A whole kit when it is too old, or the show changed.',
      example: '2027-06-01T19:40:00.000Z',
    }),
});

export const ShowIdParam = z.object({
  showId: z.string().trim().min(1).max(200).openapi({ param: { name: 'showId', in: 'path' }, example: 'show-1' }),
});

const nullableText = z.string().nullable();

export const ScannerKitSchema = z
  .object({
    v: z.literal(1),
    externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
    showId: z.string().openapi({ example: 'show-1' }),
    serverTime: z.string().openapi({ description: 'When the kit was built: a scanner corrects its clock by it.', example: '2027-06-01T18:00:00.000Z' }),
    validUntil: z.string().openapi({ description: 'Past this, the kit is too old to admit anyone offline (`kit_expired`).', example: '2027-06-02T06:00:00.000Z' }),
    since: z.string().optional().openapi({ description: 'Present on a delta (`?since=`): the tickets changed since then, to merge into the door’s kit by serial; absent on a whole kit.', example: '2027-06-01T19:40:00.000Z' }),
    window: z.object({ past: z.number().int(), future: z.number().int() }).openapi({ description: 'Steps a code stays valid around the scanner’s.', example: { past: 2, future: 1 } }),
    keys: z.array(z.object({ tag: z.number().int(), publicKey: z.string() })).openapi({ description: 'The show’s issuer keys: the 2-byte tag codes carry and the raw Ed25519 public key (base64url).' }),
    tickets: z
      .object({
        serial: z.array(z.number().int()),
        ticketId: z.array(z.string()),
        section: z.array(nullableText),
        row: z.array(nullableText),
        seat: z.array(nullableText),
        minEpoch: z.array(z.number().int()),
        state: z.array(z.enum(['', 'revoked', 'listed', 'deleted', 'admitted', 'cancelled'])),
      })
      .openapi({ description: 'One column per field, one entry per ticket with a code, in serial order: `minEpoch`, the lowest epoch still valid (the seller’s phone after a resale, an old phone, are below it); `state`, why the ticket admits no one, or empty.' }),
  })
  .openapi('ScannerKit', { description: 'What a scanner needs to check the show’s rotating codes offline (@resale/shared/admission-kit). No secret and no personal data.' });
