import { serve } from '@hono/node-server';
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
    const partner = deps.partners.ensureSandbox({
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
    server = serve({ fetch: app.fetch, port: env.PORT, hostname: env.HOST }, (info) => resolve(info.port));
  });
  logger.info({ url: env.PUBLIC_BASE_URL, host: env.HOST, port }, 'resale listening');

  const stop = async () => {
    jobs.stop();
    await ingestion?.stop();
    deps.messages.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    db.$client.close();
  };
  return { stop, env, port };
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
