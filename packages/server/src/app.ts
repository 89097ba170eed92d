import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { AppDeps, AppEnv } from './context.js';
import { fail } from './lib/envelope.js';
import { refuseControlCharacters } from './http/middleware/control-chars.js';
import { checkRequestBody } from './http/middleware/request-body.js';
import { browserRoutesOf, preflight, type BrowserRoute } from './http/middleware/cors.js';
import { clientAddresses } from './http/middleware/client-address.js';
import { isPagePath, pageRateLimit } from './http/middleware/page-rate-limit.js';
import { isDatabaseUnavailable } from './db/availability.js';
import { noticePage } from './http/pages/layout.js';
import { mountHostedPages } from './http/pages/registry.js';
import { defineMessages, pageLang } from './lib/i18n.js';
import { formatBytes } from '@resale/shared/format';
import { ApiError, type ErrorCode } from './lib/errors.js';
import { ledgerRoutes } from './http/api/ledger.routes.js';
import { payoutRoutes } from './http/api/payouts.routes.js';
import { auditRoutes } from './http/api/audit.routes.js';
import { paymentRoutes } from './http/api/payments.routes.js';
import { partnerRoutes } from './http/api/partners.routes.js';
import { eventRoutes } from './http/api/events.routes.js';
import { ruleRoutes } from './http/api/rules.routes.js';
import { ticketRoutes } from './http/api/tickets.routes.js';
import { feedRoutes } from './http/api/feeds.routes.js';
import { webhookRoutes } from './http/api/webhooks.routes.js';
import { registerWebhookDocs } from './domain/webhooks/webhooks.catalog.js';
import { ticketShieldRoutes } from './http/api/tickets.shield.js';
import { listingRoutes } from './http/api/listings.routes.js';
import { accessLayerRoutes } from './http/api/accesslayer.routes.js';
import { buyAccessLayerRoutes } from './http/api/accesslayer.buy.routes.js';
import { stockStreamRoutes } from './http/api/accesslayer.stream.routes.js';
import { StockStreams } from './flows/accesslayer/accesslayer.stream.js';
import { sellEntryRoutes } from './http/api/sell.routes.js';
import { authRoutes } from './http/api/auth.routes.js';
import { seatMapRoutes } from './http/api/market.seatmap.routes.js';
import { widgetRoutes } from './http/api/widgets.static.js';
import { intentionRoutes } from './http/api/intentions.routes.js';
import { riskRoutes } from './http/api/risk.routes.js';
import { marketDataRoutes } from './http/api/marketdata.routes.js';
import { channelRoutes } from './http/api/channels.routes.js';
import { waitingListRoutes } from './http/api/waitinglist.routes.js';
import { doorRoutes } from './http/api/door.routes.js';
import { admissionRoutes } from './http/api/admission.routes.js';
import { widgetsGuide } from './http/api/docs.widgets.js';
import { finishingDocument } from './http/api/docs.document.js';
import { healthRoutes } from './http/api/health.routes.js';
import { Readiness } from './http/api/health.readiness.js';
import { metricsRoutes } from './http/api/metrics.routes.js';
import { httpMetrics } from './http/middleware/http-metrics.js';
import { compression } from './http/middleware/compression.js';
import { carryFastPaths } from './http/node-listener.js';
import { RequestIds, requestContext } from './http/middleware/request-context.js';

/**
 * Builds the HTTP app from its dependencies: request id, one log line per request, body
 * limit, one error handler, the envelope for unknown routes and wrong methods, the
 * modules, and the OpenAPI document generated from the schemas that validate.
 *
 * @example
 * const app = createApp(deps);
 * const res = await app.request('/v1/events', { method: 'POST', headers, body });
 *
 * `readiness` is what `GET /readyz` answers from; main.ts passes the one its shutdown drains
 * (default: one that only checks the database and its migrations). `stockStreams` is the hub of
 * the live stock streams, whose buy access layer the GET routes share; main.ts passes the one
 * its shutdown closes (default: a new one).
 */
export function createApp(deps: AppDeps, opts: { readiness?: Readiness; stockStreams?: StockStreams } = {}): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  // Request count, latency by route template and requests in flight (GET /metrics): first, so
  // the time covers everything below; no await of its own on the hot path (see http-metrics.ts).
  app.use('*', httpMetrics(deps.metrics));

  // Request ids and one log line per request (request-context.ts): every middleware below runs inside it.
  app.use('*', requestContext(deps.logger, new RequestIds()));

  // Brotli or gzip for text answers of 1 KB or more, by Accept-Encoding (every answer below, errors included; see compression.ts).
  app.use('*', compression());

  // Liveness and readiness: before every limit, key and body check (a probe must never be
  // refused for anything but the service's own state).
  app.route('/', healthRoutes(opts.readiness ?? new Readiness(deps.db, { logger: deps.logger })));
  // Prometheus metrics: its own bearer token (METRICS_TOKEN or OPERATOR_TOKEN), no key, never rate limited.
  app.route('/', metricsRoutes(deps));

  // Who the client is (X-Forwarded-For only as far as TRUST_PROXY allows), then the hosted
  // pages' per-address limit: a flooding client is refused before any body, session or page.
  app.use('*', clientAddresses(deps.config));
  app.use('*', pageRateLimit({ config: deps.config, rateLimiter: deps.rateLimiter }));

  const limitBody = bodyLimit({
    maxSize: deps.config.maxBodyBytes,
    onError: () => {
      throw new ApiError(413, 'payload_too_large', `The body is larger than ${deps.config.maxBodyBytes} bytes`);
    },
  });
  // Not for GET and HEAD: they carry no body we read, and looking for one makes the Node adapter
  // build a full Request (stream, AbortSignal) on every page view.
  app.use('*', function bodyLimitUnlessGet(c, next) {
    return c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next);
  });

  // The browser routes are those whose documented security accepts the public key (cors.ts), read once all are mounted.
  let browserRoutes: readonly BrowserRoute[] | undefined;
  app.use('*', preflight({ db: deps.db, config: deps.config, browserRoutes: () => (browserRoutes ??= browserRoutesOf(app.openAPIRegistry)) }));
  // Media type and JSON depth/size first: nothing below may parse or walk a body they refuse.
  app.use('*', checkRequestBody());
  app.use('*', refuseControlCharacters());

  app.onError((err, c) => errorResponse(err, c, deps));
  app.notFound((c) => notFoundOrWrongMethod(app, c));

  app.route('/', partnerRoutes(deps));
  app.route('/', ledgerRoutes(deps));
  app.route('/', payoutRoutes(deps));
  app.route('/', auditRoutes(deps));
  app.route('/', paymentRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', ruleRoutes(deps));
  // Before the tickets' routes: /v1/tickets/admission/verify is not a ticket's id.
  const admission = admissionRoutes(deps);
  app.route('/', admission);
  // Its fast path (a door's online scans without the middleware chain): served by main.ts and listen().
  carryFastPaths(admission, app);
  app.route('/', doorRoutes(deps));
  app.route('/', ticketRoutes(deps));
  app.route('/', feedRoutes(deps));
  app.route('/', webhookRoutes(deps));
  app.route('/', ticketShieldRoutes(deps));
  app.route('/', listingRoutes(deps));
  app.route('/', accessLayerRoutes(deps));
  // One buy access layer (one snapshot cache) for the components and their live stock.
  const stockStreams = opts.stockStreams ?? new StockStreams(deps);
  const buyRoutes = buyAccessLayerRoutes(deps, stockStreams.buy);
  app.route('/', buyRoutes);
  // Its fast path (cached answers from memory) is the app's: main.ts and listen() serve it (node-listener.ts).
  carryFastPaths(buyRoutes, app);
  app.route('/', stockStreamRoutes(deps, stockStreams));
  app.route('/', seatMapRoutes(deps));
  app.route('/', sellEntryRoutes(deps));
  app.route('/', authRoutes(deps));
  app.route('/', intentionRoutes(deps));
  app.route('/', riskRoutes(deps));
  app.route('/', marketDataRoutes(deps));
  app.route('/', channelRoutes(deps));
  app.route('/', waitingListRoutes(deps));
  app.route('/', widgetRoutes());
  // The hosted pages, each with the session and CSRF middleware its entry asks for (the
  // development mailbox never in production): http/pages/registry.ts.
  mountHostedPages(app, deps);

  registerDocument(app, deps);
  return app;
}

function registerDocument(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'privateKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The private key (sk_…), bare or as "Bearer <key>". Server to server only.',
  });
  registry.registerComponent('securitySchemes', 'publicKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The public key (pk_…), bare or as "Bearer <key>". Safe in a browser.',
  });
  registry.registerComponent('securitySchemes', 'publicKeyQuery', {
    type: 'apiKey',
    in: 'query',
    name: 'publicKey',
    description: 'The public key (pk_…) as the query parameter publicKey, only where an operation lists it: the live stock stream, since a browser’s EventSource cannot send headers. Any other kind of key there is refused (403).',
  });
  registry.registerComponent('securitySchemes', 'channelsKey', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'The channels key (sk_ch_…), bare or as "Bearer <key>". Channels group only.',
  });
  registry.registerComponent('securitySchemes', 'doorToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'A door’s token (door_…), from the door link made in the console (the part after `#`). It checks codes of its show only, and stops working when revoked or 12 hours after the show starts.',
  });
  registry.registerComponent('securitySchemes', 'operatorToken', { type: 'http', scheme: 'bearer', description: 'OPERATOR_TOKEN' });
  registerWebhookDocs(registry);
  app.getOpenAPI31Document = finishingDocument(app.getOpenAPI31Document);

  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'resale API',
      version: '1.0.0',
      description:
        'The official resale market for a ticketing platform. Every response is the envelope {status, data, errors}; ' +
        'errors are entries {code, message, path?, in?} with stable codes. POSTs that create things accept an Idempotency-Key header.\n\n' +
        widgetsGuide(deps.config.publicBaseUrl),
    },
    servers: [{ url: deps.config.publicBaseUrl }],
    tags: [
      { name: 'Events', description: 'Events, shows, ticket options, price types and combinations' },
      { name: 'Rules', description: 'Resale rules per ticket option and combination' },
      { name: 'Tickets', description: 'Ticket sync, lifecycle, admissions and ticket URLs' },
      { name: 'Doors', description: 'The venue’s scanner page: a door’s own token checks codes of its show (door links are made in the console)' },
      { name: 'Marketplace', description: 'Listings, delist, and the sell and buy flows' },
      { name: 'Access layer', description: 'Statuses, calls to action and components partners render' },
      { name: 'Auth', description: 'One-time tokens for Login Force and Login Trust' },
      { name: 'Risk', description: 'Purchase risk evaluation and feedback' },
      { name: 'Channels', description: 'Inbound listings from other resale platforms (channels key)' },
      { name: 'Waiting list', description: 'Fans queue per show; returned tickets are offered to the earliest fan they fit, in join order' },
      { name: 'Market data', description: 'Primary-sale inventory of shows, and leads (ticket holders, abandoned carts, virtual queue, wishlists)' },
      { name: 'Operator', description: 'Partners, keys and settings, and the ledger (operator token)' },
      { name: 'Payment provider', description: 'Events from the payment provider (Stripe), verified by its signature' },
      { name: 'Webhooks', description: 'What the service POSTs to the partner’s webhookUrl (Standard Webhooks signatures)' },
      { name: 'Operations', description: 'Liveness and readiness probes for load balancers and orchestrators (no key), and Prometheus metrics (metrics token)' },
    ],
  });
  // The reference (GET /docs) is a hosted page of the registry, mounted with the others.
}

const HTTP_CODES: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/** How long a client should wait before retrying while the database cannot be used (seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

const unavailableMessages = defineMessages(
  { title: 'Back in a moment', text: 'We cannot reach our database right now. Nothing you sent was applied, so nothing is half-done: try again in a few seconds.' },
  { title: 'Volvemos enseguida', text: 'Ahora mismo no podemos acceder a nuestra base de datos. No se ha aplicado nada de lo que enviaste, así que nada ha quedado a medias: inténtalo de nuevo en unos segundos.' },
);

const tooLargeMessages = defineMessages(
  { title: 'That is too large', text: 'What you sent is larger than the {limit} we accept at once, so none of it was read or saved. Go back and send less: split a sheet into parts, or shorten the form.' },
  { title: 'Es demasiado grande', text: 'Lo que enviaste supera los {limit} que aceptamos de una vez, así que no se ha leído ni guardado nada. Vuelve atrás y envía menos: divide la hoja en partes o acorta el formulario.' },
);

/**
 * The one place an exception becomes a response. A 500 never carries a stack or SQL.
 *
 * A database that cannot be used (unreachable, restarting, its disk full or read-only: see
 * db/availability.ts) is no fault of the request: 503 `database_unavailable` with
 * `Retry-After`, a localised notice on the hosted pages. What the request was doing was in a
 * transaction, which rolled back with the connection.
 */
export function errorResponse(err: Error, c: Context<AppEnv>, deps: AppDeps): Response | Promise<Response> {
  if (err instanceof ApiError && err.status === 413 && isPagePath(c.req.path)) {
    // A form or upload over MAX_BODY_BYTES on a page (a sheet on the console's manual load):
    // refused before it is read, said as a page a person can go back from, not as JSON.
    const lang = pageLang(c);
    return noticePage(c, { lang, status: 413, title: tooLargeMessages(lang, 'title'), text: tooLargeMessages(lang, 'text', { limit: formatBytes(deps.config.maxBodyBytes, lang) }) });
  }
  if (err instanceof ApiError) {
    for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
    return c.json(fail(err.status, err.entries), err.status as 400);
  }
  if (err instanceof HTTPException && err.status < 500) {
    const status = err.status;
    const malformed = /malformed json/i.test(err.message);
    const code: ErrorCode = malformed ? 'invalid_json' : (HTTP_CODES[status] ?? 'bad_request');
    const message = malformed ? 'The body is not valid JSON' : status === 415 ? 'Send the body as JSON (Content-Type: application/json)' : err.message || 'Bad request';
    return c.json(fail(status, [{ code, message }]), status);
  }
  if (clientAborted(c)) {
    // The client went away before its body arrived (a closed tab, a lost connection, or a flood
    // of aborted uploads): nothing of ours failed, so no stack, no error level, no 500. The
    // answer most likely reaches nobody; the request line still records it.
    deps.logger.info({ requestId: c.get('requestId'), reason: err.message }, 'request aborted by the client');
    return c.json(fail(400, [{ code: 'bad_request', message: 'The request was aborted before its body arrived' }]), 400);
  }
  // After the client's own abort (its socket's reset is not the database's).
  if (isDatabaseUnavailable(err)) {
    const headers = { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS), 'Cache-Control': 'no-store' };
    if (isPagePath(c.req.path)) {
      const lang = pageLang(c);
      return noticePage(c, { lang, status: 503, title: unavailableMessages(lang, 'title'), text: unavailableMessages(lang, 'text'), headers });
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return c.json(fail(503, [{ code: 'database_unavailable', message: `The database cannot be reached right now; nothing was changed. Retry in ${DATABASE_RETRY_AFTER_SECONDS} s.` }]), 503);
  }
  // A failed query's message is drizzle's (the SQL); the database's reason is its cause (on
  // PostgreSQL, every error the server raises: a missing table, a violated constraint).
  const cause = err.cause instanceof Error ? { cause: err.cause.message } : {};
  deps.logger.error({ requestId: c.get('requestId'), err: { message: err.message, stack: err.stack, ...cause } }, 'unhandled error');
  return c.json(
    fail(500, [{ code: 'internal_error', message: `Something went wrong on our side. Quote request id ${c.get('requestId') ?? ''} to support.` }]),
    500,
  );
}

/**
 * True when the client closed the connection before sending its whole request: Node marks the
 * request aborted (or destroyed) and not complete. Judged from the connection, not from the
 * error's text, so an abort of one of our own outgoing calls (a partner's endpoint timing out)
 * stays an error.
 */
function clientAborted(c: Context<AppEnv>): boolean {
  const incoming = (c.env as { incoming?: { complete?: boolean; aborted?: boolean; destroyed?: boolean } } | undefined)?.incoming;
  return incoming?.complete === false && (incoming.aborted === true || incoming.destroyed === true);
}

/** 404 for an unknown path; 405 with `Allow` when the path exists for other methods. */
function notFoundOrWrongMethod(app: OpenAPIHono<AppEnv>, c: Context<AppEnv>): Response {
  const allowed = allowedMethods(app, c.req.path);
  if (allowed.length > 0 && !allowed.includes(c.req.method)) {
    c.header('Allow', allowed.join(', '));
    return c.json(fail(405, [{ code: 'method_not_allowed', message: `${c.req.method} is not allowed here; use ${allowed.join(', ')}` }]), 405);
  }
  return c.json(fail(404, [{ code: 'route_not_found', message: `No endpoint ${c.req.method} ${c.req.path}` }]), 404);
}

const matchers = new WeakMap<object, { re: RegExp; method: string }[]>();

function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  let list = matchers.get(app);
  if (!list) {
    list = app.routes
      .filter((r) => r.method !== 'ALL' && r.path !== '/*' && r.path !== '*')
      .map((r) => ({
        method: r.method,
        re: new RegExp('^' + r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\/:[^/]+/g, '/[^/]+').replace(/\*/g, '.*') + '/?$'),
      }));
    matchers.set(app, list);
  }
  return [...new Set(list.filter((m) => m.re.test(path)).map((m) => m.method))];
}
