/**
 * A PostgreSQL server for the benchmarks, started by the benchmark itself with the starter the
 * `server-pg` tests use (packages/server/src/testing/embedded-postgres.ts).
 *
 * Unlike the tests' server it keeps PostgreSQL's durable defaults (fsync, full page writes):
 * the service asks `synchronous_commit = on` for every connection (db/postgres.ts), and a
 * benchmark of a server that never flushes would flatter every commit. `fast: true` turns
 * flushing off, as the tests do, for comparisons that want the CPU cost alone.
 *
 * Everything here speaks raw SQL through `pg`: the benchmark process runs on SQLite
 * (db/engine.ts decides once per process, from DATABASE_URL), so code that needs the
 * service's PostgreSQL tables runs in the service's processes (or a child with DATABASE_URL).
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { migrateWithLock, POSTGRES_MIGRATIONS_FOLDER } from '@resale/server/bench';
import { freePort, spawnService, startEmbeddedPostgres } from '@resale/server/testing';
import { benchServiceEnv } from './lib.js';

export interface BenchPostgres {
  /** `postgres://postgres:…@127.0.0.1:<port>/postgres` (the admin database). */
  url: string;
  /** The server's data directory's parent (readable by the server's user: files for server-side COPY can go here). */
  dir: string;
  /** The PID of the postmaster (its backends are its children), for CPU accounting. */
  pid(): number | undefined;
  /** A fresh database, migrated with the service's PostgreSQL migrations unless `migrate: false`; answers its URL. */
  createDatabase(name: string, opts?: { migrate?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a PostgreSQL server (see the file's comment). */
export async function startPostgres(opts: { fast?: boolean; flags?: string[] } = {}): Promise<BenchPostgres> {
  const server = await startEmbeddedPostgres({ ...opts, prefix: 'resale-bench-pg-' });
  const url = server.url;
  const urlOf = (database: string) => {
    const u = new URL(url);
    u.pathname = `/${database}`;
    return u.toString();
  };
  return {
    url,
    dir: server.dir,
    pid: server.pid,
    async createDatabase(name, { migrate = true } = {}) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.end();
      }
      if (migrate) {
        const pool = new pg.Pool({ connectionString: urlOf(name), max: 1 });
        try {
          await migrateWithLock(pool, POSTGRES_MIGRATIONS_FOLDER);
        } finally {
          await pool.end();
        }
      }
      return urlOf(name);
    },
    stop: server.stop,
  };
}

/**
 * `COPY … FROM STDIN` through a `pg` client without another dependency: a query object the
 * client submits (the protocol `pg-copy-streams` implements), which sends `data` as CopyData
 * messages in chunks once the server asks for it. Answers the rows the server copied.
 *
 * @example await copyFrom(client, 'COPY t (a, b) FROM STDIN', Buffer.from('1\tx\n2\ty\n'));
 */
export function copyFrom(client: pg.Client | pg.PoolClient, text: string, data: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let failed: Error | null = null;
    const CHUNK = 64 * 1024;
    type Connection = { query(text: string): void; sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void; sendCopyFail(msg: string): void };
    const submittable = {
      submit(connection: Connection) {
        connection.query(text);
      },
      handleCopyInResponse(connection: Connection) {
        for (let i = 0; i < data.length; i += CHUNK) connection.sendCopyFromChunk(data.subarray(i, i + CHUNK));
        connection.endCopyFrom();
      },
      handleCommandComplete(msg: { text?: string; command?: string; rowCount?: number }) {
        rows = msg.rowCount ?? Number(/\d+$/.exec(msg.text ?? '')?.[0] ?? 0);
      },
      handleError(err: Error) {
        failed = err;
      },
      handleReadyForQuery() {
        if (failed) reject(failed);
        else resolve(rows);
      },
      // Unused by COPY FROM, but the client may call them.
      handleRowDescription() {},
      handleDataRow() {},
      handleEmptyQuery() {},
      handleCopyData() {},
      handlePortalSuspended() {},
    };
    (client as unknown as { query(q: unknown): void }).query(submittable);
  });
}

/** A value in COPY's text format (`\N` for null; backslash, tab, newline and carriage return escaped). */
export function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  const s = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** A service process (src/main.ts) on PostgreSQL, started by {@link startPgService}. */
export interface PgService {
  base: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts the real service (src/main.ts, `spawnService` of the server's testing helpers) in its
 * own process on the PostgreSQL database at `databaseUrl`, with the benchmarks' settings (as
 * `startServer` in bench/lib.ts for SQLite: production mode, errors only in the log, no API
 * rate limit, the bench keys), and waits until `/readyz` answers 200. Behind a proxy, pass
 * `TRUST_PROXY: 'loopback'`.
 */
export async function startPgService(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<PgService> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // At error level no 'resale listening' is logged: /readyz says when it serves.
  const svc = spawnService({ ...benchServiceEnv(port), DATABASE_URL: databaseUrl, PUBLIC_BASE_URL: base, ...extraEnv });
  let exited = false;
  void svc.exited.then(() => (exited = true));
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`the service on PostgreSQL exited at start: ${svc.stderr()} ${svc.lines.map((l) => JSON.stringify(l)).join('\n')}`);
    if (i > 600) throw new Error(`the service on PostgreSQL did not become ready in 60 s: ${svc.stderr()}`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: svc.child.pid, stop: async () => void (await svc.stop()) };
}

/** CPU seconds used so far by `pid` and every process descending from it, ended ones included (a PostgreSQL server and its backends); null without /proc. */
export function treeCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stats = new Map<number, { ppid: number; cpu: number }>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // utime + stime, and cutime + cstime: the children it reaped (a backend that ended
        // meanwhile still counts, in its parent's), so the total never goes back.
        stats.set(Number(name), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100 });
      } catch {
        /* gone meanwhile */
      }
    }
    let total = 0;
    for (const [p, s] of stats) {
      for (let q: number | undefined = p, depth = 0; q !== undefined && q > 1 && depth < 10; q = stats.get(q)?.ppid, depth++) {
        if (q === pid) {
          total += s.cpu;
          break;
        }
      }
    }
    return total;
  } catch {
    return null;
  }
}
