import type { AddressInfo } from 'node:net';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createApp } from './app.js';
import type { AppDeps, AppEnv } from './context.js';
import { closeDb, openDb } from './db/client.js';
import { DatabaseClock } from './db/database-clock.js';
import { availabilityOf } from './db/availability.js';
import type { Clock } from './lib/clock.js';
import { ENGINE } from './db/engine.js';
import { buildDeps } from './deps.js';
import { EnvError, parseEnv, type Env } from './env.js';
import { createLogger } from './logger.js';
import { startJobs, type RunningJobs } from './jobs/scheduler.js';
import { Readiness } from './http/api/health.readiness.js';
import { healthOnlyApp } from './http/api/health.routes.js';
import { nodeListener } from './http/node-listener.js';
import { startIngestionWorker, type IngestionWorker } from './jobs/tickets.worker.js';
import { SANDBOX_BUY_ACCESS_LAYER } from './flows/accesslayer/accesslayer.buy.js';
import { StockStreams } from './flows/accesslayer/accesslayer.stream.js';
import { StripeProvider } from './domain/payments/stripe.provider.js';
import type { PaymentProvider } from './domain/payments/payments.provider.js';
import type { PayoutProvider } from './domain/payouts/payouts.provider.js';

/** A running service, as `start` returns it. */
export interface Service {
  env: Env;
  port: number;
  /**
   * Settles once the whole app serves: at once, unless `MIGRATE_ON_START=false` met a database
   * whose migrations are not applied (then only `/healthz` and `/readyz` answer until they are).
   */
  serving: Promise<void>;
  /**
   * The graceful shutdown, what SIGTERM and SIGINT do (docs/operating.md, "Health, readiness and
   * shutdown"): readiness answers 503 at once and no job starts any more; connections are still
   * accepted for `graceSeconds` (SHUTDOWN_GRACE_SECONDS), then refused; requests in flight, the
   * jobs in hand and the ingestion thread's job get until `timeoutSeconds` after the start of
   * the drain (SHUTDOWN_TIMEOUT_SECONDS), after which open connections are cut; then the
   * database closes. Harmless twice (the same promise).
   */
  drain(opts?: DrainOptions): Promise<DrainResult>;
  /** `drain` without the grace: new connections are refused at once. For tests and the dev runner. */
  stop(): Promise<void>;
  /** Ends the drain's waiting now (a second signal): connections still open are cut, the database closes. */
  cutShort(reason?: string): void;
}

export interface DrainOptions {
  graceSeconds?: number;
  timeoutSeconds?: number;
  /** What started it, for the log line. */
  signal?: string;
}

export interface DrainResult {
  /** True when the timeout (or `cutShort`) ended the wait with requests or jobs unfinished. */
  timedOut: boolean;
}

/**
 * Payment and payout providers given in place of those the environment selects: for the browser
 * journeys, which run Stripe's side against a local double (testing/stripe-browser.ts). Never
 * set by the service itself.
 */
export interface ProviderOverrides {
  paymentProvider?: PaymentProvider;
  payoutProvider?: PayoutProvider;
  /**
   * Milliseconds added to the service's clock, read at every `now()` (default none): a browser
   * test moves time forward to let a hold or an offer run out instead of waiting for it. The
   * jobs' timers keep real time and find the moved time when they run.
   */
  clockShift?: () => number;
}

/** A signal repeated within this time of the first is a copy of it (npm forwards the terminal's), not a second one. */
const DUPLICATE_SIGNAL_MS = 1000;

/** How often a service started on a database without its migrations looks again. */
const MIGRATIONS_POLL_MS = 1000;

/**
 * The only impure entry: env -> db (-> migrate) -> sandbox -> workers -> serve.
 * Returns the running service, whose `drain` and `stop` end it.
 */
export async function start(source: Record<string, string | undefined> = process.env, inject: ProviderOverrides = {}): Promise<Service> {
  const env = parseEnv(source);
  const logger = createLogger(env.LOG_LEVEL);
  const db = await openDb({ url: env.DATABASE_URL, path: env.DATABASE_PATH }, { migrate: env.MIGRATE_ON_START, poolSize: env.DATABASE_POOL_SIZE });
  // An outage is logged once when it begins and once when it ends (requests answer 503 meanwhile;
  // readiness is off; the jobs try once a second): db/availability.ts.
  availabilityOf(db)?.onChange((change) =>
    change.available
      ? logger.warn({ downMs: change.downMs }, 'database available again: serving')
      : logger.error({ reason: change.reason }, 'database unavailable: answering 503 with Retry-After, readiness off, jobs retrying once a second'),
  );
  // Every process of a deployment reads the database's time (see DatabaseClock).
  const databaseClock = new DatabaseClock(db);
  await databaseClock.start();
  const shift = inject.clockShift;
  const clock: Clock = shift ? { now: () => databaseClock.now() + shift() } : databaseClock;
  const deps = buildDeps({
    db,
    clock,
    logger,
    secretKey: env.SECRET_KEY,
    ...(inject.paymentProvider || inject.payoutProvider ? { paymentProvider: inject.paymentProvider, payoutProvider: inject.payoutProvider } : providersOf(env, clock)),
    config: {
      env: env.NODE_ENV,
      publicBaseUrl: env.PUBLIC_BASE_URL,
      operatorToken: env.OPERATOR_TOKEN ?? null,
      metricsToken: env.METRICS_TOKEN ?? null,
      operatorEmails: env.OPERATOR_EMAILS,
      maxBodyBytes: env.MAX_BODY_BYTES,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
      smtpUrl: env.SMTP_URL ?? null,
      mailFrom: env.MAIL_FROM,
      trustProxy: env.TRUST_PROXY,
      pageRateLimitPerMinute: env.PAGE_RATE_LIMIT_PER_MINUTE,
      pagePostRateLimitPerMinute: env.PAGE_POST_RATE_LIMIT_PER_MINUTE,
      accessLayerMaxStreams: env.ACCESS_LAYER_MAX_STREAMS,
      groupCommit: env.SQLITE_GROUP_COMMIT,
    },
  });
  // Process metrics (event-loop lag, memory, CPU, GC) for GET /metrics: sampled from now on, by this process only.
  deps.metrics.collectProcessMetrics();
  const readiness = new Readiness(db, { logger, serving: false });

  // Set once the drain begins: nothing new starts after it.
  let stopping = false;
  let jobs: RunningJobs | null = null;
  let ingestion: IngestionWorker | null = null;
  // The live stock streams of the buy access layer: held here so the drain can end them (they never end by themselves).
  let stockStreams: StockStreams | null = null;

  /** What needs the migrated tables: the sandbox partner, the jobs, the ingestion thread and the app. */
  const startServing = async (): Promise<OpenAPIHono<AppEnv> | null> => {
    await ensureSandbox(env, deps);
    // The console's operators are the addresses of OPERATOR_EMAILS, and only they (idempotent).
    await db.transact((tx) => deps.consoleAccess.syncOperators(tx, env.OPERATOR_EMAILS));
    // This process's lease (renewed by the instance-lease job) exists before it claims anything.
    await db.transact((tx) => deps.instance.renew(tx, { force: true }));
    if (stopping) return null;
    jobs = startJobs(deps);
    // Ticket ingestion drains on a worker thread over a SQLite file (an in-memory one cannot be
    // shared); on PostgreSQL every process drains the queue itself.
    ingestion = ENGINE !== 'sqlite' || env.DATABASE_PATH === ':memory:' ? null : startIngestionWorker(deps, { databasePath: env.DATABASE_PATH, secretKey: env.SECRET_KEY, logLevel: env.LOG_LEVEL });
    await ingestion?.ready;
    if (stopping) return null;
    stockStreams = new StockStreams(deps);
    return createApp(deps, { readiness, stockStreams });
  };

  let resolveServing!: () => void;
  const serving = new Promise<void>((resolve) => (resolveServing = resolve));
  let current: { fetch: OpenAPIHono<AppEnv>['fetch'] };
  let waitingForMigrations: NodeJS.Timeout | null = null;
  const { pending } = await readiness.migrations();
  if (pending.length === 0) {
    current = (await startServing())!;
    readiness.markServing();
    resolveServing();
  } else {
    // MIGRATE_ON_START=false and a database not migrated yet (a new release whose migration job
    // has not run): the app cannot be built on missing tables, so serve the health endpoints
    // (readiness 503, naming the migrations) and 503 for the rest until `npm run migrate` has run.
    logger.warn({ pending }, `${pending.length} database migrations are not applied (MIGRATE_ON_START=false): serving /healthz and /readyz only until npm run migrate applies them`);
    current = healthOnlyApp(readiness);
    let looking = false;
    waitingForMigrations = setInterval(() => {
      if (looking || stopping) return;
      looking = true;
      void (async () => {
        if ((await readiness.migrations()).pending.length > 0) return;
        clearInterval(waitingForMigrations!);
        waitingForMigrations = null;
        logger.info('database migrations applied: starting');
        const app = await startServing();
        if (!app) return;
        current = app;
        readiness.markServing();
        resolveServing();
        logger.info('serving');
      })()
        .catch((err: unknown) => logger.error({ err: { message: (err as Error).message, stack: (err as Error).stack } }, 'could not start after the migrations were applied'))
        .finally(() => (looking = false));
    }, MIGRATIONS_POLL_MS);
    waitingForMigrations.unref();
  }

  // Every response in flight, and whether the server has stopped accepting connections: from
  // then on each response closes its connection (`Connection: close`), and a kept-alive
  // connection is closed as soon as its response is done.
  const responses = new Set<ServerResponse>();
  let closing = false;
  let server!: Server;
  const port = await new Promise<number>((resolve) => {
    // Node's server, listened on by hand (Hono's `serve` cannot pass the backlog, LISTEN_BACKLOG),
    // with the current app's fast paths before Hono's adaptor (node-listener.ts).
    const listener = nodeListener(() => current, (request, bindings) => closingWhenBodyUnread(current.fetch(request, bindings), bindings.incoming));
    server = createServer(httpServerOptions(env), (req: IncomingMessage, res: ServerResponse) => {
      // Said before anything answers: a fast path may answer at once.
      if (closing) res.shouldKeepAlive = false;
      listener(req, res);
      // Answered at once (a fast path): nothing left in flight to wait for, nothing to track.
      if (res.writableEnded) return;
      responses.add(res);
      res.once('close', () => {
        responses.delete(res);
        if (closing) server.closeIdleConnections();
      });
    });
    server.listen({ port: env.PORT, host: env.HOST, backlog: env.LISTEN_BACKLOG }, () => resolve((server.address() as AddressInfo).port));
  });
  // The proxy trust in the start line: a wrong TRUST_PROXY silently weakens every per-address limit.
  // Key ids (never keys) of SECRET_KEY, newest first: during a rotation, which processes run with the new keyring.
  logger.info({ url: env.PUBLIC_BASE_URL, host: env.HOST, port, trustProxy: env.TRUST_PROXY ?? 'nobody', secretKeyIds: deps.box.keyIds, paymentProvider: deps.payments.provider.name + (env.STRIPE_SECRET_KEY ? (env.STRIPE_SECRET_KEY.includes('_live_') ? ' (live)' : ' (test mode)') : '') }, 'resale listening');

  let cut!: () => void;
  const cutShort = new Promise<void>((resolve) => (cut = resolve));
  let draining: Promise<DrainResult> | null = null;

  const drain = (opts: DrainOptions = {}): Promise<DrainResult> =>
    (draining ??= (async () => {
      const graceSeconds = opts.graceSeconds ?? env.SHUTDOWN_GRACE_SECONDS;
      const timeoutSeconds = Math.max(graceSeconds, opts.timeoutSeconds ?? env.SHUTDOWN_TIMEOUT_SECONDS);
      const started = performance.now();
      stopping = true;
      readiness.startDrain();
      if (waitingForMigrations) clearInterval(waitingForMigrations);
      logger.info(
        { signal: opts.signal, graceSeconds, timeoutSeconds, inFlight: responses.size },
        'shutting down: readiness answers 503; connections are accepted during the grace',
      );
      const deadline = setTimeout(cut, timeoutSeconds * 1000);
      // No job starts any more; the ones in hand (and the ingestion thread's) finish meanwhile.
      const background = Promise.all([jobs?.stop(), ingestion?.stop()]);

      await new Promise<void>((resolve) => {
        const grace = setTimeout(resolve, graceSeconds * 1000);
        void cutShort.then(() => {
          clearTimeout(grace);
          resolve();
        });
      });
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
      // Live stock streams never finish by themselves: each gets `event: bye` and ends now (its
      // connection closes like any finished answer's), and its EventSource reconnects to another
      // process. Not at the start of the drain: during the grace a balancer may still send it here.
      stockStreams?.close();
      logger.info({ inFlight: responses.size, jobs: jobs?.running() ?? [] }, 'no longer accepting connections; finishing the requests and jobs in hand');

      const finished = await Promise.race([Promise.all([closed, background]).then(() => true), cutShort.then(() => false)]);
      clearTimeout(deadline);
      if (!finished) {
        // Whatever is cut here is not half-applied: requests and jobs write in transactions,
        // which roll back when the connection closes (or the process exits) before COMMIT; a
        // job is done again at a later tick, here after a restart or in another process.
        logger.warn({ inFlight: responses.size, jobs: jobs?.running() ?? [], timeoutSeconds }, 'shutdown timeout: cutting the connections and jobs still open; cut jobs are retried');
        server.closeAllConnections();
      }
      deps.messages.close();
      try {
        // Only once nothing of this process runs any more: what it still held is free at once.
        if (finished) await db.transact((tx) => deps.instance.retire(tx));
        databaseClock.stop();
        await closeDb(db);
      } catch (err) {
        logger.error({ err: { message: (err as Error).message } }, 'closing the database failed');
      }
      logger.info({ ms: Math.round(performance.now() - started), timedOut: !finished }, 'stopped');
      return { timedOut: !finished };
    })());

  return {
    env,
    port,
    serving,
    drain,
    stop: () => drain({ graceSeconds: 0 }).then(() => undefined),
    cutShort: (reason = 'cut short') => {
      logger.warn({ reason }, 'shutdown: not waiting any longer');
      cut();
    },
  };
}

/** The partner `sandbox` with the keys and settings of the SANDBOX_* variables, when they are set. */
async function ensureSandbox(env: Env, deps: AppDeps): Promise<void> {
  if (!(env.SANDBOX_PRIVATE_KEY && env.SANDBOX_PUBLIC_KEY && env.SANDBOX_CHANNELS_KEY)) return;
  const settings: Record<string, string> = {};
  const map: [keyof Env, string][] = [
    ['SANDBOX_OWNERSHIP_URL', 'ownershipUrl'],
    ['SANDBOX_LOGIN_URL', 'loginUrl'],
    ['SANDBOX_SITE_URL', 'siteUrl'],
    ['SANDBOX_WEBHOOK_URL', 'webhookUrl'],
    ['SANDBOX_EVENTS_FEED_URL', 'eventsFeedUrl'],
    ['SANDBOX_CANCELLED_FEED_URL', 'cancelledFeedUrl'],
    ['SANDBOX_PLATFORM_SECRET', 'platformSecret'],
  ];
  for (const [from, to] of map) if (env[from]) settings[to] = String(env[from]);
  const origins = env.SANDBOX_ALLOWED_ORIGINS;
  const partner = await deps.partners.ensureSandbox({
    keys: { private: env.SANDBOX_PRIVATE_KEY, public: env.SANDBOX_PUBLIC_KEY, channels: env.SANDBOX_CHANNELS_KEY },
    ...(env.SANDBOX_WEBHOOK_SECRET ? { webhookSecret: env.SANDBOX_WEBHOOK_SECRET } : {}),
    settings: { ...settings, ...(origins ? { allowedOrigins: origins } : {}) },
    // The sandbox is the demo partner site's (`npm start` wires them together): its pages carry the demo's name.
    initialSettings: { buyAccessLayer: SANDBOX_BUY_ACCESS_LAYER, branding: { displayName: 'Demo Tickets' } },
  });
  deps.logger.info({ partnerId: partner.id }, 'sandbox partner ready');
}

/**
 * An answer given before the request's body was all received (a 413 on its Content-Length, a
 * 429, a 415, a 401 on a body nobody reads) says `Connection: close`.
 *
 * Why: Node cannot take the next request on that connection before it has read the rest of
 * this body, and @hono/node-server gives that drain 500 ms and 64 MB before it destroys the
 * socket without a word. A keep-alive client that saw `keep-alive` sends its next request on
 * the socket being destroyed and gets a reset (undici's `UND_ERR_SOCKET`, ECONNRESET behind a
 * load balancer). With `Connection: close` the client opens a new connection for its next
 * request; the unread rest of the body is still drained (or the socket closed) as before.
 * Bodies that were read whole (every answer of a route that parsed its body) keep the
 * connection.
 */
export function closingWhenBodyUnread(answer: Response | Promise<Response>, incoming: Pick<IncomingMessage, 'complete' | 'method'>): Response | Promise<Response> {
  // The hot path (page views, the access layers) sends no body: nothing to wait for, no extra promise.
  if (incoming.method === 'GET' || incoming.method === 'HEAD') return answer;
  return answer instanceof Promise ? answer.then((res) => closeIfUnread(res, incoming)) : closeIfUnread(answer, incoming);
}

/** `res` with `Connection: close` when `incoming`'s body has not all arrived. */
function closeIfUnread(res: Response, incoming: Pick<IncomingMessage, 'complete'>): Response {
  if (incoming.complete) return res;
  try {
    res.headers.set('Connection', 'close');
    return res;
  } catch {
    // An immutable Response (one returned by fetch, or Response.error()): copied with the header.
    const headers = new Headers(res.headers);
    headers.set('Connection', 'close');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/**
 * Timeouts of the HTTP server. Node's defaults hold a connection 60 s for its headers and
 * 300 s for its body, so a few clients sending a byte now and then keep many sockets open
 * (slowloris). Node checks them every `connectionsCheckingInterval` (30 s by default, which
 * would let a 10 s limit run to 40 s): every second instead, a walk over the open
 * connections. An expired request is answered 408 and its socket closed.
 *
 * `keepAliveTimeout` is how long an idle connection waits for its next request; behind a load
 * balancer that reuses connections it must be longer than the balancer's own idle timeout, or
 * the balancer may send a request on a socket we are closing (a 502 for a fan).
 *
 * Given to the server as it is created rather than assigned to it afterwards: the checking
 * interval can only be set then, and Node then checks headersTimeout ≤ requestTimeout.
 *
 * @example serve({ fetch: app.fetch, port, serverOptions: httpServerOptions(env) });
 */
export function httpServerOptions(env: Pick<Env, 'HEADERS_TIMEOUT_SECONDS' | 'REQUEST_TIMEOUT_SECONDS' | 'KEEP_ALIVE_TIMEOUT_SECONDS'>): ServerOptions {
  return {
    headersTimeout: env.HEADERS_TIMEOUT_SECONDS * 1000,
    requestTimeout: env.REQUEST_TIMEOUT_SECONDS * 1000,
    keepAliveTimeout: env.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    connectionsCheckingInterval: 1000,
  };
}

const isEntry = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  start().then(
    (service) => {
      // The first SIGTERM or SIGINT drains (see `Service.drain`) and exits 0; a second one stops
      // waiting (Ctrl-C twice in a terminal). Copies arriving within DUPLICATE_SIGNAL_MS of the
      // first are the same signal: under `npm run`, the terminal's Ctrl-C reaches the process
      // and npm forwards it again.
      let firstSignalAt: number | null = null;
      const onSignal = (signal: NodeJS.Signals) => {
        if (firstSignalAt !== null) {
          if (Date.now() - firstSignalAt >= DUPLICATE_SIGNAL_MS) service.cutShort(`second ${signal}`);
          return;
        }
        firstSignalAt = Date.now();
        service.drain({ signal }).then(
          () => process.exit(0),
          (err: unknown) => {
            console.error(err);
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
    },
    (err: unknown) => {
      console.error(err instanceof EnvError ? err.message : err);
      process.exit(1);
    },
  );
}

/** Stripe, for payments and payouts, when its three variables are set (env.ts checks they come together); else none: the sandbox. */
function providersOf(env: Env, clock: Clock): { paymentProvider?: StripeProvider; payoutProvider?: StripeProvider } {
  if (!env.STRIPE_SECRET_KEY || !env.STRIPE_PUBLISHABLE_KEY || !env.STRIPE_WEBHOOK_SECRET) return {};
  const stripe = new StripeProvider({ secretKey: env.STRIPE_SECRET_KEY, publishableKey: env.STRIPE_PUBLISHABLE_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, now: () => clock.now() });
  return { paymentProvider: stripe, payoutProvider: stripe };
}
