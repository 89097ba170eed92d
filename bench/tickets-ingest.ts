/**
 * Ingest 100,000 tickets for one event through POST /v1/tickets in batches of 1,000 over
 * real HTTP, until every job reports done. In the same run, insert the same rows straight
 * into SQLite in one transaction, and print both rates and their ratio.
 * Target (issue 3): at least 50,000 tickets per second end to end on the 2-core machine.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { api, cpuSeconds, fmt, startServer } from './lib.js';

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

export async function run(): Promise<Record<string, number>> {
  const server = await startServer();
  try {
    await api(server.base, 'POST', '/v1/events', {
      externalReferenceId: 'bench-tour',
      title: 'Bench tour',
      description: 'benchmark',
      location: { city: 'Madrid' },
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
    });
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

if (import.meta.url === `file://${process.argv[1]}`) await run();
