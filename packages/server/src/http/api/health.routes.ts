import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../context.js';
import { fail, ok } from '../../lib/envelope.js';
import type { ErrorCode } from '../../lib/errors.js';
import { createRouter, envelope, ErrorEnvelopeSchema, jsonResponse } from '../openapi.js';
import type { Readiness } from './health.readiness.js';

/**
 * The code of a 503 from `/readyz` (and of every request while main.ts serves only the health
 * endpoints). The closed list of lib/errors.ts has no code of its own for "not ready" yet; the
 * message says why (shutting down, starting, database, migrations).
 */
export const NOT_READY_CODE: ErrorCode = 'not_ready';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The error envelope of a 503 (`fail`'s shape, with its errors typed non-null for the route's schema). */
function notReadyBody(message: string) {
  return { ...fail(503, []), errors: [{ code: NOT_READY_CODE, message }] };
}

/**
 * `GET /healthz` (liveness) and `GET /readyz` (readiness), outside `/v1`: no key, never rate
 * limited (app.ts mounts them before every other middleware but the request id and log line),
 * answered in the envelope and never cached.
 *
 * @example app.route('/', healthRoutes(new Readiness(deps.db)));
 */
export function healthRoutes(readiness: Readiness): OpenAPIHono<AppEnv> {
  const app = createRouter();
  const common = { tags: ['Operations'], security: [] };

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/healthz',
      operationId: 'getLiveness',
      summary: 'Liveness: the process is up',
      description:
        'Answers 200 while the process runs, draining included, without touching the database: a failing liveness probe ' +
        'means the process should be restarted. No key; never rate limited.',
      responses: { 200: jsonResponse(envelope(z.object({ alive: z.literal(true) })), 'The process is alive') },
    }),
    (c) => c.json(ok({ alive: true as const }), 200, NO_STORE),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      summary: 'Readiness: the process can serve requests',
      description:
        'Answers 200 when the database answers and every migration of this release is applied; 503 otherwise, and from the ' +
        'moment a shutdown begins (SIGTERM/SIGINT), so a load balancer stops routing here while requests in flight finish. ' +
        `The 503's error (code ${NOT_READY_CODE}) says why: shutting down, starting, the database, or migrations not applied. No key; never rate limited.`,
      responses: {
        200: jsonResponse(envelope(z.object({ ready: z.literal(true) })), 'Ready to serve'),
        503: { description: 'Not ready: shutting down, starting, database not answering, or migrations not applied', content: { 'application/json': { schema: ErrorEnvelopeSchema } } },
      },
    }),
    async (c) => {
      const result = await readiness.check();
      if (result.ready) return c.json(ok({ ready: true as const }), 200, NO_STORE);
      return c.json(notReadyBody(result.message), 503, NO_STORE);
    },
  );

  return app;
}

/**
 * What main.ts serves while the database lacks migrations and `MIGRATE_ON_START=false`: the
 * health endpoints, and 503 for everything else (the app cannot be built on tables that do not
 * exist yet). Replaced by the full app once `npm run migrate` has run.
 */
export function healthOnlyApp(readiness: Readiness): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.route('/', healthRoutes(readiness));
  const unavailable = (c: Context<AppEnv>) =>
    c.json(notReadyBody('The service is not ready yet: its database migrations are not applied'), 503, { ...NO_STORE, 'Retry-After': '5' });
  app.notFound(unavailable);
  app.onError((_err, c) => unavailable(c));
  return app;
}
