import { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import { and, eq, lte } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { instanceAlive } from '../modules/instances/instances.queries.js';
import type { InstanceLease } from '../modules/instances/instances.service.js';
import type { AppEnv } from '../context.js';
import type { Db, Tx } from '../db/client.js';
import type { Clock } from '../lib/clock.js';
import { ok } from '../lib/envelope.js';
import { ApiError } from '../lib/errors.js';
import { idempotencyKeys } from './idempotency.table.js';
import { affected } from '../db/affected.js';

/**
 * `Idempotency-Key` on the POSTs that create things, as Stripe does it:
 * - the first answer is stored with a hash of the request and replayed for 24 hours;
 * - the same key with another request answers 422 `idempotency_key_reused`;
 * - a key whose first request is still running answers 409 `idempotency_in_progress`;
 * - a request that fails (4xx, 5xx) stores nothing, so the client may retry with the same key.
 *
 * A key is first claimed (a `processing` row, in its own short transaction, so that a
 * concurrent retry sees it and gets 409), and the answer is stored in the same transaction
 * as the work (`respondInTransaction`): either both commit or neither does, so a crash can
 * never leave work done without its answer to replay.
 */

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

/** What `respondInTransaction()` uses. */
export interface RespondOptions {
  db: Db;
}

/** The header clients send. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** Stripe's limit: 255 characters; visible ASCII only, so a key survives every proxy and log. */
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` request header as the document declares it, for `request.headers` of
 * every route that takes {@link idempotency}: the middleware checks it first, so this schema
 * only documents it (and lets a generated client send it).
 */
export const IdempotencyKeyHeaders = z.object({
  // Named as documented; the validator reads headers whatever their case.
  [IDEMPOTENCY_HEADER]: z
    .string()
    .regex(KEY_FORMAT)
    .optional()
    .openapi({
      description:
        'Makes the request safe to retry: a second request with the same key and body (within 24 hours) gets the first answer again, with `Idempotent-Replayed: true`, and changes nothing. 1 to 255 visible ASCII characters.',
      example: '8e03f1d2-5b7c-4a0e-9f62-0c1d2e3f4a5b',
    }),
});

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

/**
 * Middleware that makes a route idempotent per partner and `Idempotency-Key`.
 * Place it after `partnerKey()` (keys are scoped per partner). Without the header the
 * request runs as usual. The handler should answer through `respondInTransaction` so that
 * the stored answer commits with the work; an answer returned otherwise is stored after
 * the handler, when it is a success.
 *
 * @example
 * app.openapi(
 *   createRoute({ method: 'post', path: '/v1/things', middleware: [partnerKey(deps, ['private']), idempotency(deps)], ... }),
 *   (c) => respondInTransaction(c, deps, 201, (tx) => things.create(tx, c.get('auth').partner.id, c.req.valid('json'))),
 * );
 */
export function idempotency(deps: IdempotencyOptions): MiddlewareHandler<AppEnv> {
  return async function idempotencyMiddleware(c, next) {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) {
      await next();
      return;
    }
    if (!KEY_FORMAT.test(key)) {
      throw ApiError.field('invalid_value', IDEMPOTENCY_HEADER, `${IDEMPOTENCY_HEADER} must be 1 to 255 visible ASCII characters`, 'header');
    }
    const auth = c.get('auth');
    // A wiring mistake, not a client error: without a partner the key cannot be scoped.
    if (!auth) throw new Error('idempotency() must be placed after partnerKey()');
    const partnerId = auth.partner.id;

    // Hono caches the body, so the validator after this middleware still parses it.
    const requestHash = hashRequest(c.req.method, c.req.path, await c.req.text());
    const outcome = await claim(deps, partnerId, key, requestHash);
    if (outcome.kind === 'replay') {
      // Only the status and body are stored: every answer of these routes is the JSON envelope.
      // An empty body goes back as no body (a 204 may not carry one).
      const headers = { 'Content-Type': 'application/json', 'Idempotent-Replayed': 'true' };
      return outcome.body === ''
        ? c.body(null, outcome.status as StatusCode, headers)
        : c.body(outcome.body, outcome.status as ContentfulStatusCode, headers);
    }

    // The claim is identified by its lock deadline: a takeover always sets a later one, so
    // a slow request whose claim was taken over can neither complete nor release it.
    const mine = and(
      eq(idempotencyKeys.partnerId, partnerId),
      eq(idempotencyKeys.key, key),
      eq(idempotencyKeys.state, 'processing'),
      eq(idempotencyKeys.lockedUntil, outcome.lockedUntil),
    );
    let completed = false;
    const handle: IdempotencyHandle = {
      key,
      get completed() {
        return completed;
      },
      async complete(tx, status, body) {
        const res = await tx.update(idempotencyKeys).set({ state: 'done', responseStatus: status, responseBody: body }).where(mine);
        if (affected(res) !== 1) throw inProgress();
        completed = true;
      },
    };
    c.set('idempotency', handle);

    const release = () => deps.db.transact(async (tx) => await tx.delete(idempotencyKeys).where(mine));
    try {
      await next();
    } catch (err) {
      // Only reached when no onError caught it on the way; the claim must not outlive the request.
      await release();
      throw err;
    }

    const status = c.res.status;
    if (c.error || status >= 400) {
      // Nothing is stored for a failed request (as Stripe does for validation errors), so the
      // client may fix the cause and retry with the same key. A `done` row committed by the
      // handler before it failed is kept: its work is done and must not run twice.
      await release();
      return;
    }
    if (!handle.completed) {
      const body = await c.res.clone().text();
      await deps.db.transact(async (tx) => await tx.update(idempotencyKeys).set({ state: 'done', responseStatus: status, responseBody: body }).where(mine));
    }
  };
}

/**
 * Runs `work` in one transaction (`db.transact`: it may await) and answers
 * `ok(result, status)`. When the request carries a claimed Idempotency-Key, the answer is
 * stored in that same transaction, after the work: both commit or neither does.
 *
 * @example
 * (c) => respondInTransaction(c, deps, 201, (tx) => listings.create(tx, partnerId, body))
 */
export async function respondInTransaction<T, S extends 200 | 201 | 202 = 200 | 201 | 202>(
  c: Context<AppEnv>,
  deps: RespondOptions,
  status: S,
  work: (tx: Db) => T | Promise<T>,
) {
  const handle = c.get('idempotency');
  const body = await deps.db.transact(async (tx) => {
    const envelope = ok(await work(tx), status);
    await handle?.complete(tx, status, JSON.stringify(envelope));
    return envelope;
  });
  // c.json serializes with the same JSON.stringify of the same object, so the stored text
  // and the text sent are byte-identical (a replay cannot differ from the first answer).
  return c.json(body, status);
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

type Claim = { kind: 'claimed'; lockedUntil: number } | { kind: 'replay'; status: number; body: string };

/**
 * Claims `key` for this request, or says what to answer instead. Writes come first and are
 * conditional (insert if absent, take over if abandoned), so two processes racing for the
 * same key cannot both win, on SQLite or PostgreSQL alike.
 */
function claim(deps: IdempotencyOptions, partnerId: string, key: string, requestHash: string): Promise<Claim> {
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

/** SHA-256 of what makes two requests the same: method, path and body (newline-separated, so parts cannot run into each other). */
function hashRequest(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${body}`).digest('hex');
}
