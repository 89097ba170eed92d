import { z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import { createHash } from 'node:crypto';
import { claim, completeClaim, IDEMPOTENCY_HEADER, releaseClaim, storeAnswer, type IdempotencyHandle, type IdempotencyOptions } from '../../domain/idempotency/idempotency.store.js';
import type { AppEnv } from '../../context.js';
import type { Db } from '../../db/client.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';

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

/** What `respondInTransaction()` uses: the database, or a runner of its transactions (a group commit, db/group-commit.ts). */
export interface RespondOptions {
  db: Db;
  /** Runs the work's transaction instead of `db.transact` (buy attempts: `deps.reservations.transact`). */
  transact?: <T>(work: (tx: Db) => T | Promise<T>) => Promise<T>;
}


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
    const { lockedUntil } = outcome;
    let completed = false;
    const handle: IdempotencyHandle = {
      key,
      get completed() {
        return completed;
      },
      async complete(tx, status, body) {
        await completeClaim(tx, partnerId, key, lockedUntil, status, body);
        completed = true;
      },
    };
    c.set('idempotency', handle);

    const release = () => releaseClaim(deps.db, partnerId, key, lockedUntil);
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
      await storeAnswer(deps.db, partnerId, key, lockedUntil, status, body);
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
  const body = await (deps.transact ?? deps.db.transact)(async (tx) => {
    const envelope = ok(await work(tx), status);
    await handle?.complete(tx, status, JSON.stringify(envelope));
    return envelope;
  });
  // c.json serializes with the same JSON.stringify of the same object, so the stored text
  // and the text sent are byte-identical (a replay cannot differ from the first answer).
  return c.json(body, status);
}

/** SHA-256 of what makes two requests the same: method, path and body (newline-separated, so parts cannot run into each other). */
function hashRequest(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method}\n${path}\n${body}`).digest('hex');
}
