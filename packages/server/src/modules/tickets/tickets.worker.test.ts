// SQLite only: the ingestion worker thread (its own connection to the SQLite file), the writer gate it shares with the main connection and WAL checkpoints; on PostgreSQL jobs drain in-process (tickets.test.ts).
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../db/client.js';
import { fileDeps, TEST_SECRET_KEY } from '../../testing/harness.js';
import { tempDir } from '../../testing/temp-dir.js';
import { systemClock } from '../../lib/clock.js';
import { start } from '../../main.js';
import { eventBody, ticketBody } from '../../testing/factories.js';
import { checkpointOutsideTurns, startIngestionWorker, takeTurns, WriterGate } from './tickets.worker.js';


async function until<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ingestion worker thread', () => {
  it('drains POST /v1/tickets on its own connection to the file database while the main thread serves HTTP', async () => {
    const dir = tempDir('resale-worker');
    const key = 'sk_worker_test_private_00000';
    const service = await start({
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_PATH: join(dir, 'resale.sqlite'),
      SECRET_KEY: 'worker-test-secret-key-0000000000000',
      LOG_LEVEL: 'silent',
      SANDBOX_PRIVATE_KEY: key,
      SANDBOX_PUBLIC_KEY: 'pk_worker_test_public_000000',
      SANDBOX_CHANNELS_KEY: 'sk_ch_worker_test_channels_0',
    });
    try {
      const base = `http://127.0.0.1:${service.port}`;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, { method, headers: { authorization: key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: res.status, body: (await res.json()) as { data: any } };
      };
      expect((await call('POST', '/v1/events', eventBody('tour'))).status).toBe(200);
      const batches = [0, 1, 2].map((b) =>
        Array.from({ length: 400 }, (_, i) => ticketBody(`w${b}-${i}`, { externalReferenceEventId: 'tour', buyer: `fan${i % 50}@example.com`, seat: String(i) })),
      );
      // The second batch sends some tickets of the first again: they are updates.
      batches[1]!.push(ticketBody('w0-1', { externalReferenceEventId: 'tour', buyer: 'fan1@example.com', seat: 'again' }));
      const accepted = await Promise.all(batches.map((items) => call('POST', '/v1/tickets', items)));
      expect(accepted.map((a) => a.status)).toEqual([202, 202, 202]);
      const done = await Promise.all(
        accepted.map((a) =>
          until(
            () => call('GET', `/v1/tickets/jobs/${a.body.data.jobId}`),
            (r) => r.body.data.state === 'done',
          ),
        ),
      );
      expect(done.map((d) => [d.body.data.created, d.body.data.updated, d.body.data.rejected])).toEqual([
        [400, 0, 0],
        [400, 1, 0],
        [400, 0, 0],
      ]);
      const ticket = await call('GET', '/v1/tickets/w0-1');
      expect(ticket.body.data).toMatchObject({ ticketId: 'w0-1', owner: { email: 'fan1@example.com' }, seating: { seat: 'again' } });
      // Main-thread writes keep working beside the thread (they take turns with its jobs).
      expect((await call('DELETE', '/v1/tickets/w2-7')).status).toBe(200);
    } finally {
      await service.stop();
    }
  }, 60_000);

  it('hands the queue to the thread once it is up, and back to the in-process job when stopped', async () => {
    const dir = tempDir('resale-worker');
    const databasePath = join(dir, 'resale.sqlite');
    const deps = fileDeps(databasePath, { clock: systemClock });
    const db = deps.db;
    const { partner } = await deps.partners.create('Acme', {});
    // The route would pass the validated body; its defaults do not matter here.
    await db.transact(async (tx) => await deps.events.create(tx, partner.id, eventBody('tour') as unknown as Parameters<typeof deps.events.create>[2]));
    const ownTransact = db.transact;
    expect(deps.ticketsIngest.drainsHere).toBe(true);

    const worker = startIngestionWorker(deps, { databasePath, secretKey: TEST_SECRET_KEY, logLevel: 'silent' });
    await worker.ready;
    try {
      expect(deps.ticketsIngest.drainsHere).toBe(false);
      expect(db.transact).not.toBe(ownTransact);
      const job = await db.transact(async (tx) => await deps.ticketsIngest.enqueue(tx, partner.id, [ticketBody('h1', { externalReferenceEventId: 'tour' }), { bad: true }]));
      const done = await until(
        () => deps.ticketsIngest.getJob(partner.id, job.id),
        (j) => j.state === 'done',
      );
      expect(done).toMatchObject({ created: 1, rejected: 1 });
      expect((await deps.tickets.get(db, partner.id, 'h1')).state).toBe('VALID');
    } finally {
      await worker.stop();
    }
    expect(deps.ticketsIngest.drainsHere).toBe(true);
    expect(db.transact).toBe(ownTransact);
    const later = await db.transact(async (tx) => await deps.ticketsIngest.enqueue(tx, partner.id, [ticketBody('h2', { externalReferenceEventId: 'tour' })]));
    expect(await deps.ticketsIngest.drain()).toBe(1);
    expect((await deps.ticketsIngest.getJob(partner.id, later.id)).state).toBe('done');
    db.$client.close();
  }, 60_000);
});

describe('WriterGate', () => {
  const elapsed = (fn: () => void) => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  };

  it('makes a main-thread transaction wait for the job in progress, and a new job wait for announced transactions (bounded)', async () => {
    // A wait that should not happen would last its whole bound; half of it tells the two apart
    // however slow the machine is (a fixed 50 ms could fail on a loaded machine).
    const BOUND = 10_000;
    const gate = new WriterGate(WriterGate.buffer());
    const waitedForTurn = async (maxMs: number) => {
      const t0 = performance.now();
      (await gate.turn(maxMs))();
      return performance.now() - t0;
    };
    // Nothing going on: neither side waits.
    expect(await waitedForTurn(BOUND)).toBeLessThan(BOUND / 2);
    expect(elapsed(() => gate.enterJob(BOUND))).toBeLessThan(BOUND / 2);
    // A job in progress: the main thread waits (here until its bound, as the job never ends).
    expect(await waitedForTurn(30)).toBeGreaterThanOrEqual(25);
    gate.leaveJob();
    expect(await waitedForTurn(BOUND)).toBeLessThan(BOUND / 2);
    // An announced transaction: the next job waits for it (here until its bound).
    gate.announce();
    expect(elapsed(() => gate.enterJob(30))).toBeGreaterThanOrEqual(25);
    gate.leaveJob();
    gate.withdraw();
    expect(elapsed(() => gate.enterJob(BOUND))).toBeLessThan(BOUND / 2);
    gate.leaveJob();
  });

  it('lets the main thread await its turn without blocking its event loop: it settles once the job in progress commits', async () => {
    const buffer = WriterGate.buffer();
    const cells = new Int32Array(buffer);
    const gate = new WriterGate(buffer);
    // No job in progress: the turn comes at once, announced until released (once).
    const free = await gate.turn(60_000);
    expect(cells[0]).toBe(1);
    free();
    free();
    expect(cells[0]).toBe(0);

    gate.enterJob(0);
    let settled = false;
    const waiting = gate.turn(60_000).then((release) => {
      settled = true;
      return release;
    });
    // The event loop goes on meanwhile; the announcement keeps the thread from starting another job.
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    expect(cells[0]).toBe(1);
    gate.leaveJob();
    const release = await waiting;
    expect(settled).toBe(true);
    release();
    expect(cells[0]).toBe(0);
  });

  it('moves the main connection\'s checkpoints out of its commits while the thread runs, and restores them', () => {
    const db = createDb(join(tempDir('resale-worker'), 'resale.sqlite'));
    const before = db.$client.pragma('wal_autocheckpoint', { simple: true });
    const undo = checkpointOutsideTurns({ db, logger: pino({ level: 'silent' }) } as unknown as Parameters<typeof checkpointOutsideTurns>[0], 10);
    expect(db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    undo();
    expect(db.$client.pragma('wal_autocheckpoint', { simple: true })).toBe(before);
    db.$client.close();
  });

  it('wraps only outermost transactions of the main connection (a savepoint takes no turn), and can be undone', async () => {
    const db = createDb(':memory:');
    const buffer = WriterGate.buffer();
    const cells = new Int32Array(buffer);
    const original = db.transact;
    const undo = takeTurns(db, new WriterGate(buffer));
    const seen: number[] = [];
    await db.transact(async (tx) => {
      seen.push(cells[0]!);
      // A nested call is a savepoint: it does not announce itself again.
      await tx.transact(() => seen.push(cells[0]!));
    });
    expect(seen).toEqual([1, 1]);
    expect(cells[0]).toBe(0);
    await expect(db.transact(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(cells[0]).toBe(0);
    undo();
    expect(db.transact).toBe(original);
  });

  it('makes transact take its turn without blocking the event loop, hold it until it ends, and take none for a savepoint', async () => {
    const db = createDb(':memory:');
    const buffer = WriterGate.buffer();
    const cells = new Int32Array(buffer);
    const gate = new WriterGate(buffer);
    const original = db.transact;
    const undo = takeTurns(db, gate);
    const seen: number[] = [];
    await db.transact(async (tx) => {
      seen.push(cells[0]!);
      await new Promise((r) => setTimeout(r, 1));
      // A savepoint of this transaction: it does not announce itself again.
      await tx.transact(() => seen.push(cells[0]!));
      seen.push(cells[0]!);
    });
    expect(seen).toEqual([1, 1, 1]);
    expect(cells[0]).toBe(0);
    await expect(db.transact(() => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(cells[0]).toBe(0);
    // A job in progress: the transaction waits for it while the event loop goes on.
    gate.enterJob(0);
    let ran = false;
    const waiting = db.transact(() => void (ran = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(ran).toBe(false);
    expect(cells[0]).toBe(1);
    gate.leaveJob();
    await waiting;
    expect(ran).toBe(true);
    expect(cells[0]).toBe(0);
    undo();
    expect(db.transact).toBe(original);
    db.$client.close();
  });
});
