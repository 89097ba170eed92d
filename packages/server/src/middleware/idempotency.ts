import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from '../context.js';
import type { Tx } from '../db/client.js';
import { ok } from '../lib/envelope.js';

/** STUB: being implemented. The signatures below are the contract. */
export function idempotency(_deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async function idempotencyMiddleware(_c, next) {
    await next();
  };
}

/**
 * Runs `work` in one transaction and answers `ok(result, status)`. When the request
 * carries a claimed Idempotency-Key, the answer is stored in that same transaction.
 */
export function respondInTransaction<T>(c: Context<AppEnv>, deps: AppDeps, status: 200 | 201 | 202, work: (tx: Tx) => T): Response {
  const body = deps.db.transaction((tx) => ok(work(tx), status));
  return c.json(body, status);
}
