/**
 * An on-sale: one show with 1,000 listings, 10,000 simulated fans (a share holding live stock
 * streams, the rest polling the buy access layer with `If-None-Match`), and buy attempts at a
 * rising rate until their p99 passes 500 ms. Per configuration (SQLite, one service process;
 * PostgreSQL, one and two service processes behind a round-robin proxy) it reports the attempts
 * per second and the streams held at the last rate whose p99 stayed within 500 ms, the access
 * layer's poll rate and p99, the time from a sale to the last stream hearing of it (p99), and
 * the access layer's 304 rate against a bare handler answering the same bytes; it ends with one
 * line per configuration:
 *
 *   onsale: engine=… processes=… reserve_per_s=… reserve_p99_ms=… streams=… stream_lag_p99_ms=… accesslayer_over_bare=…
 *
 * What "10,000 fans" means on the 2-core machine. Everything (the service, PostgreSQL, the proxy,
 * the load generators) shares two cores, so the fans are represented, not simulated one by one:
 * - S fans hold a stream each (`BENCH_ONSALE_STREAMS`, 2,000, the default
 *   `ACCESS_LAYER_MAX_STREAMS` of one process): S real connections,
 *   `GET /v1/wrapper/accesslayer/stream?type=buy&eventId&showId&publicKey=…` with
 *   `Accept: text/event-stream`, opened before the sale and held to its end, in a child process
 *   of their own (node:http, one socket each, a line parser that reads only what the measure
 *   needs). They do not reconnect: a stream lost is reported.
 * - The other 10,000 − S fans (`BENCH_ONSALE_FANS`) poll `GET /v1/wrapper/accesslayer` once every
 *   `BENCH_ONSALE_POLL_SECONDS` (10) each, sending the `ETag` they last got as `If-None-Match`
 *   and `Accept-Encoding: br` as browsers do: (10,000 − 2,000) / 10 s = 800 polls/s, made by P
 *   loops (`BENCH_ONSALE_POLLERS`, 64) in another child process, each polling every
 *   P × 10 s / 8,000 = 80 ms (so each loop stands for 125 fans; a loop waits for its answer
 *   before the next poll, so an overloaded service shows as an achieved rate below 800/s, printed
 *   beside the target). Measured per step: polls/s, p50/p99 (from each poll's sending), the share
 *   of 304s.
 * - The buyers are fans too: each attempt is `POST /v1/marketplace/buyingflow/buyIntention` for
 *   one random listing among those this benchmark does not know to be held (what a fan's page
 *   shows), with a buyer e-mail of its own, from this process.
 *
 * Buy attempts: steps of a rising rate (`BENCH_ONSALE_RATES`, 5, 10, 20, 30, 50, 70, 100, 150,
 * 200, 300, 400, 600, 800 attempts/s: about ×1.4 a step above 20,
 * `BENCH_ONSALE_STEP_SECONDS` (5) each), open loop: attempt k of a step is due at k / rate and is
 * sent then whether or not earlier ones answered (at most 512 sockets; beyond, requests queue in
 * this process), and its latency runs from when it was due to the end of its answer (so a
 * service falling behind is not hidden by a generator waiting for it). After a step's last
 * attempt is sent the step waits for its answers (at most 15 s; unanswered ones count as 15 s),
 * records successes (200), refusals (409: taken by a concurrent attempt), other answers, p50 and
 * p99 of all attempts, and the step whose p99 passes 500 ms ends the sale. Reported: the last
 * rate whose p99 stayed within 500 ms (attempts per second as sent) and the first that failed.
 *
 * Stock that runs out: 1,000 listings would be gone within the first steps (20 + 50 + 100 ...
 * a second), and a show sold out measures refusals only. So each hold ends as every checkout
 * ends, with a write: `BENCH_ONSALE_HOLD_MS` (500) after a success the buyer cancels it
 * (`DELETE …/buyIntention/:id`, standing for the payment or the expiry that ends a real hold;
 * the listing is back on sale at once). The writes are then two per sale (the reservation and
 * its end), as in a real on-sale; at 800/s about 400 listings are held at a time. A step starting
 * with fewer than 20 % of the listings free ends the sale (printed as such).
 *
 * Stream lag, measured exactly with probes: the show has a fifth ticket option (`opt-probe`)
 * with its own listings (`BENCH_ONSALE_PROBE_LISTINGS`, 200, beside the 1,000) that only the
 * probe buys: one reservation at a time, `BENCH_ONSALE_PROBES_PER_S` (4) a second, through the
 * same endpoint during every step, never released. Its `quantityForSale` in the stock therefore
 * only goes down, by one per probe: after the k-th probe succeeded it is 200 − k, and any stock
 * a stream receives with that option at ≤ 200 − k was computed after that sale's commit. The
 * streams' child records, for each value, when each stream first received a stock at or under
 * it (the last of them, and their mean). A probe's lag is the last stream's receive time minus
 * the probe's answer time (0 if every stream heard before the buyer's answer arrived; times are
 * `performance.timeOrigin + performance.now()`, comparable across the processes), and
 * stream_lag_p99_ms is the p99 over the probes answered during the passing steps (the whole
 * run's is printed too). It includes the hub's check interval (every 250 ms: ~125 ms on
 * average), the snapshot check, writing to every stream, and the time the streams' process
 * takes to read them all.
 *
 * accesslayer_over_bare: before the sale (no stream open, the show unchanged), autocannon (32
 * connections, `BENCH_ONSALE_BARE_SECONDS` (3)) polls the configuration's entry with the
 * current `ETag` in `If-None-Match` (every answer a 304), and then a bare Hono handler in its own
 * process that answers the same 304 (the service's headers) to that `ETag` and the service's
 * Brotli bytes otherwise, reached the same way (directly for SQLite, through a proxy of the same
 * kind for PostgreSQL): the ratio of the two rates. During the sale the show changes with every
 * write, so most polls get a 200 with the new bytes instead (the 304 share is printed per step).
 *
 * Configurations, each on a fresh database seeded the same way: SQLite, one process
 * (`startServer`); PostgreSQL (a server the benchmark starts, bench/postgres.ts) with one and
 * with two service processes on one database, both behind the connection-level round-robin proxy
 * of packages/server/src/testing/round-robin-proxy.ts in its own process (so the 2 / 1
 * comparison has the same proxy in both): the HTTP proxy of the same file sends to each upstream
 * through an agent of at most 256 sockets, which cannot carry thousands of streams, and parses
 * every request again on the same two cores. `BENCH_ONSALE_ENGINES` picks configurations
 * (comma-separated: sqlite, postgres (both), pg1, pg2). Setup per configuration, as
 * accesslayer-buy: the event through `POST /v1/events`, the partner's settings through the
 * operator API (buy banner, button and categories list), the tickets through `POST /v1/tickets`,
 * the listings through `ListingsService.create` in a child process on the same database (there
 * is no listing API); the services learn of them from their database.
 *
 * Each step prints the cores each party used (from /proc): on two cores the load generators
 * (this process, the streams' and the pollers') take a real share, and the rate where p99 passes
 * 500 ms is this machine's, not the service's alone.
 *
 * Measured 2026-11-27 (two full runs, other sessions' benchmarks on the machine meanwhile; the
 * figures in docs/benchmarks.md): the sale stops at 30-50/s on SQLite and at 30/s on PostgreSQL.
 * SQLite: the service's main thread reaches a whole core there; every sale is two durable write
 * transactions (the reservation, with a new buyer and a one-time token, and its end), and each
 * write changes the show, so after it every poll is a 200 with new bytes (0 % 304 once the sale
 * runs) and every stream gets a stock event (about 4 a second each, the hub's tick). PostgreSQL:
 * the service is at 0.85-0.93 of a core from 5 attempts/s already, and the pollers fall behind
 * (about 230-310 polls/s of the 800 wanted at 20/s): the buy p99 alone, which ends the sale, does
 * not show that; the streams get about 6.5 events a second each (the hub also checks shortly after
 * every commit notification). A second process adds no core here (the generators, the proxy and
 * PostgreSQL share the other one).
 *
 * Env: BENCH_ONSALE_ENGINES (sqlite,postgres), BENCH_ONSALE_STREAMS (2000), BENCH_ONSALE_FANS
 * (10000), BENCH_ONSALE_POLLERS (64), BENCH_ONSALE_POLL_SECONDS (10), BENCH_ONSALE_RATES
 * (5,10,20,30,50,70,100,150,200,300,400,600,800), BENCH_ONSALE_STEP_SECONDS (5), BENCH_ONSALE_LISTINGS (1000),
 * BENCH_ONSALE_PROBE_LISTINGS (200), BENCH_ONSALE_PROBES_PER_S (4), BENCH_ONSALE_HOLD_MS (500),
 * BENCH_ONSALE_BARE_SECONDS (3).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { BANNER_SETTINGS } from '@resale/server/bench';
import { api, cpuSeconds, fmt, KEYS, ROOT, startServer, startUrlChild, stopChild, type UrlChild } from './lib.js';
import { startPgService, startPostgres, treeCpuSeconds, type BenchPostgres } from './postgres.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const STREAMS = env('BENCH_ONSALE_STREAMS', 2_000);
const FANS = env('BENCH_ONSALE_FANS', 10_000);
const POLLERS = env('BENCH_ONSALE_POLLERS', 64);
const POLL_SECONDS = env('BENCH_ONSALE_POLL_SECONDS', 10);
const RATES = (process.env.BENCH_ONSALE_RATES ?? '5,10,20,30,50,70,100,150,200,300,400,600,800').split(',').map(Number);
const STEP_SECONDS = env('BENCH_ONSALE_STEP_SECONDS', 5);
const LISTINGS = env('BENCH_ONSALE_LISTINGS', 1_000);
const PROBE_LISTINGS = env('BENCH_ONSALE_PROBE_LISTINGS', 200);
const PROBES_PER_S = env('BENCH_ONSALE_PROBES_PER_S', 4);
const HOLD_MS = env('BENCH_ONSALE_HOLD_MS', 500);
const BARE_SECONDS = env('BENCH_ONSALE_BARE_SECONDS', 3);
const ENGINES = (process.env.BENCH_ONSALE_ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
const P99_LIMIT_MS = 500;
const STEP_WAIT_MS = 15_000;
const OPTIONS = 4;
const BATCH = 1_000;
const OPERATOR_TOKEN = 'bench-operator-token-000000000000000';
const SELF = fileURLToPath(import.meta.url);
const EVENT = 'onsale';
const POLL_PATH = `/v1/wrapper/accesslayer?type=buy&eventId=${EVENT}&showId=show-1&lang=en`;
const STREAM_PATH = `/v1/wrapper/accesslayer/stream?type=buy&eventId=${EVENT}&showId=show-1&publicKey=${KEYS.public}`;
const POLL_HEADERS = { authorization: KEYS.public, 'accept-encoding': 'br' };
/** The probe option's quantity in a stock event (the categories' keys come in this order: accesslayer.stream.ts). */
const PROBE_RE = /"ticketOptionId":"opt-probe","quantityForSale":(\d+)/;
/** The headers Node (or the connection) adds per response: not replayed by the bare handler. */
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Milliseconds on a clock every process of the machine shares. */
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))]!);

function ticket(i: number) {
  return {
    externalReferenceEventId: EVENT,
    showId: 'show-1',
    buyer: `seller${i}@example.com`,
    ticketId: `os-${i}`,
    ticketAccess: { type: 'URL', locator: `https://partner.example/qr/${i}` },
    ticketOptionId: i < LISTINGS ? `opt-${i % OPTIONS}` : 'opt-probe',
    price: 45.5,
    section: `S${i % 20}`,
    row: String(i % 30),
    seat: String(i % 50),
  };
}

const SETTINGS = {
  webhookEvents: ['ticketShield.updated'],
  buyAccessLayer: {
    buyBanner: BANNER_SETTINGS,
    buyButton: { visible: true, ctaText: { en: 'Resale', es: 'Reventa' }, colors: { background: '#000000', text: '#ffffff' } },
    categoriesList: { visible: true, ctaText: { en: 'Buy', es: 'Comprar' } },
  },
};

type DbEnv = { DATABASE_PATH: string } | { DATABASE_URL: string };

/** The event, the settings and the tickets through the API; the listings in a child process on the database. */
async function setup(base: string, where: DbEnv): Promise<void> {
  await api(base, 'POST', '/v1/events', {
    externalReferenceId: EVENT,
    title: 'On-sale',
    description: 'benchmark',
    location: { city: 'Madrid' },
    configuration: {},
    shows: [
      {
        showId: 'show-1',
        title: 'Night',
        date: '2030-05-01T21:00:00+02:00',
        images: [],
        configuration: {},
        ticketOptions: [
          ...Array.from({ length: OPTIONS }, (_, i) => ({ ticketId: `opt-${i}`, title: `Category ${i}`, description: 'bench', currency: 'EUR', price: 40 + i })),
          { ticketId: 'opt-probe', title: 'Probe', description: 'bench', currency: 'EUR', price: 40 },
        ],
      },
    ],
  });
  const partners = (await (await fetch(`${base}/admin/v1/partners`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json()) as { data: { id: string; name: string }[] };
  const sandbox = partners.data.find((p) => p.name === 'sandbox')!;
  const patched = await fetch(`${base}/admin/v1/partners/${sandbox.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ settings: SETTINGS }),
  });
  if (!patched.ok) throw new Error(`settings: ${patched.status} ${await patched.text()}`);
  const total = LISTINGS + PROBE_LISTINGS;
  const jobIds: string[] = [];
  for (let b = 0; b < total; b += BATCH) {
    const job = await api(base, 'POST', '/v1/tickets', Array.from({ length: Math.min(BATCH, total - b) }, (_, i) => ticket(b + i)));
    jobIds.push(job.jobId);
  }
  for (const id of jobIds) {
    for (;;) {
      const job = await api(base, 'GET', `/v1/tickets/jobs/${id}`);
      if (job.state === 'done') {
        if (job.rejected) throw new Error(`job ${id} rejected ${job.rejected}`);
        break;
      }
      await sleep(20);
    }
  }
  const childEnv: Record<string, string | undefined> = { ...process.env, ...where };
  if (!('DATABASE_URL' in where)) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--seed-listings'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`seeding the listings exited with ${code}`);
}

/** The child of `setup`: the listings through ListingsService on the service's database, as a second connection. */
async function seedListings(): Promise<void> {
  const { openDb, closeDb, buildDeps, systemClock } = await import('@resale/server/bench');
  const db = await openDb({ url: process.env.DATABASE_URL, path: process.env.DATABASE_PATH! }, { migrate: false });
  const deps = buildDeps({
    db,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secretKey: 'bench-secret-key-0000000000000000000000',
    config: { env: 'production', publicBaseUrl: 'http://127.0.0.1', operatorToken: null, maxBodyBytes: 1e8, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'a <a@b.c>' },
  });
  const partnerId = (await deps.partners.authenticate(KEYS.private))!.partner.id;
  const total = LISTINGS + PROBE_LISTINGS;
  const PER_TX = 200;
  for (let b = 0; b < total; b += PER_TX) {
    await db.transact(async (tx) => {
      for (let i = b; i < Math.min(total, b + PER_TX); i++) {
        const t = await deps.tickets.get(tx, partnerId, `os-${i}`);
        await deps.listings.create(tx, partnerId, { sellerPk: t.ownerPk, ticketPks: [t.id], priceMinor: 3_000 + ((i * 7_919) % 9_000) });
      }
    });
    await sleep(50);
  }
  await closeDb(db);
}

/** One HTTP exchange on node:http (fetch would decode Brotli): status, headers, the raw body. */
function exchange(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent | false } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const once = (retry: boolean): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: opts.agent ?? false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as idle just as this request left on it: never read, safe to send again.
        if (retry && err.code === 'ECONNRESET' && req.reusedSocket) resolve(once(false));
        else reject(err);
      });
      req.end(opts.body);
    });
  return once(true);
}

function replayable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string' && !PER_RESPONSE.has(name)) out[name] = value;
  return out;
}

/** A child process of this file that prints its URL as its first line (`--bare`, `--tcp-proxy`). */
function startOwnChild(args: string[]): Promise<UrlChild> {
  return startUrlChild(SELF, args);
}

/** A child process of this file spoken to over IPC (`--streams`, `--pollers`): one request at a time, its answer. */
interface IpcChild {
  pid: number | undefined;
  ask<T>(cmd: string): Promise<T>;
  /** The first message the child sends by itself (ready). */
  ready: Promise<any>;
  stop(): Promise<void>;
}

function startIpcChild(args: string[]): IpcChild {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, ...args], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: ((msg: any) => void)[] = [];
  let first: ((msg: any) => void) | null = null;
  const ready = new Promise<any>((resolve, reject) => {
    first = resolve;
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  ready.catch(() => undefined);
  child.on('message', (msg) => {
    if (first) {
      const f = first;
      first = null;
      f(msg);
    } else waiting.shift()?.(msg);
  });
  return {
    pid: child.pid,
    ready,
    ask: <T>(cmd: string) =>
      new Promise<T>((resolve) => {
        waiting.push(resolve as (msg: any) => void);
        child.send({ cmd });
      }),
    stop: () => stopChild(child),
  };
}

/** One configuration under test: where the fans go, the processes whose CPU is counted. */
interface Target {
  engine: 'sqlite' | 'postgres';
  processes: number;
  label: string;
  /** Where fans and buyers connect (the service, or the proxy in front of the services). */
  entry: string;
  /** Behind a proxy: the bare handler is reached through one of the same kind. */
  proxied: boolean;
  parties: { name: string; cpu: () => number | null }[];
  stop: () => Promise<void>;
}

interface StepResult {
  rate: number;
  sentPerS: number;
  attempts: number;
  ok: number;
  refused: number;
  other: number;
  otherCodes: string;
  p50: number;
  p99: number;
  p99ok: number;
  unanswered: number;
  cancels: number;
  cancelFailed: number;
  free: number;
  polls: PollWindow;
  streams: StreamWindow;
  cores: Record<string, number>;
  probes: number;
}

interface PollWindow {
  polls: number;
  perS: number;
  s304: number;
  s200: number;
  other: number;
  p50: number;
  p99: number;
}

interface StreamWindow {
  open: number;
  events: number;
  bytes: number;
  lost: number;
}

interface StreamReady {
  open: number;
  refused: number;
  refusedStatuses: string;
  failed: number;
  ms: number;
}

interface Reach {
  lastAt: number[];
  sumAt: number[];
  reached: number[];
  open: number;
}

interface Outcome {
  label: string;
  engine: string;
  processes: number;
  passed: StepResult | null;
  failed: StepResult | null;
  stopReason: string;
  streamsHeld: number;
  lagP99: number;
  lagP50: number;
  lagMeanP99: number;
  lagAllP99: number;
  probesUsed: number;
  probesMissed: number;
  overBare: number;
  serviceRps: number;
  bareRps: number;
}

/** autocannon at `url` with the show's current ETag: every answer must be a 304. */
async function poll304(url: string, etag: string): Promise<number> {
  const r = await autocannon({ url, headers: { ...POLL_HEADERS, 'if-none-match': etag }, connections: 32, duration: BARE_SECONDS });
  const total = r.requests.total;
  const s304 = (r as unknown as Record<string, number>)['3xx'] ?? 0;
  if (r.errors > 0 || s304 < total * 0.99) throw new Error(`${url}: ${s304} 304s of ${total}, ${r.errors} errors`);
  return total / BARE_SECONDS;
}

async function measure(target: Target, tmp: string): Promise<Outcome> {
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const stops: (() => Promise<void>)[] = [];
  try {
    // The listings the attempts pick from, and the probe's.
    const listed = (await api(target.entry, 'GET', `/v1/marketplace/items/events/${EVENT}/listedTickets?showId=show-1`)) as { listingId: string; ticketOptionId: string }[];
    const loadIds = listed.filter((l) => l.ticketOptionId !== 'opt-probe').map((l) => l.listingId);
    const probeIds = listed.filter((l) => l.ticketOptionId === 'opt-probe').map((l) => l.listingId);
    if (loadIds.length !== LISTINGS || probeIds.length !== PROBE_LISTINGS) throw new Error(`listed: ${loadIds.length} + ${probeIds.length} listings`);

    // The bare handler: the service's Brotli answer and its 304, replayed.
    const full = await exchange(target.entry + POLL_PATH, { headers: POLL_HEADERS });
    if (full.status !== 200 || full.headers['content-encoding'] !== 'br' || typeof full.headers.etag !== 'string') throw new Error(`poll: ${full.status} ${String(full.headers['content-encoding'])} ${String(full.headers.etag)}`);
    const etag = full.headers.etag;
    const notModified = await exchange(target.entry + POLL_PATH, { headers: { ...POLL_HEADERS, 'if-none-match': etag } });
    if (notModified.status !== 304) throw new Error(`If-None-Match answered ${notModified.status}`);
    const bodyFile = join(tmp, `answer-${target.label.replace(/\W+/g, '-')}.br`);
    writeFileSync(bodyFile, full.body);
    const bare = await startOwnChild(['--bare', bodyFile, JSON.stringify(replayable(full.headers)), JSON.stringify(replayable(notModified.headers)), etag]);
    stops.push(bare.stop);
    let bareEntry = bare.url;
    if (target.proxied) {
      const proxy = await startOwnChild(['--tcp-proxy', bare.url]);
      stops.push(proxy.stop);
      bareEntry = proxy.url;
    }
    await poll304(target.entry + POLL_PATH, etag).catch(() => 0); // warm-up
    const serviceRps = await poll304(target.entry + POLL_PATH, etag);
    await poll304(bareEntry + POLL_PATH, etag).catch(() => 0);
    const bareRps = await poll304(bareEntry + POLL_PATH, etag);
    for (const stop of stops.splice(0).reverse()) await stop();

    // The fans: streams first (all open before the sale), then the pollers.
    const streams = startIpcChild(['--streams', target.entry + STREAM_PATH, String(STREAMS), String(PROBE_LISTINGS)]);
    stops.push(streams.stop);
    const ready = (await streams.ready) as StreamReady;
    const pollerFans = Math.max(0, FANS - STREAMS);
    const pollRate = pollerFans / POLL_SECONDS;
    const pollIntervalMs = (POLLERS * 1000) / pollRate;
    // No polling fans (BENCH_ONSALE_FANS at or under the streams, or no loops): a child that polls nothing.
    const polling = pollRate > 0 && POLLERS > 0;
    const pollers = startIpcChild(['--pollers', target.entry + POLL_PATH, String(polling ? POLLERS : 0), String(polling ? pollIntervalMs : 0)]);
    stops.push(pollers.stop);
    await pollers.ready;
    await sleep(2_000);
    const quietPolls = await pollers.ask<PollWindow>('window');
    const quietStreams = await streams.ask<StreamWindow>('window');

    console.log(`  ${target.label}: ${fmt(LISTINGS)} listings in ${OPTIONS} options + ${PROBE_LISTINGS} probe listings; ${fmt(FANS)} fans: ${fmt(ready.open)} streams open in ${(ready.ms / 1000).toFixed(1)} s` + (ready.refused || ready.failed ? ` (${ready.refused} refused: ${ready.refusedStatuses}; ${ready.failed} failed)` : '') + (polling ? `, ${fmt(pollerFans)} polling every ${POLL_SECONDS} s = ${fmt(pollRate)} polls/s by ${POLLERS} loops (one every ${pollIntervalMs.toFixed(0)} ms each)` : ', none polling') + `; 1-min load average ${loadavg()[0]!.toFixed(2)}`);
    console.log(`    304 polls, autocannon 32 connections ${BARE_SECONDS} s, no stream open: service ${fmt(serviceRps)}/s, bare handler (same bytes${target.proxied ? ', behind the same kind of proxy' : ''}) ${fmt(bareRps)}/s: ratio ${(serviceRps / bareRps).toFixed(3)}`);
    console.log(`    before the sale: ${fmt(quietPolls.perS)} polls/s (${(quietPolls.s304 / Math.max(1, quietPolls.polls) * 100).toFixed(0)} % 304), p50 ${quietPolls.p50.toFixed(1)} ms, p99 ${quietPolls.p99.toFixed(1)} ms; ${quietStreams.open} streams open, ${quietStreams.events} events`);

    // The sale.
    const free: string[] = [...loadIds];
    const freeAt = new Map(free.map((id, i) => [id, i]));
    const takeFree = (id: string) => {
      const i = freeAt.get(id);
      if (i === undefined) return;
      const last = free.pop()!;
      freeAt.delete(id);
      if (last !== id) {
        free[i] = last;
        freeAt.set(last, i);
      }
    };
    const giveFree = (id: string) => {
      if (freeAt.has(id)) return;
      freeAt.set(id, free.length);
      free.push(id);
    };
    let buyer = 0;
    let cancels = 0;
    let cancelFailed = 0;
    const cancelsPending = new Set<Promise<void>>();
    const tag = target.label.replace(/\W+/g, '').toLowerCase();
    const buy = async (listingId: string): Promise<{ status: number; id?: string; code?: string }> => {
      const res = await exchange(`${target.entry}/v1/marketplace/buyingflow/buyIntention`, {
        method: 'POST',
        agent,
        headers: { authorization: KEYS.private, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [listingId], user: `fan-${tag}-${buyer++}@example.com` }),
      });
      const json = JSON.parse(res.body.toString('utf8') || '{}') as { data?: { id?: string }; errors?: { code?: string }[] };
      return { status: res.status, id: json.data?.id, code: json.errors?.[0]?.code };
    };
    const cancel = (intentionId: string, listingId: string) => {
      const p = (async () => {
        try {
          const res = await exchange(`${target.entry}/v1/marketplace/buyingflow/buyIntention/${intentionId}`, { method: 'DELETE', agent, headers: { authorization: KEYS.private } });
          if (res.status === 200) {
            cancels++;
            giveFree(listingId);
          } else cancelFailed++;
        } catch {
          cancelFailed++;
        }
      })();
      cancelsPending.add(p);
      void p.finally(() => cancelsPending.delete(p));
    };

    // The probes: one at a time through the whole sale.
    let stepIndex = 0;
    let probing = true;
    let probeNext = 0;
    let probeSold = 0;
    const probes: { answeredAt: number; q: number; step: number }[] = [];
    const prober = (async () => {
      while (probing && probeNext < probeIds.length) {
        const t = now();
        const step = stepIndex;
        try {
          const r = await buy(probeIds[probeNext++]!);
          if (r.status === 200) {
            probeSold++;
            probes.push({ answeredAt: now(), q: PROBE_LISTINGS - probeSold, step });
          }
        } catch {
          /* counted as missed below: no sale */
        }
        await sleep(Math.max(0, 1000 / PROBES_PER_S - (now() - t)));
      }
    })();

    const steps: StepResult[] = [];
    let passed: StepResult | null = null;
    let failed: StepResult | null = null;
    let stopReason = `every rate up to ${RATES[RATES.length - 1]}/s stayed within ${P99_LIMIT_MS} ms`;
    for (const [si, rate] of RATES.entries()) {
      if (free.length < 0.2 * LISTINGS) {
        stopReason = `fewer than 20 % of the listings free (${free.length}) before ${rate}/s`;
        break;
      }
      stepIndex = si;
      const cpu0 = target.parties.map((p) => p.cpu());
      const gen0 = [cpuSeconds(streams.pid), cpuSeconds(pollers.pid)];
      const self0 = process.cpuUsage();
      const cancels0 = cancels;
      const cancelFailed0 = cancelFailed;
      const probes0 = probes.length;
      const n = Math.max(1, Math.round(rate * STEP_SECONDS));
      const latencies: number[] = [];
      const okLatencies: number[] = [];
      let ok = 0;
      let refused = 0;
      let other = 0;
      const codes = new Map<string, number>();
      const t0 = now();
      const pending: Promise<void>[] = [];
      for (let k = 0; k < n; k++) {
        const due = t0 + (k * 1000) / rate;
        const wait = due - now();
        if (wait > 1) await sleep(wait);
        if (free.length === 0) break;
        const listingId = free[Math.floor(Math.random() * free.length)]!;
        pending.push(
          (async () => {
            try {
              const r = await buy(listingId);
              const ms = now() - due;
              latencies.push(ms);
              if (r.status === 200 && r.id) {
                ok++;
                okLatencies.push(ms);
                takeFree(listingId);
                const id = r.id;
                setTimeout(() => cancel(id, listingId), HOLD_MS);
              } else if (r.status === 409) refused++;
              else {
                other++;
                const c = `${r.status} ${r.code ?? ''}`.trim();
                codes.set(c, (codes.get(c) ?? 0) + 1);
              }
            } catch (err) {
              latencies.push(now() - due);
              other++;
              const c = (err as NodeJS.ErrnoException).code ?? 'error';
              codes.set(c, (codes.get(c) ?? 0) + 1);
            }
          })(),
        );
      }
      const sentS = (now() - t0) / 1000;
      let timedOut = false;
      await Promise.race([Promise.all(pending), sleep(STEP_WAIT_MS).then(() => (timedOut = true))]);
      const wall = (now() - t0) / 1000;
      const unanswered = pending.length - latencies.length;
      const all = [...latencies, ...Array.from({ length: timedOut ? unanswered : 0 }, () => STEP_WAIT_MS)].sort((a, b) => a - b);
      okLatencies.sort((a, b) => a - b);
      const polls = await pollers.ask<PollWindow>('window');
      const sw = await streams.ask<StreamWindow>('window');
      const cores: Record<string, number> = {};
      target.parties.forEach((p, i) => {
        const a = p.cpu();
        const b = cpu0[i];
        if (a !== null && b !== null && b !== undefined) cores[p.name] = (a - b) / wall;
      });
      const self = process.cpuUsage(self0);
      cores.buyers = (self.user + self.system) / 1e6 / wall;
      const gen1 = [cpuSeconds(streams.pid), cpuSeconds(pollers.pid)];
      if (gen0[0] != null && gen1[0] != null) cores.streams = (gen1[0] - gen0[0]) / wall;
      if (gen0[1] != null && gen1[1] != null) cores.pollers = (gen1[1] - gen0[1]) / wall;
      const result: StepResult = {
        rate,
        sentPerS: pending.length / sentS,
        attempts: pending.length,
        ok,
        refused,
        other,
        otherCodes: [...codes].map(([c, k]) => `${k}× ${c}`).join(', '),
        p50: quantile(all, 0.5),
        p99: quantile(all, 0.99),
        p99ok: quantile(okLatencies, 0.99),
        unanswered: timedOut ? unanswered : 0,
        cancels: cancels - cancels0,
        cancelFailed: cancelFailed - cancelFailed0,
        free: free.length,
        polls,
        streams: sw,
        cores,
        probes: probes.length - probes0,
      };
      steps.push(result);
      const coreText = Object.entries(cores)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
      console.log(
        `    ${String(rate).padStart(4)}/s: sent ${result.sentPerS.toFixed(0)}/s, ${result.attempts} attempts: ${ok} reserved, ${refused} refused (409), ${other} other${result.otherCodes ? ` (${result.otherCodes})` : ''}${result.unanswered ? `, ${result.unanswered} unanswered after ${STEP_WAIT_MS / 1000} s` : ''};` +
          ` p50 ${result.p50.toFixed(0)} ms, p99 ${result.p99.toFixed(0)} ms (reserved: ${result.p99ok.toFixed(0)});` +
          ` ${result.cancels} holds ended${result.cancelFailed ? ` (${result.cancelFailed} failed)` : ''}, ${result.free} free;` +
          ` polls ${fmt(polls.perS)}/s (${((polls.s304 / Math.max(1, polls.polls)) * 100).toFixed(0)} % 304${polls.other ? `, ${polls.other} other` : ''}) p50 ${polls.p50.toFixed(0)} ms p99 ${polls.p99.toFixed(0)} ms;` +
          ` streams ${sw.open} open${sw.lost ? ` (${sw.lost} lost)` : ''}, ${fmt(sw.events / wall)} events/s; ${result.probes} probes   [cores: ${coreText}]`,
      );
      if (result.p99 > P99_LIMIT_MS) {
        failed = result;
        stopReason = `p99 ${result.p99.toFixed(0)} ms > ${P99_LIMIT_MS} ms at ${rate}/s`;
        break;
      }
      passed = result;
    }
    probing = false;
    await prober;
    await Promise.race([Promise.all([...cancelsPending]), sleep(STEP_WAIT_MS)]);

    // Stream lag: give the streams a moment to hear the last probe, then ask when each value was reached.
    const lastQ = PROBE_LISTINGS - probeSold;
    for (let i = 0; i < 50; i++) {
      const reach = await streams.ask<Reach>('reach');
      if ((reach.reached[lastQ] ?? 0) >= reach.open) break;
      await sleep(100);
    }
    const reach = await streams.ask<Reach>('reach');
    const passedSteps = passed ? steps.indexOf(passed) : -1;
    const lags: number[] = [];
    const meanLags: number[] = [];
    const lagsAll: number[] = [];
    let missed = 0;
    for (const p of probes) {
      if (p.step < 0) continue;
      const n = reach.reached[p.q] ?? 0;
      if (n < ready.open) {
        // A stream lost meanwhile never hears it: the probe's lag is unknown (counted, not guessed).
        missed++;
        continue;
      }
      const lag = Math.max(0, reach.lastAt[p.q]! - p.answeredAt);
      lagsAll.push(lag);
      if (p.step <= passedSteps) {
        lags.push(lag);
        meanLags.push(Math.max(0, reach.sumAt[p.q]! / n - p.answeredAt));
      }
    }
    lags.sort((a, b) => a - b);
    meanLags.sort((a, b) => a - b);
    lagsAll.sort((a, b) => a - b);
    const outcome: Outcome = {
      label: target.label,
      engine: target.engine,
      processes: target.processes,
      passed,
      failed,
      stopReason,
      streamsHeld: passed?.streams.open ?? 0,
      lagP99: quantile(lags, 0.99),
      lagP50: quantile(lags, 0.5),
      lagMeanP99: quantile(meanLags, 0.99),
      lagAllP99: quantile(lagsAll, 0.99),
      probesUsed: lags.length,
      probesMissed: missed,
      overBare: serviceRps / bareRps,
      serviceRps,
      bareRps,
    };
    console.log(`    sale ended: ${stopReason}`);
    if (passed) {
      console.log(
        `    at ${passed.rate}/s (the last rate within ${P99_LIMIT_MS} ms): ${passed.sentPerS.toFixed(0)} attempts/s sent, ${(passed.ok / (wallOf(passed))).toFixed(0)} reservations/s, p99 ${passed.p99.toFixed(0)} ms; ${passed.streams.open} streams held;` +
          ` access layer ${fmt(passed.polls.perS)} polls/s of ${fmt(pollRate)} wanted, p99 ${passed.polls.p99.toFixed(0)} ms, ${((passed.polls.s304 / Math.max(1, passed.polls.polls)) * 100).toFixed(0)} % 304`,
      );
    } else console.log(`    no rate stayed within ${P99_LIMIT_MS} ms`);
    console.log(
      `    stream lag (sale answered → last of ${ready.open} streams heard it), ${lags.length} probes in the passing steps: p50 ${outcome.lagP50.toFixed(0)} ms, p99 ${outcome.lagP99.toFixed(0)} ms (mean stream: p99 ${outcome.lagMeanP99.toFixed(0)} ms); whole run, ${lagsAll.length} probes: p99 ${outcome.lagAllP99.toFixed(0)} ms` +
        (missed ? `; ${missed} probes not heard by every stream (streams lost)` : ''),
    );
    return outcome;
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.error('stop:', err));
    agent.destroy();
  }
}

/** A step's duration as the rate says (the attempts were spread over it). */
function wallOf(s: StepResult): number {
  return s.attempts / s.sentPerS;
}

export async function run(): Promise<Record<string, number>> {
  const tmp = mkdtempSync(join(tmpdir(), 'resale-bench-onsale-'));
  const outcomes: Outcome[] = [];
  let postgres: BenchPostgres | null = null;
  const want = (name: string) => ENGINES.includes(name) || (name.startsWith('pg') && ENGINES.includes('postgres'));
  console.log(
    `onsale: one show, ${fmt(LISTINGS)} listings (+${PROBE_LISTINGS} for the probes), ${fmt(FANS)} fans (${fmt(STREAMS)} streams, the rest polling every ${POLL_SECONDS} s), buy attempts at ${RATES.join(', ')}/s for ${STEP_SECONDS} s each until p99 > ${P99_LIMIT_MS} ms; holds ended after ${HOLD_MS} ms; ${cpus().length} cores shared by everything`,
  );
  try {
    // One public URL for every process (as behind one balancer): the answers' links carry it, so
    // every process answers the same bytes and ETag (startPgService would give each its own port).
    const streamsEnv = { OPERATOR_TOKEN, ACCESS_LAYER_MAX_STREAMS: String(STREAMS + 100), PUBLIC_BASE_URL: 'https://resale.onsale.bench' };
    if (want('sqlite')) {
      const t0 = now();
      const server = await startServer(streamsEnv);
      try {
        await setup(server.base, { DATABASE_PATH: join(server.dir, 'bench.sqlite') });
        console.log(`  SQLite setup ${((now() - t0) / 1000).toFixed(1)} s`);
        outcomes.push(await measure({ engine: 'sqlite', processes: 1, label: 'SQLite, 1 process', entry: server.base, proxied: false, parties: [{ name: 'service', cpu: () => cpuSeconds(server.pid) }], stop: server.stop }, tmp));
      } finally {
        await server.stop();
      }
    }
    for (const processes of [1, 2]) {
      if (!want(`pg${processes}`)) continue;
      const t0 = now();
      postgres ??= await startPostgres();
      const pgServer = postgres;
      const url = await pgServer.createDatabase(`onsale${processes}`);
      const stops: (() => Promise<void>)[] = [];
      try {
        const services = [];
        for (let i = 0; i < processes; i++) {
          const svc = await startPgService(url, streamsEnv);
          stops.push(svc.stop);
          services.push(svc);
          if (i === 0) await setup(svc.base, { DATABASE_URL: url });
        }
        const proxy = await startOwnChild(['--tcp-proxy', ...services.map((s) => s.base)]);
        stops.push(proxy.stop);
        console.log(`  PostgreSQL ${processes} process${processes > 1 ? 'es' : ''}: setup ${((now() - t0) / 1000).toFixed(1)} s`);
        outcomes.push(
          await measure(
            {
              engine: 'postgres',
              processes,
              label: `PostgreSQL, ${processes} process${processes > 1 ? 'es' : ''} behind the TCP proxy`,
              entry: proxy.url,
              proxied: true,
              parties: [
                ...services.map((s, i) => ({ name: `service${processes > 1 ? ` ${i + 1}` : ''}`, cpu: () => cpuSeconds(s.pid) })),
                { name: 'postgres', cpu: () => treeCpuSeconds(pgServer.pid()) },
                { name: 'proxy', cpu: () => cpuSeconds(proxy.pid) },
              ],
              stop: async () => undefined,
            },
            tmp,
          ),
        );
      } finally {
        for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.error('stop:', err));
      }
    }
  } finally {
    await postgres?.stop().catch((err: unknown) => console.error('stop:', err));
    rmSync(tmp, { recursive: true, force: true });
  }
  const result: Record<string, number> = {};
  for (const o of outcomes) {
    const key = o.engine === 'sqlite' ? 'sqlite' : `pg${o.processes}`;
    const reservePerS = o.passed ? Math.round(o.passed.sentPerS) : 0;
    const reserveP99 = o.passed ? Math.round(o.passed.p99) : NaN;
    result[`${key}ReservePerS`] = reservePerS;
    result[`${key}ReserveP99Ms`] = reserveP99;
    result[`${key}Streams`] = o.streamsHeld;
    result[`${key}StreamLagP99Ms`] = Math.round(o.lagP99);
    result[`${key}AccessLayerOverBare`] = o.overBare;
    result[`${key}PollsPerS`] = o.passed?.polls.perS ?? NaN;
    result[`${key}PollP99Ms`] = o.passed?.polls.p99 ?? NaN;
    console.log(
      `onsale: engine=${o.engine} processes=${o.processes} reserve_per_s=${reservePerS} reserve_p99_ms=${Number.isNaN(reserveP99) ? 'n/a' : reserveP99} streams=${o.streamsHeld} stream_lag_p99_ms=${Number.isNaN(o.lagP99) ? 'n/a' : Math.round(o.lagP99)} accesslayer_over_bare=${o.overBare.toFixed(3)}`,
    );
  }
  return result;
}

/** `--streams <url> <count> <probeListings>`: holds the streams, answers `window` and `reach` over IPC. */
async function streamsChild(url: string, count: number, probes: number): Promise<void> {
  const lastAt = new Float64Array(probes + 1);
  const sumAt = new Float64Array(probes + 1);
  const reached = new Int32Array(probes + 1);
  let open = 0;
  let refused = 0;
  let failed = 0;
  let lost = 0;
  let events = 0;
  let bytes = 0;
  let stopping = false;
  const statuses = new Map<number, number>();
  const sockets = new Set<{ destroy(): void }>();
  const openOne = () =>
    new Promise<void>((resolve) => {
      let lastQ = -1;
      let buf = '';
      let settled = false;
      const settle = () => {
        if (!settled) {
          settled = true;
          resolve();
        }
      };
      const req = httpRequest(url, { agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) {
          refused++;
          statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
          res.resume();
          return settle();
        }
        open++;
        sockets.add(req);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const t = now();
          bytes += chunk.length;
          buf += chunk;
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (!block.includes('data:')) continue;
            events++;
            const m = PROBE_RE.exec(block);
            if (!m) continue;
            const q = Number(m[1]);
            if (lastQ < 0) {
              // The snapshot: nothing heard yet.
              lastQ = q;
              settle();
              continue;
            }
            for (let x = Math.max(0, q); x < lastQ && x <= probes; x++) {
              if (t > lastAt[x]!) lastAt[x] = t;
              sumAt[x]! += t;
              reached[x]!++;
            }
            if (q < lastQ) lastQ = q;
          }
        });
        res.on('close', () => {
          open--;
          sockets.delete(req);
          if (!stopping) lost++;
          settle();
        });
      });
      req.on('error', () => {
        if (!stopping) failed++;
        settle();
      });
      req.end();
    });
  const t0 = now();
  // In waves, as fans arrive: 100 connections at a time.
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({ length: Math.min(100, count - i) }, openOne));
  let winEvents = 0;
  let winBytes = 0;
  let winLost = 0;
  process.send!({ open, refused, refusedStatuses: [...statuses].map(([s, n]) => `${n}× ${s}`).join(', '), failed, ms: now() - t0 } satisfies StreamReady);
  process.on('message', (msg: { cmd: string }) => {
    if (msg.cmd === 'window') {
      process.send!({ open, events: events - winEvents, bytes: bytes - winBytes, lost: lost - winLost } satisfies StreamWindow);
      winEvents = events;
      winBytes = bytes;
      winLost = lost;
    } else if (msg.cmd === 'reach') {
      process.send!({ lastAt: [...lastAt], sumAt: [...sumAt], reached: [...reached], open } satisfies Reach);
    }
  });
  process.once('SIGTERM', () => {
    stopping = true;
    for (const s of sockets) s.destroy();
    process.exit(0);
  });
}

/** `--pollers <url> <loops> <intervalMs>`: the polling fans; answers `window` over IPC. */
async function pollersChild(url: string, loops: number, intervalMs: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: loops });
  let latencies: number[] = [];
  let s200 = 0;
  let s304 = 0;
  let other = 0;
  let since = now();
  let running = true;
  const loop = async (i: number) => {
    let etag: string | null = null;
    let next = now() + (i * intervalMs) / loops;
    while (running) {
      const wait = next - now();
      if (wait > 0) await sleep(wait);
      const t = now();
      try {
        const res = await exchange(url, { agent, headers: etag ? { ...POLL_HEADERS, 'if-none-match': etag } : POLL_HEADERS });
        latencies.push(now() - t);
        if (res.status === 304) s304++;
        else if (res.status === 200) {
          s200++;
          if (typeof res.headers.etag === 'string') etag = res.headers.etag;
        } else other++;
      } catch {
        latencies.push(now() - t);
        other++;
      }
      next = Math.max(next + intervalMs, now());
    }
  };
  const loopsDone = Array.from({ length: loops }, (_, i) => loop(i));
  process.send!({ loops });
  process.on('message', (msg: { cmd: string }) => {
    if (msg.cmd !== 'window') return;
    const sorted = latencies.sort((a, b) => a - b);
    const s = (now() - since) / 1000;
    process.send!({ polls: sorted.length, perS: sorted.length / s, s304, s200, other, p50: sorted.length ? quantile(sorted, 0.5) : 0, p99: sorted.length ? quantile(sorted, 0.99) : 0 } satisfies PollWindow);
    latencies = [];
    s200 = s304 = other = 0;
    since = now();
  });
  process.once('SIGTERM', () => {
    running = false;
    agent.destroy();
    process.exit(0);
  });
  await Promise.all(loopsDone);
}

if (process.argv[2] === '--bare') {
  // The bare handler: the service's Brotli answer and headers, or its 304 when the ETag matches.
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const { freePort } = await import('@resale/server/testing');
  const body = new Uint8Array(readFileSync(process.argv[3]!));
  const headers = JSON.parse(process.argv[4]!) as Record<string, string>;
  const headers304 = JSON.parse(process.argv[5]!) as Record<string, string>;
  const etag = process.argv[6]!;
  const app = new Hono();
  app.get('*', (c) => (c.req.header('if-none-match') === etag ? c.body(null, 304, headers304) : c.body(body, 200, headers)));
  const port = await freePort();
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log(`http://127.0.0.1:${port}`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else if (process.argv[2] === '--tcp-proxy') {
  const { roundRobinTcpProxy } = await import('@resale/server/testing');
  const proxy = await roundRobinTcpProxy(process.argv.slice(3));
  console.log(proxy.url);
  process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--streams') {
  await streamsChild(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
} else if (process.argv[2] === '--pollers') {
  await pollersChild(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
} else if (process.argv[2] === '--seed-listings') {
  await seedListings();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
