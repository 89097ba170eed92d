import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { MIGRATIONS_FOLDER, type Db } from '../../db/client.js';
import { migrationsTable, selectRows } from '../../db/dialect.js';
import { availabilityOf } from '../../db/availability.js';

/**
 * Whether this process can serve (`GET /readyz`), as opposed to merely being alive
 * (`GET /healthz`, which never touches the database).
 *
 * Ready means, in this order:
 * 1. not draining: from the moment a SIGTERM/SIGINT starts the shutdown (main.ts), readiness
 *    answers 503 at once, so a load balancer stops routing here while the process finishes
 *    what it has in hand;
 * 2. the database answers a trivial query (through `db.read`, so it waits its turn behind an
 *    open transaction, at most `timeoutMs`);
 * 3. every committed migration is applied;
 * 4. serving: main.ts has built the app (with `MIGRATE_ON_START=false` on a database that was
 *    not migrated, the process serves only the health endpoints until it is, then builds it).
 *
 * Migrations are judged as drizzle's migrator judges them: a migration of the journal
 * (`drizzle/meta/_journal.json`) is pending when its `when` is later than the latest
 * `created_at` in `__drizzle_migrations`. So readiness is 503 exactly when `npm run migrate`
 * would apply something, and a database migrated by a newer release (rows later than our
 * journal: expand-then-contract deploys) stays ready.
 */
export class Readiness {
  private drainingSince: number | null = null;
  private isServing: boolean;
  private readonly journal: readonly JournalEntry[];
  private readonly timeoutMs: number;
  private readonly logger: Logger | null;
  private lastReason: string | null = null;

  constructor(
    private readonly db: Db,
    opts: {
      /** The committed migrations; default: the journal of `MIGRATIONS_FOLDER`, read once. */
      journal?: readonly JournalEntry[];
      /** Logs each change of the answer (not every probe). */
      logger?: Logger;
      /** The longest the database check may take before readiness answers 503. */
      timeoutMs?: number;
      /** False while main.ts has not built the app yet (see `markServing`). Default true. */
      serving?: boolean;
    } = {},
  ) {
    this.journal = opts.journal ?? readJournal(MIGRATIONS_FOLDER);
    this.timeoutMs = opts.timeoutMs ?? READY_DB_TIMEOUT_MS;
    this.isServing = opts.serving ?? true;
    this.logger = opts.logger ?? null;
  }

  /** The shutdown has begun: readiness is 503 from now on, for good. */
  startDrain(): void {
    this.drainingSince ??= Date.now();
  }

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  /** The app is built and serving (main.ts). */
  markServing(): void {
    this.isServing = true;
  }

  /**
   * How the database's applied migrations compare with the journal. Throws when the database
   * cannot be read at all; a missing `__drizzle_migrations` table is "none applied".
   */
  migrations(): Promise<MigrationStatus> {
    return migrationStatus(this.db, this.journal);
  }

  /** The answer of `GET /readyz`. */
  async check(): Promise<ReadinessResult> {
    const result = await this.evaluate();
    const reason = result.ready ? null : result.reason;
    if (reason !== this.lastReason) {
      this.lastReason = reason;
      if (result.ready) this.logger?.info('ready');
      else if (result.reason !== 'draining') this.logger?.warn({ reason: result.reason, ...(result.detail ? { detail: result.detail } : {}) }, `not ready: ${result.message}`);
    }
    return result;
  }

  private async evaluate(): Promise<ReadinessResult> {
    if (this.draining) return notReady('draining', 'Not ready: the service is shutting down');
    let status: MigrationStatus;
    try {
      status = await this.withTimeout(
        this.db.read((tx) => selectRows(tx, sql`select 1 as ok`)).then(() => this.migrations()),
      );
    } catch (err) {
      // The reason stays generic in the answer (no SQL or paths to an unauthenticated caller); the log has it.
      return { ...notReady('database', 'Not ready: the database does not answer'), detail: (err as Error).message };
    }
    if (status.pending.length > 0) return pendingMigrations(status);
    // The probe's read passed, but the last write failed for want of the database (SQLite with
    // its disk full or its file read-only): not ready until a write commits again (the jobs
    // keep trying one a second). On PostgreSQL the probe's own success already says it is back.
    const outage = availabilityOf(this.db)?.outage;
    if (outage) return { ...notReady('database', 'Not ready: the database cannot be written'), detail: outage.reason };
    // Only main.ts starts not serving: the database was not migrated when it started, and the
    // app is being built now that it is.
    if (!this.isServing) return notReady('starting', 'Not ready: the service is starting');
    return { ready: true };
  }

  private withTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      timer.unref();
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}

/** How long `GET /readyz` waits for the database (a transaction may hold the connection). */
export const READY_DB_TIMEOUT_MS = 2_000;

/**
 * How the database's applied migrations compare with the journal (see `Readiness`). Throws when
 * the database cannot be read at all; a missing `__drizzle_migrations` table is "none applied".
 *
 * @example const { pending } = await migrationStatus(db); // ['0011_hold_limits_step_up']
 */
export async function migrationStatus(db: Db, journal: readonly JournalEntry[] = readJournal(MIGRATIONS_FOLDER)): Promise<MigrationStatus> {
  const latest = await db.read(async (tx) => {
    try {
      const rows = await selectRows<{ last: unknown }>(tx, sql`select max(created_at) as last from ${migrationsTable()}`);
      const last = rows[0]?.last;
      return last === null || last === undefined ? null : Number(last);
    } catch (err) {
      // SQLite: "no such table"; PostgreSQL: "does not exist", in the cause of drizzle's
      // "Failed query" error (the server reports it when the query runs). Anything else is a
      // real failure.
      const cause = (err as Error).cause;
      const reason = `${(err as Error).message} ${cause instanceof Error ? cause.message : ''}`;
      if (/no such table|does not exist/i.test(reason)) return null;
      throw err;
    }
  });
  const pending = journal.filter((m) => latest === null || m.when > latest).map((m) => m.tag);
  return { expected: journal.length, pending };
}

/** One migration of drizzle-kit's journal. */
export interface JournalEntry {
  idx: number;
  /** Milliseconds; drizzle stores it as `created_at` of the applied row. */
  when: number;
  tag: string;
}

export interface MigrationStatus {
  /** Migrations in the journal. */
  expected: number;
  /** Tags of the journal's migrations not applied to the database, oldest first. */
  pending: string[];
}

export type NotReadyReason = 'draining' | 'starting' | 'database' | 'migrations';

export type ReadinessResult = { ready: true } | { ready: false; reason: NotReadyReason; message: string; detail?: string };

function notReady(reason: NotReadyReason, message: string): ReadinessResult & { ready: false } {
  return { ready: false, reason, message };
}

function pendingMigrations(status: MigrationStatus): ReadinessResult {
  const n = status.pending.length;
  return {
    ...notReady('migrations', `Not ready: ${n} of ${status.expected} database migrations ${n === 1 ? 'is' : 'are'} not applied; run npm run migrate`),
    detail: status.pending.join(', '),
  };
}

/** The journal of a drizzle-kit migrations folder (`meta/_journal.json`), read once per folder. */
export function readJournal(folder: string): readonly JournalEntry[] {
  let entries = journals.get(folder);
  if (!entries) {
    const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: JournalEntry[] };
    entries = Object.freeze([...journal.entries].sort((a, b) => a.idx - b.idx));
    journals.set(folder, entries);
  }
  return entries;
}
const journals = new Map<string, readonly JournalEntry[]>();
