/**
 * The buy access layer under load: GET /v1/wrapper/accesslayer?type=buy with the public key,
 * for an event with 20 ticket options (5 areas) and 10,000 ACTIVE listings, every component on
 * (an ~8 KB answer), against the real service in its own process(es), in one run:
 *
 * - SQLite, one service process (as since issue 6);
 * - PostgreSQL (issue 17; a server the benchmark starts, bench/postgres.ts), one service process;
 * - PostgreSQL, two service processes on the same database behind a round-robin proxy
 *   (packages/server/src/testing/round-robin-proxy.ts, in a process of its own), and one
 *   process behind the same proxy, so the proxy's cost is in both halves of the 2/1 ratio;
 * - the reference: a bare Hono handler in its own process answering THE SAME BYTES (the
 *   SQLite service's answer, fetched first, body and headers served verbatim: the load
 *   generator parses as much per request as for the real thing), directly and behind the proxy;
 * - the last three again behind a connection-level (TCP) round-robin proxy of the same file,
 *   which parses nothing: what the HTTP proxy's own cost hides.
 *
 * Targets: buy / bare >= 0.7 per engine on one process (issue 34; 0.6 in issue 17, >= 0.25 against a 40-byte
 * answer before), and 2 processes / 1 process >= 1.5 on PostgreSQL (behind the proxy both).
 *
 * What limits the figures on the 2-core machine (measured 2026-11-24; each line prints the cores
 * each party used, from /proc, and what else ran):
 * - Everything shares two cores: autocannon parses every 8 KB answer (about half a core), the
 *   bare handler and a cached service answer are CPU-bound on HTTP alone. Until 2026-11-28 the
 *   service spent about 3 times the bare handler's CPU per request (its middleware: request id
 *   and log line, metrics, key cache, CORS), which capped buy / bare near 0.3-0.4 here. Since,
 *   a cached answer is served by the route's fast path before Hono sees the request
 *   (http/api/accesslayer.buy.fast.ts): 0.82-0.86 of the bare handler. Most of either's time is
 *   now the kernel's `writev` of the answer on loopback (62 % of the service's CPU profile, 79 %
 *   of the bare handler's).
 * - PostgreSQL: before the fixes of 2026-11-24 every write transaction of any process notified
 *   (idle lease renewals included), and concurrent misses of a show each rebuilt it: 16
 *   notifications made ~400 rebuilds of 10,000 listings per 10 s, and PostgreSQL ran at
 *   8,305-8,797 req/s (0.219 of bare). Now lease renewals and outbox bookkeeping commit quietly
 *   (`quietCommit`) and a burst of misses shares one refresh (accesslayer.buy.cache.ts): 27,161-
 *   28,943 req/s, as SQLite (0.434 of bare, 0.446 for SQLite), both bound by the service's
 *   per-request middleware on one core.
 * - The HTTP proxy (a Node process parsing every request and answer again) costs about as much
 *   CPU per request as the bare handler: behind it, the proxy, the services and autocannon
 *   share the two cores, and a second service process adds a worker but no core. The TCP
 *   proxy removes most of that cost; even so, on this machine 2 / 1 cannot reach 1.5: the
 *   bare-behind-proxy lines are the ceiling any number of service processes could reach here.
 *
 * Compression (issue 20): the same answer asked for with `Accept-Encoding: br`, as every
 * browser asks, on SQLite and from the bare handler serving the same Brotli bytes: the service
 * keeps the compressed answer with its cached JSON (accesslayer.buy.cache.ts), so the line
 * measures what a page view costs now; the bytes per answer are printed for identity, br and
 * gzip.
 *
 * Setup per engine: the event through POST /v1/events, the partner's settings through the
 * operator API, 10,000 tickets through POST /v1/tickets (jobs awaited); the listings through
 * ListingsService.create in a child process on the same database (DATABASE_PATH or
 * DATABASE_URL: a process serves one engine, db/engine.ts), since there is no listing API
 * (listings are made in the hosted sell flow). The services learn of them only from their
 * database (SQLite's data_version, PostgreSQL's change notifications), which is the point.
 *
 * Env: BENCH_LISTINGS (10000), BENCH_SECONDS (10), BENCH_CONNECTIONS (32), BENCH_ROUNDS (2:
 * every configuration measured once per round, ratios per round, then their mean),
 * BENCH_CPU_PROF=<dir> (CPU profiles of the SQLite service's threads, see startServer in bench/lib.ts).
 */
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { BANNER_SETTINGS } from '@resale/server/bench';
import { api, cpuSeconds, fmt, KEYS, ROOT, startServer, startUrlChild, stopChild, type UrlChild } from './lib.js';
import { startPgService, startPostgres, treeCpuSeconds, type BenchPostgres, type PgService } from './postgres.js';

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const OPTIONS = 20;
const BATCH = 1_000;
const OPERATOR_TOKEN = 'bench-operator-token-000000000000000';
const SELF = fileURLToPath(import.meta.url);
const PATH = '/v1/wrapper/accesslayer?type=buy&eventId=bench-tour&showId=show-1&lang=en';
const HEADERS = { authorization: KEYS.public };

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
    buyBanner: BANNER_SETTINGS,
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

/** Where the seeding child finds the service's database: a SQLite file, or a PostgreSQL URL. */
type DbEnv = { DATABASE_PATH: string } | { DATABASE_URL: string };

/** The event, the settings and the tickets through the service's API; then the listings, in a child process on its database. */
async function setup(base: string, where: DbEnv): Promise<void> {
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

  const env: Record<string, string | undefined> = { ...process.env, ...where };
  if (!('DATABASE_URL' in where)) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--seed-listings'], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`seeding the listings exited with ${code}`);
}

/**
 * The child of `setup`: the listings through ListingsService on the service's database
 * (DATABASE_URL or DATABASE_PATH in this process's environment), as a second connection.
 */
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
  await closeDb(db);
}

/** A child process of this file (`--bare`, `--proxy`) that prints its URL as its first line. */
function startChild(args: string[]): Promise<UrlChild> {
  return startUrlChild(SELF, args);
}

/** The answer's bytes as sent with `Accept-Encoding: <accept>` (node:http: fetch would decode them), and its handler's headers. */
function encodedAnswer(base: string, accept: string): Promise<{ body: Buffer; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + PATH, { headers: { ...HEADERS, 'accept-encoding': accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        if (res.statusCode !== 200 || res.headers['content-encoding'] !== accept) return reject(new Error(`GET ${base}${PATH} with ${accept}: ${res.statusCode} ${res.headers['content-encoding']}`));
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string' && !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) headers[name] = value;
        }
        resolve({ body: Buffer.concat(chunks), headers });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** One real answer of the service: its body, and the headers a handler sets (not those Node adds per response). */
async function realAnswer(base: string): Promise<{ body: Buffer; headers: Record<string, string> }> {
  // A fresh connection: the setup's keep-alive sockets may have been closed by the server meanwhile.
  // Identity said outright: fetch would otherwise ask for gzip itself, decode it, and leave its
  // Content-Encoding among the headers the bare handler replays with the plain bytes.
  const headers0 = { ...HEADERS, 'accept-encoding': 'identity' };
  const res = await fetch(base + PATH, { headers: headers0, keepalive: false }).catch(() => fetch(base + PATH, { headers: headers0 }));
  if (res.status === 404) throw new Error(`GET ${base}${PATH} answered 404: is buyAccessLayerRoutes(deps) mounted in app.ts?`);
  if (res.status !== 200) throw new Error(`GET ${base}${PATH} answered ${res.status}: ${await res.text()}`);
  const body = Buffer.from(await res.arrayBuffer());
  const check = JSON.parse(body.toString('utf8')) as { data: { class: string; integratedMap?: { map: { totalCount: number } }; categoriesList?: { categories: unknown[] } }[] };
  const map = check.data.find((c) => c.class === 'integratedMap')?.integratedMap?.map;
  const cats = check.data.find((c) => c.class === 'categoriesList')?.categoriesList?.categories;
  if (map?.totalCount !== LISTINGS || cats?.length !== OPTIONS) throw new Error(`unexpected answer: ${body.toString('utf8').slice(0, 500)}`);
  const headers: Record<string, string> = {};
  const perResponse = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  res.headers.forEach((value, name) => {
    if (!perResponse.has(name)) headers[name] = value;
  });
  return { body, headers };
}

interface Party {
  name: string;
  cpu: () => number | null;
  /** Its process (and so its children). */
  pids?: (number | undefined)[];
}

/**
 * CPU seconds the whole machine has spent so far (every core; /proc/stat): busy in processes
 * (user, nice, system), in interrupts (irq, softirq: loopback networking is mostly there, charged
 * to no process) and stolen by the hypervisor; null without /proc.
 */
function machineSeconds(): { processes: number; interrupts: number; steal: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    return { processes: (f[0]! + f[1]! + f[2]!) / 100, interrupts: (f[5]! + f[6]!) / 100, steal: f[7]! / 100 };
  } catch {
    return null;
  }
}

/** CPU seconds (utime + stime) and name of every process now (/proc), to name what else ran. */
function processes(): Map<number, { name: string; cpu: number }> {
  const out = new Map<number, { name: string; cpu: number }>();
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(Number(entry), { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu: (Number(f[11]) + Number(f[12])) / 100 });
      } catch {
        /* gone meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return out;
}

/** The buy access layer cache's counters of a service (GET /metrics): full rebuilds and fingerprint checks so far. */
async function cacheCounters(base: string): Promise<{ rebuilds: number; checks: number }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { rebuilds: read('resale_buy_accesslayer_cache_rebuilds_total'), checks: read('resale_buy_accesslayer_cache_checks_total') };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  /** Cores each party used on average while measured. */
  cores: Record<string, number>;
  /** Change notifications heard on PostgreSQL meanwhile (write transactions of any process; each makes every process's cached answers stale). */
  notifications?: number;
  /** The processes outside the measured parties that used the most CPU meanwhile (`name pid cores`). */
  others?: string;
  /** Snapshot rebuilds and fingerprint checks of the services meanwhile (the cache's misses). */
  rebuilds?: number;
  checks?: number;
}

let heard = 0;

async function load(url: string, seconds: number, parties: Party[] = [], services: string[] = [], headers: Record<string, string> = HEADERS): Promise<Measured> {
  const counters0 = await Promise.all(services.map(cacheCounters));
  const before = parties.map((p) => p.cpu());
  const machine0 = machineSeconds();
  const procs0 = processes();
  const self0 = process.cpuUsage();
  const heard0 = heard;
  const started = performance.now();
  const r = await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds });
  const wall = (performance.now() - started) / 1000;
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const self = process.cpuUsage(self0);
  const machine1 = machineSeconds();
  const procs1 = processes();
  const cores: Record<string, number> = { autocannon: (self.user + self.system) / 1e6 / wall };
  parties.forEach((p, i) => {
    const b = before[i];
    const a = p.cpu();
    if (a !== null && b !== null && b !== undefined) cores[p.name] = (a - b) / wall;
  });
  if (machine0 !== null && machine1 !== null) {
    // Whatever else ran meanwhile: other work on the machine, the idle processes of the other configurations.
    const mine = Object.values(cores).reduce((a, b) => a + b, 0);
    cores.other = Math.max(0, (machine1.processes - machine0.processes) / wall - mine);
    cores.interrupts = (machine1.interrupts - machine0.interrupts) / wall;
    if (machine1.steal - machine0.steal > 0.01 * wall) cores.stolen = (machine1.steal - machine0.steal) / wall;
  }
  // The busiest processes that are neither this one nor a measured party (PostgreSQL's backends are a party's children).
  const partyPids = new Set([process.pid, ...parties.flatMap((p) => p.pids ?? [])]);
  const isParty = (pid: number) => {
    for (let q: number | undefined = pid, depth = 0; q !== undefined && q > 1 && depth < 10; depth++) {
      if (partyPids.has(q)) return true;
      try {
        const stat: string = readFileSync(`/proc/${q}/stat`, 'utf8');
        q = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      } catch {
        return false;
      }
    }
    return false;
  };
  const others = [...procs1]
    .map(([pid, p]) => ({ pid, name: p.name, cores: (p.cpu - (procs0.get(pid)?.cpu ?? 0)) / wall }))
    .filter((p) => p.cores >= 0.05 && !isParty(p.pid))
    .sort((a, b) => b.cores - a.cores)
    .slice(0, 3)
    .map((p) => `${p.name} ${p.pid} ${p.cores.toFixed(2)}`)
    .join(', ');
  const counters1 = await Promise.all(services.map(cacheCounters));
  const sum = (k: 'rebuilds' | 'checks') => counters1.reduce((n, c, i) => n + c[k] - counters0[i]![k], 0);
  return { rps: r.requests.total / seconds, p50: r.latency.p50, p99: r.latency.p99, cores, others, notifications: heard - heard0, rebuilds: sum('rebuilds'), checks: sum('checks') };
}

function line(label: string, m: Measured, extra = ''): string {
  const cores = Object.entries(m.cores)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');
  const notes =
    (m.others ? ` (other: ${m.others})` : '') + (m.notifications ? `; ${m.notifications} change notifications` : '') + (m.rebuilds || m.checks ? `; ${m.rebuilds} snapshot rebuilds, ${m.checks} checks` : '');
  return `  ${label.padEnd(40)} ${fmt(m.rps).padStart(7)} req/s   p50 ${String(m.p50).padStart(2)} ms   p99 ${String(m.p99).padStart(3)} ms${extra}   [cores: ${cores}${notes}]`;
}

export async function run(): Promise<Record<string, number>> {
  const stops: (() => Promise<void>)[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'resale-bench-al-'));
  let listener: pg.Client | null = null;
  try {
    const t0 = performance.now();
    // SQLite: the service as since issue 6.
    const sqlite = await startServer({ OPERATOR_TOKEN });
    stops.push(sqlite.stop);
    await setup(sqlite.base, { DATABASE_PATH: join(sqlite.dir, 'bench.sqlite') });
    const sqliteSetupS = (performance.now() - t0) / 1000;
    const real = await realAnswer(sqlite.base);

    // PostgreSQL: a server of its own, one database, two service processes on it.
    const t1 = performance.now();
    const postgres: BenchPostgres = await startPostgres();
    stops.push(postgres.stop);
    const url = await postgres.createDatabase('accesslayer');
    const env = { OPERATOR_TOKEN, TRUST_PROXY: 'loopback' };
    const pg1: PgService = await startPgService(url, env);
    stops.push(pg1.stop);
    await setup(pg1.base, { DATABASE_URL: url });
    const pg2: PgService = await startPgService(url, env);
    stops.push(pg2.stop);
    const pgSetupS = (performance.now() - t1) / 1000;
    const pgAnswer = await realAnswer(pg1.base);
    await realAnswer(pg2.base);
    listener = new pg.Client({ connectionString: url });
    await listener.connect();
    listener.on('notification', () => void heard++);
    await listener.query('LISTEN resale_changes');

    // The bare handler serves the SQLite service's answer, byte for byte, with its headers.
    const bodyFile = join(tmp, 'answer.json');
    writeFileSync(bodyFile, real.body);
    const bare = await startChild(['--bare', bodyFile, JSON.stringify(real.headers)]);
    stops.push(bare.stop);
    // The same with the service's Brotli answer and its headers (Content-Encoding: br).
    const realBr = await encodedAnswer(sqlite.base, 'br');
    const realGzip = await encodedAnswer(sqlite.base, 'gzip');
    const brFile = join(tmp, 'answer.json.br');
    writeFileSync(brFile, realBr.body);
    const bareBr = await startChild(['--bare', brFile, JSON.stringify(realBr.headers)]);
    stops.push(bareBr.stop);
    const proxyBare = await startChild(['--proxy', bare.url]);
    stops.push(proxyBare.stop);
    const proxyPg1 = await startChild(['--proxy', pg1.base]);
    stops.push(proxyPg1.stop);
    const proxyPg2 = await startChild(['--proxy', pg1.base, pg2.base]);
    stops.push(proxyPg2.stop);
    const tcpBare = await startChild(['--tcp-proxy', bare.url]);
    stops.push(tcpBare.stop);
    const tcpPg1 = await startChild(['--tcp-proxy', pg1.base]);
    stops.push(tcpPg1.stop);
    const tcpPg2 = await startChild(['--tcp-proxy', pg1.base, pg2.base]);
    stops.push(tcpPg2.stop);

    const pgCpu: Party = { name: 'postgres', cpu: () => treeCpuSeconds(postgres.pid()), pids: [postgres.pid()] };
    const party = (name: string, pid: number | undefined): Party => ({ name, cpu: () => cpuSeconds(pid), pids: [pid] });
    const brHeaders = { ...HEADERS, 'accept-encoding': 'br' };
    const configs: { key: string; label: string; url: string; parties: Party[]; services?: string[]; headers?: Record<string, string> }[] = [
      { key: 'bare', label: 'bare Hono, same bytes', url: bare.url + PATH, parties: [party('bare', bare.pid)] },
      { key: 'sqlite', label: 'SQLite, 1 process', url: sqlite.base + PATH, parties: [party('service', sqlite.pid)], services: [sqlite.base] },
      { key: 'bareBr', label: 'bare Hono, same br bytes', url: bareBr.url + PATH, parties: [party('bare', bareBr.pid)], headers: brHeaders },
      { key: 'sqliteBr', label: 'SQLite, 1 process, Accept-Encoding: br', url: sqlite.base + PATH, parties: [party('service', sqlite.pid)], services: [sqlite.base], headers: brHeaders },
      { key: 'pg1', label: 'PostgreSQL, 1 process', url: pg1.base + PATH, parties: [party('service', pg1.pid), pgCpu], services: [pg1.base] },
      { key: 'bareProxy', label: 'bare Hono behind the proxy', url: proxyBare.url + PATH, parties: [party('proxy', proxyBare.pid), party('bare', bare.pid)] },
      { key: 'pg1Proxy', label: 'PostgreSQL, 1 process behind the proxy', url: proxyPg1.url + PATH, parties: [party('proxy', proxyPg1.pid), party('service', pg1.pid), pgCpu], services: [pg1.base] },
      {
        key: 'pg2Proxy',
        label: 'PostgreSQL, 2 processes behind the proxy',
        url: proxyPg2.url + PATH,
        parties: [party('proxy', proxyPg2.pid), party('service 1', pg1.pid), party('service 2', pg2.pid), pgCpu],
        services: [pg1.base, pg2.base],
      },
      { key: 'bareTcp', label: 'bare Hono behind the TCP proxy', url: tcpBare.url + PATH, parties: [party('proxy', tcpBare.pid), party('bare', bare.pid)] },
      { key: 'pg1Tcp', label: 'PostgreSQL, 1 process, TCP proxy', url: tcpPg1.url + PATH, parties: [party('proxy', tcpPg1.pid), party('service', pg1.pid), pgCpu], services: [pg1.base] },
      {
        key: 'pg2Tcp',
        label: 'PostgreSQL, 2 processes, TCP proxy',
        url: tcpPg2.url + PATH,
        parties: [party('proxy', tcpPg2.pid), party('service 1', pg1.pid), party('service 2', pg2.pid), pgCpu],
        services: [pg1.base, pg2.base],
      },
    ];

    // Warm-up of every configuration (JIT, connections, caches), then the measured rounds.
    for (const c of configs) await load(c.url, 2, [], [], c.headers);
    const loadBefore = loadavg()[0]!;
    console.log(`accesslayer-buy: ${OPTIONS} ticket options, ${fmt(LISTINGS)} active listings, every component on (${fmt(real.body.length)}-byte answer on SQLite, ${fmt(pgAnswer.body.length)} on PostgreSQL; the bare handler serves SQLite's, with its headers ${Object.keys(real.headers).join(', ')}); setup ${sqliteSetupS.toFixed(1)} s SQLite, ${pgSetupS.toFixed(1)} s PostgreSQL`);
    console.log(`  bytes per answer: ${fmt(real.body.length)} identity, ${fmt(realBr.body.length)} br, ${fmt(realGzip.body.length)} gzip (the service keeps both compressed forms with its cached answer)`);
    console.log(`  autocannon: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds; load generator, proxy, services and PostgreSQL all on the same ${cpus().length}-core machine`);
    const rounds: Record<string, Measured>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const m: Record<string, Measured> = {};
      console.log(`  round ${r + 1}`);
      for (const c of configs) {
        m[c.key] = await load(c.url, SECONDS, c.parties, c.services, c.headers);
        console.log(line(c.label, m[c.key]!));
      }
      rounds.push(m);
      console.log(
        `    buy / bare: SQLite ${(m.sqlite!.rps / m.bare!.rps).toFixed(3)} (with br ${(m.sqliteBr!.rps / m.bareBr!.rps).toFixed(3)}), PostgreSQL ${(m.pg1!.rps / m.bare!.rps).toFixed(3)} (target >= 0.7);` +
          ` PostgreSQL 2 / 1 processes behind the proxy ${(m.pg2Proxy!.rps / m.pg1Proxy!.rps).toFixed(3)} (target >= 1.5);` +
          ` behind the proxy, buy / bare: 1 process ${(m.pg1Proxy!.rps / m.bareProxy!.rps).toFixed(3)}, 2 processes ${(m.pg2Proxy!.rps / m.bareProxy!.rps).toFixed(3)};` +
          ` TCP proxy: 2 / 1 processes ${(m.pg2Tcp!.rps / m.pg1Tcp!.rps).toFixed(3)}, buy / bare 1 process ${(m.pg1Tcp!.rps / m.bareTcp!.rps).toFixed(3)}, 2 processes ${(m.pg2Tcp!.rps / m.bareTcp!.rps).toFixed(3)}`,
      );
    }
    const mean = (f: (m: Record<string, Measured>) => number) => rounds.reduce((s, m) => s + f(m), 0) / rounds.length;
    const result = {
      sqliteRequestsPerSecond: mean((m) => m.sqlite!.rps),
      sqliteBrRequestsPerSecond: mean((m) => m.sqliteBr!.rps),
      bareBrRequestsPerSecond: mean((m) => m.bareBr!.rps),
      sqliteBrRatio: mean((m) => m.sqliteBr!.rps / m.bareBr!.rps),
      bytesIdentity: real.body.length,
      bytesBr: realBr.body.length,
      bytesGzip: realGzip.body.length,
      pg1RequestsPerSecond: mean((m) => m.pg1!.rps),
      pg2ProxyRequestsPerSecond: mean((m) => m.pg2Proxy!.rps),
      bareRequestsPerSecond: mean((m) => m.bare!.rps),
      sqliteRatio: mean((m) => m.sqlite!.rps / m.bare!.rps),
      pgRatio: mean((m) => m.pg1!.rps / m.bare!.rps),
      pgScaling: mean((m) => m.pg2Proxy!.rps / m.pg1Proxy!.rps),
      proxyCeiling: mean((m) => m.pg2Proxy!.rps / m.bareProxy!.rps),
      pgScalingTcp: mean((m) => m.pg2Tcp!.rps / m.pg1Tcp!.rps),
      tcpCeiling: mean((m) => m.pg2Tcp!.rps / m.bareTcp!.rps),
    };
    console.log(`  mean of ${ROUNDS} rounds (1-min load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after)`);
    console.log(`    ratio buy / bare, SQLite, 1 process          ${result.sqliteRatio.toFixed(3)}   (target >= 0.7)`);
    console.log(`    ratio buy / bare, PostgreSQL, 1 process      ${result.pgRatio.toFixed(3)}   (target >= 0.7)`);
    console.log(`    SQLite with Accept-Encoding: br              ${fmt(result.sqliteBrRequestsPerSecond)} req/s (${fmt(result.sqliteRequestsPerSecond)} identity), ${result.sqliteBrRatio.toFixed(3)} of the bare handler's br; ${fmt(result.bytesBr)} bytes per answer instead of ${fmt(result.bytesIdentity)}`);
    console.log(`    ratio 2 / 1 processes, PostgreSQL, proxied   ${result.pgScaling.toFixed(3)}   (target >= 1.5; the bare handler behind the same proxy bounds it: 2 processes reach ${result.proxyCeiling.toFixed(3)} of it)`);
    console.log(`    … behind the TCP proxy instead               ${result.pgScalingTcp.toFixed(3)}   (2 processes reach ${result.tcpCeiling.toFixed(3)} of the bare handler behind it)`);
    return result;
  } finally {
    await listener?.end().catch(() => undefined);
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.error('stop:', err));
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--bare') {
  // The bare handler: the same bytes and headers as the service's answer, from a file.
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const { freePort } = await import('@resale/server/testing');
  const body = new Uint8Array(readFileSync(process.argv[3]!));
  const headers = JSON.parse(process.argv[4]!) as Record<string, string>;
  const app = new Hono();
  app.get('*', (c) => c.body(body, 200, headers));
  const port = await freePort();
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log(`http://127.0.0.1:${port}`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
} else if (process.argv[2] === '--proxy') {
  // The round-robin proxy in a process of its own (in the load generator's, they would share a core).
  const { roundRobinProxy } = await import('@resale/server/testing');
  const proxy = await roundRobinProxy(process.argv.slice(3));
  console.log(proxy.url);
  process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--tcp-proxy') {
  // The connection-level proxy (round-robin-proxy.ts): the same balancing without parsing HTTP.
  const { roundRobinTcpProxy } = await import('@resale/server/testing');
  const proxy = await roundRobinTcpProxy(process.argv.slice(3));
  console.log(proxy.url);
  process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--seed-listings') {
  await seedListings();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await run();
}
