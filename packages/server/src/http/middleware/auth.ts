import type { Context, MiddlewareHandler } from 'hono';
import type { AppConfig } from '../../lib/config.js';
import type { AppEnv } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/crypto.js';
import { SECURITY } from '../openapi.js';
import { applyBrowserOrigin } from './cors.js';
import type { RateLimiter } from './rate-limit.js';
import type { ApiKeyKind } from '../../domain/partners/partners.queries.js';
import type { Authenticated, KeyHolder } from '../../domain/partners/partners.service.js';
import type { AuditContext } from '../../domain/audit/audit.service.js';

/** The key in `Authorization: <key>` or `Authorization: Bearer <key>`. */
export function presentedKey(c: Context): string | null {
  return keyOfAuthorization(c.req.header('authorization'));
}

/** The key in an `Authorization` header's value (`<key>` or `Bearer <key>`); null when it names none. */
export function keyOfAuthorization(value: string | undefined): string | null {
  const header = value?.trim();
  if (!header) return null;
  const m = /^Bearer\s+(.+)$/i.exec(header);
  return (m ? m[1]! : header).trim() || null;
}

const KIND_NAMES: Record<ApiKeyKind, string> = { private: 'private key', public: 'public key', channels: 'channels key' };

/** What `partnerKey()` uses: the key lookup, the rate limiter, and the default limit and own origin. */
export interface PartnerKeyOptions {
  /** `PartnersService.authenticate`, or a cache in front of it that may answer synchronously. */
  partners: { authenticate(presented: string): Authenticated | null | Promise<Authenticated | null> };
  rateLimiter: Pick<RateLimiter, 'take'>;
  config: Pick<AppConfig, 'rateLimitPerMinute' | 'publicBaseUrl'>;
}

/** What `operatorToken()` uses. */
export interface OperatorTokenOptions {
  config: Pick<AppConfig, 'operatorToken'>;
}

/**
 * Authenticates a partner key and applies the partner's API rate limit.
 * `kinds` lists the key kinds the route accepts; it may depend on the request (the buy
 * access layer accepts the public key unless `loginTrust[user]` is sent).
 *
 * @example app.openapi(createRoute({ ..., middleware: [partnerKey(deps, ['private'])] }), handler)
 */
export function partnerKey(deps: PartnerKeyOptions, kinds: readonly ApiKeyKind[] | ((c: Context<AppEnv>) => readonly ApiKeyKind[]), bucket: RateBucket = 'api'): MiddlewareHandler<AppEnv> {
  return async function partnerKeyMiddleware(c, next) {
    const key = presentedKey(c);
    if (!key) throw new ApiError(401, 'unauthorized', 'Send your API key in the Authorization header');
    // A cache in front of the lookup may answer synchronously: no turn of the event loop then.
    const found = deps.partners.authenticate(key);
    const auth = found instanceof Promise ? await found : found;
    if (!auth) throw new ApiError(401, 'unauthorized', 'The API key is not valid');
    const accepted = typeof kinds === 'function' ? kinds(c) : kinds;
    if (!accepted.includes(auth.kind)) {
      throw new ApiError(403, 'forbidden_key_kind', `This endpoint accepts the ${accepted.map((k) => KIND_NAMES[k]).join(' or the ')}, not the ${KIND_NAMES[auth.kind]}`);
    }
    applyBrowserOrigin(c, deps, auth);
    await takePartnerRate(deps, auth, bucket);
    c.set('auth', auth);
    await next();
  };
}

/**
 * The partner's rate limits: `api`, every call of the API; `streams`, the openings of live stock
 * streams, counted apart with the same limit, so that an on-sale's pages opening their streams
 * cannot use up the partner's API (the open streams are bounded by ACCESS_LAYER_MAX_STREAMS).
 */
export type RateBucket = 'api' | 'streams';

/**
 * Takes one request of the partner's limit in `bucket` (429 `rate_limited` beyond it), for a
 * key authenticated in full or only by its holder (`PartnersService.keyHolder`).
 */
export async function takePartnerRate(deps: Pick<PartnerKeyOptions, 'rateLimiter' | 'config'>, auth: Authenticated | KeyHolder, bucket: RateBucket): Promise<void> {
  const [partnerId, limit] = 'partner' in auth ? [auth.partner.id, auth.partner.settings.rateLimitPerMinute] : [auth.partnerId, auth.rateLimitPerMinute];
  await deps.rateLimiter.take(`${bucket}:${partnerId}`, limit ?? deps.config.rateLimitPerMinute);
}

/**
 * What every route of the operator API (`/admin/v1`) shares: its tag and security scheme in
 * the OpenAPI document, and the operator token checked. Spread into `createRoute`.
 */
export function operatorRoute(deps: OperatorTokenOptions) {
  return { tags: ['Operator'], security: [SECURITY.operator], middleware: operatorToken(deps) };
}

/**
 * Who makes a change through the operator API, as the audit log records it: the operator
 * token (it names no person), with the request's client address and request id. Pass it to
 * the flows of `flows/operator-changes.ts` from every route of {@link operatorRoute} that
 * changes something.
 *
 * @example const partner = await updatePartner(deps, operatorAuditContext(c), partnerId, change);
 */
export function operatorAuditContext(c: Context<AppEnv>): AuditContext {
  return { actor: { kind: 'operator_token' }, clientAddress: c.get('clientAddress'), requestId: c.get('requestId') };
}

/** The operator API's bearer token, compared in constant time. */
export function operatorToken(deps: OperatorTokenOptions): MiddlewareHandler<AppEnv> {
  return bearerToken(() => deps.config.operatorToken, {
    missing: 'Send the operator token as Authorization: Bearer <token>',
    disabled: 'The operator API is disabled (OPERATOR_TOKEN is not set)',
  });
}

/** What `metricsToken()` uses. */
export interface MetricsTokenOptions {
  config: Pick<AppConfig, 'operatorToken' | 'metricsToken'>;
}

/**
 * The bearer token of `GET /metrics`: `METRICS_TOKEN` when it is set (then only it), else
 * `OPERATOR_TOKEN`; compared in constant time, refused like the operator API's.
 */
export function metricsToken(deps: MetricsTokenOptions): MiddlewareHandler<AppEnv> {
  return bearerToken(() => deps.config.metricsToken ?? deps.config.operatorToken, {
    missing: 'Send the metrics token (METRICS_TOKEN, or OPERATOR_TOKEN when it is not set) as Authorization: Bearer <token>',
    disabled: 'Metrics are disabled (neither METRICS_TOKEN nor OPERATOR_TOKEN is set)',
  });
}

/** `Authorization: Bearer <expected()>`, compared in constant time; 401 `unauthorized` otherwise (null: always 401). */
function bearerToken(expected: () => string | null | undefined, messages: { missing: string; disabled: string }): MiddlewareHandler<AppEnv> {
  return async function bearerTokenMiddleware(c, next) {
    const token = expected();
    const m = /^Bearer\s+(.+)$/i.exec(c.req.header('authorization') ?? '');
    if (!token || !m || !safeEqual(m[1]!.trim(), token)) {
      throw new ApiError(401, 'unauthorized', token ? messages.missing : messages.disabled);
    }
    await next();
  };
}
