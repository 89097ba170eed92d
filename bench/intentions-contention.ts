/**
 * Contention: 500 concurrent buy intentions over 100 overlapping listings, against the real
 * server in its own process. Prints how many succeeded, how many listings were reserved
 * twice (must be 0), and the p99 latency.
 */
import pino from 'pino';
import { join } from 'node:path';
import { buildDeps, createDb, inOrder, systemClock } from '@resale/server/bench';
import { api, fmt, KEYS, startServer } from './lib.js';

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
    const latencies: number[] = [];
    const started = performance.now();
    const answers = await Promise.all(
      picks.map(async (items, i) => {
        const t0 = performance.now();
        const res = await fetch(`${server.base}/v1/marketplace/buyingflow/buyIntention`, {
          method: 'POST',
          headers: { authorization: KEYS.private, 'content-type': 'application/json' },
          body: JSON.stringify({ items, user: `buyer${i}@example.com` }),
        });
        const body = (await res.json()) as { data: { items: { listingId: string }[] } | null; errors: { message: string }[] | null };
        latencies.push(performance.now() - t0);
        return { status: res.status, items: body.data?.items.map((x) => x.listingId) ?? [], reason: body.errors?.[0]?.message ?? '' };
      }),
    );
    const totalS = (performance.now() - started) / 1000;
    const ok = answers.filter((a) => a.status === 200);
    const conflicts = answers.filter((a) => a.status === 409).length;
    const other = answers.length - ok.length - conflicts;
    const held = ok.flatMap((a) => a.items);
    const reasons = new Map<string, number>();
    for (const a of answers) if (a.status !== 200) reasons.set(a.reason, (reasons.get(a.reason) ?? 0) + 1);
    const doubles = held.length - new Set(held).size;
    latencies.sort((a, b) => a - b);
    const p99 = latencies[Math.floor(latencies.length * 0.99) - 1]!;
    console.log(`intentions-contention: ${REQUESTS} concurrent buy intentions over ${LISTINGS} overlapping listings`);
    console.log(`  succeeded ${ok.length}, refused (409) ${conflicts}, other ${other}, in ${totalS.toFixed(2)} s`);
    console.log(`  listings reserved twice: ${doubles} (must be 0); listings held: ${new Set(held).size}`);
    for (const [reason, n] of reasons) console.log(`  refused ${n}×: ${reason}`);
    console.log(`  latency p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    if (doubles !== 0 || other !== 0) throw new Error('contention benchmark found a double reservation or an unexpected answer');
    return { succeeded: ok.length, doubles, p99 };
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
