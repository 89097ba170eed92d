import { serve } from '@hono/node-server';
import type { ServerOptions } from 'node:http';
import { createApp } from './app.js';
import { createDb } from './db/client.js';
import { buildDeps } from './deps.js';
import { EnvError, parseEnv, type Env } from './env.js';
import { systemClock } from './lib/clock.js';
import { createLogger } from './logger.js';
import { startJobs } from './jobs/scheduler.js';
import { startIngestionWorker } from './modules/tickets/tickets.worker.js';
import { SANDBOX_BUY_ACCESS_LAYER } from './modules/accesslayer/accesslayer.buy.js';

/**
 * The only impure entry: env -> db -> migrate -> sandbox -> workers -> serve.
 * Returns a function that stops everything.
 */
export async function start(source: Record<string, string | undefined> = process.env): Promise<{ stop: () => Promise<void>; env: Env; port: number }> {
  const env = parseEnv(source);
  const logger = createLogger(env.LOG_LEVEL);
  const db = createDb(env.DATABASE_PATH);
  const deps = buildDeps({
    db,
    clock: systemClock,
    logger,
    secretKey: env.SECRET_KEY,
    config: {
      env: env.NODE_ENV,
      publicBaseUrl: env.PUBLIC_BASE_URL,
      operatorToken: env.OPERATOR_TOKEN ?? null,
      maxBodyBytes: env.MAX_BODY_BYTES,
      rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
      smtpUrl: env.SMTP_URL ?? null,
      mailFrom: env.MAIL_FROM,
      trustProxy: env.TRUST_PROXY,
      pageRateLimitPerMinute: env.PAGE_RATE_LIMIT_PER_MINUTE,
      pagePostRateLimitPerMinute: env.PAGE_POST_RATE_LIMIT_PER_MINUTE,
    },
  });

  if (env.SANDBOX_PRIVATE_KEY && env.SANDBOX_PUBLIC_KEY && env.SANDBOX_CHANNELS_KEY) {
    const settings: Record<string, string> = {};
    const map: [keyof Env, string][] = [
      ['SANDBOX_OWNERSHIP_URL', 'ownershipUrl'],
      ['SANDBOX_LOGIN_URL', 'loginUrl'],
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
      initialSettings: { buyAccessLayer: SANDBOX_BUY_ACCESS_LAYER },
    });
    logger.info({ partnerId: partner.id }, 'sandbox partner ready');
  }

  const jobs = startJobs(deps);
  // Ticket ingestion drains on a worker thread over a file database (an in-memory one cannot be shared).
  const ingestion = env.DATABASE_PATH === ':memory:' ? null : startIngestionWorker(deps, { databasePath: env.DATABASE_PATH, secretKey: env.SECRET_KEY, logLevel: env.LOG_LEVEL });
  await ingestion?.ready;
  const app = createApp(deps);
  let server!: ReturnType<typeof serve>;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: env.PORT, hostname: env.HOST, serverOptions: httpServerOptions(env) }, (info) => resolve(info.port));
  });
  // The proxy trust in the start line: a wrong TRUST_PROXY silently weakens every per-address limit.
  logger.info({ url: env.PUBLIC_BASE_URL, host: env.HOST, port, trustProxy: env.TRUST_PROXY ?? 'nobody' }, 'resale listening');

  const stop = async () => {
    jobs.stop();
    await ingestion?.stop();
    deps.messages.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    db.$client.close();
  };
  return { stop, env, port };
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
    ({ stop }) => {
      const shutdown = () => void stop().then(() => process.exit(0));
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    },
    (err: unknown) => {
      console.error(err instanceof EnvError ? err.message : err);
      process.exit(1);
    },
  );
}
