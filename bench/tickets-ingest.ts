/**
 * Ingest 100,000 tickets for one event through POST /v1/tickets in batches of 1,000 over
 * real HTTP, until every job reports done. In the same run, insert the same rows straight
 * into SQLite in one transaction, and print both rates and their ratio.
 * Target (issue 3): at least 50,000 tickets per second end to end on the 2-core machine.
 *
 * Then the same on PostgreSQL (issue 17): a server the benchmark starts (bench/postgres.ts,
 * durable defaults), the service in its own process on a fresh migrated database, the same
 * requests until every job is done (on PostgreSQL the service drains the queue in its own
 * process, tickets.job.ts); then, in the same run, the very rows the service stored, read
 * back, the table emptied, and written again by one `COPY tickets FROM STDIN` in one
 * transaction on a `synchronous_commit = on` connection (as the service's): PostgreSQL
 * maintaining the same table, its indexes and foreign keys, with no per-row statement work.
 * Target (issue 17): end to end >= 0.5 of that COPY.
 *
 * What limits it (measured 2026-11-24, ~0.24): one drain at a time applies a partner's jobs,
 * statement after statement, so the service's CPU (~40 µs a ticket) and PostgreSQL's (~60 µs)
 * add up instead of overlapping; every new owner is one INSERT round trip of its own
 * (UserBatch.flush, users.service.ts: 20,000 here), each 100-row upsert binds 2,900 parameters
 * to an unnamed statement parsed and planned again every time (tickets.bulk.ts, prepareRaw in
 * db/statements.ts), and the five foreign keys cost PostgreSQL ~12 µs a ticket (the COPY
 * without them: 9.4 against 22.3 µs a ticket).
 *
 * The PostgreSQL tables are given planner statistics first (`primeStatistics`), as a table in
 * service has them. BENCH_PG_FRESH=1 adds first ingestions into never-analyzed tables (a fresh
 * deployment's, until autovacuum's first ANALYZE), as migrated and with partial indexes
 * (`FRESH_VARIANTS`). BENCH_PG_VARIANTS=1 adds the storage policy comparison of the tickets
 * table (see `VARIANTS`): each variant on a fresh database of the same server, the first
 * ingestion (inserts) and the same tickets sent again (updates, HOT-eligible: nothing indexed
 * changes) through the service, with the share of HOT updates and the table's size; then,
 * without the service, the same rows by COPY and every ticket's unlock notice set (the
 * database's own insert and HOT-eligible update costs). BENCH_PG=0 skips PostgreSQL.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { api, BENCH_TOUR_EVENT, cpuSeconds, fmt, startServer } from './lib.js';
import { copyFrom, copyText, startPgService, startPostgres, treeCpuSeconds, type BenchPostgres } from './postgres.js';

const TOTAL = Number(process.env.BENCH_TICKETS ?? 100_000);
const BATCH = 1_000;
const IN_FLIGHT = 4;

/** The i-th ticket of the benchmark (shared with tickets-apply). */
export function ticket(i: number) {
  return {
    externalReferenceEventId: 'bench-tour',
    showId: 'show-1',
    buyer: `fan${i % 20_000}@example.com`,
    ticketId: `bench-${i}`,
    ticketAccess: { type: 'URL', locator: `https://partner.example/qr/${i}` },
    ticketOptionId: i % 2 ? 'opt-field' : 'opt-vip',
    price: 45.5,
    section: `S${i % 20}`,
    row: String(i % 30),
    seat: String(i % 50),
    orderId: `order-${Math.floor(i / 4)}`,
  };
}

/** The SQLite run, as since issue 3. */
async function runSqlite(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', BENCH_TOUR_EVENT);
    const batches = Array.from({ length: TOTAL / BATCH }, (_, b) => JSON.stringify(Array.from({ length: BATCH }, (_, i) => ticket(b * BATCH + i))));

    const started = performance.now();
    const serverCpu0 = cpuSeconds(server.pid);
    const clientCpu0 = process.cpuUsage();
    const jobIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < batches.length) {
          const body = batches[next++]!;
          const res = await fetch(`${server.base}/v1/tickets`, { method: 'POST', headers: { authorization: 'sk_bench_private_key_000000000000', 'content-type': 'application/json' }, body });
          const json = (await res.json()) as { data: { jobId: string } };
          if (res.status !== 202) throw new Error(`enqueue failed: ${res.status} ${JSON.stringify(json)}`);
          jobIds.push(json.data.jobId);
        }
      }),
    );
    const accepted = performance.now();
    let created = 0;
    for (const id of jobIds) {
      for (;;) {
        const job = await api(server.base, 'GET', `/v1/tickets/jobs/${id}`);
        if (job.state === 'done') {
          created += job.created;
          if (job.rejected) throw new Error(`job ${id} rejected ${job.rejected}: ${JSON.stringify(job.results.find((r: { status: string }) => r.status === 'rejected'))}`);
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const endToEndS = (performance.now() - started) / 1000;
    const serverCpuS = serverCpu0 === null ? null : cpuSeconds(server.pid)! - serverCpu0;
    const clientCpu = process.cpuUsage(clientCpu0);
    const clientCpuS = (clientCpu.user + clientCpu.system) / 1e6;
    if (created !== TOTAL) throw new Error(`created ${created} of ${TOTAL}`);

    // Baseline: the same rows straight into SQLite, one transaction, one prepared statement.
    const raw = new Database(join(server.dir, 'baseline.sqlite'));
    raw.pragma('journal_mode = WAL');
    raw.exec(`create table t (id text primary key, partner_id text, ticket_id text, event_pk text, show_pk text, option_pk text, owner text, state text,
      price_minor integer, currency text, access text, tags text, section text, row text, seat text, order_id text, created_at integer, updated_at integer,
      unique (partner_id, ticket_id))`);
    const insert = raw.prepare('insert into t values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)');
    const rows = Array.from({ length: TOTAL }, (_, i) => ticket(i));
    const t0 = performance.now();
    raw.transaction(() => {
      const now = Date.now();
      for (const [i, r] of rows.entries()) {
        insert.run(`tkt_${i}`, 'ptr', r.ticketId, 'evt', 'shw', r.ticketOptionId, r.buyer, 'VALID', 4550, 'EUR', JSON.stringify(r.ticketAccess), '[]', r.section, r.row, r.seat, r.orderId, now, now);
      }
    })();
    const directS = (performance.now() - t0) / 1000;
    raw.close();

    const e2e = TOTAL / endToEndS;
    const direct = TOTAL / directS;
    console.log(`tickets-ingest: ${fmt(TOTAL)} tickets in ${BATCH}-ticket batches, ${IN_FLIGHT} requests in flight`);
    console.log(`  accepted (all 202s)        ${((accepted - started) / 1000).toFixed(2)} s`);
    console.log(`  end to end (all jobs done) ${endToEndS.toFixed(2)} s  = ${fmt(e2e)} tickets/s   (target >= 50,000)`);
    console.log(`  straight into SQLite       ${directS.toFixed(2)} s  = ${fmt(direct)} tickets/s`);
    console.log(`  ratio end-to-end / direct  ${(e2e / direct).toFixed(3)}`);
    // Both processes share the machine's cores: CPU per ticket shows where the time goes.
    if (serverCpuS !== null) console.log(`  CPU while measured         server ${serverCpuS.toFixed(2)} s (${((serverCpuS * 1e6) / TOTAL).toFixed(1)} µs/ticket), load generator ${clientCpuS.toFixed(2)} s`);
    return { ticketsPerSecond: e2e, directPerSecond: direct, ratio: e2e / direct };
  } finally {
    await server.stop();
  }
}

export async function run(): Promise<Record<string, number>> {
  const sqlite = await runSqlite();
  if (process.env.BENCH_PG === '0') return sqlite;
  const postgres = await startPostgres();
  try {
    const onPg = await runPostgres(postgres);
    if (process.env.BENCH_PG_VARIANTS === '1') await compareVariants(postgres);
    return { ...sqlite, pgTicketsPerSecond: onPg.e2e, pgCopyPerSecond: onPg.copy, pgRatio: onPg.e2e / onPg.copy };
  } finally {
    await postgres.stop();
  }
}


/** The request bodies of the run, made once, outside the clock. */
let bodies: string[] | null = null;
function batchBodies(): string[] {
  return (bodies ??= Array.from({ length: TOTAL / BATCH }, (_, b) => JSON.stringify(Array.from({ length: BATCH }, (_, i) => ticket(b * BATCH + i)))));
}

interface Ingested {
  seconds: number;
  acceptedSeconds: number;
  created: number;
  updated: number;
  /** CPU seconds while measured: the service's process, PostgreSQL's (server and backends), this process. */
  serviceCpu: number | null;
  postgresCpu: number | null;
  clientCpu: number;
}

/** Every batch through POST /v1/tickets, `IN_FLIGHT` at a time, then every job awaited (the SQLite run's loop). */
async function ingest(base: string, servicePid: number | undefined, postgres: BenchPostgres): Promise<Ingested> {
  const batches = batchBodies();
  const started = performance.now();
  const service0 = cpuSeconds(servicePid);
  const pg0 = treeCpuSeconds(postgres.pid());
  const client0 = process.cpuUsage();
  const jobIds: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < batches.length) {
        const body = batches[next++]!;
        const res = await fetch(`${base}/v1/tickets`, { method: 'POST', headers: { authorization: 'sk_bench_private_key_000000000000', 'content-type': 'application/json' }, body });
        const json = (await res.json()) as { data: { jobId: string } };
        if (res.status !== 202) throw new Error(`enqueue failed: ${res.status} ${JSON.stringify(json)}`);
        jobIds.push(json.data.jobId);
      }
    }),
  );
  const accepted = performance.now();
  let created = 0;
  let updated = 0;
  for (const id of jobIds) {
    for (;;) {
      const job = await api(base, 'GET', `/v1/tickets/jobs/${id}`);
      if (job.state === 'done') {
        created += job.created;
        updated += job.updated;
        if (job.rejected) throw new Error(`job ${id} rejected ${job.rejected}: ${JSON.stringify(job.results.find((r: { status: string }) => r.status === 'rejected'))}`);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const service1 = cpuSeconds(servicePid);
  const pg1 = treeCpuSeconds(postgres.pid());
  const client = process.cpuUsage(client0);
  return {
    seconds,
    acceptedSeconds: (accepted - started) / 1000,
    created,
    updated,
    serviceCpu: service0 === null || service1 === null ? null : service1 - service0,
    postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0,
    clientCpu: (client.user + client.system) / 1e6,
  };
}

function cpuLine(r: Ingested): string {
  const us = (s: number | null) => (s === null ? '?' : ((s * 1e6) / TOTAL).toFixed(1));
  return `service ${r.serviceCpu?.toFixed(2) ?? '?'} s (${us(r.serviceCpu)} µs/ticket), PostgreSQL ${r.postgresCpu?.toFixed(2) ?? '?'} s (${us(r.postgresCpu)} µs/ticket), load generator ${r.clientCpu.toFixed(2)} s`;
}

/**
 * Planner statistics for `tickets` and `users` as a table in service has them: 100,000 tickets
 * (of 20,000 owners) of the bench's show written by SQL, ANALYZEd, then every row deleted
 * (TRUNCATE keeps the statistics). Without them (a table never analyzed: a fresh database,
 * until autovacuum's first ANALYZE), PostgreSQL plans the ingestion's lookups of stored
 * tickets and owners (`ticket_id IN (…250 ids)`, `email IN (…)`) as a scan of every row of the
 * partner through another index (see BENCH_PG_FRESH), so each lookup grows with the table and
 * ingestion slows down as it goes.
 */
async function primeStatistics(admin: pg.Client): Promise<void> {
  await admin.query(`insert into users (id, partner_id, email, created_at, updated_at)
    select 'usr_prime_' || g, p.id, 'prime' || g || '@example.com', 0, 0 from generate_series(1, 20000) g, partners p where p.name = 'sandbox'`);
  await admin.query(`insert into tickets (id, partner_id, ticket_id, event_pk, show_pk, ticket_option_pk, owner_pk, state, price_minor, currency, ticket_access, tags, section, row, seat, order_id, created_at, updated_at)
    select 'tkt_prime_' || g, s.partner_id, 'prime-' || g, s.event_pk, s.id, o.id, 'usr_prime_' || (1 + g % 20000), 'VALID', 4550, 'EUR',
      jsonb_build_object('type', 'URL', 'locator', 'https://partner.example/qr/' || g), '[]'::jsonb, 'S' || (g % 20), (g % 30)::text, (g % 50)::text, 'order-' || (g / 4), 0, 0
    from generate_series(1, 100000) g, shows s join ticket_options o on o.show_pk = s.id and o.ticket_id = 'opt-field'`);
  await admin.query('analyze users');
  await admin.query('analyze tickets');
  await admin.query('truncate tickets, users cascade');
}

/**
 * A fresh migrated database with the service on it and the bench event; `ddl` runs first (a
 * storage variant); `prime` gives the tables planner statistics first (see {@link primeStatistics}).
 */
async function freshService(postgres: BenchPostgres, name: string, opts: { ddl?: readonly string[]; prime?: boolean } = {}) {
  const url = await postgres.createDatabase(name);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const statement of opts.ddl ?? []) await admin.query(statement);
  const service = await startPgService(url);
  await api(service.base, 'POST', '/v1/events', BENCH_TOUR_EVENT);
  if (opts.prime) await primeStatistics(admin);
  // Nothing of the migrations or the setup left to write back while measured.
  await admin.query('CHECKPOINT');
  return { url, admin, service };
}

/**
 * The other (partner_id, …) indexes of `tickets` and `users` made partial (rows whose second
 * column is set): a lookup by ticket_id or e-mail can then only use its own unique index, even
 * before the tables have statistics (the queries that use these indexes compare the column
 * with `=`, which implies it is not null).
 */
const PARTIAL_INDEXES = [
  'DROP INDEX "tickets_order_idx"',
  'CREATE INDEX "tickets_order_idx" ON "tickets" USING btree ("partner_id", "order_id") WHERE "order_id" IS NOT NULL',
  'DROP INDEX "users_partner_external_uq"',
  'CREATE UNIQUE INDEX "users_partner_external_uq" ON "users" USING btree ("partner_id", "external_id") WHERE "external_id" IS NOT NULL',
  'DROP INDEX "users_partner_phone_idx"',
  'CREATE INDEX "users_partner_phone_idx" ON "users" USING btree ("partner_id", "phone") WHERE "phone" IS NOT NULL',
];

/** BENCH_PG_FRESH=1: first ingestions into never-analyzed tables, as migrated and with partial indexes. */
const FRESH_VARIANTS: { name: string; ddl: string[] }[] = [
  { name: 'as migrated', ddl: [] },
  { name: 'partial indexes', ddl: PARTIAL_INDEXES },
];

/** The PostgreSQL run: end to end through the service, then the same rows by COPY into the same table. */
async function runPostgres(postgres: BenchPostgres): Promise<{ e2e: number; copy: number }> {
  console.log(`tickets-ingest on PostgreSQL: the same requests to the service on PostgreSQL 17 (embedded, durable defaults), its own process`);
  if (process.env.BENCH_PG_FRESH === '1') {
    // The first ingestion into tables without statistics (see primeStatistics), as a fresh
    // deployment's; as migrated, then with the other (partner_id, …) indexes made partial, so
    // that the planner cannot take them for the lookups by ticket_id and e-mail.
    let n = 0;
    for (const variant of FRESH_VARIANTS) {
      const fresh = await freshService(postgres, `ingest_fresh_${++n}`, { ddl: variant.ddl });
      try {
        const r = await ingest(fresh.service.base, fresh.service.pid, postgres);
        console.log(`  fresh tables, no planner statistics, ${variant.name}: end to end ${r.seconds.toFixed(2)} s = ${fmt(TOTAL / r.seconds)} tickets/s (${cpuLine(r)})`);
      } finally {
        await fresh.service.stop();
        await fresh.admin.end();
      }
    }
  }
  const { admin, service } = await freshService(postgres, 'ingest', { prime: true });
  let r: Ingested;
  try {
    r = await ingest(service.base, service.pid, postgres);
  } finally {
    await service.stop();
  }
  if (r.created !== TOTAL) throw new Error(`created ${r.created} of ${TOTAL}`);

  const c = await copyBack(admin, postgres);
  const copyS = c.seconds;
  await admin.end();

  const e2e = TOTAL / r.seconds;
  const copy = TOTAL / copyS;
  console.log(`  (tables with planner statistics, as in service${process.env.BENCH_PG_FRESH === '1' ? '' : '; BENCH_PG_FRESH=1 adds a first ingestion into tables without any'})`);
  console.log(`  accepted (all 202s)        ${r.acceptedSeconds.toFixed(2)} s`);
  console.log(`  end to end (all jobs done) ${r.seconds.toFixed(2)} s  = ${fmt(e2e)} tickets/s`);
  console.log(`  COPY of the same rows      ${copyS.toFixed(2)} s  = ${fmt(copy)} tickets/s   (same table, indexes and foreign keys; one transaction; ${(c.bytes / 1e6).toFixed(1)} MB of COPY text)`);
  console.log(`  ratio end-to-end / COPY    ${(e2e / copy).toFixed(3)}   (target >= 0.5)`);
  console.log(`  CPU while measured         ${cpuLine(r)}; COPY: PostgreSQL ${c.postgresCpu?.toFixed(2) ?? '?'} s`);
  return { e2e, copy };
}

/**
 * The rows of `tickets` as stored, in the order they were stored, written again by one COPY in
 * one durable transaction into the emptied table (same indexes, foreign keys and storage).
 */
async function copyBack(admin: pg.Client, postgres: BenchPostgres): Promise<{ seconds: number; bytes: number; postgresCpu: number | null }> {
  // Every value as PostgreSQL prints it (no parsing): COPY reads back exactly what was stored (a jsonb null stays one).
  const asText = { getTypeParser: () => (value: string) => value } as unknown as typeof pg.types;
  const stored = await admin.query({ text: 'select * from tickets order by created_at, id', rowMode: 'array', types: asText });
  const columns = stored.fields.map((f) => `"${f.name}"`).join(', ');
  const text = Buffer.from(stored.rows.map((row: unknown[]) => row.map(copyText).join('\t') + '\n').join(''));
  await admin.query('TRUNCATE tickets CASCADE');
  await admin.query('CHECKPOINT');
  const pg0 = treeCpuSeconds(postgres.pid());
  const t0 = performance.now();
  // As durable as the service's commits (db/postgres.ts sets the same on its pool).
  await admin.query('SET synchronous_commit = on');
  await admin.query('BEGIN');
  const copied = await copyFrom(admin, `COPY tickets (${columns}) FROM STDIN`, text);
  await admin.query('COMMIT');
  const seconds = (performance.now() - t0) / 1000;
  const pg1 = treeCpuSeconds(postgres.pid());
  if (copied !== stored.rows.length) throw new Error(`COPY wrote ${copied} of ${stored.rows.length}`);
  return { seconds, bytes: text.length, postgresCpu: pg0 === null || pg1 === null ? null : pg1 - pg0 };
}

/**
 * Storage variants of the tickets table on PostgreSQL (BENCH_PG_VARIANTS=1), applied by hand
 * to a freshly migrated database before the service starts: the migration each would be.
 */
const VARIANTS: { name: string; ddl: string[] }[] = [
  { name: 'as migrated (5 FKs, fillfactor 100)', ddl: [] },
  { name: 'fillfactor 90', ddl: ['ALTER TABLE tickets SET (fillfactor = 90)'] },
  { name: 'fillfactor 80', ddl: ['ALTER TABLE tickets SET (fillfactor = 80)'] },
  {
    name: 'no FKs on tickets',
    ddl: ['event_pk_events_id', 'show_pk_shows_id', 'ticket_option_pk_ticket_options_id', 'price_type_pk_price_types_id', 'owner_pk_users_id'].map((fk) => `ALTER TABLE tickets DROP CONSTRAINT tickets_${fk}_fk`),
  },
  { name: 'partial indexes (as in FRESH_VARIANTS)', ddl: PARTIAL_INDEXES },
];

async function compareVariants(postgres: BenchPostgres): Promise<void> {
  console.log(`tickets-ingest on PostgreSQL, storage variants of the tickets table (each on a fresh database; ${fmt(TOTAL)} tickets inserted, then the same sent again)`);
  let n = 0;
  for (const variant of VARIANTS) {
    const { admin, service } = await freshService(postgres, `variant_${++n}`, { ddl: variant.ddl, prime: true });
    try {
      const inserted = await ingest(service.base, service.pid, postgres);
      const size0 = Number((await admin.query(`select pg_relation_size('tickets') as n`)).rows[0].n);
      await admin.query('CHECKPOINT');
      const resent = await ingest(service.base, service.pid, postgres);
      if (inserted.created !== TOTAL || resent.updated !== TOTAL) throw new Error(`${variant.name}: created ${inserted.created}, updated ${resent.updated}`);
      // The statistics collector is told at the end of each transaction, at most once a second.
      await new Promise((r) => setTimeout(r, 1500));
      await admin.query('select pg_stat_clear_snapshot()');
      const stats = (await admin.query(`select n_tup_upd, n_tup_hot_upd, pg_relation_size('tickets') as heap, pg_indexes_size('tickets') as idx from pg_stat_user_tables where relname = 'tickets'`)).rows[0];
      const hot = Number(stats.n_tup_hot_upd) / Math.max(1, Number(stats.n_tup_upd));
      await service.stop();
      // The database's own cost, without the service: the same rows by COPY into the emptied
      // table, then every ticket's unlock notice set (a HOT-eligible update: no indexed column
      // changes), 1,000 rows per transaction in the order stored, as the unlock job goes through a show.
      const copied = await copyBack(admin, postgres);
      const ids = (await admin.query('select id from tickets order by created_at, id')).rows.map((r: { id: string }) => r.id);
      await admin.query('CHECKPOINT');
      await admin.query(`select pg_stat_reset_single_table_counters('tickets'::regclass)`);
      const pgU0 = treeCpuSeconds(postgres.pid());
      const u0 = performance.now();
      for (let i = 0; i < ids.length; i += BATCH) {
        await admin.query('BEGIN');
        await admin.query({ name: 'unlock', text: 'update tickets set unlock_notified_at = $1 where id = any($2::text[])', values: [Date.now(), ids.slice(i, i + BATCH)] });
        await admin.query('COMMIT');
      }
      const updateS = (performance.now() - u0) / 1000;
      const pgU1 = treeCpuSeconds(postgres.pid());
      await new Promise((r) => setTimeout(r, 1500));
      await admin.query('select pg_stat_clear_snapshot()');
      const after = (await admin.query(`select n_tup_upd, n_tup_hot_upd from pg_stat_user_tables where relname = 'tickets'`)).rows[0];
      const hotU = Number(after.n_tup_hot_upd) / Math.max(1, Number(after.n_tup_upd));
      const us = (sec: number | null) => (sec === null ? '?' : ((sec * 1e6) / TOTAL).toFixed(1));
      console.log(`  ${variant.name}`);
      console.log(`    insert ${fmt(TOTAL / inserted.seconds).padStart(7)} tickets/s   ${cpuLine(inserted)}; heap ${(size0 / 1e6).toFixed(1)} MB`);
      console.log(`    resend ${fmt(TOTAL / resent.seconds).padStart(7)} tickets/s   ${cpuLine(resent)}; HOT ${(hot * 100).toFixed(1)}% of updates; heap ${(Number(stats.heap) / 1e6).toFixed(1)} MB, indexes ${(Number(stats.idx) / 1e6).toFixed(1)} MB`);
      console.log(`    COPY   ${fmt(TOTAL / copied.seconds).padStart(7)} tickets/s   PostgreSQL ${us(copied.postgresCpu)} µs/ticket`);
      console.log(`    unlock ${fmt(TOTAL / updateS).padStart(7)} tickets/s   PostgreSQL ${us(pgU0 === null || pgU1 === null ? null : pgU1 - pgU0)} µs/ticket; HOT ${(hotU * 100).toFixed(1)}% of updates`);
    } finally {
      await service.stop();
      await admin.end();
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
