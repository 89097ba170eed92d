/**
 * The waiting list's offer latency: a listing published while fans wait → the offer made and its
 * e-mail queued, with BENCH_WL_ENTRIES (10,000) fans in line.
 *
 * The real service runs in its own process on a fresh SQLite file (startServer); the event, the
 * show's list (PUT /v1/waitinglist/settings) and the fans (POST /v1/waitinglist/entries, 16 at a
 * time) go through its API: quantities 1 to 4 (most of them 1 or 2), 30 % of those of two or more
 * asking for seats together, the rest any seats. Then BENCH_WL_LISTINGS (200) seated listings of
 * 1 or 2 tickets are published one after the other through ListingsService.create on the same
 * database file from this process (listings are made in the hosted sell flow; there is no
 * listing API), as accesslayer-buy seeds them. The offer is made in the publishing transaction
 * (flows/waiting-list-offers.ts), so the latency of one is the publish call from its start to its
 * commit, the offer's intention, reservation, e-mail and webhook included, while the service
 * process runs its jobs beside it. In the same run, the same publishes on a second show without a
 * waiting list: the baseline the list's cost is the difference from.
 *
 * Ends with one line `waitinglist: entries=… listings=… offered=… offer_p50_ms=… offer_p99_ms=…
 * publish_p99_ms_without=…`. SQLite only (the bench process opens the service's file; a
 * PostgreSQL run would need this process started for that engine).
 */
import pino from 'pino';
import { join } from 'node:path';
import { buildDeps, createDb, inOrder, systemClock } from '@resale/server/bench';
import { api, fmt, KEYS, startServer } from './lib.js';

const ENTRIES = Number(process.env.BENCH_WL_ENTRIES ?? 10_000);
const LISTINGS = Number(process.env.BENCH_WL_LISTINGS ?? 200);
const JOINERS = 16;

/** mulberry32, seeded so runs compare. */
function random(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const option = { title: 'Field', description: 'f', currency: 'EUR', price: 40 };
const show = (showId: string) => ({ showId, title: 'Night', date: '2027-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: [{ ticketId: 'opt', ...option }] });

export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', {
      externalReferenceId: 'wl',
      title: 'Waiting list',
      description: 'benchmark',
      location: { city: 'Madrid', timeZone: 'Europe/Madrid' },
      configuration: {},
      seating: { image: 'https://partner.example/chart.png' },
      shows: [show('s1'), show('s2')],
    });
    await api(server.base, 'PUT', '/v1/waitinglist/settings', { externalReferenceEventId: 'wl', showId: 's1', enabled: true, priceCap: 'RULES' });

    // The fans, 16 joins at a time.
    const rand = random(7);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: JOINERS }, async () => {
        while (next < ENTRIES) {
          const i = next++;
          const r = rand(10);
          const quantity = r < 5 ? 1 : r < 8 ? 2 : r < 9 ? 3 : 4;
          await api(server.base, 'POST', '/v1/waitinglist/entries', { externalReferenceEventId: 'wl', showId: 's1', quantity, together: quantity > 1 && rand(10) < 3, user: `fan${i}@example.com` });
        }
      }),
    );
    const joinS = (performance.now() - started) / 1000;

    // Seated tickets of the sellers: listings of 1 or 2 tickets, in rows of 20 seats, on both shows.
    const sizes = Array.from({ length: LISTINGS }, () => 1 + rand(2));
    const ticketsOf = (showId: string) =>
      sizes.flatMap((size, l) =>
        Array.from({ length: size }, (_, k) => {
          const seat = sizes.slice(0, l).reduce((n, s) => n + s, 0) + k;
          return { externalReferenceEventId: 'wl', showId, buyer: `seller${l}@example.com`, ticketId: `${showId}-${l}-${k}`, orderId: `${showId}-o${l}`, ticketAccess: { type: 'OTHER', locator: `${showId}-${l}-${k}` }, ticketOptionId: 'opt', price: 40, props: { seating: { section: 'A', row: String(1 + Math.floor(seat / 20)), seat: String(1 + (seat % 20)) } } };
        }),
      );
    for (const showId of ['s1', 's2']) {
      const all = ticketsOf(showId);
      for (let i = 0; i < all.length; i += 500) await api(server.base, 'POST', '/v1/sync/tickets', all.slice(i, i + 500));
    }

    const db = createDb(join(server.dir, 'bench.sqlite'));
    const deps = buildDeps({ db, clock: systemClock, logger: pino({ level: 'silent' }), secretKey: 'bench-secret-key-0000000000000000000000', config: { env: 'production', publicBaseUrl: server.base, operatorToken: null, maxBodyBytes: 1e6, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'x' } });
    const partner = (await deps.partners.authenticate(KEYS.private))!.partner;
    /** Publishes every listing of a show one after the other; the time of each publish call, and how many were offered. */
    const publishAll = async (showId: string) => {
      const times: number[] = [];
      let offered = 0;
      await inOrder(sizes, async (size, l) => {
        const tickets = await inOrder(Array.from({ length: size }, (_, k) => `${showId}-${l}-${k}`), async (id) => await deps.tickets.get(db, partner.id, id));
        const t0 = performance.now();
        const listing = await db.transact(async (tx) => await deps.listings.create(tx, partner.id, { sellerPk: tickets[0]!.ownerPk, ticketPks: tickets.map((t) => t.id), priceMinor: 4000 }));
        times.push(performance.now() - t0);
        if (listing.state === 'RESERVED') offered++;
      });
      return { times: times.sort((a, b) => a - b), offered };
    };
    const withList = await publishAll('s1');
    const without = await publishAll('s2');
    db.$client.close();

    const result = {
      entries: ENTRIES,
      listings: LISTINGS,
      offered: withList.offered,
      offerP50Ms: percentile(withList.times, 0.5),
      offerP99Ms: percentile(withList.times, 0.99),
      publishP50MsWithout: percentile(without.times, 0.5),
      publishP99MsWithout: percentile(without.times, 0.99),
    };
    console.log(`waitinglist: ${fmt(ENTRIES)} fans in line (joined through the API in ${joinS.toFixed(1)} s, ${fmt(ENTRIES / joinS)}/s), ${LISTINGS} seated listings of 1-2 tickets published one after the other`);
    console.log(`  with the list: ${withList.offered} offered of ${LISTINGS}; publish → offer committed (e-mail queued) p50 ${result.offerP50Ms.toFixed(1)} ms, p99 ${result.offerP99Ms.toFixed(1)} ms`);
    console.log(`  without a list (same listings on another show): publish p50 ${result.publishP50MsWithout.toFixed(1)} ms, p99 ${result.publishP99MsWithout.toFixed(1)} ms`);
    console.log(`waitinglist: entries=${ENTRIES} listings=${LISTINGS} offered=${withList.offered} offer_p50_ms=${result.offerP50Ms.toFixed(1)} offer_p99_ms=${result.offerP99Ms.toFixed(1)} publish_p99_ms_without=${result.publishP99MsWithout.toFixed(1)}`);
    if (withList.offered === 0) throw new Error('no listing was offered: is the waiting list wired?');
    return result;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
