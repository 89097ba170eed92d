/**
 * The apply side of ticket ingestion alone: 100,000 tickets for one event applied with
 * `TicketsService.applyItems` in 1,000-ticket transactions (as the worker applies jobs) over
 * a fresh file database, without HTTP and without the queue. Shows how fast the database
 * side can go, apart from the accept path and the turn-taking of tickets-ingest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createDb } from '../packages/server/src/db/client.js';
import { buildDeps } from '../packages/server/src/deps.js';
import { systemClock } from '../packages/server/src/lib/clock.js';
import { fmt } from './lib.js';
import { ticket } from './tickets-ingest.js';

const TOTAL = Number(process.env.BENCH_TICKETS ?? 100_000);
const BATCH = 1_000;

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-bench-apply-'));
  const db = createDb(join(dir, 'apply.sqlite'));
  try {
    const deps = buildDeps({
      db,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      secretKey: 'bench-secret-key-0000000000000000000000',
      config: { env: 'production', publicBaseUrl: 'http://bench.local', operatorToken: null, maxBodyBytes: 1 << 24, rateLimitPerMinute: 0, smtpUrl: null, mailFrom: 'bench <bench@bench.local>' },
    });
    const { partner } = deps.partners.create('bench', {});
    db.transaction((tx) =>
      deps.events.create(tx, partner.id, {
        externalReferenceId: 'bench-tour',
        title: 'Bench tour',
        description: 'benchmark',
        location: { city: 'Madrid', state: null, venueName: null, address: null, country: null, postalCode: null },
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
      }),
    );
    // Jobs hold validated items, read back from JSON: build them the same way, outside the clock.
    const jobs = Array.from({ length: TOTAL / BATCH }, (_, b) => JSON.stringify(deps.tickets.parseItems(Array.from({ length: BATCH }, (_, i) => ticket(b * BATCH + i))).valid));
    let created = 0;
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    for (const job of jobs) {
      const results = db.transaction((tx) => deps.tickets.applyItems(tx, partner.id, JSON.parse(job)));
      created += results.filter((r) => r.status === 'created').length;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (created !== TOTAL) throw new Error(`created ${created} of ${TOTAL}`);
    const rate = TOTAL / seconds;
    console.log(`tickets-apply: ${fmt(TOTAL)} tickets applied in ${BATCH}-ticket transactions, no HTTP, no queue`);
    console.log(`  applied                    ${seconds.toFixed(2)} s  = ${fmt(rate)} tickets/s  (${((seconds * 1e6) / TOTAL).toFixed(1)} µs/ticket, CPU ${(((cpu.user + cpu.system) / TOTAL)).toFixed(1)} µs/ticket)`);
    return { ticketsPerSecond: rate };
  } finally {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
