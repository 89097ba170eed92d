import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse, SECURITY } from '../../lib/openapi.js';
import { partnerKey } from '../../middleware/auth.js';
import { OneTimeTokenQuerySchema, OneTimeTokenSchema } from './auth.schemas.js';
import { authService } from './auth.service.js';

/** Purpose recorded on tokens minted by GET /v1/auth/oneTimeToken. */
export const LOGIN_PURPOSE = 'login';

/** GET /v1/auth/oneTimeToken (private key only). */
export function authRoutes(deps: AppDeps) {
  const app = createRouter();

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/auth/oneTimeToken',
      operationId: 'getOneTimeToken',
      tags: ['Auth'],
      security: [SECURITY.private],
      summary: 'Get a one-time token for a signed-in user',
      description:
        'Login Force: after the user signs in on the platform, call this and redirect the user to returnTo with &oneTimeToken=<token> appended. ' +
        'The token is random (256 bits), stored hashed, single use, and valid for the partner’s oneTimeTokenTtlSeconds (default 300 s). ' +
        'Opening a service URL with it starts a session and removes it from the URL. Needs the private key (never call it from a browser).',
      middleware: [partnerKey(deps, ['private'])],
      request: { query: OneTimeTokenQuerySchema },
      responses: { 200: jsonResponse(envelope(OneTimeTokenSchema), 'The token'), ...errorResponses() },
    }),
    async (c) => {
      const { user, method } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const auth = authService(deps);
      const token = await deps.db.transact(async (tx) => await auth.mintOneTimeToken(tx, partnerId, (await auth.resolveUser(tx, partnerId, user, { method })).id, LOGIN_PURPOSE));
      c.header('Cache-Control', 'no-store');
      return c.json(ok(token), 200);
    },
  );

  return app;
}
