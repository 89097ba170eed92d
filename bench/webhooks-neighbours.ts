/**
 * Noisy neighbours in webhook delivery: how many deliveries per second one healthy partner gets
 * through the real webhooks job (the scheduler's tick, the service's production defaults: 10 s
 * time limit, lanes, batch), alone and beside a partner whose endpoint never answers. In
 * process, over a fresh file database, with both receivers on 127.0.0.1 in the same process (the
 * healthy one answers 204 at once).
 *
 * 1. alone: BENCH_WEBHOOKS (1,000) messages of the healthy partner, until all are delivered.
 * 2. beside a hanging partner: the hanging partner's BENCH_WEBHOOKS_HANGING (200) messages first (the oldest), then the
 *    healthy partner's 1,000; measured until the healthy partner's are all delivered, or for at
 *    most BENCH_WEBHOOKS_SECONDS (30) with what got through by then.
 *
 * Each is timed from the healthy receiver's first request to its last, after an unmeasured
 * warm-up of 200 deliveries.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, startJobs, systemClock, webhooksJob, type AppDeps } from '@resale/server/bench';
import { benchDeps, fmt } from './lib.js';

const MESSAGES = Number(process.env.BENCH_WEBHOOKS ?? 1_000);
const HANGING_MESSAGES = Number(process.env.BENCH_WEBHOOKS_HANGING ?? 200);
const LIMIT_SECONDS = Number(process.env.BENCH_WEBHOOKS_SECONDS ?? 30);

interface Receiver {
  url: string;
  hits: () => number;
  /** performance.now() of the first request; null before it. */
  firstAt: () => number | null;
  close: () => Promise<void>;
}

/** A receiver on 127.0.0.1 that counts requests and answers 204, or never answers. */
async function receiver(hang: boolean): Promise<Receiver> {
  let hits = 0;
  let firstAt: number | null = null;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      firstAt ??= performance.now();
      if (!hang) res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    hits: () => hits,
    firstAt: () => firstAt,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function enqueue(deps: AppDeps, partnerId: string, n: number, prefix: string): Promise<void> {
  for (let from = 0; from < n; from += 100) {
    await deps.db.transact(async (tx) => {
      for (let i = from; i < Math.min(n, from + 100); i++) {
        await deps.webhooks.enqueue(tx, partnerId, { action: 'ticketShield.updated', resourceKey: `show:${prefix}/${i}`, data: { status: true, eventId: prefix, showId: `show-${i}` } });
      }
    });
  }
}

/**
 * Starts the webhooks job on the real scheduler and waits until the receiver has `n` requests
 * (or the limit). Timed from the receiver's first request (the scheduler's first tick comes a
 * second after the start): deliveries per second, and the scheduler to stop.
 */
async function measure(deps: AppDeps, rx: Receiver, n: number): Promise<{ delivered: number; seconds: number; rate: number; stop: () => Promise<void> }> {
  const jobs = startJobs(deps, [webhooksJob]);
  const started = performance.now();
  while (rx.hits() < n && performance.now() - started < LIMIT_SECONDS * 1000) await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - (rx.firstAt() ?? started)) / 1000;
  const delivered = rx.hits();
  return { delivered, seconds, rate: delivered / seconds, stop: () => jobs.stop() };
}

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-bench-webhooks-'));
  const db = createDb(join(dir, 'webhooks.sqlite'));
  const healthyRx = await receiver(false);
  const soloRx = await receiver(false);
  const hangingRx = await receiver(true);
  try {
    const deps = benchDeps(db);
    const solo = (await deps.partners.create('solo', { webhookUrl: soloRx.url })).partner;
    const hanging = (await deps.partners.create('hanging', { webhookUrl: hangingRx.url })).partner;
    const healthy = (await deps.partners.create('healthy', { webhookUrl: healthyRx.url })).partner;

    // Warm-up (JIT, connections), not measured.
    const warm = await receiver(false);
    const warmup = (await deps.partners.create('warm-up', { webhookUrl: warm.url })).partner;
    await enqueue(deps, warmup.id, 200, 'warm-up');
    await (await measure(deps, warm, 200)).stop();
    await warm.close();

    await enqueue(deps, solo.id, MESSAGES, 'solo');
    const alone = await measure(deps, soloRx, MESSAGES);
    await alone.stop();

    await enqueue(deps, hanging.id, HANGING_MESSAGES, 'hanging');
    await enqueue(deps, healthy.id, MESSAGES, 'healthy');
    const beside = await measure(deps, healthyRx, MESSAGES);
    const hangingInFlight = hangingRx.hits();
    // Let the hanging requests fail at once, so the job in hand finishes.
    await hangingRx.close();
    await beside.stop();

    console.log(`webhooks-neighbours: ${fmt(MESSAGES)} messages of one healthy partner through the webhooks job (10 s time limit)`);
    console.log(`  alone                         ${fmt(alone.delivered)} delivered in ${alone.seconds.toFixed(2)} s = ${fmt(alone.rate)} deliveries/s`);
    console.log(`  beside a hanging partner      ${fmt(beside.delivered)} delivered in ${beside.seconds.toFixed(2)} s = ${fmt(beside.rate)} deliveries/s (${hangingInFlight} requests to the hanging endpoint meanwhile)`);
    console.log(`  ratio                         ${(beside.rate / alone.rate).toFixed(2)}`);
    return { alone: alone.rate, beside: beside.rate };
  } finally {
    await Promise.all([healthyRx.close(), soloRx.close(), hangingRx.close().catch(() => undefined)]);
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
