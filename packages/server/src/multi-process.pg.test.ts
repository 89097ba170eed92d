import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { postgresDb, closeDb, type Db } from './db/client.js';
import { buildDeps } from './deps.js';
import { systemClock } from './lib/clock.js';
import { inOrder } from './lib/in-order.js';
import { freePort } from './testing/free-port.js';
import { closeServers } from './testing/servers.js';
import { freshPostgresUrl } from './testing/postgres.js';
import { roundRobinProxy, type RoundRobinProxy } from './testing/round-robin-proxy.js';
import { spawnService, type ServiceProcess } from './testing/service-process.js';
import { channelListingBody } from './testing/factories.js';

/**
 * Three service processes (`src/main.ts`, as `npm run serve` runs it) on one PostgreSQL
 * database behind a round-robin proxy: the deployment issue 17 describes. Each test sends its
 * requests as a partner would, through the proxy, so consecutive requests land on different
 * processes; where a test needs a particular process it calls that process's port.
 */

const KEYS = { private: 'sk_test_multi_process_000001', public: 'pk_test_multi_process_000001', channels: 'sk_ch_multi_process_0001' };
const SECRET_KEY = 'multi-process-secret-key-0000000000000';
const N = 3;

let url: string;
let proxy: RoundRobinProxy;
let services: ServiceProcess[] = [];
let direct: string[] = [];
/** The partner's webhook endpoint: the `webhook-id` of every delivery it received. */
const received: string[] = [];
let receiver: Server;

function envFor(port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: proxy.url,
    SECRET_KEY,
    OPERATOR_TOKEN: 'multi-process-operator-token-000000',
    TRUST_PROXY: 'loopback',
    SHUTDOWN_GRACE_SECONDS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    PAGE_RATE_LIMIT_PER_MINUTE: '100000',
    SANDBOX_PRIVATE_KEY: KEYS.private,
    SANDBOX_PUBLIC_KEY: KEYS.public,
    SANDBOX_CHANNELS_KEY: KEYS.channels,
    SANDBOX_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
  };
}

async function call(base: string, method: string, path: string, body?: unknown, key = KEYS.private): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  // The proxy's own 502 is plain text (what failed): kept as the body, so an assertion shows it.
  const json = res.headers.get('content-type')?.includes('json') ?? false;
  return { status: res.status, body: text ? (json ? JSON.parse(text) : text) : null, headers: res.headers };
}

async function sql<T = Record<string, any>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

const EVENT = {
  externalReferenceId: 'mp',
  title: 'Several processes',
  description: 'issue 17',
  location: { city: 'Madrid' },
  configuration: {},
  shows: [
    { showId: 's1', title: 'Night', date: '2027-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] },
    { showId: 's2', title: 'Matinee', date: '2027-05-02T17:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt-field', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] },
  ],
};

beforeAll(async () => {
  // An empty database: the three processes migrate it at once, under the advisory lock.
  url = await freshPostgresUrl({ migrate: false });
  receiver = createServer((req, res) => {
    received.push(String(req.headers['webhook-id']));
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const ports = await Promise.all(Array.from({ length: N }, () => freePort()));
  direct = ports.map((p) => `http://127.0.0.1:${p}`);
  proxy = await roundRobinProxy(direct);
  services = ports.map((port) => spawnService(envFor(port)));
  await Promise.all(services.map((s) => s.log('resale listening')));
}, 120_000);

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop('SIGKILL')));
  await proxy?.close();
  await closeServers([receiver]);
});

describe('three processes on one PostgreSQL database behind a load balancer', () => {
  it('applied the migrations once, though the three started at once, and every process answers', async () => {
    const migrations = readdirSync(fileURLToPath(new URL('../drizzle-pg', import.meta.url))).filter((f) => f.endsWith('.sql'));
    expect((await sql<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations'))[0]!.n).toBe(migrations.length);
    const before = [...proxy.counts];
    for (let i = 0; i < N; i++) expect((await call(proxy.url, 'POST', '/v1/events', { ...EVENT, externalReferenceId: i === 0 ? 'mp' : `mp-${i}` })).status).toBe(200);
    expect(proxy.counts.map((c, i) => c - before[i]!)).toEqual([1, 1, 1]);
    // The sandbox partner was made once, by whichever process came first.
    expect((await sql<{ n: number }>('select count(*)::int as n from partners'))[0]!.n).toBe(1);
  });

  it('holds 60 ticket syncs a minute for the deployment, not per process, however long the 60 took', async () => {
    const body = (i: number) => [{ externalReferenceEventId: 'mp', showId: 's1', buyer: `sync${i}@example.com`, ticketId: `sync-${i}`, ticketAccess: { type: 'OTHER', locator: `S${i}` }, ticketOptionId: 'opt', price: 40 }];
    const before = [...proxy.counts];
    const started = Date.now();
    const first = await Promise.all(Array.from({ length: 45 }, (_, i) => call(proxy.url, 'POST', '/v1/sync/tickets', body(i))));
    // The rest more than a second later (the processes read the database's clock, so real time
    // passes here): a token bucket refilled during that second and let the 61st through.
    await new Promise((r) => setTimeout(r, Math.max(0, started + 1_200 - Date.now())));
    const second = await Promise.all(Array.from({ length: 45 }, (_, i) => call(proxy.url, 'POST', '/v1/sync/tickets', body(45 + i))));
    const answers = [...first, ...second];
    // Each process took about 30: a limit per process would have let all 90 through.
    expect(proxy.counts.map((c, i) => c - before[i]!).every((n) => n >= 25)).toBe(true);
    expect(first.filter((a) => a.status === 200)).toHaveLength(45);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(30);
    // Until the first of the 60 leaves the minute.
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(58);
  });

  it('never reserves a listing twice: 500 concurrent buy intentions over 100 overlapping listings, spread over the processes', async () => {
    // 100 tickets, each listed once (listings are made in the hosted sell flow; here through a
    // fourth handle on the database, as the contention benchmark does).
    const tickets = Array.from({ length: 100 }, (_, i) => ({ externalReferenceEventId: 'mp', showId: 's1', buyer: `seller${i}@example.com`, ticketId: `c-${i}`, ticketAccess: { type: 'OTHER', locator: `C${i}` }, ticketOptionId: 'opt', price: 40 }));
    const stored = await call(direct[0]!, 'POST', '/v1/tickets', tickets);
    expect(stored.status).toBe(202);
    await waitFor(async () => (await sql<{ n: number }>("select count(*)::int as n from ticket_jobs where state <> 'done'"))[0]!.n === 0);
    const db: Db = await postgresDb(url, { migrate: false, migrationsFolder: '', poolSize: 4 });
    let listingIds: string[];
    try {
      const deps = buildDeps({ db, clock: systemClock, logger: pino({ level: 'silent' }), secretKey: SECRET_KEY, config: { env: 'production', publicBaseUrl: proxy.url, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'x' } });
      const partner = (await deps.partners.authenticate(KEYS.private))!.partner;
      listingIds = await inOrder(tickets, async (t) => {
        const ticket = await deps.tickets.get(db, partner.id, t.ticketId);
        return (await db.transact(async (tx) => await deps.listings.create(tx, partner.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }))).id;
      });
    } finally {
      await closeDb(db);
    }

    let seed = 17;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const picks = Array.from({ length: 500 }, () => [...new Set(Array.from({ length: 1 + rand(3) }, () => listingIds[rand(100)]!))]);
    const before = [...proxy.counts];
    const answers = await Promise.all(picks.map((items, i) => call(proxy.url, 'POST', '/v1/marketplace/buyingflow/buyIntention', { items, user: `buyer${i}@example.com` })));
    expect(proxy.counts.map((c, i) => c - before[i]!).every((n) => n >= 150)).toBe(true);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    const held = answers.filter((a) => a.status === 200).flatMap((a) => (a.body.data.items as { listingId: string }[]).map((x) => x.listingId));
    expect(held.length).toBeGreaterThan(0);
    expect(held.length - new Set(held).size).toBe(0);
    // The database agrees: each listing reserved by one intention at most, and those are the ones answered.
    const reserved = await sql<{ id: string }>("select id from listings where state = 'RESERVED'");
    expect(reserved.map((r) => r.id).sort()).toEqual([...new Set(held)].sort());
  }, 120_000);

  it('shows a listing published through one process in the buy access layer of another as soon as the commit’s notification arrives', async () => {
    const [a, b] = direct as [string, string];
    const count = async () => {
      const res = await call(b, 'GET', '/v1/wrapper/accesslayer?type=buy&eventId=mp&showId=s2', undefined, KEYS.public);
      expect(res.status).toBe(200);
      return JSON.stringify(res.body.data);
    };
    for (let i = 0; i < 5; i++) {
      // Process b has the show's answer cached; a listing is published through process a.
      const before = await count();
      expect(await count()).toBe(before);
      const published = await call(a, 'POST', '/v1/channels/listings', channelListingBody({ externalReferenceEventId: 'mp', showId: 's2', externalListingId: `mp-${i}`, seats: [{ section: 'A', row: String(i + 1), seat: '1' }, { section: 'A', row: String(i + 1), seat: '2' }] }), KEYS.channels);
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      // Process b learns of the commit from its notification (LISTEN), which travels apart from
      // a's answer: usually before the next request, but on a loaded machine it can trail it by
      // a little. Within a second, whatever the load; never a stale answer kept after it.
      await expect.poll(count, { timeout: 1_000, interval: 5 }).not.toBe(before);
    }
  });

  it('offers the listings published through every process to the fans in line order, each to one fan', async () => {
    const show = { showId: 'w1', title: 'Line', date: '2027-06-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] };
    expect((await call(proxy.url, 'POST', '/v1/events', { ...EVENT, externalReferenceId: 'mpwl', shows: [show] })).status).toBe(200);
    const ref = { externalReferenceEventId: 'mpwl', showId: 'w1' };
    expect((await call(proxy.url, 'PUT', '/v1/waitinglist/settings', { ...ref, enabled: true, priceCap: 'RULES' })).status).toBe(200);
    // 60 fans join at once through the three processes, each for two tickets (any seats).
    const FANS = 60;
    const joins = await Promise.all(Array.from({ length: FANS }, (_, i) => call(proxy.url, 'POST', '/v1/waitinglist/entries', { ...ref, quantity: 2, together: false, user: `line${i}@example.com` })));
    expect(joins.map((j) => j.status)).toEqual(Array.from({ length: FANS }, () => 201));
    // 40 listings of two tickets published at once by a channel through the three processes
    // (more than their pools' 30 connections): the publishes of one show take its line's lock in
    // turn, and one that finds it busy gives way (its connection back in the pool) and runs again,
    // so none outwaits the pool's 3 s for a connection.
    const LISTINGS = 40;
    const before = [...proxy.counts];
    const published = await Promise.all(
      Array.from({ length: LISTINGS }, (_, i) =>
        call(proxy.url, 'POST', '/v1/channels/listings', channelListingBody({ ...ref, ticketOptionId: 'opt', externalListingId: `wl-${i}`, seats: [{ section: 'B', row: String(i + 1), seat: '1' }, { section: 'B', row: String(i + 1), seat: '2' }] }), KEYS.channels),
      ),
    );
    expect(published.filter((p) => p.status !== 200).map((p) => JSON.stringify(p.body))).toEqual([]);
    expect(proxy.counts.map((c, i) => c - before[i]!).every((n) => n >= 10)).toBe(true);
    // Every listing is held by exactly one live offer, every offer for a different fan, and the
    // fans offered are the first 40 of the line (all ask the same: the line's order decides).
    const offers = await sql<{ entry_id: string; listing_ids: string }>("select o.entry_id, o.listing_ids::text as listing_ids from waitinglist_offers o join shows s on s.id = o.show_pk where s.show_id = 'w1' and o.state = 'LIVE'");
    const offered = offers.flatMap((o) => JSON.parse(o.listing_ids) as string[]);
    expect(offered).toHaveLength(LISTINGS);
    expect(new Set(offered).size).toBe(LISTINGS);
    expect(new Set(offers.map((o) => o.entry_id)).size).toBe(LISTINGS);
    const reserved = await sql<{ id: string; intention_id: string }>("select l.id, l.intention_id from listings l join shows s on s.id = l.show_pk where s.show_id = 'w1' and l.state = 'RESERVED'");
    expect(reserved.map((r) => r.id).sort()).toEqual([...offered].sort());
    const line = await sql<{ id: string; state: string }>("select e.id, e.state from waitinglist_entries e join shows s on s.id = e.show_pk where s.show_id = 'w1' order by e.seq");
    expect(line.slice(0, LISTINGS).every((e) => e.state === 'OFFERED')).toBe(true);
    expect(line.slice(LISTINGS).every((e) => e.state === 'WAITING')).toBe(true);
    // No process logged a deadlock or an unhandled error meanwhile.
    for (const svc of services) expect(svc.lines.filter((l) => l.level >= 50 || /deadlock/i.test(JSON.stringify(l))).map((l) => String(l.msg))).toEqual([]);
    for (const svc of services) expect(svc.stderr()).not.toMatch(/deadlock/i);
  }, 120_000);

  it('delivers each webhook message once, whichever processes send', async () => {
    // What the tests above made (listings published, reservations) went to the partner's endpoint
    // (before any process is killed: a process killed while sending may send that message again).
    await waitFor(async () => (await sql<{ n: number }>("select count(*)::int as n from webhook_messages where state = 'pending'"))[0]!.n === 0);
    const messages = await sql<{ id: string }>("select id from webhook_messages where state = 'delivered'");
    expect(messages.length).toBeGreaterThan(0);
    expect(received.length).toBe(messages.length);
    expect(new Set(received).size).toBe(received.length);
  }, 90_000);

  it('stores every ticket exactly once when a process is killed (kill -9) during ingestion', async () => {
    const JOBS = 30;
    const PER_JOB = 500;
    const jobIds: string[] = [];
    for (let j = 0; j < JOBS; j++) {
      const body = Array.from({ length: PER_JOB }, (_, i) => ({ externalReferenceEventId: 'mp', showId: 's1', buyer: `fan${j}-${i}@example.com`, ticketId: `k-${j}-${i}`, ticketAccess: { type: 'OTHER', locator: `K${j}.${i}` }, ticketOptionId: 'opt', price: 40 }));
      // The same ticket again in a later job: applied in queue order, it ends with the last owner.
      if (j > 0) body.push({ externalReferenceEventId: 'mp', showId: 's1', buyer: `last-owner-${j}@example.com`, ticketId: 'k-shared', ticketAccess: { type: 'OTHER', locator: 'KS' }, ticketOptionId: 'opt', price: 40 });
      else body.push({ externalReferenceEventId: 'mp', showId: 's1', buyer: 'first-owner@example.com', ticketId: 'k-shared', ticketAccess: { type: 'OTHER', locator: 'KS' }, ticketOptionId: 'opt', price: 40 });
      const res = await call(proxy.url, 'POST', '/v1/tickets', body);
      expect(res.status).toBe(202);
      jobIds.push(res.body.data.jobId as string);
    }
    // Some jobs applied, not all: the third process dies mid-work.
    await waitFor(async () => (await sql<{ n: number }>("select count(*)::int as n from ticket_jobs where state = 'done' and id = any($1)", [jobIds]))[0]!.n >= 2);
    const victim = services[2]!;
    proxy.setUp(2, false);
    expect(await victim.stop('SIGKILL')).toBeNull();
    // Killed with work left (else this test would prove nothing).
    const left = (await sql<{ n: number }>("select count(*)::int as n from ticket_jobs where state <> 'done' and id = any($1)", [jobIds]))[0]!.n;
    expect(left).toBeGreaterThan(0);

    // The two left apply the rest, each job once.
    await waitFor(async () => (await sql<{ n: number }>("select count(*)::int as n from ticket_jobs where state <> 'done' and id = any($1)", [jobIds]))[0]!.n === 0, 90_000);
    const jobs = await sql<{ created: number; updated: number; rejected: number }>('select created, updated, rejected from ticket_jobs where id = any($1) order by created_at, id', [jobIds]);
    expect(jobs).toHaveLength(JOBS);
    expect(jobs.reduce((s, j) => s + j.created, 0)).toBe(JOBS * PER_JOB + 1);
    expect(jobs.reduce((s, j) => s + j.updated, 0)).toBe(JOBS - 1);
    expect(jobs.every((j) => j.rejected === 0)).toBe(true);
    const stored = await sql<{ n: number; d: number }>("select count(*)::int as n, count(distinct ticket_id)::int as d from tickets where ticket_id like 'k-%'");
    expect(stored[0]).toEqual({ n: JOBS * PER_JOB + 1, d: JOBS * PER_JOB + 1 });
    const shared = await call(proxy.url, 'GET', '/v1/tickets/k-shared');
    expect(shared.body.data.owner.email).toBe(`last-owner-${JOBS - 1}@example.com`);
  }, 150_000);
});

/** Polls `check` every 50 ms until it holds (real processes: their time cannot be moved). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
