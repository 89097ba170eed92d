import { and, eq, lte } from 'drizzle-orm';
import { affected } from '../../db/affected.js';
import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { instanceAlive } from '../instances/instances.queries.js';
import type { InstanceLease } from '../instances/instances.service.js';
import { idempotencyKeys } from './idempotency.table.js';

/**
 * The stored answers of `Idempotency-Key` (the HTTP side is http/middleware/idempotency.ts):
 * a key is claimed (a `processing` row, in its own short transaction, so that a concurrent
 * retry sees it), completed with the answer in the transaction of the work, released when the
 * request failed, replayed for 24 hours, and purged after. This module alone writes
 * `idempotency_keys`.
 */

/** The header clients send (named in the errors this store raises). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** How long the stored answer of a key is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The longest a `processing` claim blocks other requests with the same key. Sooner, a claim
 * whose process has lost its lease (crashed, killed: `service_instances`, renewed every few
 * seconds while a process runs) is taken over by the next request: within
 * `INSTANCE_LEASE_MS` (10 s) of the crash rather than this minute.
 */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;

/** What `idempotency()` and the purge use: the database (this module alone writes `idempotency_keys`), the clock and this process's lease. */
export interface IdempotencyOptions {
  db: Db;
  clock: Clock;
  instance: InstanceLease;
}

/**
 * Deletes the Idempotency-Key rows whose replay window has passed (`expiresAt <= now`).
 * Correctness does not depend on it (the middleware treats an expired row as absent); it
 * only keeps the table from growing. One conditional delete, safe with several processes.
 * Run hourly by jobs/purge-idempotency.ts.
 *
 * @returns how many rows were deleted
 * @example await purgeExpiredIdempotencyKeys(deps); // 0 when nothing had expired
 */
export function purgeExpiredIdempotencyKeys(deps: IdempotencyOptions): Promise<number> {
  return deps.db.transact(async (tx) => affected(await tx.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, deps.clock.now()))));
}

/** What a claim found: the key is this request's now, or its stored answer is to be replayed. */
export type Claim = { kind: 'claimed'; lockedUntil: number } | { kind: 'replay'; status: number; body: string };

/**
 * Claims `key` for this request, or says what to answer instead. Writes come first and are
 * conditional (insert if absent, take over if abandoned), so two processes racing for the
 * same key cannot both win, on SQLite or PostgreSQL alike.
 */
export function claim(deps: IdempotencyOptions, partnerId: string, key: string, requestHash: string): Promise<Claim> {
  const now = deps.clock.now();
  const lockedUntil = now + IDEMPOTENCY_LOCK_MS;
  const fresh = { requestHash, state: 'processing' as const, responseStatus: null, responseBody: null, lockedUntil, owner: deps.instance.id, createdAt: now, expiresAt: now + IDEMPOTENCY_TTL_MS };
  const thisKey = and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key));

  return deps.db.transact(async (tx): Promise<Claim> => {
    // An expired key is as good as unused, whether or not the purge job has run yet.
    await tx.delete(idempotencyKeys).where(and(thisKey, lte(idempotencyKeys.expiresAt, now)));
    const inserted = await tx.insert(idempotencyKeys).values({ partnerId, key, ...fresh }).onConflictDoNothing();
    if (affected(inserted) === 1) return { kind: 'claimed', lockedUntil };

    const row = (await tx.select().from(idempotencyKeys).where(thisKey).limit(1))[0];
    if (!row) throw inProgress(); // removed between our statements by another process: let the client retry
    if (row.requestHash !== requestHash) {
      throw new ApiError(422, 'idempotency_key_reused', `This ${IDEMPOTENCY_HEADER} was already used with another request; send a new key for a new request`, {
        path: IDEMPOTENCY_HEADER,
        in: 'header',
      });
    }
    if (row.state === 'done') return { kind: 'replay', status: row.responseStatus ?? 200, body: row.responseBody ?? '' };
    // Still running where its process holds a live lease (and within the lock's bound).
    // Still running: in this process, or in one whose lease is live (main.ts registers it at
    // start, the instance-lease job renews it). A claim of an older release names no process:
    // its lock alone decides.
    if (row.lockedUntil > now && (row.owner === null || row.owner === deps.instance.id || (await instanceAlive(tx, row.owner, now)))) throw inProgress();

    // The first request's process crashed before answering (its work rolled back with it): take over.
    const taken = await tx
      .update(idempotencyKeys)
      .set(fresh)
      .where(and(thisKey, eq(idempotencyKeys.state, 'processing'), eq(idempotencyKeys.lockedUntil, row.lockedUntil)));
    if (affected(taken) !== 1) throw inProgress();
    return { kind: 'claimed', lockedUntil };
  });
}

function inProgress(): ApiError {
  return new ApiError(409, 'idempotency_in_progress', `A request with this ${IDEMPOTENCY_HEADER} is still being processed; retry later`, {
    path: IDEMPOTENCY_HEADER,
    in: 'header',
  });
}


/** The `processing` row of this claim: identified by its lock deadline, which a takeover always moves later. */
function claimed(partnerId: string, key: string, lockedUntil: number) {
  return and(eq(idempotencyKeys.partnerId, partnerId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'processing'), eq(idempotencyKeys.lockedUntil, lockedUntil));
}

/**
 * Stores the answer of the claim as `done` inside the caller's transaction `tx`: it commits or
 * rolls back with the work. Throws 409 `idempotency_in_progress` when the claim was taken over
 * meanwhile (a retry after the lock expired).
 */
export async function completeClaim(tx: Tx, partnerId: string, key: string, lockedUntil: number, status: number, body: string): Promise<void> {
  const res = await tx.update(idempotencyKeys).set({ state: 'done', responseStatus: status, responseBody: body }).where(claimed(partnerId, key, lockedUntil));
  if (affected(res) !== 1) throw inProgress();
}

/** Stores the answer of the claim on its own (an answer the handler did not store in its transaction); a claim taken over is left alone. */
export function storeAnswer(db: Db, partnerId: string, key: string, lockedUntil: number, status: number, body: string): Promise<unknown> {
  return db.transact(async (tx) => await tx.update(idempotencyKeys).set({ state: 'done', responseStatus: status, responseBody: body }).where(claimed(partnerId, key, lockedUntil)));
}

/** Deletes the claim of a request that failed, so the client may retry with the same key. */
export function releaseClaim(db: Db, partnerId: string, key: string, lockedUntil: number): Promise<unknown> {
  return db.transact(async (tx) => await tx.delete(idempotencyKeys).where(claimed(partnerId, key, lockedUntil)));
}

/**
 * A claimed key of the current request, set as `c.get('idempotency')` by `idempotency()`.
 * Handlers rarely use it directly: `respondInTransaction` does.
 */
export interface IdempotencyHandle {
  /** The key the client sent. */
  readonly key: string;
  /** True once `complete()` has written the answer (in a transaction that may still roll back). */
  readonly completed: boolean;
  /**
   * Stores the answer as `done` inside the caller's transaction `tx`, so it commits or rolls
   * back together with the work. `body` is the exact text sent to the client, replayed byte
   * for byte. Throws a 409 `idempotency_in_progress` ApiError (rolling back the work) when
   * the claim was taken over meanwhile by a retry after the lock expired.
   */
  complete(tx: Tx, status: number, body: string): Promise<void>;
}
