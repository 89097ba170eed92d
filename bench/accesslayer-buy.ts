/**
 * The buy access layer under load: GET /v1/wrapper/accesslayer?type=buy with the public key,
 * for an event with 20 ticket options (5 areas) and 10,000 ACTIVE listings, against the real
 * server in its own process; then, in the same run, a bare Hono handler in its own process,
 * and the ratio of the two.
 * Target (issue 6): >= 8,000 requests/s, p99 < 20 ms, and >= 1/4 of the bare handler's rate.
 *
 * Setup: the event through POST /v1/events; 10,000 tickets through POST /v1/tickets (jobs
 * awaited); the listings through ListingsService.create in this process, on a second
 * connection to the server's database file (there is no listing API: listings are created in
 * the hosted sell flow). The server learns nothing about them but what its database says,
 * which is the point: its cache must see other connections' commits.
 *
 * Env: BENCH_LISTINGS (10000), BENCH_SECONDS (10), BENCH_CONNECTIONS (32),
 * BENCH_CPU_PROF=<dir> (CPU profiles of the server's threads, see startServer in bench/lib.ts).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { api, fmt, KEYS, ROOT, startServer } from './lib.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const OPTIONS = 20;
const BATCH = 1_000;
const OPERATOR_TOKEN = 'bench-operator-token-000000000000000';

const option = (i: number) => ({
  ticketId: `opt-${i}`,
  title: `Category ${i}`,
  description: 'bench',
  currency: 'EUR',
  price: 40 + i,
  area: `Zone ${i % 5}`,
});

function ticket(i: number) {
  return {
    externalReferenceEventId: 'bench-tour',
    showId: 'show-1',
    buyer: `fan${i % 2_000}@example.com`,
    ticketId: `bench-${i}`,
    ticketAccess: { type: 'URL', locator: `https://partner.example/qr/${i}` },
    ticketOptionId: `opt-${i % OPTIONS}`,
    price: 45.5,
    section: `S${i % 20}`,
    row: String(i % 30),
    seat: String(i % 50),
  };
}

/** Every component on: the heaviest answer (banner, modal, button, 20 categories, the map). */
const SETTINGS = {
  // The listings' webhooks are stored as skipped instead of retried during the measurement.
  webhookEvents: ['ticketShield.updated'],
  buyAccessLayer: {
    buyBanner: {
      visible: true,
      title: { en: 'Sold out? Not quite.', es: '¿Agotado? No del todo.' },
      description: { en: 'Official resale from fans.', es: 'Reventa oficial entre fans.' },
      ctaText: { en: 'See resale', es: 'Ver reventa' },
      image: 'https://partner.example/img/banner.jpg',
      colors: { background: '#112233', text: '#fafafa' },
    },
    buyModal: {
      visible: true,
      title: { en: 'Tickets from fans', es: 'Entradas de fans' },
      description: { en: 'Safe and official.', es: 'Seguro y oficial.' },
      ctaText: { en: 'Open', es: 'Abrir' },
      image: 'https://partner.example/img/modal.jpg',
    },
    buyButton: { visible: true, ctaText: { en: 'Resale', es: 'Reventa' }, colors: { background: '#000000', text: '#ffffff' } },
    categoriesList: { visible: true, ctaText: { en: 'Buy', es: 'Comprar' } },
    integratedMap: { allowOrphanTicketSelection: false },
  },
};

async function setup(base: string, dbPath: string): Promise<void> {
  await api(base, 'POST', '/v1/events', {
    externalReferenceId: 'bench-tour',
    title: 'Bench tour',
    description: 'benchmark',
    location: { city: 'Madrid' },
    configuration: {},
    seating: { svgCode: '<svg viewBox="0 0 100 100"></svg>' },
    shows: [{ showId: 'show-1', title: 'Night', date: '2030-05-01T21:00:00+02:00', images: [], configuration: {}, ticketOptions: Array.from({ length: OPTIONS }, (_, i) => option(i)) }],
  });
  const partners = (await (await fetch(`${base}/admin/v1/partners`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json()) as { data: { id: string; name: string }[] };
  const sandbox = partners.data.find((p) => p.name === 'sandbox')!;
  const patched = await fetch(`${base}/admin/v1/partners/${sandbox.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ settings: SETTINGS }),
  });
  if (!patched.ok) throw new Error(`settings: ${patched.status} ${await patched.text()}`);

  const jobIds: string[] = [];
  for (let b = 0; b < LISTINGS / BATCH; b++) {
    const job = await api(base, 'POST', '/v1/tickets', Array.from({ length: BATCH }, (_, i) => ticket(b * BATCH + i)));
    jobIds.push(job.jobId);
  }
  for (const id of jobIds) {
    for (;;) {
      const job = await api(base, 'GET', `/v1/tickets/jobs/${id}`);
      if (job.state === 'done') {
        if (job.rejected) throw new Error(`job ${id} rejected ${job.rejected}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  // The listings, through the service, on a second connection to the same file.
  const { createDb } = await import('../packages/server/src/db/client.js');
  const { buildDeps } = await import('../packages/server/src/deps.js');
  const { systemClock } = await import('../packages/server/src/lib/clock.js');
  const db = createDb(dbPath);
  const deps = buildDeps({
    db,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secretKey: 'bench-secret-key-0000000000000000000000',
    config: { env: 'production', publicBaseUrl: 'http://127.0.0.1', operatorToken: null, maxBodyBytes: 1e8, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'a <a@b.c>' },
  });
  const partnerId = (await deps.partners.authenticate(KEYS.private))!.partner.id;
  // Short transactions with a pause between them, so the server's jobs get the write lock too.
  const PER_TX = 200;
  for (let b = 0; b < LISTINGS / PER_TX; b++) {
    await db.transact(async (tx) => {
      for (let i = b * PER_TX; i < (b + 1) * PER_TX; i++) {
        const t = await deps.tickets.get(tx, partnerId, `bench-${i}`);
        await deps.listings.create(tx, partnerId, { sellerPk: t.ownerPk, ticketPks: [t.id], priceMinor: 3_000 + ((i * 7_919) % 9_000) });
      }
    });
    await new Promise((r) => setTimeout(r, 100));
  }
  db.$client.close();
}

/** A bare Hono handler on @hono/node-server, in its own process (started with --bare <port>). */
async function startBare(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = 30_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--bare', String(port)], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

async function load(url: string, headers: Record<string, string>, seconds: number) {
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.total / seconds, p50: r.latency.p50, p99: r.latency.p99 };
}

export async function run(): Promise<Record<string, number>> {
  const server = await startServer({ OPERATOR_TOKEN });
  let bare: Awaited<ReturnType<typeof startBare>> | null = null;
  try {
    const t0 = performance.now();
    await setup(server.base, join(server.dir, 'bench.sqlite'));
    const setupS = (performance.now() - t0) / 1000;

    const url = `${server.base}/v1/wrapper/accesslayer?type=buy&eventId=bench-tour&showId=show-1&lang=en`;
    const headers = { authorization: KEYS.public };
    // A fresh connection: the setup's keep-alive sockets may have been closed by the server meanwhile.
    const first = await fetch(url, { headers, keepalive: false }).catch(() => fetch(url, { headers }));
    if (first.status === 404) throw new Error(`GET ${url} answered 404: is buyAccessLayerRoutes(deps) mounted in app.ts?`);
    const check = (await first.json()) as { data: { class: string; integratedMap?: { map: { totalCount: number } }; categoriesList?: { categories: unknown[] } }[] };
    const map = check.data.find((c) => c.class === 'integratedMap')?.integratedMap?.map;
    const cats = check.data.find((c) => c.class === 'categoriesList')?.categoriesList?.categories;
    if (map?.totalCount !== LISTINGS || cats?.length !== OPTIONS) throw new Error(`unexpected answer: ${JSON.stringify(check).slice(0, 500)}`);
    const bytes = JSON.stringify(check).length;

    bare = await startBare();
    // Warm-up (JIT, connections), then the measured runs back to back.
    await load(url, headers, 2);
    await load(bare.url, {}, 2);
    const loadBefore = loadavg()[0]!;
    const buy = await load(url, headers, SECONDS);
    const plain = await load(bare.url, {}, SECONDS);
    const loadAfter = loadavg()[0]!;
    const ratio = buy.rps / plain.rps;

    console.log(`accesslayer-buy: ${OPTIONS} ticket options, ${fmt(LISTINGS)} active listings, every component on (${fmt(bytes)}-byte answer); setup ${setupS.toFixed(1)} s`);
    console.log(`  autocannon: ${CONNECTIONS} connections, ${SECONDS} s per run, load generator and server on the same ${cpus().length}-core machine (1-min load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after: other work on the machine skews both runs)`);
    console.log(`  GET /v1/wrapper/accesslayer?type=buy  ${fmt(buy.rps)} req/s   p50 ${buy.p50} ms   p99 ${buy.p99} ms   (target >= 8,000 req/s, p99 < 20 ms)`);
    console.log(`  bare Hono handler                     ${fmt(plain.rps)} req/s   p50 ${plain.p50} ms   p99 ${plain.p99} ms`);
    console.log(`  ratio buy / bare                      ${ratio.toFixed(3)}   (target >= 0.25)`);
    return { requestsPerSecond: buy.rps, p99Ms: buy.p99, bareRequestsPerSecond: plain.rps, ratio };
  } finally {
    await bare?.stop();
    await server.stop();
  }
}

if (process.argv[2] === '--bare') {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  app.get('/', (c) => c.json({ status: 200, data: [], errors: null }));
  const server = serve({ fetch: app.fetch, port: Number(process.argv[3]), hostname: '127.0.0.1' });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
