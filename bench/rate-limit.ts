/**
 * The cost of a rate-limit check (issue 17): the in-memory sliding window one process keeps
 * (SQLite) beside the shared one of a PostgreSQL deployment (`DatabaseRateLimiter`, one
 * conditional upsert of the key's per-second counts into the UNLOGGED `rate_limits` table per
 * check), in the same run:
 * - one check at a time (the latency a request pays);
 * - 64 checks in flight over one key (a partner's limit: every request of the partner updates
 *   the same row, the worst case) and over distinct keys (the hosted pages' per-address limits).
 *
 * The PostgreSQL part runs in a child process started with DATABASE_URL (the engine is chosen
 * once per process, db/engine.ts).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, ROOT } from './lib.js';
import { startPostgres } from './postgres.js';

const SECONDS = 3;

export async function run(): Promise<Record<string, number>> {
  const server = await startPostgres();
  try {
    const url = await server.createDatabase('ratelimit');
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += String(c)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`rate-limit bench child exited with ${code}`);
    const figures = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
    console.log('rate-limit: one check per request, in-memory (one process) vs shared in PostgreSQL');
    console.log(`  memory, one at a time            ${fmt(figures.memoryPerS!)} checks/s   ${figures.memoryUs!.toFixed(2)} µs each`);
    console.log(`  PostgreSQL, one at a time        ${fmt(figures.pgSerialPerS!)} checks/s   ${figures.pgSerialUs!.toFixed(0)} µs each (one round trip)`);
    console.log(`  PostgreSQL, 64 in flight, 1 key  ${fmt(figures.pgHotPerS!)} checks/s   (one partner's limit: one row)`);
    console.log(`  PostgreSQL, 64 in flight, keys   ${fmt(figures.pgSpreadPerS!)} checks/s   (per-address limits: many rows)`);
    return figures;
  } finally {
    await server.stop();
  }
}

/** In the child: DATABASE_URL is set, so the service's modules are built for PostgreSQL. */
async function child(): Promise<void> {
  const { openDb, closeDb, DatabaseRateLimiter, MemoryRateLimiter, systemClock } = await import('@resale/server/bench');
  const db = await openDb({ url: process.env.DATABASE_URL!, path: '' }, { migrate: false, poolSize: 16 });
  const LIMIT = 1e9; // never refused: what is measured is the check itself
  const timed = async (fn: () => Promise<void>, inFlight: number): Promise<number> => {
    let n = 0;
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < until) {
          await fn();
          n++;
        }
      }),
    );
    return n / SECONDS;
  };
  const memory = new MemoryRateLimiter(systemClock);
  let k = 0;
  const memoryPerS = await timed(() => memory.take(`page:${k++ % 1000}`, LIMIT), 1);
  const shared = new DatabaseRateLimiter({ db, clock: systemClock });
  await timed(() => shared.take('warm', LIMIT), 4);
  const pgSerialPerS = await timed(() => shared.take('api:partner', LIMIT), 1);
  const pgHotPerS = await timed(() => shared.take('api:partner', LIMIT), 64);
  const pgSpreadPerS = await timed(() => shared.take(`page:${k++ % 10_000}`, LIMIT), 64);
  await closeDb(db);
  console.log(JSON.stringify({ memoryPerS, memoryUs: 1e6 / memoryPerS, pgSerialPerS, pgSerialUs: 1e6 / pgSerialPerS, pgHotPerS, pgSpreadPerS }));
}

if (process.argv.includes('--child')) await child();
else if (import.meta.url === `file://${process.argv[1]}`) await run();
