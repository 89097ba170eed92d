import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildDeps, systemClock, type AppDeps, type Db } from '@resale/server/bench';
import { freePort, SERVICE_MAIN } from '@resale/server/testing';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const KEYS = {
  private: 'sk_bench_private_key_000000000000',
  public: 'pk_bench_public_key_0000000000000',
  channels: 'sk_ch_bench_channels_key_00000000',
};

/**
 * Starts the real service (main.ts) in its own process on a fresh file database, so the
 * load generator and the server each have a core, as in production.
 */
/**
 * The environment of a service process under benchmark (either engine; add DATABASE_PATH or
 * DATABASE_URL): production mode, the sandbox partner's keys, no rate limit, large bodies, and
 * a log at error (request lines are info: at error, the log costs nothing under load).
 */
export function benchServiceEnv(port: number): Record<string, string> {
  return {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    SECRET_KEY: 'bench-secret-key-0000000000000000000000',
    // The benchmarks stop the service with SIGTERM: no grace period to wait out.
    SHUTDOWN_GRACE_SECONDS: '0',
    LOG_LEVEL: 'error',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_BODY_BYTES: String(20 * 1024 * 1024),
    SANDBOX_PRIVATE_KEY: KEYS.private,
    SANDBOX_PUBLIC_KEY: KEYS.public,
    SANDBOX_CHANNELS_KEY: KEYS.channels,
  };
}

export async function startServer(extraEnv: Record<string, string> = {}): Promise<{ base: string; dir: string; pid: number | undefined; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-bench-'));
  // A port the system says is free: a random one may be the local port of a connection a burst left behind.
  const port = await freePort();
  // BENCH_CPU_PROF=<dir> writes a CPU profile of the server process there.
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...prof, '--import', 'tsx', SERVICE_MAIN], {
    cwd: ROOT,
    env: { ...process.env, ...benchServiceEnv(port), DATABASE_PATH: join(dir, 'bench.sqlite'), ...extraEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`${base}/v1/openapi.json`);
      if (res.ok) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    dir,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: KEYS.private, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { status: number; data: unknown; errors: unknown };
  if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(json.errors)}`);
  return json.data;
}

/** CPU seconds (user + system, all threads) a process has used so far; null where /proc is missing. */
export function cpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name: state is 3rd, utime 14th, stime 15th (in clock ticks, 100 per second on Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

export function fmt(n: number): string {
  return Math.round(n).toLocaleString('en');
}

/** The services over `db` as the in-process benchmarks build them (no HTTP, no limits, silent). */
export function benchDeps(db: Db): AppDeps {
  return buildDeps({
    db,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secretKey: 'bench-secret-key-0000000000000000000000',
    config: { env: 'production', publicBaseUrl: 'http://bench.local', operatorToken: null, maxBodyBytes: 1 << 24, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'bench <bench@bench.local>' },
  });
}

/** The event the ticket benchmarks ingest into (POST /v1/events): show-1 with two options. */
export const BENCH_TOUR_EVENT = {
  externalReferenceId: 'bench-tour',
  title: 'Bench tour',
  description: 'benchmark',
  location: { city: 'Madrid' },
  configuration: {},
  shows: [
    {
      showId: 'show-1',
      title: 'Night',
      date: '2027-05-01T21:00:00+02:00',
      images: [],
      configuration: {},
      ticketOptions: [
        { ticketId: 'opt-field', title: 'Field', description: 'f', currency: 'EUR', price: 45.5 },
        { ticketId: 'opt-vip', title: 'VIP', description: 'v', currency: 'EUR', price: 120 },
      ],
    },
  ],
};

/** A child process serving something on loopback, as {@link startUrlChild} starts it. */
export interface UrlChild {
  url: string;
  pid: number | undefined;
  stop: () => Promise<void>;
}

/**
 * Runs `script` (a benchmark's own file, with a mode flag such as `--bare`) in a child process
 * under tsx, and resolves with the URL it prints as its first line. The benchmarks' bare
 * handlers and proxies run so: in the load generator's process they would share its core.
 *
 * @example const bare = await startUrlChild(SELF, ['--bare', bodyFile]); … await bare.stop();
 */
export async function startUrlChild(script: string, args: string[]): Promise<UrlChild> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl).trim());
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before listening`)));
  });
  child.stdout!.resume();
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

/** SIGTERM, and the exit awaited (nothing when it has exited already). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
