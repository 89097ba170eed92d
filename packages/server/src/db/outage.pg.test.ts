import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../testing/service.js';
import { partners } from '../domain/partners/partners.table.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../testing/embedded-postgres.js';
import { eventBody } from '../testing/factories.js';
import { createTestApp } from '../testing/harness.js';
import { availabilityOf, isDatabaseUnavailable } from './availability.js';
import { closeDb, postgresDb } from './client.js';
import { selectRows } from './dialect.js';
import { freshPostgresUrl } from '../testing/postgres.js';

/**
 * PostgreSQL going away under the service: a backend killed while a transaction is open on it
 * (what a server restart, a failover or `pg_terminate_backend` does to every connection), and
 * the whole server stopped and started again. No process may exit: node-postgres emits an
 * `error` event on a checked-out client whose socket dies, and an event nobody listens to kills
 * the process (here: the test worker, which Vitest reports).
 */

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

/** Ends every other connection to the current database, as a server restart does. */
async function terminateOtherBackends(db: Parameters<typeof availabilityOf>[0] & { read: any }): Promise<number> {
  const rows = await (db as any).read((tx: any) => selectRows<{ pid: number }>(tx, sql`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`));
  const pids = rows.map((r: { pid: number }) => r.pid);
  await terminate((db as unknown as { $client: pg.Pool }).$client.options.connectionString!, pids);
  return pids.length;
}

/** Ends the backends `pids` from a connection of its own, and waits until they are gone. */
async function terminate(url: string, pids: number[]): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [pids]);
    for (let left = pids.length; left > 0; ) {
      left = (await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where pid = any($1::int[])', [pids])).rows[0]!.n;
    }
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL going away', () => {
  it('survives a backend killed mid-transaction: the transaction fails as unavailable, and the next request is served on a new connection', async () => {
    const t = createTestApp();
    const p = await t.partner();
    let failure: unknown;
    await t.db
      .transact(async (tx) => {
        await tx.select({ id: partners.id }).from(partners);
        expect(await terminateOtherBackends(t.db)).toBeGreaterThan(0);
        // The connection this transaction holds is gone.
        await tx.select({ id: partners.id }).from(partners);
      })
      .catch((err: unknown) => (failure = err));
    expect(failure).toBeDefined();
    expect(isDatabaseUnavailable(failure)).toBe(true);
    expect(availabilityOf(t.db)?.down).toBe(true);
    // The pool dropped the broken client: the next request gets a new connection, and the
    // availability is back with it.
    expect((await t.request('GET', '/v1/events/nope', { key: p.keys.private })).status).toBe(404);
    expect(availabilityOf(t.db)?.down).toBe(false);
    // Idle connections killed too: the pool replaces them.
    await terminateOtherBackends(t.db);
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('after-kill') })).status).toBe(200);
  });

  it('lends no connection that died idle, and returns to the pool every connection whose BEGIN failed', async () => {
    const url = await freshPostgresUrl();
    /** A handle of its own whose connections are checked after `idleCheckMs` idle (1 s by default). */
    const open = async (idleCheckMs: number) => {
      const db = await postgresDb(url, { migrate: false, migrationsFolder: '', poolSize: 4, idleCheckMs });
      running.push({ stop: () => closeDb(db) });
      const pool = (db as unknown as { $client: pg.Pool }).$client;
      const released: unknown[] = [];
      pool.on('release', (err) => err && released.push(err));
      const countPartners = () => db.transact(async (tx) => (await tx.select({ id: partners.id }).from(partners)).length);
      /**
       * Kills three idle connections whose sockets are not read: their death stays unreported
       * until read, as in the moment after a failover before the sockets say so. Answers the
       * call that reads them again.
       */
      const killIdle = async () => {
        const clients = await Promise.all([0, 1, 2].map(() => pool.connect()));
        const pids = clients.map((c) => (c as unknown as { processID: number }).processID);
        const streams = clients.map((c) => (c as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream);
        for (const [i, c] of clients.entries()) {
          streams[i]!.pause();
          c.release();
        }
        await terminate(url, pids);
        released.length = 0;
        return () => streams.forEach((s) => s.resume());
      };
      return { db, pool, released, countPartners, killIdle };
    };

    // Checked before use: each dead connection is closed, and the statement runs on a new one.
    const checked = await open(0);
    let resume = await checked.killIdle();
    const first = checked.countPartners();
    resume();
    expect(await first).toBe(0);
    // (The first one found dead; reading its socket read the others', and the pool dropped them idle.)
    expect(checked.released.map(String)).toEqual(['Error: the connection closed while idle']);
    expect(checked.pool.totalCount).toBe(checked.pool.idleCount);

    // Lent at once (a connection busy a moment ago is not checked): the dead connection's
    // BEGIN fails, the transaction runs on another, and the dead ones are not kept.
    const unchecked = await open(Number.POSITIVE_INFINITY);
    resume = await unchecked.killIdle();
    const second = unchecked.countPartners();
    resume();
    expect(await second).toBe(0);
    expect(unchecked.released.length).toBeGreaterThan(0);
    expect(unchecked.released.every((err) => isDatabaseUnavailable(err))).toBe(true);
    expect(unchecked.pool.totalCount).toBe(unchecked.pool.idleCount);
    expect(await Promise.all([0, 1, 2, 3].map(() => unchecked.countPartners()))).toEqual([0, 0, 0, 0]);
    expect(unchecked.pool.totalCount).toBe(unchecked.pool.idleCount);
    expect(availabilityOf(unchecked.db)?.down).toBe(false);
  });

  it('answers 503 with Retry-After and readiness off while the server is down, keeps liveness, and serves again by itself when it returns', async () => {
    const server: EmbeddedServer = await startEmbeddedPostgres({ fast: true, stopOnExit: false, prefix: 'resale-outage-pg-' });
    running.push(server);
    const key = 'sk_outage_private_key_0000000000000000';
    const service = await startService({
      DATABASE_URL: server.url,
      SANDBOX_PRIVATE_KEY: key,
      SANDBOX_PUBLIC_KEY: 'pk_outage_public_key_00000000000000000',
      SANDBOX_CHANNELS_KEY: 'sk_ch_outage_channels_key_00000000000',
    });
    // Stopped before its server (the afterEach below stops the server).
    running.push(service);
    const base = `http://127.0.0.1:${service.port}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers: { authorization: key, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
      return { status: res.status, headers: res.headers, body: (await res.json()) as { errors: { code: string; message: string }[] | null } };
    };
    expect((await call('GET', '/v1/events/nope')).status).toBe(404);
    expect((await call('GET', '/readyz')).status).toBe(200);

    await server.halt();
    const read = await call('GET', '/v1/events/nope');
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('2');
    expect(read.body.errors![0]!.code).toBe('database_unavailable');
    expect((await call('POST', '/v1/events', eventBody('during-outage'))).status).toBe(503);
    const ready = await call('GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.errors).toEqual([{ code: 'not_ready', message: 'Not ready: the database does not answer' }]);
    expect((await call('GET', '/healthz')).status).toBe(200);
    // The jobs meet the outage too (a second of their ticks): nothing exits.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await call('GET', '/healthz')).status).toBe(200);

    await server.resume();
    // Back by itself: no restart of the service. Polled (the server takes a moment to accept).
    let back = 0;
    for (let i = 0; i < 200 && back !== 200; i++) {
      back = (await call('GET', '/readyz')).status;
      if (back !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(back).toBe(200);
    expect((await call('GET', '/v1/events/nope')).status).toBe(404);
    expect((await call('POST', '/v1/events', eventBody('after-outage'))).status).toBe(200);
    expect((await call('GET', '/v1/events/after-outage')).status).toBe(200);
  });
});
