/**
 * The cost of the change notification every write transaction sends on PostgreSQL
 * (db/postgres.ts, `withHandles`: `select pg_notify('resale_changes', <process id>)` before
 * `COMMIT`, so the other processes' caches hear of the commit). Small write transactions
 * (one single-row insert, as a claim or a state change is) run straight through `pg`, as the
 * service's pool runs them (BEGIN, the statement, [the notify], COMMIT: one round trip each),
 * with and without the notify, on a server the benchmark starts (bench/postgres.ts, durable
 * defaults), with two listening connections as two service processes would have.
 *
 * Four ways, each without the notify, with it (as today) and with it sent after COMMIT instead
 * (a remedy to weigh: see `Notify`), in rotating blocks so all see the same machine: one
 * client after the other (the latency each transaction pays) and 8 clients at once (what the
 * server can commit together), each with `synchronous_commit = on` (the
 * service's setting: the commit waits for its WAL flush) and `off` (no flush wait: the CPU
 * and locking cost alone). PostgreSQL queues a transaction's notifications at commit under
 * one lock for the whole cluster (held until the commit is done, flush included), so
 * notifying transactions commit one at a time: the concurrent durable case is where it shows.
 *
 * Each figure is wall time per transaction, the median of 8 blocks (see BLOCKS).
 *
 * Env: BENCH_NOTIFY_TX (4000 per variant and way), BENCH_NOTIFY_CLIENTS (8).
 */
import pg from 'pg';
import { fmt } from './lib.js';
import { startPostgres } from './postgres.js';

const N = Number(process.env.BENCH_NOTIFY_TX ?? 4_000);
const CLIENTS = Number(process.env.BENCH_NOTIFY_CLIENTS ?? 8);
/** Blocks per variant (each N / BLOCKS transactions); the figure is the median block's. */
const BLOCKS = 8;
const CHANNEL = 'resale_changes';
/** What the service sends: its change feed's id (a UUID). */
const PAYLOAD = '9b2f4c1e-6a53-4d1a-9a0e-3c5f7e2d8b41';

/**
 * Where the notify goes: nowhere; in the transaction before COMMIT (what `transact` does); or
 * after COMMIT, as a statement of its own (a transaction with no write: no WAL to flush while
 * it holds the notify lock; but a process that dies between the two never notifies).
 */
type Notify = 'none' | 'in' | 'after';

/** One small write transaction, as `transact` runs it: BEGIN, one insert, the notify or not, COMMIT. */
async function transaction(client: pg.Client, notify: Notify, i: number, payload: string): Promise<void> {
  await client.query('BEGIN');
  await client.query({ name: 'ins', text: 'insert into bench_writes (v, n, at) values ($1, $2, $3)', values: [`row-${i}`, i, Date.now()] });
  if (notify === 'in') await client.query({ name: 'notify', text: 'select pg_notify($1, $2)', values: [CHANNEL, payload] });
  await client.query('COMMIT');
  if (notify === 'after') await client.query({ name: 'notify', text: 'select pg_notify($1, $2)', values: [CHANNEL, payload] });
}

export async function run(): Promise<Record<string, number>> {
  const postgres = await startPostgres();
  const clients: pg.Client[] = [];
  try {
    const url = await postgres.createDatabase('notify', { migrate: false });
    const connect = async (syncCommit: 'on' | 'off') => {
      const c = new pg.Client({ connectionString: url, options: `-c synchronous_commit=${syncCommit}` });
      await c.connect();
      clients.push(c);
      return c;
    };
    const admin = await connect('on');
    await admin.query('create table bench_writes (id bigint generated always as identity primary key, v text not null, n integer not null, at bigint not null)');
    // Two listeners, as two service processes (each LISTENs on a connection of its own).
    let heard = 0;
    for (let l = 0; l < 2; l++) {
      const listener = await connect('on');
      listener.on('notification', () => void heard++);
      await listener.query(`LISTEN ${CHANNEL}`);
    }
    const results: Record<string, number> = {};
    console.log(`pg-notify: small write transactions (BEGIN, one single-row insert, [select pg_notify(...)], COMMIT) through pg, µs per transaction (wall time / transactions); 2 listeners; PostgreSQL 17, durable defaults`);
    for (const sync of ['on', 'off'] as const) {
      const workers = await Promise.all(Array.from({ length: CLIENTS }, () => connect(sync)));
      // Warm-up: prepared statements, buffers.
      for (const w of workers) for (let i = 0; i < 50; i++) await transaction(w, (['none', 'in', 'after'] as const)[i % 3]!, i, 'warm');
      for (const concurrent of [false, true]) {
        const blocks: Record<Notify, number[]> = { none: [], in: [], after: [] };
        const heard0 = heard;
        // Rotating blocks, so each variant sees the same machine: none, in, after, after, in, none, …
        const order: Notify[] = ['none', 'in', 'after', 'after', 'in', 'none'];
        for (let b = 0; b < BLOCKS * 3; b++) {
          const notify = order[b % order.length]!;
          const n = N / BLOCKS;
          const t0 = performance.now();
          if (concurrent) {
            await Promise.all(
              workers.map(async (w, k) => {
                for (let i = k; i < n; i += workers.length) await transaction(w, notify, i, PAYLOAD);
              }),
            );
          } else {
            for (let i = 0; i < n; i++) await transaction(workers[0]!, notify, i, PAYLOAD);
          }
          blocks[notify].push(((performance.now() - t0) * 1000) / n);
        }
        // Notifications reach the listeners asynchronously: wait for the last ones.
        for (let w = 0; w < 50 && heard - heard0 < 4 * N; w++) await new Promise((r) => setTimeout(r, 20));
        // The median block: a block disturbed by other work on the machine (or a slow disk flush) does not skew it.
        const us = (k: Notify) => blocks[k].sort((a, b) => a - b)[Math.floor(blocks[k].length / 2)]!;
        const way = concurrent ? `${CLIENTS} clients at once` : '1 client';
        const key = `${concurrent ? 'concurrent' : 'serial'}_sync_${sync}`;
        results[`${key}_without_us`] = us('none');
        results[`${key}_with_us`] = us('in');
        results[`${key}_after_commit_us`] = us('after');
        const show = (k: Notify) => `${us(k).toFixed(1).padStart(6)} µs/tx (${fmt(1e6 / us(k)).padStart(6)} tx/s)`;
        console.log(
          `  synchronous_commit=${sync.padEnd(3)} ${way.padEnd(18)} without ${show('none')}   with (as today) ${show('in')} +${(us('in') - us('none')).toFixed(1)} µs ×${(us('in') / us('none')).toFixed(2)}   after COMMIT ${show('after')} ×${(us('after') / us('none')).toFixed(2)}` +
            `   (${fmt(N)} each; listeners heard ${fmt(heard - heard0)} of ${fmt(4 * N)})`,
        );
      }
    }
    return results;
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await postgres.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
