/**
 * The apply side of ticket ingestion alone: 100,000 tickets for one event applied with
 * `TicketsService.applyItems` in 1,000-ticket transactions (as the worker applies jobs) over
 * a fresh file database, without HTTP and without the queue. Shows how fast the database
 * side can go, apart from the accept path and the turn-taking of tickets-ingest.
 *
 * Then, in the same run, the floor under it: the very rows that apply wrote, written again
 * into a second fresh database (same migrations, same owners and event) by the service's
 * multi-row upsert alone, 1,000 per transaction: no parsing, no lookups, no staging, only
 * SQLite maintaining the real `tickets` table, its indexes and foreign keys; and, for
 * comparison only, the same without foreign keys and without the three secondary indexes
 * (which the read paths need: show and state, owner, order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createDb, systemClock, TicketBulkWriter, tickets, type TicketRow } from '@resale/server/bench';
import { BENCH_TOUR_EVENT, benchDeps, fmt } from './lib.js';
import { ticket } from './tickets-ingest.js';

const TOTAL = Number(process.env.BENCH_TICKETS ?? 100_000);
const BATCH = 1_000;

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-bench-apply-'));
  const db = createDb(join(dir, 'apply.sqlite'));
  try {
    const deps = benchDeps(db);
    const { partner } = await deps.partners.create('bench', {});
    await db.transact(async (tx) =>
      await deps.events.create(tx, partner.id, {
        ...BENCH_TOUR_EVENT,
        // The service's own input: the location's defaults spelled out.
        location: { city: 'Madrid', state: null, venueName: null, address: null, country: null, postalCode: null },
      }),
    );
    // Jobs hold validated items, read back from JSON: build them the same way, outside the clock.
    const jobs = Array.from({ length: TOTAL / BATCH }, (_, b) => JSON.stringify(deps.tickets.parseItems(Array.from({ length: BATCH }, (_, i) => ticket(b * BATCH + i))).valid));
    let created = 0;
    const started = performance.now();
    const cpu0 = process.cpuUsage();
    for (const job of jobs) {
      const results = await db.transact(async (tx) => await deps.tickets.applyItems(tx, partner.id, JSON.parse(job)));
      created += results.filter((r) => r.status === 'created').length;
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (created !== TOTAL) throw new Error(`created ${created} of ${TOTAL}`);
    const rate = TOTAL / seconds;
    const floor = await writeFloor(dir, db, 'floor');
    const bare = await writeFloor(dir, db, 'bare', { bare: true });
    console.log(`tickets-apply: ${fmt(TOTAL)} tickets applied in ${BATCH}-ticket transactions, no HTTP, no queue`);
    console.log(`  applied                    ${seconds.toFixed(2)} s  = ${fmt(rate)} tickets/s  (${((seconds * 1e6) / TOTAL).toFixed(1)} µs/ticket, CPU ${(((cpu.user + cpu.system) / TOTAL)).toFixed(1)} µs/ticket)`);
    console.log(`  the upsert alone           ${floor.toFixed(2)} s  = ${fmt(TOTAL / floor)} tickets/s  (${((floor * 1e6) / TOTAL).toFixed(1)} µs/ticket: SQLite writing the same rows into the real table)`);
    console.log(`  … no FKs, no 2nd indexes  ${bare.toFixed(2)} s  = ${fmt(TOTAL / bare)} tickets/s  (${((bare * 1e6) / TOTAL).toFixed(1)} µs/ticket; for comparison only)`);
    return { ticketsPerSecond: rate, upsertOnlyPerSecond: TOTAL / floor, bareUpsertPerSecond: TOTAL / bare };
  } finally {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Seconds the service's multi-row upsert takes to write the tickets `applied` holds into a
 * fresh database with the same schema and parent rows (partners, event, show, options,
 * users copied over), 1,000 tickets per transaction, in the order apply wrote them.
 */
async function writeFloor(dir: string, applied: ReturnType<typeof createDb>, name: string, opts: { bare?: boolean } = {}): Promise<number> {
  const db = createDb(join(dir, `${name}.sqlite`));
  if (opts.bare) {
    db.$client.pragma('foreign_keys = OFF');
    db.$client.exec('drop index tickets_show_state_idx; drop index tickets_owner_idx; drop index tickets_order_idx');
  }
  try {
    const from = applied.$client;
    for (const table of ['partners', 'events', 'shows', 'ticket_options', 'users']) {
      const rows = from.prepare(`select * from ${table}`).all() as Record<string, unknown>[];
      if (rows.length === 0) continue;
      const columns = Object.keys(rows[0]!);
      const insert = db.$client.prepare(`insert into ${table} (${columns.join(',')}) values (${columns.map((c) => '@' + c).join(',')})`);
      db.$client.transaction(() => rows.forEach((r) => insert.run(r)))();
    }
    const rows = (await applied.select().from(tickets).orderBy(sql`rowid`)) as TicketRow[];
    const writer = new TicketBulkWriter();
    const started = performance.now();
    for (let i = 0; i < rows.length; i += BATCH) await db.transact(async (tx) => writer.upsert(tx, rows.slice(i, i + BATCH)));
    return (performance.now() - started) / 1000;
  } finally {
    db.$client.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
