import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../../db/client.js';
import { migrationsTable } from '../../db/dialect.js';
import { closeTestDb, createTestApp, testDb } from '../../testing/harness.js';
import { sqlExec, sqlRows } from '../../testing/sql.js';
import { migrationStatus, Readiness, readJournal, type JournalEntry } from './health.readiness.js';
import { healthOnlyApp, healthRoutes, NOT_READY_CODE } from './health.routes.js';

const JOURNAL = readJournal(MIGRATIONS_FOLDER);

async function json(res: Response) {
  return { status: res.status, body: (await res.json()) as { status: number; data: any; errors: any }, headers: res.headers };
}

describe('GET /healthz', () => {
  it('answers 200 in the envelope without a key, never cached, with a request id', async () => {
    const t = createTestApp();
    const res = await t.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { alive: true }, errors: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect((await t.app.request('/healthz', { method: 'HEAD' })).status).toBe(200);
  });

  it('does not touch the database: 200 with the database closed, and while draining', async () => {
    const t = createTestApp();
    await closeTestDb(t.db);
    expect((await t.request('GET', '/healthz')).status).toBe(200);
    const db = testDb();
    const readiness = new Readiness(db);
    readiness.startDrain();
    expect((await healthRoutes(readiness).request('/healthz')).status).toBe(200);
  });
});

describe('GET /readyz', () => {
  it('answers 200 when the database answers and every migration is applied', async () => {
    const t = createTestApp();
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { ready: true }, errors: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 503 naming the migrations on a database created without migrating', async () => {
    const db = testDb({ migrate: false });
    const app = healthRoutes(new Readiness(db));
    const res = await json(await app.request('/readyz'));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 503,
      data: null,
      errors: [{ code: NOT_READY_CODE, message: `Not ready: ${JOURNAL.length} of ${JOURNAL.length} database migrations are not applied; run npm run migrate` }],
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await migrationStatus(db)).toEqual({ expected: JOURNAL.length, pending: JOURNAL.map((m) => m.tag) });
  });

  it('answers 503 when the latest migration is missing, and 200 again once it is applied', async () => {
    const t = createTestApp();
    const last = JOURNAL[JOURNAL.length - 1]!;
    const row = (await sqlRows<{ hash: string; created_at: number }>(t.db, sql`select hash, created_at from ${migrationsTable()} where created_at = ${last.when}`))[0]!;
    await sqlExec(t.db, sql`delete from ${migrationsTable()} where created_at = ${last.when}`);
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.errors).toEqual([{ code: NOT_READY_CODE, message: `Not ready: 1 of ${JOURNAL.length} database migrations is not applied; run npm run migrate` }]);
    expect(await migrationStatus(t.db)).toEqual({ expected: JOURNAL.length, pending: [last.tag] });
    await sqlExec(t.db, sql`insert into ${migrationsTable()} (hash, created_at) values (${row.hash}, ${row.created_at})`);
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });

  it('judges migrations as drizzle does: a database migrated by a newer release stays ready', async () => {
    const db = testDb();
    // Our journal lacks the database's latest migration (an older release during a rolling deploy).
    expect((await json(await healthRoutes(new Readiness(db, { journal: JOURNAL.slice(0, -1) })).request('/readyz'))).status).toBe(200);
    // A release with one migration more than the database.
    const newer: JournalEntry[] = [...JOURNAL, { idx: JOURNAL.length, when: JOURNAL[JOURNAL.length - 1]!.when + 1, tag: '9999_next' }];
    const res = await json(await healthRoutes(new Readiness(db, { journal: newer })).request('/readyz'));
    expect(res.status).toBe(503);
    expect(res.body.errors[0].message).toBe(`Not ready: 1 of ${newer.length} database migrations is not applied; run npm run migrate`);
  });

  it('answers 503 from the moment a drain starts, for good', async () => {
    const t = createTestApp();
    const readiness = new Readiness(t.db);
    const app = healthRoutes(readiness);
    expect((await app.request('/readyz')).status).toBe(200);
    readiness.startDrain();
    expect(readiness.draining).toBe(true);
    const res = await json(await app.request('/readyz'));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, data: null, errors: [{ code: NOT_READY_CODE, message: 'Not ready: the service is shutting down' }] });
    readiness.markServing();
    expect((await app.request('/readyz')).status).toBe(503);
  });

  it('answers 503 while the service is starting (app not built yet), then 200', async () => {
    const db = testDb();
    const readiness = new Readiness(db, { serving: false });
    const app = healthRoutes(readiness);
    const res = await json(await app.request('/readyz'));
    expect(res.status).toBe(503);
    expect(res.body.errors[0].message).toBe('Not ready: the service is starting');
    readiness.markServing();
    expect((await app.request('/readyz')).status).toBe(200);
  });

  it('answers 503 without SQL or paths when the database cannot be reached', async () => {
    const t = createTestApp();
    await closeTestDb(t.db);
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, data: null, errors: [{ code: NOT_READY_CODE, message: 'Not ready: the database does not answer' }] });
  });

  it('is never rate limited and ignores keys and forwarded addresses', async () => {
    const t = createTestApp({ rateLimitPerMinute: 1, pageRateLimitPerMinute: 1, pagePostRateLimitPerMinute: 1 });
    for (let i = 0; i < 30; i++) {
      for (const path of ['/healthz', '/readyz']) {
        const res = await t.request('GET', path, { key: i % 2 ? 'garbage' : null, headers: { 'x-forwarded-for': '203.0.113.9' } });
        expect(res.status, `${path} #${i}`).toBe(200);
      }
    }
    // The limits themselves are on: a hosted page is refused at once.
    expect((await t.request('GET', '/docs')).status).toBe(200);
    expect((await t.request('GET', '/docs')).status).toBe(429);
  });

  it('lives outside /v1: /v1/healthz and /v1/readyz are unknown', async () => {
    const t = createTestApp();
    expect((await t.request('GET', '/v1/healthz')).status).toBe(404);
    expect((await t.request('GET', '/v1/readyz')).status).toBe(404);
    expect((await t.request('POST', '/healthz')).status).toBe(405);
  });
});

describe('the OpenAPI document', () => {
  it('documents both under Operations, without a key, with the 503 envelope', async () => {
    const t = createTestApp();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { operationId: string; tags: string[]; security: unknown[]; responses: Record<string, unknown> }>>;
    };
    expect(doc.tags.map((tag) => tag.name)).toContain('Operations');
    expect(doc.paths['/healthz']!.get).toMatchObject({ operationId: 'getLiveness', tags: ['Operations'], security: [] });
    expect(Object.keys(doc.paths['/healthz']!.get!.responses)).toEqual(['200']);
    expect(doc.paths['/readyz']!.get).toMatchObject({ operationId: 'getReadiness', tags: ['Operations'], security: [] });
    expect(Object.keys(doc.paths['/readyz']!.get!.responses).sort()).toEqual(['200', '503']);
  });
});

describe('healthOnlyApp (MIGRATE_ON_START=false before the migrations)', () => {
  it('answers the probes, and 503 in the envelope with Retry-After for everything else', async () => {
    const db = testDb({ migrate: false });
    const app = healthOnlyApp(new Readiness(db, { serving: false }));
    expect((await app.request('/healthz')).status).toBe(200);
    expect((await json(await app.request('/readyz'))).body.errors[0].message).toMatch(/database migrations are not applied; run npm run migrate$/);
    const res = await json(await app.request('/v1/events/tour', { headers: { authorization: 'sk_x' } }));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 503, data: null, errors: [{ code: NOT_READY_CODE, message: 'The service is not ready yet: its database migrations are not applied' }] });
    expect(res.headers.get('retry-after')).toBe('5');
  });
});
