import { dbTable, index, integer, text } from '../../db/schema-builders.js';

/** Who made a change: a person signed in to the console, or a call with OPERATOR_TOKEN. */
export const AUDIT_ACTOR_KINDS = ['console', 'operator_token'] as const;

/**
 * Every change made in the console or through `/admin/v1`: append-only (the migrations add
 * triggers that refuse UPDATE and DELETE on both engines). `partnerId` is plain text, not a
 * reference: the record outlives whatever it names. Secrets never reach it (see
 * domain/audit/audit.service.ts, `redact`).
 */
export const auditLog = dbTable(
  'audit_log',
  {
    id: text().primaryKey(),
    at: integer().notNull(),
    actorKind: text({ enum: AUDIT_ACTOR_KINDS }).notNull(),
    /** The console user's id; null for the operator token. */
    actorId: text(),
    /** The console user's address at the time; null for the operator token. */
    actorEmail: text(),
    /** `operator`, `partner_admin`, `developer`, `viewer`; null for the token. */
    role: text(),
    /** The partner the change concerns; null for deployment-wide changes. */
    partnerId: text(),
    /** What was done, dotted (`partner.settings.update`, `webhook.resend` …). */
    action: text().notNull(),
    /** The id of what was changed (a partner, a message, a membership …). */
    target: text(),
    before: text({ mode: 'json' }).$type<unknown>(),
    after: text({ mode: 'json' }).$type<unknown>(),
    clientAddress: text(),
    requestId: text(),
  },
  (t) => [index('audit_log_at_idx').on(t.at), index('audit_log_partner_idx').on(t.partnerId, t.at), index('audit_log_actor_idx').on(t.actorId, t.at), index('audit_log_action_idx').on(t.action, t.at)],
);

export type AuditRow = typeof auditLog.$inferSelect;
