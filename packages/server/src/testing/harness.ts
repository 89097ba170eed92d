import type { PaymentProvider } from '../domain/payments/payments.provider.js';
import type { PayoutProvider } from '../domain/payouts/payouts.provider.js';
import pino, { type Logger } from 'pino';
import { nodeListener } from '../http/node-listener.js';
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createApp } from '../app.js';
import type { AppConfig } from '../lib/config.js';
import type { AppDeps, AppEnv } from '../context.js';
import { closeDb, createDb, type DatabaseLocation, type Db } from '../db/client.js';
import { ENGINE } from '../db/engine.js';
import { freshPostgresDb, freshPostgresUrl } from './postgres.js';
import { buildDeps } from '../deps.js';
import { ManualClock, type Clock } from '../lib/clock.js';
import type { PartnerSettingsPatch } from '../domain/partners/partners.settings.js';
import { afterAll } from 'vitest';
import { answerChecker, type AnswerMismatch, type Doc } from './openapi-schema.js';

export const OPERATOR_TOKEN = 'test-operator-token-000000000000';

/** A response read back: status, parsed JSON body and headers. */
export interface TestResponse<T = any> {
  status: number;
  /** `errors` is loosely typed so tests can index it directly. */
  body: { status: number; data: T; errors: any };
  headers: Headers;
}

/** A partner created for a test, with its secrets. */
export interface TestPartner {
  id: string;
  keys: { private: string; public: string; channels: string };
  webhookSecret: string;
}

/**
 * A fresh app over a fresh database with the real migrations (in-memory SQLite, or PostgreSQL
 * in the `server-pg` project), a manual
 * clock, and helpers to call it. No seeded data: each test makes what it needs.
 *
 * @example
 * const t = createTestApp();
 * const p = t.partner();
 * const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: event });
 */
/** The secret key of every test service (test value, public). */
export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef0123';

/**
 * The services over a SQLite *file* (migrated), as main.ts wires them: for tests that need
 * what an in-memory database cannot do (a second connection, a worker thread, a CLI that
 * opens the file again). Several calls on one path are several connections to one database.
 */
export function fileDeps(path: string, opts: { clock?: Clock } = {}): AppDeps {
  return buildDeps({
    db: createDb(path),
    clock: opts.clock ?? new ManualClock('2026-03-01T12:00:00Z'),
    logger: pino({ level: 'silent' }),
    secretKey: TEST_SECRET_KEY,
    config: { env: 'test', publicBaseUrl: 'http://resale.test', operatorToken: null, maxBodyBytes: 1 << 20, rateLimitPerMinute: 10_000, smtpUrl: null, mailFrom: 'x <x@resale.test>' },
  });
}

/**
 * A fresh, migrated database for one test app: in-memory SQLite, or a database of its own on
 * the run's PostgreSQL server when the test process runs on PostgreSQL (the `server-pg`
 * project; see testing/postgres.ts). `migrate: false`: an empty one, no migration applied.
 */
export function testDb(opts: { migrate?: boolean } = {}): Db {
  return ENGINE === 'postgres' ? freshPostgresDb(opts) : createDb(':memory:', opts);
}

/**
 * Where a service the test starts itself (main.ts's `start`) keeps its data, as environment
 * variables: the SQLite file at `sqlitePath` (`DATABASE_PATH`, created at start), or on
 * PostgreSQL an empty database of its own (`DATABASE_URL`; the service migrates it at start).
 * Starting again with the same variables opens the same database.
 */
export async function serviceDatabaseEnv(sqlitePath: string): Promise<ServiceDatabase> {
  return ENGINE === 'postgres' ? { DATABASE_URL: await freshPostgresUrl({ migrate: false }) } : { DATABASE_PATH: sqlitePath };
}

/** A database as the variables that name it (see {@link serviceDatabaseEnv}). */
export type ServiceDatabase = { DATABASE_PATH: string } | { DATABASE_URL: string };

/** The database of `database`'s variables, as `openDb` takes it. */
export function locationOf(database: ServiceDatabase): DatabaseLocation {
  return 'DATABASE_URL' in database ? { url: database.DATABASE_URL, path: '' } : { url: null, path: database.DATABASE_PATH };
}

/** Where `database` is, as the commands print it (`npm run migrate`, `npm run reseal`): the file, or the URL without its password. */
export function whereOf(database: ServiceDatabase): string {
  if (!('DATABASE_URL' in database)) return database.DATABASE_PATH;
  const url = new URL(database.DATABASE_URL);
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * Closes a test's database (the SQLite connection, or the PostgreSQL pool) once it is open, as
 * a database gone away: what uses it afterwards fails.
 */
export async function closeTestDb(db: Db): Promise<void> {
  // On PostgreSQL the handle's pool exists once the database does (testing/postgres.ts).
  await db.read(() => undefined);
  await closeDb(db);
}

export function createTestApp(overrides: Partial<AppConfig> = {}, opts: { logger?: Logger; db?: Db; paymentProvider?: PaymentProvider; payoutProvider?: PayoutProvider } = {}) {
  const clock = new ManualClock('2026-03-01T12:00:00Z');
  // `db`: another process's view of a test database (testing/postgres.ts, `sameDatabase`).
  const db = opts.db ?? testDb();
  const config: AppConfig = {
    env: 'test',
    publicBaseUrl: 'http://resale.test',
    operatorToken: OPERATOR_TOKEN,
    maxBodyBytes: 256 * 1024,
    rateLimitPerMinute: 10_000,
    smtpUrl: null,
    mailFrom: 'resale test <no-reply@resale.test>',
    // As in production, nobody may set X-Forwarded-For. The hosted pages' per-address limit
    // stays on, but high, like the API's above: in-process requests all come from one address
    // ('unknown') at one instant of the manual clock, and crawls post hundreds of forms. Tests
    // of the limit set the production values (PAGE_RATE_LIMIT_DEFAULTS) or their own.
    trustProxy: undefined,
    pageRateLimitPerMinute: 10_000,
    pagePostRateLimitPerMinute: 10_000,
    ...overrides,
  };
  const deps: AppDeps = buildDeps({ db, clock, config, logger: opts.logger ?? pino({ level: 'silent' }), secretKey: TEST_SECRET_KEY, paymentProvider: opts.paymentProvider, payoutProvider: opts.payoutProvider });
  const app: OpenAPIHono<AppEnv> = createApp(deps);

  async function request<T = any>(
    method: string,
    path: string,
    opts: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string>; operator?: boolean } = {},
  ): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.operator) headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
    else if (opts.key) headers.authorization = opts.key;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
    checkAnswer(app, method, path, res, parsed);
    return { status: res.status, body: parsed, headers: res.headers };
  }

  async function partner(name = 'Acme Tickets', settings: PartnerSettingsPatch = {}): Promise<TestPartner> {
    // The tx-taking half of `create` (a test's first line, in hundreds of tests).
    const { partner: row, secrets } = await db.transact(async (tx) => await deps.partners.createIn(tx, name, settings));
    return { id: row.id, keys: secrets.keys, webhookSecret: secrets.webhookSecret };
  }

  return { app, deps, db, clock, request, partner };
}

export type TestApp = ReturnType<typeof createTestApp>;

/**
 * Every answer a test reads through `t.request` is checked against the OpenAPI document: the
 * operation's documented response for its status, and that response's schema (Ajv, draft
 * 2020-12; see `answerChecker`). The route tests thus prove the document along the way; a test
 * file whose answers did not all match fails in its `afterAll`, listing each mismatch once.
 */
const answerMismatches = new Map<string, AnswerMismatch & { count: number }>();
let check: ReturnType<typeof answerChecker> | undefined;

function checkAnswer(app: OpenAPIHono<AppEnv>, method: string, path: string, res: Response, body: unknown): void {
  // One document per test process: it depends on the routes, not on a test's data. Generated
  // directly, not requested: a request would be one more line in the app's log.
  check ??= answerChecker(app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'resale API', version: '1.0.0' } }) as unknown as Doc);
  // The path as the router sees it (dot segments resolved, no query).
  const mismatch = check(method, new URL(path, 'http://resale.test').pathname, res.status, body, res.headers.get('content-type'));
  if (!mismatch) return;
  const key = `${mismatch.operation} ${mismatch.status}: ${mismatch.problem}`;
  const seen = answerMismatches.get(key);
  if (seen) seen.count++;
  else answerMismatches.set(key, { ...mismatch, count: 1 });
}

afterAll(() => {
  if (answerMismatches.size === 0) return;
  const lines = [...answerMismatches.values()].map((m) => `- ${m.operation} → ${m.status} (${m.count}×): ${m.problem}`);
  answerMismatches.clear();
  throw new Error(`Answers that do not match the OpenAPI document:\n${lines.join('\n')}`);
});

/** An app served over real HTTP by {@link listen}. */
export interface Listening {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  server: Server;
  /** Cuts every open connection, then closes the server. */
  close(): Promise<void>;
}

/**
 * Serves `app` over real HTTP on 127.0.0.1 and a free port, with its fast paths and through
 * @hono/node-server as main.ts does: for what only a real socket has (the peer's address, aborted bodies, timeouts).
 *
 * @example
 * const http = await listen(t.app);
 * await fetch(`${http.base}/docs`);
 * await http.close();
 */
export async function listen(app: { fetch: (request: Request, env: any) => Response | Promise<Response> }, serverOptions: ServerOptions = {}): Promise<Listening> {
  // As main.ts serves it: the app's fast paths, then Hono's adaptor (node-listener.ts).
  const server = createServer(serverOptions, nodeListener(() => app, app.fetch));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
