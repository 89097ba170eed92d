import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../testing/service.js';
import { partners } from '../modules/partners/partners.table.js';
import { startEmbeddedPostgres, type EmbeddedServer } from '../testing/embedded-postgres.js';
import { eventBody } from '../testing/factories.js';
import { createTestApp } from '../testing/harness.js';
import { availabilityOf, isDatabaseUnavailable } from './availability.js';
import { selectRows } from './dialect.js';

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
  const rows = await (db as any).read((tx: any) => selectRows<{ n: number }>(tx, sql`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`));
  return rows[0]!.n;
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
