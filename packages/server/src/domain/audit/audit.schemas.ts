import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import type { AuditQuery } from './audit.service.js';
import { AUDIT_ACTOR_KINDS, type AuditRow } from './audit.table.js';

/** Largest page of `GET /admin/v1/audit`. */
export const AUDIT_PAGE_MAX = 200;
const AUDIT_PAGE_DEFAULT = 50;

/** The `actor` filter that selects the calls made with OPERATOR_TOKEN (any other value is a console user's id). */
export const OPERATOR_TOKEN_ACTOR = 'operator_token';

const q = (name: string) => ({ param: { name, in: 'query' as const } });

const instant = (name: string, description: string, example: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset, such as 2026-11-01T00:00:00Z' })
    .optional()
    .openapi({ ...q(name), description, example });

/** Whether the payload's `from` and `to` parsed (so comparing them means something). */
const bothInstantsParsed = (payload: { value: unknown; issues: readonly { path?: readonly PropertyKey[] | undefined }[] }) => {
  const v = payload.value as { from?: unknown; to?: unknown } | undefined;
  return typeof v?.from === 'string' && typeof v.to === 'string' && !payload.issues.some((i) => i.path?.[0] === 'from' || i.path?.[0] === 'to');
};

/**
 * What `GET /admin/v1/audit` selects. Strict: a parameter it does not know is refused (a
 * misspelt filter would otherwise answer the whole log); `to` must be after `from`.
 */
export const AuditListQuerySchema = z
  .strictObject({
    partnerId: z.string().min(1).optional().openapi({ ...q('partnerId'), description: 'Only the changes that concern this partner.', example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    actor: z
      .string()
      .min(1)
      .optional()
      .openapi({ ...q('actor'), description: 'Only the changes of this console user (their id), or `operator_token`: the calls to /admin/v1 made with OPERATOR_TOKEN.', example: OPERATOR_TOKEN_ACTOR }),
    action: z.string().min(1).max(100).optional().openapi({ ...q('action'), description: 'Only this action, such as `partner.update` (the list is in the operator API guide).', example: 'partner.update' }),
    from: instant('from', 'Only the changes made at or after this instant (inclusive).', '2026-11-01T00:00:00Z'),
    to: instant('to', 'Only the changes made before this instant (exclusive); after `from`.', '2026-12-01T00:00:00Z'),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(AUDIT_PAGE_MAX)
      .default(AUDIT_PAGE_DEFAULT)
      .openapi({ ...q('limit'), description: `Page size, 1 to ${AUDIT_PAGE_MAX}.`, example: AUDIT_PAGE_DEFAULT }),
    startingAfter: z.string().min(1).optional().openapi({ ...q('startingAfter'), description: 'The previous page’s nextCursor.', example: 'aud_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  })
  .refine((v) => Date.parse(v.to!) > Date.parse(v.from!), { path: ['to'], error: 'must be after from', when: bothInstantsParsed });

export type AuditListQuery = z.output<typeof AuditListQuerySchema>;

/** The filters of {@link AuditListQuerySchema} as `AuditService.list` takes them. */
export function auditQueryOf(query: AuditListQuery): AuditQuery {
  const actor = query.actor === undefined ? {} : query.actor === OPERATOR_TOKEN_ACTOR ? { actorKind: 'operator_token' as const } : { actorId: query.actor };
  return {
    ...actor,
    partnerId: query.partnerId,
    action: query.action,
    from: query.from === undefined ? undefined : Date.parse(query.from),
    to: query.to === undefined ? undefined : Date.parse(query.to),
    limit: query.limit,
    startingAfter: query.startingAfter,
  };
}

const ChangeSchema = z
  .record(z.string(), z.unknown())
  .nullable()
  .openapi('AuditChange', {
    description:
      'The fields that changed, as dotted paths (`settings.qrLockHoursBeforeShow`) with their values on this side of the change; null when this side has none (`before` of a creation, of a rotation). A secret never appears: a secret set, changed or rotated reads `[redacted]`, one cleared null.',
    example: { 'settings.qrLockHoursBeforeShow': 24 },
  });

export const AuditActorSchema = z
  .object({
    kind: z.enum(AUDIT_ACTOR_KINDS).openapi({ description: '`operator_token`: a call to /admin/v1 with OPERATOR_TOKEN (it names no person); `console`: a person signed in to the console.', example: 'operator_token' }),
    userId: z.string().nullable().openapi({ description: 'The console user’s id; null for the operator token.', example: null }),
    email: z.string().nullable().openapi({ description: 'The console user’s e-mail address when the change was made; null for the operator token.', example: null }),
    role: z.string().nullable().openapi({ description: '`operator`, or the console user’s role at the partner (`partner_admin`, `developer`, `viewer`); null for the operator token.', example: null }),
  })
  .openapi('AuditActor');

export const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: 'aud_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    at: z.string().openapi({ description: 'When the change was made (committed with it).', example: '2026-11-24T18:00:00.000Z' }),
    actor: AuditActorSchema,
    partnerId: z.string().nullable().openapi({ description: 'The partner the change concerns; null for a change of the whole deployment.', example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    action: z.string().openapi({ description: 'What was done, dotted and stable (`partner.update`, `partner.key.rotate` …; the list is in the operator API guide).', example: 'partner.update' }),
    target: z.string().nullable().openapi({ description: 'The id of what was changed: a partner, a webhook message, an event (`<eventId>` or `<eventId>/<showId>`) …', example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    before: ChangeSchema,
    after: ChangeSchema,
    clientAddress: z.string().nullable().openapi({ description: 'The client’s address as the service resolved it (see TRUST_PROXY).', example: '203.0.113.7' }),
    requestId: z.string().nullable().openapi({ description: 'The request’s id (the `Request-Id` answered, and in the service’s log).', example: '0d5f1c2e-8a41-4c55-9d0e-6b7f3a2c1e90' }),
  })
  .openapi('AuditEntry', {
    example: {
      id: 'aud_01jd8x3k4f5g6h7j8k9m0n1p2q',
      at: '2026-11-24T18:00:00.000Z',
      actor: { kind: 'operator_token', userId: null, email: null, role: null },
      partnerId: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q',
      action: 'partner.update',
      target: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q',
      before: { 'settings.qrLockHoursBeforeShow': 3, 'settings.platformSecret': null },
      after: { 'settings.qrLockHoursBeforeShow': 24, 'settings.platformSecret': '[redacted]' },
      clientAddress: '203.0.113.7',
      requestId: '0d5f1c2e-8a41-4c55-9d0e-6b7f3a2c1e90',
    },
  });

export const AuditListSchema = z
  .object({
    items: z.array(AuditEntrySchema).openapi({ description: 'Newest first.' }),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `startingAfter` for the next page; null on the last page.', example: null }),
  })
  .openapi('AuditList');

/** The wire form of an audit entry. */
export function auditEntryToApi(row: AuditRow): z.infer<typeof AuditEntrySchema> {
  return {
    id: row.id,
    at: toIso(row.at),
    actor: { kind: row.actorKind, userId: row.actorId, email: row.actorEmail, role: row.role },
    partnerId: row.partnerId,
    action: row.action,
    target: row.target,
    before: asChange(row.before),
    after: asChange(row.after),
    clientAddress: row.clientAddress,
    requestId: row.requestId,
  };
}

function asChange(value: unknown): Record<string, unknown> | null {
  if (value === null || value === undefined) return null;
  // Entries record objects; anything else (a console module's scalar) is shown under `value`.
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}
