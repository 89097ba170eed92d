import { and, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Kernel } from '../../lib/kernel.js';
import { auditLog, type AuditRow } from './audit.table.js';

/** An entry as stored (other modules and rings take the type from here, never from the table file). */
export type { AuditRow };

/** A person signed in to the console, as the audit log names them. */
export interface ConsoleActor {
  kind: 'console';
  userId: string;
  email: string;
  /**
   * `operator`, or their role at the partner the change concerns; null for a change of the
   * person's own account (their passkeys), which concerns no partner.
   */
  role: 'operator' | 'partner_admin' | 'developer' | 'viewer' | null;
}

/** Who makes a change: a console user, or a call to `/admin/v1` with OPERATOR_TOKEN. */
export type Actor = ConsoleActor | { kind: 'operator_token' };

/** Who made a change, and from where: the request's side of an audit entry. */
export interface AuditContext {
  actor: Actor;
  clientAddress?: string | null | undefined;
  requestId?: string | null | undefined;
}

/** What changed. `before` and `after` are reduced to the fields that differ, secrets redacted ({@link auditChange}). */
export interface AuditEntry {
  /** Dotted: `partner.create`, `partner.settings.update`, `webhook.resend` … */
  action: string;
  partnerId?: string | null | undefined;
  target?: string | null | undefined;
  before?: unknown;
  after?: unknown;
}

/** Filters of {@link AuditService.list}; `from` inclusive, `to` exclusive (epoch ms of `at`). */
export interface AuditQuery {
  partnerId?: string | undefined;
  actorId?: string | undefined;
  /** `operator_token` selects the calls made with the token. */
  actorKind?: 'console' | 'operator_token' | undefined;
  action?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
  /** Cursor: the last id of the previous page (newest first); an id that is no entry is a 400 naming `startingAfter`. */
  startingAfter?: string | undefined;
}

/**
 * What is never written to the audit log: any field whose name (or the last part of a dotted
 * path) ends in a word that says it holds a secret: `webhookSecret`, `platformSecret`,
 * `password`, `token`, `keys`, `privateKey`, `codeHash`, `iban`, `accountNumber` … The end, not
 * anywhere: `oneTimeTokenTtlSeconds` is a lifetime, `platformSecretSet` a yes or no.
 */
const SECRET_FIELD = /(secret|password|passphrase|token|keys?|hash|iban|accountnumber)$/i;

/** Whether a field named `name` (or a dotted path ending in it) holds a secret, so it is written as {@link REDACTED}. */
export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

/** Said instead of a secret's value: that it changed (or was set), never what it is. */
export const REDACTED = '[redacted]';

/**
 * `value` with every field whose name says it holds a secret replaced by {@link REDACTED}, at
 * any depth; null stays null (a secret cleared).
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v !== null && v !== undefined ? REDACTED : redact(v)]));
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, value);
  }
}

/**
 * The fields of `before` and `after` that differ, as dotted paths (`settings.qrLockHoursBeforeShow`),
 * secrets redacted: what an audit entry shows as before → after. A field absent on one side is
 * null there.
 *
 * @example auditChange({ settings: { qrLockHoursBeforeShow: 3, feedPollSeconds: 300 } }, { settings: { qrLockHoursBeforeShow: 24, feedPollSeconds: 300 } })
 * // { before: { 'settings.qrLockHoursBeforeShow': 3 }, after: { 'settings.qrLockHoursBeforeShow': 24 } }
 */
export function auditChange(before: unknown, after: unknown): { before: Record<string, unknown>; after: Record<string, unknown> } {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  flatten(redact(before), '', a);
  flatten(redact(after), '', b);
  const out = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(path) ?? null;
    const y = b.get(path) ?? null;
    // A secret set again reads the same redacted: whether it changed is what the caller said.
    if (JSON.stringify(x) === JSON.stringify(y) && x !== REDACTED) continue;
    out.before[path] = x;
    out.after[path] = y;
  }
  return out;
}

/**
 * The audit log (table `audit_log`, written by this module only): every change made in the
 * console or through `/admin/v1`, recorded in the transaction of the change, so a change is
 * never without its entry nor an entry without its change. Append-only: nothing here updates
 * or deletes, and triggers refuse it in the database.
 */
export class AuditService {
  private readonly clock: Kernel['clock'];

  constructor(deps: Pick<Kernel, 'clock'>) {
    this.clock = deps.clock;
  }

  /** Records one change in `tx` (the change's own transaction); its before and after are redacted again here. */
  async record(tx: Tx, ctx: AuditContext, entry: AuditEntry): Promise<AuditRow> {
    const actor = ctx.actor;
    const row = {
      id: newId('audit'),
      at: this.clock.now(),
      actorKind: actor.kind,
      actorId: actor.kind === 'console' ? actor.userId : null,
      actorEmail: actor.kind === 'console' ? actor.email : null,
      role: actor.kind === 'console' ? actor.role : null,
      partnerId: entry.partnerId ?? null,
      action: entry.action,
      target: entry.target ?? null,
      before: entry.before === undefined ? null : redact(entry.before),
      after: entry.after === undefined ? null : redact(entry.after),
      clientAddress: ctx.clientAddress ?? null,
      requestId: ctx.requestId ?? null,
    };
    await tx.insert(auditLog).values(row);
    return row;
  }

  /**
   * Entries newest first (by `at`, then id: ids of one instant sort by creation), a page at a
   * time (`nextCursor`: pass it as `startingAfter`). The cursor is an entry's id; the next page
   * starts after that entry's place, so entries written meanwhile never shift a page.
   *
   * @throws ApiError 400 (`startingAfter`, in query) when the cursor is no entry's id
   */
  async list(tx: Tx, q: AuditQuery): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
    const where: SQL[] = [];
    if (q.partnerId !== undefined) where.push(eq(auditLog.partnerId, q.partnerId));
    if (q.actorId !== undefined) where.push(eq(auditLog.actorId, q.actorId));
    if (q.actorKind !== undefined) where.push(eq(auditLog.actorKind, q.actorKind));
    if (q.action !== undefined) where.push(eq(auditLog.action, q.action));
    if (q.from !== undefined) where.push(gte(auditLog.at, q.from));
    if (q.to !== undefined) where.push(lt(auditLog.at, q.to));
    if (q.startingAfter !== undefined) {
      const cursor = (await tx.select({ at: auditLog.at, id: auditLog.id }).from(auditLog).where(eq(auditLog.id, q.startingAfter)).limit(1))[0];
      if (!cursor) throw ApiError.field('invalid_value', 'startingAfter', 'startingAfter is not an entry of the audit log (pass a nextCursor as it was answered)', 'query');
      where.push(or(lt(auditLog.at, cursor.at), and(eq(auditLog.at, cursor.at), lt(auditLog.id, cursor.id)))!);
    }
    const rows = await tx
      .select()
      .from(auditLog)
      .where(and(...where))
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(q.limit + 1);
    const items = rows.slice(0, q.limit);
    return { items, nextCursor: rows.length > q.limit ? items[items.length - 1]!.id : null };
  }
}
