import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDb, openDb } from './client.js';
import { inOrder } from '../lib/in-order.js';
import { spawnService, type ServiceProcess } from '../testing/service-process.js';
import { eventBody, showBody, ticketBody } from '../testing/factories.js';
import { fileDeps, TEST_SECRET_KEY } from '../testing/harness.js';
import { sqlRows } from '../testing/sql.js';
import { tempDir } from '../testing/temp-dir.js';

/**
 * Group commit under a crash (db/group-commit.ts): the service in a child process on a SQLite
 * file with SQLITE_GROUP_COMMIT on, a burst of buy intentions, `kill -9` while groups are being written; then the file,
 * opened again, holds every intention that was answered 200, each listing held by at most one.
 *
 * SQLite only: the service groups buy attempts on SQLite alone (on PostgreSQL each is its own
 * transaction, covered by the crash tests of the several processes, multi-process.pg.test.ts).
 */

const PRIVATE_KEY = 'sk_group_commit_private_00000';
const LISTINGS = 120;
const ATTEMPTS = 400;

let service: ServiceProcess | null = null;
afterEach(async () => {
  await service?.stop('SIGKILL');
  service = null;
});

async function call(port: number, method: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: PRIVATE_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe('group commit of buy attempts: kill -9 in the middle of a burst', () => {
  it('loses no intention that was answered, and holds no listing twice', async () => {
    const path = join(tempDir('resale-group-commit'), 'db.sqlite');
    service = spawnService({
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: path,
      SECRET_KEY: TEST_SECRET_KEY,
      SANDBOX_PRIVATE_KEY: PRIVATE_KEY,
      SANDBOX_PUBLIC_KEY: 'pk_group_commit_public_000000',
      SANDBOX_CHANNELS_KEY: 'sk_ch_group_commit_channels_0',
      RATE_LIMIT_PER_MINUTE: '0',
      SQLITE_GROUP_COMMIT: 'true',
    });
    const port = (await service.log('resale listening')).port as number;
    expect((await call(port, 'POST', '/v1/events', eventBody('tour', { shows: [showBody('show-1', { date: '2027-05-01T21:00:00+02:00' })] }))).status).toBe(200);
    const ids = Array.from({ length: LISTINGS }, (_, i) => `t-${i}`);
    const synced = await call(port, 'POST', '/v1/sync/tickets', ids.map((id, i) => ticketBody(id, { buyer: `seller${i}@example.com` })));
    expect(synced.status).toBe(200);

    // Listings are made in the hosted sell flow; here through the same services on the same file.
    const deps = fileDeps(path);
    const partnerId = (await deps.partners.authenticate(PRIVATE_KEY))!.partner.id;
    const listingIds = await inOrder(ids, async (id) => {
      const ticket = await deps.tickets.get(deps.db, partnerId, id);
      return (await deps.db.transact(async (tx) => await deps.listings.create(tx, partnerId, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }))).id;
    });
    await closeDb(deps.db);

    // Each attempt wants one or two listings, overlapping: some are held, most are refused.
    const answered: { intentionId: string; items: string[] }[] = [];
    let answers = 0;
    let killed!: () => void;
    const killedNow = new Promise<void>((resolve) => (killed = resolve));
    const attempts = Array.from({ length: ATTEMPTS }, (_, i) => [listingIds[(i * 7) % LISTINGS]!, ...(i % 3 === 0 ? [listingIds[(i * 11 + 1) % LISTINGS]!] : [])]);
    const burst = Promise.allSettled(
      attempts.map(async (items, i) => {
        const { status, json } = await call(port, 'POST', '/v1/marketplace/buyingflow/buyIntention', { items: [...new Set(items)], user: `buyer${i}@example.com` });
        if (status === 200) answered.push({ intentionId: json.data.id, items: json.data.items.map((x: { listingId: string }) => x.listingId) });
        else expect(status).toBe(409);
        // Killed while answers are still coming: groups are being written.
        if (++answers === 60) {
          service!.child.kill('SIGKILL');
          killed();
        }
      }),
    );
    await killedNow;
    await burst;
    await service.exited;
    expect(answered.length).toBeGreaterThan(0);

    const db = await openDb({ path }, { migrate: false, poolSize: 1 });
    try {
      const listed = new Map((await sqlRows(db, 'select id, state, intention_id from listings')).map((r) => [String(r.id), r]));
      const pending = new Set((await sqlRows(db, "select id from buy_intentions where state = 'PENDING'")).map((r) => String(r.id)));
      // Every answered intention is there, holding its listings.
      for (const a of answered) {
        expect(pending.has(a.intentionId)).toBe(true);
        for (const id of a.items) expect(listed.get(id)).toMatchObject({ state: 'RESERVED', intention_id: a.intentionId });
      }
      // Every listing held is held by one live intention (a listing names one), and nothing was answered twice.
      for (const l of listed.values()) if (l.state === 'RESERVED') expect(pending.has(String(l.intention_id))).toBe(true);
      const items = answered.flatMap((a) => a.items);
      expect(new Set(items).size).toBe(items.length);
    } finally {
      await closeDb(db);
    }
  }, 60_000);
});
