/**
 * Entry of the ingestion worker thread (see tickets.worker.ts): opens its own connection to
 * the file database, builds the same services as main.ts, and drains the ticket queue.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb } from '../../db/client.js';
import { buildDeps } from '../../deps.js';
import { systemClock } from '../../lib/clock.js';
import { createLogger } from '../../logger.js';
import { runIngestionThread, WriterGate, type IngestionWorkerData } from './tickets.worker.js';

const data = workerData as IngestionWorkerData;
const db = createDb(data.databasePath);
const deps = buildDeps({ db, clock: systemClock, logger: createLogger(data.logLevel).child({ thread: 'tickets-ingestion' }), secretKey: data.secretKey, config: data.config });
runIngestionThread(parentPort!, deps, new WriterGate(data.gate), () => {
  deps.messages.close();
  db.$client.close();
});
