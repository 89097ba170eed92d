/**
 * Contention: 500 concurrent buy intentions over 100 overlapping listings, against the real
 * server in its own process. Prints how many succeeded, how many listings were reserved
 * twice (must be 0), and the p99 latency.
 *
 * Then, in the same run, the floor under that p99: the same burst (the same bodies, the same
 * fetch client, all at once on new connections) against a bare Hono handler in its own process
 * that parses each body and answers the service's own refusal (its bytes and headers), with no
 * key, no validation, no database. No service can answer the burst sooner than that on this
 * machine: what separates the two is the service's work.
 */
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Agent, fetch } from 'undici';
import { join } from 'node:path';
import { buildDeps, createDb, inOrder, systemClock } from '@resale/server/bench';
import { api, fmt, KEYS, startServer, startUrlChild, type UrlChild } from './lib.js';

const SELF = fileURLToPath(import.meta.url);
const PATH = '/v1/marketplace/buyingflow/buyIntention';

interface Answer {
  status: number;
  items: string[];
  reason: string;
}

/**
 * The burst: every pick at once, each on its own request over a connection of its own (a pool
 * of the burst's: a kept-alive socket of the set-up, closed by the server as it is reused,
 * would fail a POST that is not retried); the answers in order, and each one's latency.
 */
async function burst(base: string, picks: string[][]): Promise<{ answers: Answer[]; latencies: number[]; seconds: number }> {
  const dispatcher = new Agent({ connections: picks.length });
  const latencies: number[] = [];
  const started = performance.now();
  const answers = await Promise.all(
    picks.map(async (items, i) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${PATH}`, {
        method: 'POST',
        headers: { authorization: KEYS.private, 'content-type': 'application/json' },
        body: JSON.stringify({ items, user: `buyer${i}@example.com` }),
        dispatcher,
      });
      const body = (await res.json()) as { data: { items: { listingId: string }[] } | null; errors: { message: string }[] | null };
      latencies.push(performance.now() - t0);
      return { status: res.status, items: body.data?.items.map((x) => x.listingId) ?? [], reason: body.errors?.[0]?.message ?? '' };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  return { answers, latencies, seconds };
}

const p99Of = (sorted: number[]) => sorted[Math.floor(sorted.length * 0.99) - 1]!;

/** The bare handler (`--bare-refusal`) in a process of its own. */
function startBare(body: string, headers: Record<string, string>): Promise<UrlChild> {
  return startUrlChild(SELF, ['--bare-refusal', body, JSON.stringify(headers)]);
}

// The two shapes: 500 attempts over 100 listings (the default), 5,000 over 1,000 (BENCH_CONTENTION_LISTINGS=1000 BENCH_CONTENTION_REQUESTS=5000).
const LISTINGS = Number(process.env.BENCH_CONTENTION_LISTINGS ?? 100);
const REQUESTS = Number(process.env.BENCH_CONTENTION_REQUESTS ?? 500);

export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', {
      externalReferenceId: 'contention',
      title: 'Contention',
      description: 'benchmark',
      location: { city: 'Madrid' },
      configuration: {},
      shows: [{ showId: 's1', title: 'Night', date: '2027-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', title: 'Field', description: 'f', currency: 'EUR', price: 40 }] }],
    });
    const tickets = Array.from({ length: LISTINGS }, (_, i) => ({ externalReferenceEventId: 'contention', showId: 's1', buyer: `seller${i}@example.com`, ticketId: `c-${i}`, ticketAccess: { type: 'OTHER', locator: `C${i}` }, ticketOptionId: 'opt', price: 40 }));
    // The synchronous endpoint takes 500 tickets a request.
    for (let i = 0; i < tickets.length; i += 500) await api(server.base, 'POST', '/v1/sync/tickets', tickets.slice(i, i + 500));

    // Listings are made in the hosted sell flow; here, through the same service on the same database file.
    const db = createDb(join(server.dir, 'bench.sqlite'));
    const deps = buildDeps({ db, clock: systemClock, logger: pino({ level: 'silent' }), secretKey: 'bench-secret-key-0000000000000000000000', config: { env: 'production', publicBaseUrl: server.base, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'x' } });
    const partner = (await deps.partners.authenticate(KEYS.private))!.partner;
    const listingIds = await inOrder(tickets, async (t) => {
      const ticket = await deps.tickets.get(db, partner.id, t.ticketId);
      return (await db.transact(async (tx) => await deps.listings.create(tx, partner.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }))).id;
    });
    db.$client.close();

    // Each request wants 1 to 3 listings; picks overlap heavily.
    // mulberry32: a small, well-distributed PRNG, seeded so runs compare.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) % n;
    };
    const picks = Array.from({ length: REQUESTS }, () => [...new Set(Array.from({ length: 1 + rand(3) }, () => listingIds[rand(LISTINGS)]!))]);
    const { answers, latencies, seconds: totalS } = await burst(server.base, picks);
    const ok = answers.filter((a) => a.status === 200);
    const conflicts = answers.filter((a) => a.status === 409).length;
    const other = answers.length - ok.length - conflicts;
    const held = ok.flatMap((a) => a.items);
    const reasons = new Map<string, number>();
    for (const a of answers) if (a.status !== 200) reasons.set(a.reason, (reasons.get(a.reason) ?? 0) + 1);
    const doubles = held.length - new Set(held).size;
    const p99 = p99Of(latencies);
    console.log(`intentions-contention: ${REQUESTS} concurrent buy intentions over ${LISTINGS} overlapping listings`);
    console.log(`  succeeded ${ok.length}, refused (409) ${conflicts}, other ${other}, in ${totalS.toFixed(2)} s`);
    console.log(`  listings reserved twice: ${doubles} (must be 0); listings held: ${new Set(held).size}`);
    for (const [reason, n] of reasons) console.log(`  refused ${n}×: ${reason}`);
    console.log(`  latency p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    if (doubles !== 0 || other !== 0) throw new Error('contention benchmark found a double reservation or an unexpected answer');

    // The floor: the same burst against a bare handler answering the service's own refusal.
    const refusal = await fetch(`${server.base}${PATH}`, { method: 'POST', headers: { authorization: KEYS.private, 'content-type': 'application/json' }, body: JSON.stringify({ items: [held[0]], user: 'late@example.com' }) });
    if (refusal.status !== 409) throw new Error(`a listing held in the burst answered ${refusal.status}, not 409`);
    const refusalHeaders: Record<string, string> = {};
    refusal.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) refusalHeaders[name] = value;
    });
    const bare = await startBare(await refusal.text(), refusalHeaders);
    try {
      const floor = await burst(bare.url, picks);
      const floorP99 = p99Of(floor.latencies);
      console.log(`  floor, a bare handler answering the same refusal to the same burst: p50 ${floor.latencies[Math.floor(floor.latencies.length / 2)]!.toFixed(1)} ms, p99 ${floorP99.toFixed(1)} ms, in ${floor.seconds.toFixed(2)} s; service p99 / floor p99 ${(p99 / floorP99).toFixed(2)}`);
      console.log(`contention: requests=${REQUESTS} listings=${LISTINGS} p99_ms=${p99.toFixed(0)} floor_p99_ms=${floorP99.toFixed(0)} over_floor=${(p99 / floorP99).toFixed(2)} reserved_twice=${doubles}`);
      return { succeeded: ok.length, doubles, p99, floorP99 };
    } finally {
      await bare.stop();
    }
  } finally {
    await server.stop();
  }
}

if (process.argv[2] === '--bare-refusal') {
  // The floor's handler: reads and parses the body as the service must, then answers the refusal it was given.
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const { freePort } = await import('@resale/server/testing');
  const body = process.argv[3]!;
  const headers = JSON.parse(process.argv[4]!) as Record<string, string>;
  const app = new Hono();
  app.post(PATH, async (c) => {
    await c.req.json();
    return c.body(body, 409, headers);
  });
  const port = await freePort();
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log(`http://127.0.0.1:${port}`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else if (import.meta.url === `file://${process.argv[1]}`) await run();
