/**
 * Entry of the ingestion worker thread (see jobs/tickets.worker.ts): opens its own connection to
 * the file database, builds the same services as main.ts, and drains the ticket queue.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb } from './db/client.js';
import { buildDeps } from './deps.js';
import { systemClock } from './lib/clock.js';
import { createLogger } from './logger.js';
import { runIngestionThread, WORKER_WAL_AUTOCHECKPOINT_PAGES, WriterGate, type IngestionWorkerData } from './jobs/tickets.worker.js';
import { autoCheckpointPages } from './db/dialect.js';

const data = workerData as IngestionWorkerData;
// The main thread applied the migrations before it started this thread.
// Its commits acknowledge nothing (the 202 of a job was committed durably by the main thread):
// a job applied just before a power loss is applied again after its lease (see db/client.ts, Durability).
const db = createDb(data.databasePath, { migrate: false, durability: 'fast' });
// Checkpoints (copying the WAL back into the database file) cost this thread about a sixth
// of its write time at SQLite's default of one per 1,000 pages. The main thread checkpoints
// instead, outside the write lock, on the core that has time to spare
// (`checkpointOutsideTurns`); this connection checkpoints only when the WAL has grown far
// past that (a bound, should the main thread fall behind).
autoCheckpointPages(db, WORKER_WAL_AUTOCHECKPOINT_PAGES);
const deps = buildDeps({ db, clock: systemClock, logger: createLogger(data.logLevel).child({ thread: 'tickets-ingestion' }), secretKey: data.secretKey, config: data.config });
runIngestionThread(parentPort!, deps, new WriterGate(data.gate), () => {
  deps.messages.close();
  db.$client.close();
});
