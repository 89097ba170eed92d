import { afterEach, describe, expect, it, vi } from 'vitest';
import { and, count, eq } from 'drizzle-orm';
import pino from 'pino';
import type { AppDeps } from '../../context.js';
import { startJobs } from '../../jobs/scheduler.js';
import type { Job, JobContext } from '../../jobs/job.js';
import { inOrder } from '../../lib/in-order.js';
import { createTestApp, type TestApp } from '../../testing/harness.js';
import type { WebhookOutcome } from '../metrics/metrics.service.js';
import { webhooksJob } from '../../jobs/webhooks.job.js';
import { WebhooksService, type WebhooksServiceOptions } from './webhooks.service.js';
import { webhookAttempts, webhookMessages } from './webhooks.table.js';
import { closeReceivers, enqueue, receiver, shield, type Receiver } from './webhooks.testing.js';

/**
 * Noisy neighbours: a partner whose endpoint is slow or hangs must not delay another partner's
 * deliveries. Hanging receivers are real sockets on 127.0.0.1 that never answer; the attempts
 * to them end at the service's time limit, kept short here (HANG_MS). Schedules use the manual
 * clock; nothing sleeps.
 */

afterEach(closeReceivers);

/** The time limit of an attempt in these tests: what a hanging endpoint holds a lane for. */
const HANG_MS = 2_000;

/** A service over the test app's database that counts outcomes like the metrics do. */
function service(t: TestApp, opts: WebhooksServiceOptions = {}) {
  const outcomes: Partial<Record<WebhookOutcome, number>> = {};
  const metrics = { webhook: (o: WebhookOutcome) => void (outcomes[o] = (outcomes[o] ?? 0) + 1) };
  const svc = new WebhooksService({ db: t.db, clock: t.clock, partners: t.deps.partners, logger: t.deps.logger, metrics }, { timeoutMs: HANG_MS, ...opts });
  return { svc, outcomes };
}

/** Enqueues `n` messages for the partner, each for a resource of its own, oldest first. */
async function messages(t: TestApp, svc: WebhooksService, partnerId: string, n: number, prefix: string) {
  return await inOrder(Array.from({ length: n }, (_, i) => i), (i) => enqueue(t, svc, partnerId, shield(`${prefix}-${i}`)));
}

async function delivered(t: TestApp, partnerId: string): Promise<number> {
  return (await t.db.select({ n: count() }).from(webhookMessages).where(and(eq(webhookMessages.partnerId, partnerId), eq(webhookMessages.state, 'delivered'))))[0]!.n;
}

async function attemptsOf(t: TestApp, partnerId: string): Promise<number> {
  return (await t.db.select({ n: count() }).from(webhookAttempts).where(eq(webhookAttempts.partnerId, partnerId)))[0]!.n;
}

/** Polls `check` every few milliseconds of real time until it holds; fails after `ms`. */
async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ids = (rx: Receiver) => rx.received.map((r) => r.headers['webhook-id']);

describe('webhooks: a partner whose endpoint hangs beside a healthy one', () => {
  it('holds only its own lanes: the job delivers all of the healthy partner’s messages before any hanging attempt times out', async () => {
    const t = createTestApp();
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const alone = await receiver();
    const slow = await t.partner('Slow', { webhookUrl: hanging.url });
    const fast = await t.partner('Fast', { webhookUrl: healthy.url });
    const solo = await t.partner('Solo', { webhookUrl: alone.url });
    const { svc, outcomes } = service(t);
    const deps = { ...t.deps, webhooks: svc } as AppDeps;

    // The same load without a neighbour first, for comparison.
    await messages(t, svc, solo.id, 30, 'solo');
    let started = performance.now();
    await webhooksJob.run(deps);
    const aloneMs = performance.now() - started;
    expect(await delivered(t, solo.id)).toBe(30);

    // The hanging partner's messages are the oldest: with one batch shared by everyone they
    // took every lane first, and the healthy partner waited for their time limit.
    await messages(t, svc, slow.id, 12, 'slow');
    await messages(t, svc, fast.id, 30, 'fast');
    started = performance.now();
    const stop = new AbortController();
    const run = webhooksJob.run(deps, { signal: stop.signal });
    await waitFor(async () => (await delivered(t, fast.id)) === 30);
    const withNeighbourMs = performance.now() - started;
    // None of the hanging attempts has ended yet, and the hanging partner holds its 4 lanes, no more.
    expect(await attemptsOf(t, slow.id)).toBe(0);
    expect(hanging.received).toHaveLength(4);
    expect(withNeighbourMs).toBeLessThan(HANG_MS);
    // A shutdown now: nothing new starts, and the run returns once the attempts in flight are recorded.
    stop.abort();
    await run;

    // The hanging attempts ended at the time limit, each with a retry on the schedule; the
    // partner's other messages were not claimed (they waited for a free lane of their own).
    const slowRows = await t.db.select().from(webhookMessages).where(eq(webhookMessages.partnerId, slow.id));
    const tried = slowRows.filter((r) => r.attempts === 1);
    expect(tried).toHaveLength(4);
    for (const r of tried) expect(r).toMatchObject({ state: 'pending', lastError: `No answer within ${HANG_MS} ms`, nextAttemptAt: t.clock.now() + 5_000 });
    expect(slowRows.filter((r) => r.attempts === 0 && r.state === 'pending')).toHaveLength(8);
    expect(outcomes).toEqual({ delivered: 60, failed_attempt: 4 });
    expect(new Set(ids(healthy)).size).toBe(30);
    expect(healthy.received).toHaveLength(30);
    // Latency of the healthy partner: of the order of the run without a neighbour, far below the time limit.
    expect({ aloneMs: aloneMs < HANG_MS, withNeighbourMs: withNeighbourMs < HANG_MS }).toEqual({ aloneMs: true, withNeighbourMs: true });
  });

  it('sends a message written while the neighbour hangs within a poll, without waiting for the hanging attempts', async () => {
    const t = createTestApp();
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const slow = await t.partner('Slow', { webhookUrl: hanging.url });
    const fast = await t.partner('Fast', { webhookUrl: healthy.url });
    const { svc } = service(t);
    await messages(t, svc, slow.id, 2, 'slow');

    const run = svc.deliverContinuously({ pollMs: 50 });
    await waitFor(() => hanging.received.length === 2);
    const late = await enqueue(t, svc, fast.id, shield('late'));
    await waitFor(async () => (await delivered(t, fast.id)) === 1);
    expect(ids(healthy)).toEqual([late.id]);
    expect(await attemptsOf(t, slow.id)).toBe(0); // still hanging
    expect(await run).toMatchObject({ attempted: 3, delivered: 1, retrying: 2 });
  });

  it('keeps a slot for a healthy partner when hanging partners fill the rest of the process’s lanes', async () => {
    const t = createTestApp();
    const healthy = await receiver();
    const hanging = await Promise.all([1, 2, 3].map(() => receiver(() => 'hang')));
    const { svc } = service(t, { perPartnerConcurrency: 2, concurrency: 5 });
    const slow: string[] = [];
    for (const [i, rx] of hanging.entries()) {
      const p = await t.partner(`Hanging ${i}`, { webhookUrl: rx.url });
      slow.push(p.id);
      await messages(t, svc, p.id, 5, `h${i}`);
    }
    const fast = await t.partner('Fast', { webhookUrl: healthy.url });
    await messages(t, svc, fast.id, 6, 'fast');

    const stop = new AbortController();
    const run = svc.deliverContinuously({ pollMs: 50, signal: stop.signal });
    await waitFor(async () => (await delivered(t, fast.id)) === 6);
    // Five in flight at most (the overall bound), two per hanging partner at most (its lanes),
    // and the healthy partner kept a slot: all of its messages went out before any hanging
    // attempt timed out (4 hanging attempts while it had messages, a fifth may start after).
    expect(await inOrder(slow, (id) => attemptsOf(t, id))).toEqual([0, 0, 0]);
    const held = hanging.map((rx) => rx.received.length);
    expect(held.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4);
    expect(held.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);
    for (const n of held) expect(n).toBeLessThanOrEqual(2);
    stop.abort();
    expect(await run).toMatchObject({ delivered: 6 });
  });
});

describe('webhooks: fairness between partners', () => {
  it('a partner with 200 pending messages does not push another partner’s single message out of the pass', async () => {
    const t = createTestApp();
    const busyRx = await receiver();
    const quietRx = await receiver();
    const busy = await t.partner('Busy', { webhookUrl: busyRx.url });
    const quiet = await t.partner('Quiet', { webhookUrl: quietRx.url });
    const { svc } = service(t);
    await messages(t, svc, busy.id, 200, 'busy');
    t.clock.advance(1_000);
    const single = await enqueue(t, svc, quiet.id, shield('single'));

    // One pass: the quiet partner's message is read in the first turn (with one batch of the
    // 50 oldest, it was the 201st and waited four passes); the busy one gets at most 20 of the batch.
    expect(await svc.deliverDue()).toEqual({ attempted: 21, waiting: 0, delivered: 21, retrying: 0, failed: 0, claimedElsewhere: 0 });
    expect(ids(quietRx)).toEqual([single.id]);
    expect(busyRx.received).toHaveLength(20);
    // The busy partner's go out oldest first.
    const order = await t.db.select({ id: webhookMessages.id }).from(webhookMessages).where(eq(webhookMessages.partnerId, busy.id)).orderBy(webhookMessages.createdAt, webhookMessages.id);
    expect(new Set(ids(busyRx))).toEqual(new Set(order.slice(0, 20).map((r) => r.id)));

    // The rest goes out in one run of the job.
    await webhooksJob.run({ ...t.deps, webhooks: svc } as AppDeps);
    expect(await delivered(t, busy.id)).toBe(200);
    expect(new Set(ids(busyRx)).size).toBe(200);
  });
});

describe('webhooks: guarantees kept under lanes', () => {
  it('delivers one resource’s messages in order within one run, a failure holding back only that resource', async () => {
    const t = createTestApp();
    let firstId = '';
    let failFirst = true;
    const rx = await receiver((_n, req) => (failFirst && req.headers['webhook-id'] === firstId ? 500 : 200));
    const p = await t.partner('Acme', { webhookUrl: rx.url });
    const { svc } = service(t);
    const chain = await inOrder([true, false, true], (status) => enqueue(t, svc, p.id, shield('chain', status)));
    firstId = chain[0]!.id;
    const others = await messages(t, svc, p.id, 6, 'other');
    const otherChain = await inOrder([true, false, true], (status) => enqueue(t, svc, p.id, shield('second-chain', status)));

    await svc.deliverContinuously({ pollMs: 50 });
    // The other resources went out, the second chain in its order within the same run; the
    // first chain waits behind its failed head without spending attempts.
    const sent = ids(rx);
    expect(sent.filter((id) => otherChain.some((m) => m.id === id))).toEqual(otherChain.map((m) => m.id));
    for (const m of others) expect(sent).toContain(m.id);
    expect(sent.filter((id) => chain.some((m) => m.id === id))).toEqual([chain[0]!.id]);
    expect((await svc.get(p.id, chain[1]!.id)).message).toMatchObject({ state: 'pending', attempts: 0 });

    failFirst = false;
    t.clock.advance(5_000);
    await svc.deliverContinuously({ pollMs: 50 });
    expect(ids(rx).filter((id) => chain.some((m) => m.id === id))).toEqual([chain[0]!.id, ...chain.map((m) => m.id)]);
    expect(await delivered(t, p.id)).toBe(12);
  });

  it('sends each message once when two processes deliver continuously at the same time', async () => {
    const t = createTestApp();
    const rxA = await receiver();
    const rxB = await receiver();
    const a = await t.partner('A', { webhookUrl: rxA.url });
    const b = await t.partner('B', { webhookUrl: rxB.url });
    const one = service(t, { perPartnerConcurrency: 2 });
    const two = service(t, { perPartnerConcurrency: 2 });
    const msgs = [...(await messages(t, one.svc, a.id, 15, 'a')), ...(await messages(t, one.svc, b.id, 15, 'b'))];
    const [r1, r2] = await Promise.all([one.svc.deliverContinuously({ pollMs: 50 }), two.svc.deliverContinuously({ pollMs: 50 })]);
    expect(r1.delivered + r2.delivered).toBe(30);
    expect([...ids(rxA), ...ids(rxB)].sort()).toEqual(msgs.map((m) => m.id).sort());
    expect((await t.db.select({ n: count() }).from(webhookAttempts))[0]!.n).toBe(30);
    expect((one.outcomes.delivered ?? 0) + (two.outcomes.delivered ?? 0)).toBe(30);
  });

  it('starts nothing new once stopped, and returns when the attempts in flight are recorded', async () => {
    const t = createTestApp();
    const hanging = await receiver(() => 'hang');
    const p = await t.partner('Slow', { webhookUrl: hanging.url });
    const { svc } = service(t, { timeoutMs: 300 });
    await messages(t, svc, p.id, 6, 'slow');
    const stop = new AbortController();
    const run = svc.deliverContinuously({ pollMs: 20, signal: stop.signal });
    await waitFor(() => hanging.received.length === 4);
    stop.abort();
    expect(await run).toMatchObject({ attempted: 4, retrying: 4 });
    expect(hanging.received).toHaveLength(4);
    const rows = await t.db.select().from(webhookMessages).where(eq(webhookMessages.partnerId, p.id));
    expect(rows.map((r) => r.attempts).sort()).toEqual([0, 0, 1, 1, 1, 1]);
  });

  it('the scheduler aborts the signal of the runs in hand when it stops', async () => {
    vi.useFakeTimers();
    try {
      let seen: JobContext | undefined;
      let finish!: () => void;
      const job: Job = {
        name: 'long',
        everyMs: 1000,
        run: async (_deps, ctx) => {
          seen = ctx;
          await new Promise<void>((r) => (finish = r));
        },
      };
      const jobs = startJobs({ logger: pino({ level: 'silent' }) } as unknown as AppDeps, [job]);
      await vi.advanceTimersByTimeAsync(1000);
      expect(seen?.signal.aborted).toBe(false);
      const stopped = jobs.stop();
      expect(seen?.signal.aborted).toBe(true);
      finish();
      await stopped;
    } finally {
      vi.useRealTimers();
    }
  });
});
