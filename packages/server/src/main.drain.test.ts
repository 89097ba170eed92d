import { execFile, type ChildProcess } from 'node:child_process';
import { spawnService as spawnProcess } from './testing/service-process.js';
import { request as httpRequest } from 'node:http';
import { connect, Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { AppDeps } from './context.js';
import { startJobs } from './jobs/scheduler.js';
import type { Job } from './jobs/job.js';
import { start, type Service } from './main.js';
import { runMigrations } from './migrate.js';
import { readJournal } from './http/api/health.readiness.js';
import { closeDb, MIGRATIONS_FOLDER, openDb } from './db/client.js';
import { eventBody } from './testing/factories.js';
import { locationOf, serviceDatabaseEnv, whereOf, type ServiceDatabase } from './testing/harness.js';
import { sqlRows } from './testing/sql.js';
import { tempDir } from './testing/temp-dir.js';

/**
 * The shutdown (docs/operating.md, "Health, readiness and shutdown"): readiness during a drain,
 * the scheduler's stop, the real SIGTERM/SIGINT of a child process, and `npm run migrate` with
 * `MIGRATE_ON_START=false`. Real time only where it is the subject (the grace and timeout of a
 * real process, kept to a second or two); no sleeps: the tests wait for log lines and events.
 */

const SERVER = fileURLToPath(new URL('..', import.meta.url));
const PRIVATE_KEY = 'sk_drain_test_private_000000';
const JOURNAL = readJournal(MIGRATIONS_FOLDER);

/** A service's variables over `database` (a SQLite file, or a PostgreSQL database: serviceDatabaseEnv). */
function baseEnv(database: ServiceDatabase): Record<string, string> {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...database,
    SECRET_KEY: 'drain-test-secret-key-00000000000000',
    LOG_LEVEL: 'silent',
    SANDBOX_PRIVATE_KEY: PRIVATE_KEY,
    SANDBOX_PUBLIC_KEY: 'pk_drain_test_public_0000000',
    SANDBOX_CHANNELS_KEY: 'sk_ch_drain_test_channels_00',
  };
}

/** A new database of the test process's engine: a SQLite file in a directory of its own, or a PostgreSQL database. */
const freshDatabase = async (prefix: string) => await serviceDatabaseEnv(join(tempDir(prefix), 'db.sqlite'));

/** The rows of `query` in `database`, opened for the read and closed (the service that wrote them has stopped). */
async function rowsIn(database: ServiceDatabase, query: string): Promise<Record<string, unknown>[]> {
  const db = await openDb(locationOf(database), { migrate: false, poolSize: 1 });
  try {
    return await sqlRows(db, query);
  } finally {
    await closeDb(db);
  }
}

const running: Service[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A GET on a connection of its own (no pooled keep-alive socket), answered or refused. */
function get(port: number, path: string): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += String(chunk)));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('readiness during a drain (in process)', () => {
  it('turns 503 at once while the server still accepts during the grace; liveness stays 200', async () => {
    const service = await start({ ...baseEnv(await freshDatabase('resale-drain')), SHUTDOWN_GRACE_SECONDS: '30', SHUTDOWN_TIMEOUT_SECONDS: '60' });
    expect((await get(service.port, '/readyz')).status).toBe(200);
    const drained = service.drain();
    const ready = await get(service.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 503, data: null, errors: [{ code: 'not_ready', message: 'Not ready: the service is shutting down' }] });
    expect((await get(service.port, '/healthz')).status).toBe(200);
    // The API still serves during the grace (a balancer may still route here).
    expect((await get(service.port, '/v1/openapi.json')).status).toBe(200);
    service.cutShort('test');
    expect(await drained).toEqual({ timedOut: true });
    await expect(get(service.port, '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(service.drain()).toBe(drained);
  });
});

describe('the listening socket (in process)', () => {
  it('listens with LISTEN_BACKLOG (4,096 unless set), so a rush of new connections queues instead of being dropped', async () => {
    const listen = vi.spyOn(Server.prototype, 'listen');
    try {
      for (const [set, backlog] of [[undefined, 4096], ['10000', 10_000]] as const) {
        listen.mockClear();
        const service = await start({ ...baseEnv(await freshDatabase('resale-backlog')), ...(set ? { LISTEN_BACKLOG: set } : {}), SHUTDOWN_GRACE_SECONDS: '0' });
        expect(listen.mock.calls.map((c) => c[0])).toContainEqual(expect.objectContaining({ backlog, host: '127.0.0.1' }));
        expect((await get(service.port, '/healthz')).status).toBe(200);
        await service.drain();
      }
    } finally {
      listen.mockRestore();
    }
  });
});

describe('the scheduler on stop', () => {
  function deferred() {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }
  const deps = { logger: pino({ level: 'silent' }) } as unknown as AppDeps;

  it('starts no job any more and resolves once the job in hand has finished', async () => {
    vi.useFakeTimers();
    try {
      const gate = deferred();
      let started = 0;
      let finished = 0;
      const slow: Job = {
        name: 'slow',
        everyMs: 1000,
        run: async () => {
          started++;
          await gate.promise;
          finished++;
        },
      };
      let quickRuns = 0;
      const quick: Job = { name: 'quick', everyMs: 1000, run: () => void quickRuns++ };
      const failing: Job = {
        name: 'failing',
        everyMs: 1000,
        run: () => {
          throw new Error('boom');
        },
      };
      const jobs = startJobs(deps, [slow, quick, failing]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(started).toBe(1);
      expect(jobs.running()).toEqual(['slow']);
      let stopped = false;
      const stopping = jobs.stop().then(() => (stopped = true));
      await vi.advanceTimersByTimeAsync(5000);
      // Nothing new started after stop; the job in hand is awaited.
      expect({ started, quickRuns, stopped }).toEqual({ started: 1, quickRuns: 1, stopped: false });
      gate.resolve();
      await stopping;
      expect({ finished, stopped }).toEqual({ finished: 1, stopped: true });
      expect(jobs.running()).toEqual([]);
      await jobs.stop();
    } finally {
      vi.useRealTimers();
    }
  });
});

/** A service in a child process (testing/service-process.ts), killed after the test if still running. */
function spawnService(env: Record<string, string>) {
  const svc = spawnProcess({ ...env, LOG_LEVEL: 'info' });
  children.push(svc.child);
  return svc;
}

/** Sends a POST's headers with `Expect: 100-continue` and resolves once the server has taken the request in; `finish` sends the body. */
async function slowPost(port: number, path: string, body: string): Promise<{ finish: () => void; answer: Promise<string>; socket: Socket }> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
  await new Promise((r) => socket.once('connect', r));
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: resale.test\r\nAuthorization: ${PRIVATE_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
  );
  // The server answers 100 Continue once it has the request (its handler is running, waiting for the body).
  await new Promise<void>((resolve) => {
    const onData = () => {
      if (received.startsWith('HTTP/1.1 100')) {
        socket.off('data', onData);
        received = '';
        resolve();
      }
    };
    socket.on('data', onData);
  });
  return { finish: () => socket.write(body), answer, socket };
}

describe('SIGTERM and SIGINT (a real child process)', () => {
  it('drains: readiness 503 at once, accepts during the grace, then refuses; the slow request in flight completes with 200; exit 0', async () => {
    const database = await freshDatabase('resale-drain');
    const svc = spawnService({ ...baseEnv(database), SHUTDOWN_GRACE_SECONDS: '2', SHUTDOWN_TIMEOUT_SECONDS: '20' });
    const port = (await svc.log('resale listening')).port as number;
    expect((await get(port, '/readyz')).status).toBe(200);

    const slow = await slowPost(port, '/v1/events', JSON.stringify(eventBody('drain-tour')));
    svc.child.kill('SIGTERM');
    const shutting = await svc.log('shutting down');
    expect(shutting).toMatchObject({ signal: 'SIGTERM', graceSeconds: 2, timeoutSeconds: 20, inFlight: 1 });

    // During the grace: new connections are still accepted, and readiness says 503.
    const ready = await get(port, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.errors[0].message).toBe('Not ready: the service is shutting down');
    expect((await get(port, '/healthz')).status).toBe(200);

    // After the grace: refused.
    expect(await svc.log('no longer accepting connections')).toMatchObject({ inFlight: 1 });
    await expect(get(port, '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    // The request in flight finishes, and its connection is closed after it.
    slow.finish();
    const answer = await slow.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"externalReferenceId":"drain-tour"');

    expect(await svc.exited).toBe(0);
    expect(svc.lines.find((l) => l.msg === 'stopped')).toMatchObject({ timedOut: false });
    // The ingestion thread (SQLite) was stopped on purpose (no "stopped; the queue is drained in-process" error).
    expect(svc.lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(svc.stderr()).toBe('');

    // What the request wrote was committed before the database closed.
    expect(await rowsIn(database, "select count(*) as n from events where external_reference_id = 'drain-tour'")).toEqual([{ n: 1 }]);
  }, 30_000);

  it('SIGINT past SHUTDOWN_TIMEOUT_SECONDS: cuts the request still in flight, writes nothing of it, and exits 0', async () => {
    const database = await freshDatabase('resale-drain');
    const svc = spawnService({ ...baseEnv(database), SHUTDOWN_GRACE_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const port = (await svc.log('resale listening')).port as number;
    const slow = await slowPost(port, '/v1/events', JSON.stringify(eventBody('never-finished')));
    svc.child.kill('SIGINT');
    expect(await svc.log('shutting down')).toMatchObject({ signal: 'SIGINT', inFlight: 1 });
    expect(await svc.log('shutdown timeout')).toMatchObject({ inFlight: 1, timeoutSeconds: 1 });
    expect(await slow.answer).toBe('');
    expect(await svc.exited).toBe(0);
    expect(svc.lines.find((l) => l.msg === 'stopped')).toMatchObject({ timedOut: true });
    expect(await rowsIn(database, "select count(*) as n from events where external_reference_id = 'never-finished'")).toEqual([{ n: 0 }]);
  }, 30_000);
});

describe('npm run migrate and MIGRATE_ON_START=false', () => {
  /** `npm run migrate` over `database` (no DATABASE_URL but its own: the test process's is the server's admin database). */
  function npmRunMigrate(database: ServiceDatabase): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile('npm', ['run', '--silent', 'migrate'], { cwd: SERVER, env: { ...process.env, DATABASE_URL: '', ...database, SECRET_KEY: '' } }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('npm run migrate applies every migration to a fresh database (exit 0, again a no-op); then a MIGRATE_ON_START=false start serves', async () => {
    const database = await freshDatabase('resale-migrate');
    const where = whereOf(database);
    const first = await npmRunMigrate(database);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`migrate: applied ${JOURNAL.length} of ${JOURNAL.length} migrations to ${where}: ${JOURNAL[0]!.tag}, `);
    const again = await npmRunMigrate(database);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`migrate: ${where} is up to date (${JOURNAL.length} migrations)`);

    const service = await start({ ...baseEnv(database), MIGRATE_ON_START: 'false' });
    running.push(service);
    await service.serving;
    expect((await get(service.port, '/readyz')).status).toBe(200);
    const created = await fetch(`http://127.0.0.1:${service.port}/v1/events`, {
      method: 'POST',
      headers: { authorization: PRIVATE_KEY, 'content-type': 'application/json' },
      body: JSON.stringify(eventBody('migrated-tour')),
    });
    expect(created.status).toBe(200);
  }, 30_000);

  it('MIGRATE_ON_START=false on a fresh database: alive, not ready and 503 for the API until the migrations are applied, then serves', async () => {
    const database = await freshDatabase('resale-migrate');
    const service = await start({ ...baseEnv(database), MIGRATE_ON_START: 'false' });
    running.push(service);
    expect((await get(service.port, '/healthz')).status).toBe(200);
    const notReady = await get(service.port, '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body.errors[0].message).toBe(`Not ready: ${JOURNAL.length} of ${JOURNAL.length} database migrations are not applied; run npm run migrate`);
    const api = await get(service.port, '/v1/openapi.json');
    expect(api.status).toBe(503);
    expect(api.body.errors[0].code).toBe('not_ready');

    expect(await runMigrations(locationOf(database))).toEqual({ applied: JOURNAL.map((m) => m.tag), expected: JOURNAL.length });
    await service.serving;
    expect((await get(service.port, '/readyz')).status).toBe(200);
    const read = await fetch(`http://127.0.0.1:${service.port}/v1/events/nothing`, { headers: { authorization: PRIVATE_KEY } });
    // The sandbox partner was created once the tables existed: its key is known (404 for the event, not 401).
    expect(read.status).toBe(404);
  }, 30_000);

  it('npm run migrate reports a bad DATABASE_PATH with exit 1', async () => {
    // A SQLite path (the command runs on SQLite without DATABASE_URL, whatever this process runs on).
    const res = await npmRunMigrate({ DATABASE_PATH: ':memory:' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('DATABASE_PATH: an in-memory database cannot be migrated by another process');
  }, 30_000);
});
