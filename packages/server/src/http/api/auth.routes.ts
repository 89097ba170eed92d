import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { OneTimeTokenQuerySchema, OneTimeTokenSchema, SignOutUrlQuerySchema, SignOutUrlSchema } from '../../domain/auth/auth.schemas.js';
import { authService } from '../../domain/auth/auth.service.js';
import { PARTNER_SIGN_OUT_PATH } from '../pages/auth/auth.session.js';
import { LOGIN_PURPOSE, RETURN_TO_TAG_PARAM, returnToTag } from '../../domain/auth/auth.urls.js';

/** GET /v1/auth/oneTimeToken and GET /v1/auth/signOutUrl (private key only). */
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

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/auth/signOutUrl',
      operationId: 'getSignOutUrl',
      tags: ['Auth'],
      security: [SECURITY.private],
      summary: 'Get the URL that signs a user out of the service',
      description:
        'When a user signs out of the platform, send the browser to this URL (a redirect: a top-level navigation carries the service’s cookie): ' +
        'it ends the user’s session on the service in that browser, so the next person on the same computer is not signed in as them, ' +
        'then goes to returnTo. Without it, the service session lives on (12 hours) after the platform’s sign-out. ' +
        'The URL is not personal and can be kept; returnTo is tagged, so any http(s) address your server chooses is followed. ' +
        'Needs the private key: with the public key anyone could make the service redirect anywhere.',
      middleware: [partnerKey(deps, ['private'])],
      request: { query: SignOutUrlQuerySchema },
      responses: { 200: jsonResponse(envelope(SignOutUrlSchema), 'The URL'), ...errorResponses() },
    }),
    (c) => {
      const { returnTo } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const q = new URLSearchParams({ p: partnerId, returnTo, [RETURN_TO_TAG_PARAM]: returnToTag(deps.box, partnerId, returnTo) });
      return c.json(ok(`${deps.config.publicBaseUrl}${PARTNER_SIGN_OUT_PATH}?${q}`), 200);
    },
  );

  return app;
}
