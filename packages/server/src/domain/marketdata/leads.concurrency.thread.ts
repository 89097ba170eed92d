/**
 * Test helper (leads.test.ts): a worker thread that opens its own connection to a file
 * database and upserts the same lead `rounds` times, starting when the shared flag is set,
 * so several threads race on one lead the way several server processes would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDb } from '../../db/client.js';
import { DomainEvents } from '../../lib/domain-events.js';
import { systemClock } from '../../lib/clock.js';
import { EventsService } from '../events/events.service.js';
import type { LeadInput } from './leads.schemas.js';
import { LeadsService } from './leads.service.js';

const data = workerData as { databasePath: string; partnerId: string; lead: LeadInput; rounds: number; start: SharedArrayBuffer };
const db = createDb(data.databasePath);
const leads = new LeadsService({ clock: systemClock, events: new EventsService({ db, clock: systemClock, bus: new DomainEvents() }) });
const start = new Int32Array(data.start);
parentPort!.postMessage({ type: 'ready' });
Atomics.wait(start, 0, 0);
let created = 0;
const ids = new Set<string>();
for (let i = 0; i < data.rounds; i++) {
  const r = await db.transact(async (tx) => await leads.upsert(tx, data.partnerId, { ...data.lead, tags: [`round-${i}`] }));
  if (r.created) created++;
  ids.add(r.lead.id);
}
db.$client.close();
parentPort!.postMessage({ type: 'done', created, ids: [...ids] });
