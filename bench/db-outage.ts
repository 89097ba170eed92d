/**
 * How long a service process takes to serve again after PostgreSQL returns from an outage
 * (the operating guide quotes it), and how soon it says it is not ready once the server is
 * gone. One service process (`start` from main.ts, in a child whose engine is PostgreSQL) on a
 * PostgreSQL server of its own; each round stops the server (a fast shutdown: every
 * connection is cut), checks the answers meanwhile, starts the server again and measures from
 * the moment it accepts connections until the first request answers from the database.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib.js';

const ROUNDS = 5;

export async function run(): Promise<Record<string, number>> {
  // The engine is chosen from DATABASE_URL when the server's modules load: a postgres:// URL
  // (the real one is the child's own server, started there).
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child'], { cwd: ROOT, env: { ...process.env, DATABASE_URL: 'postgres://engine@localhost/choice' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c) => (out += String(c)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`db-outage bench child exited with ${code}`);
  const figures = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
  console.log(`db-outage: one process, PostgreSQL stopped and started again ${ROUNDS} times`);
  console.log(`  readiness 503 after the stop        ${figures.notReadyMs!.toFixed(1)} ms (first probe; the answers meanwhile: 503 database_unavailable)`);
  console.log(`  serving again after the server is back  median ${figures.backMedianMs!.toFixed(0)} ms, worst ${figures.backWorstMs!.toFixed(0)} ms`);
  return figures;
}

async function child(): Promise<void> {
  const { startEmbeddedPostgres } = await import('@resale/server/testing');
  const { start } = await import('@resale/server/start');
  const server = await startEmbeddedPostgres({ prefix: 'resale-bench-outage-' });
  const key = 'sk_bench_outage_private_key_000000000';
  const service = await start({
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: 'http://127.0.0.1',
    DATABASE_URL: server.url,
    SECRET_KEY: 'bench-outage-secret-key-0000000000000',
    LOG_LEVEL: 'silent',
    SANDBOX_PRIVATE_KEY: key,
    SANDBOX_PUBLIC_KEY: 'pk_bench_outage_public_key_0000000000',
    SANDBOX_CHANNELS_KEY: 'sk_ch_bench_outage_channels_key_00000',
  });
  const base = `http://127.0.0.1:${service.port}`;
  const status = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: key } })).status;
  const notReady: number[] = [];
  const back: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      if ((await status('/v1/events/nope')) !== 404) throw new Error('not serving before the outage');
      await server.halt();
      let t = performance.now();
      if ((await status('/readyz')) !== 503) throw new Error('ready during the outage');
      notReady.push(performance.now() - t);
      if ((await status('/v1/events/nope')) !== 503) throw new Error('no 503 during the outage');
      await server.resume();
      t = performance.now();
      while ((await status('/v1/events/nope')) !== 404) {
        if (performance.now() - t > 30_000) throw new Error('not back within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      back.push(performance.now() - t);
    }
  } finally {
    await service.stop();
    await server.stop();
  }
  back.sort((a, b) => a - b);
  console.log(JSON.stringify({ notReadyMs: notReady.reduce((a, b) => a + b, 0) / notReady.length, backMedianMs: back[Math.floor(back.length / 2)], backWorstMs: back[back.length - 1], backMs: back }));
}

if (process.argv.includes('--child')) await child();
else if (import.meta.url === `file://${process.argv[1]}`) await run();
