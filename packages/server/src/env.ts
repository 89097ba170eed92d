import { consoleEmail } from './domain/console/console.service.js';
import { z } from '@hono/zod-openapi';
import { ENGINE, isPostgresUrl } from './db/engine.js';
import { parseKeyring } from './lib/crypto.js';
import { normaliseOrigin, ORIGIN_PATTERN } from './lib/origins.js';
import { parseTrustProxy } from './lib/trust-proxy.js';
import { ACCESS_LAYER_MAX_STREAMS_DEFAULT, PAGE_RATE_LIMIT_DEFAULTS } from './lib/config.js';

/**
 * The service is configured only by environment variables, validated at start. A bad
 * value stops the start with a message naming the variable.
 */
const optionalUrl = z.url({ protocol: /^https?$/ }).optional();

/** A whole number of seconds, 0 or more (at most `max`). */
function seconds(fallback: number, max: number) {
  const message = 'must be a whole number of seconds, 0 or more';
  return z.coerce
    .number({ error: message })
    .int({ error: message })
    .min(0, { error: message })
    .max(max, { error: `must be at most ${max}` })
    .default(fallback);
}

/** `true`/`false` (or `1`/`0`), any case. */
function flag(fallback: boolean) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['true', 'false', '1', '0'], { error: 'must be true or false' }))
    .transform((v) => v === 'true' || v === '1')
    .default(fallback);
}

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['production', 'development', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_PATH: z.string().min(1).default('./data/resale.sqlite'),
  /** PostgreSQL instead of SQLite (db/engine.ts): `postgres://user:password@host:port/database`. */
  DATABASE_URL: z.string().refine(isPostgresUrl, 'must be a postgres:// (or postgresql://) URL').optional(),
  /** Connections of this process's PostgreSQL pool (one more listens for other processes' changes). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /** The console's operators (domain/console): comma-separated e-mail addresses, read at each start. */
  OPERATOR_EMAILS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const emails = value.split(',').map((e) => e.trim()).filter(Boolean);
      const bad = emails.filter((e) => consoleEmail(e) === null);
      if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `not e-mail addresses: ${bad.map((e) => e.slice(0, 60)).join(', ')}` });
      return emails.map((e) => consoleEmail(e)!).filter(Boolean);
    }),
  /** Bearer token of GET /metrics; unset: OPERATOR_TOKEN serves (http/api/metrics.routes.ts). */
  METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  /**
   * The keyring (lib/crypto.ts): one key, or several separated by commas, newest first, each at
   * least 32 characters. The newest seals and signs; every listed key opens and verifies.
   */
  SECRET_KEY: z
    .string()
    .superRefine((value, ctx) => {
      try {
        parseKeyring(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(5 * 1024 * 1024),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  /** Per client address over the hosted pages, and for their POSTs (http/middleware/page-rate-limit.ts); 0 disables. */
  PAGE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(PAGE_RATE_LIMIT_DEFAULTS.perMinute),
  PAGE_POST_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(PAGE_RATE_LIMIT_DEFAULTS.postPerMinute),
  /** Live stock streams of the buy access layer open at once in this process (flows/accesslayer/accesslayer.stream.ts); beyond, 503 with Retry-After. */
  ACCESS_LAYER_MAX_STREAMS: z.coerce.number().int().min(0).max(1_000_000).default(ACCESS_LAYER_MAX_STREAMS_DEFAULT),
  /** Who may set X-Forwarded-For: unset trusts nobody (http/middleware/client-address.ts). */
  TRUST_PROXY: z
    .string()
    .max(2000)
    .transform((value, ctx) => {
      try {
        return parseTrustProxy(value);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `${(err as Error).message}; use a hop count (1, 2…) or comma-separated addresses, CIDRs and loopback, linklocal, uniquelocal`,
        });
        return z.NEVER;
      }
    })
    .optional(),
  /**
   * Node's defaults hold a connection 60 s for its headers and 300 s for a request body, so a
   * few slow clients can hold many sockets (slowloris). Shorter by default; see main.ts.
   */
  HEADERS_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(5),
  /**
   * The listening socket's queue of connections the kernel has accepted and the process has not
   * taken yet. Node's 511 overflows in an on-sale's rush (a burst of 5,000 new connections while
   * the event loop is busy): the kernel then drops the SYNs, and each client waits for its
   * retransmit, 1 s, then 3 s, 7 s, 15 s: a p99 of 30 s where the work took 10. Linux caps it at
   * `net.core.somaxconn` (4,096 on current kernels).
   */
  LISTEN_BACKLOG: z.coerce.number().int().min(1).max(65_535).default(4096),
  /**
   * Shutdown on SIGTERM/SIGINT (main.ts): readiness answers 503 at once, new connections are
   * still accepted for the grace (a load balancer needs time to notice), then refused; requests
   * in flight and the jobs in hand get until the timeout, counted from the signal.
   */
  SHUTDOWN_GRACE_SECONDS: seconds(10, 3600),
  SHUTDOWN_TIMEOUT_SECONDS: seconds(30, 3600),
  /** Apply the committed migrations when the service starts; `false` leaves them to `npm run migrate`. */
  MIGRATE_ON_START: flag(true),
  /**
   * SQLite: write concurrent buy attempts in groups, one durable commit per group
   * (db/group-commit.ts). Off by default: it pays where a disk flush is slow and sales
   * outnumber refusals, and costs where flushes are cheap (docs/benchmarks.md has both).
   */
  SQLITE_GROUP_COMMIT: flag(false),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(3).default('resale <no-reply@resale.invalid>'),
  SANDBOX_PRIVATE_KEY: z.string().min(16).optional(),
  SANDBOX_PUBLIC_KEY: z.string().min(16).optional(),
  SANDBOX_CHANNELS_KEY: z.string().regex(/^sk_ch_.{10,}$/, 'must start with sk_ch_ and be at least 16 characters').optional(),
  SANDBOX_OWNERSHIP_URL: optionalUrl,
  SANDBOX_LOGIN_URL: optionalUrl,
  SANDBOX_SITE_URL: optionalUrl,
  SANDBOX_WEBHOOK_URL: optionalUrl,
  SANDBOX_WEBHOOK_SECRET: z.string().regex(/^whsec_[A-Za-z0-9+/=]{16,}$/, 'must be whsec_ followed by base64').optional(),
  SANDBOX_PLATFORM_SECRET: z.string().min(16).optional(),
  SANDBOX_EVENTS_FEED_URL: optionalUrl,
  SANDBOX_CANCELLED_FEED_URL: optionalUrl,
  /** Comma-separated origins whose pages may call the sandbox partner's public-key endpoints (CORS). */
  SANDBOX_ALLOWED_ORIGINS: z
    .string()
    .max(2000)
    .transform((s) => s.split(',').map(normaliseOrigin).filter(Boolean))
    .refine((list) => list.every((o) => ORIGIN_PATTERN.test(o)), 'must be comma-separated origins such as http://localhost:3001')
    .optional(),
  /**
   * Stripe (domain/payments/stripe.provider.ts): all three, or none for the sandbox provider.
   * Never logged: the start-up line names the provider and its mode only.
   */
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/, 'must be a Stripe secret (or restricted) key, sk_test_… or sk_live_…').optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().regex(/^pk_(test|live)_[A-Za-z0-9_]{8,}$/, 'must be a Stripe publishable key, pk_test_… or pk_live_…').optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_+/=]{8,}(,whsec_[A-Za-z0-9_+/=]{8,})*$/, 'must be the signing secret of the Stripe endpoint, whsec_… (several separated by commas: the Connect endpoint’s, one being rotated)')
    .optional(),
});

export type Env = z.output<typeof EnvSchema> & { PUBLIC_BASE_URL: string; SECRET_KEY: string };

/** Thrown when the environment is invalid; `message` names every bad variable. */
export class EnvError extends Error {}

/** Empty strings count as unset, as in most .env tooling. */
function withoutEmpty(source: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(source).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
}

function issuesError(error: z.ZodError): EnvError {
  const lines = error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  return new EnvError(`Invalid environment:\n${lines.join('\n')}`);
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const parsed = EnvSchema.safeParse(withoutEmpty(source));
  if (!parsed.success) throw issuesError(parsed.error);
  const env = parsed.data;
  if (!env.SECRET_KEY) {
    if (env.NODE_ENV === 'production') throw new EnvError('Invalid environment:\n  SECRET_KEY: is required in production (at least 32 characters)');
    throw new EnvError('Invalid environment:\n  SECRET_KEY: is required (npm start sets a development value)');
  }
  if (env.HEADERS_TIMEOUT_SECONDS > env.REQUEST_TIMEOUT_SECONDS) {
    // Node refuses a headers timeout longer than the request timeout (it would never fire).
    throw new EnvError('Invalid environment:\n  HEADERS_TIMEOUT_SECONDS: must not be greater than REQUEST_TIMEOUT_SECONDS');
  }
  if (env.SHUTDOWN_GRACE_SECONDS > env.SHUTDOWN_TIMEOUT_SECONDS) {
    // The grace is part of the time a shutdown may take.
    throw new EnvError(
      `Invalid environment:\n  SHUTDOWN_GRACE_SECONDS: must not be greater than SHUTDOWN_TIMEOUT_SECONDS (${env.SHUTDOWN_GRACE_SECONDS} > ${env.SHUTDOWN_TIMEOUT_SECONDS}); the grace is part of the shutdown's time`,
    );
  }
  if (isPostgresUrl(env.DATABASE_URL) !== (ENGINE === 'postgres')) {
    // The tables are built for the engine when the process starts (db/engine.ts).
    throw new EnvError('Invalid environment:\n  DATABASE_URL: must be set in the environment the process started with');
  }
  if (!env.MIGRATE_ON_START && !env.DATABASE_URL && env.DATABASE_PATH === ':memory:') {
    throw new EnvError('Invalid environment:\n  MIGRATE_ON_START: must not be false with DATABASE_PATH=:memory: (nothing else can migrate an in-memory database)');
  }
  const sandbox = [env.SANDBOX_PRIVATE_KEY, env.SANDBOX_PUBLIC_KEY, env.SANDBOX_CHANNELS_KEY];
  if (sandbox.some(Boolean) && !sandbox.every(Boolean)) {
    throw new EnvError('Invalid environment:\n  SANDBOX_PRIVATE_KEY, SANDBOX_PUBLIC_KEY, SANDBOX_CHANNELS_KEY: set all three or none');
  }
  const stripe = [env.STRIPE_SECRET_KEY, env.STRIPE_PUBLISHABLE_KEY, env.STRIPE_WEBHOOK_SECRET];
  if (stripe.some(Boolean) && !stripe.every(Boolean)) {
    throw new EnvError('Invalid environment:\n  STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET: set all three (Stripe) or none (the sandbox provider)');
  }
  if (env.STRIPE_SECRET_KEY && env.STRIPE_PUBLISHABLE_KEY && env.STRIPE_SECRET_KEY.split('_')[1] !== env.STRIPE_PUBLISHABLE_KEY.split('_')[1]) {
    throw new EnvError('Invalid environment:\n  STRIPE_PUBLISHABLE_KEY: must be of the same mode (test or live) as STRIPE_SECRET_KEY');
  }
  return { ...env, SECRET_KEY: env.SECRET_KEY, PUBLIC_BASE_URL: (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '') };
}

/**
 * What `npm run migrate` (src/migrate.ts) reads: the database and the log level only, so it
 * runs where the service's secrets are not set (a migration job).
 */
export function parseMigrateEnv(source: Record<string, string | undefined>): Pick<Env, 'DATABASE_PATH' | 'DATABASE_URL' | 'LOG_LEVEL'> {
  const parsed = EnvSchema.pick({ DATABASE_PATH: true, DATABASE_URL: true, LOG_LEVEL: true }).safeParse(withoutEmpty(source));
  if (!parsed.success) throw issuesError(parsed.error);
  if (!parsed.data.DATABASE_URL && parsed.data.DATABASE_PATH === ':memory:') throw new EnvError('Invalid environment:\n  DATABASE_PATH: an in-memory database cannot be migrated by another process');
  return { DATABASE_PATH: parsed.data.DATABASE_PATH, DATABASE_URL: parsed.data.DATABASE_URL, LOG_LEVEL: parsed.data.LOG_LEVEL };
}

/**
 * The PostgreSQL database of a command run beside the service (`npm run import`):
 * `DATABASE_URL`, or undefined when it is unset (the command then works on SQLite). Refuses a
 * URL that is not PostgreSQL's, and one the process did not start with (the tables are built
 * for the engine when the process starts, db/engine.ts).
 */
export function parseDatabaseUrlEnv(source: Record<string, string | undefined>): string | undefined {
  const parsed = EnvSchema.pick({ DATABASE_URL: true }).safeParse(withoutEmpty(source));
  if (!parsed.success) throw issuesError(parsed.error);
  const { DATABASE_URL } = parsed.data;
  if (isPostgresUrl(DATABASE_URL) !== (ENGINE === 'postgres')) throw new EnvError('Invalid environment:\n  DATABASE_URL: must be set in the environment the process started with');
  return DATABASE_URL;
}

/**
 * What `npm run reseal` (src/reseal.ts) reads: the database and the keyring (`SECRET_KEY`,
 * required: the newest key seals, every listed key must open what is stored).
 */
export function parseResealEnv(source: Record<string, string | undefined>): Pick<Env, 'DATABASE_PATH' | 'DATABASE_URL' | 'SECRET_KEY'> {
  const parsed = EnvSchema.pick({ DATABASE_PATH: true, DATABASE_URL: true, SECRET_KEY: true }).safeParse(withoutEmpty(source));
  if (!parsed.success) throw issuesError(parsed.error);
  const { DATABASE_PATH, DATABASE_URL, SECRET_KEY } = parsed.data;
  if (!SECRET_KEY) throw new EnvError('Invalid environment:\n  SECRET_KEY: is required (the keys of the service, newest first)');
  // The tables are built for the engine when the process starts (db/engine.ts).
  if (isPostgresUrl(DATABASE_URL) !== (ENGINE === 'postgres')) throw new EnvError('Invalid environment:\n  DATABASE_URL: must be set in the environment the process started with');
  if (!DATABASE_URL && DATABASE_PATH.trim() === ':memory:') throw new EnvError('Invalid environment:\n  DATABASE_PATH: an in-memory database lives only inside the service process and cannot be resealed from outside');
  return { DATABASE_PATH, DATABASE_URL, SECRET_KEY };
}
