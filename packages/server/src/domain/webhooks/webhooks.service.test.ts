import { inOrder } from '../../lib/in-order.js';
import { afterEach, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { ApiError } from '../../lib/errors.js';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS, retryDelayMs } from './webhooks.delivery.js';
import { webhookAttempts, webhookMessages } from './webhooks.table.js';
import { closedPort, closeReceivers, enqueue, newService, receiver, setup, shield } from './webhooks.testing.js';
import { WAITING_FOR_URL } from './webhooks.service.js';

afterEach(closeReceivers);

describe('webhooks: outbox', () => {
  it('stores a message only when the transaction that enqueues it commits', async () => {
    const { t, partner, svc } = await setup();
    await expect(t.db.transact(async (tx) => {
        await svc.enqueue(tx, partner.id, shield('show-1'));
        throw new Error('the change failed after the webhook was enqueued');
      })).rejects.toThrow(/the change failed/);
    expect((await t.db.select({ n: count() }).from(webhookMessages).limit(1))[0]!.n).toBe(0);

    // Due at once where the partner has a URL; put aside until it has one otherwise.
    const waiting = await enqueue(t, svc, partner.id, shield('show-2'));
    expect(waiting).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: null });
    await t.deps.partners.update(partner.id, { settings: { webhookUrl: 'https://partner.example/hooks' } });
    const row = await enqueue(t, svc, partner.id, shield('show-3'));
    expect(row).toMatchObject({ partnerId: partner.id, action: 'ticketShield.updated', family: 'ticketShield', state: 'pending', attempts: 0, nextAttemptAt: t.clock.now() });
    expect(row.id).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(row.payload).toEqual({ family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour-2026', showId: 'show-3' } });
    expect((await t.db.select({ n: count() }).from(webhookMessages).limit(1))[0]!.n).toBe(2);
  });

  it('refuses data that does not match the catalog, an empty resource key and an unknown partner, rolling the caller back', async () => {
    const { t, partner, svc } = await setup();
    const bad = { action: 'ticketShield.updated' as const, resourceKey: 'show:x', data: { status: 'yes', eventId: 'e' } as never };
    await expect(enqueue(t, svc, partner.id, bad)).rejects.toThrow(/data of webhook ticketShield.updated does not match its schema: status: .*showId/);
    await expect(enqueue(t, svc, partner.id, { ...shield(), resourceKey: '' })).rejects.toThrow(/resourceKey/);
    await expect(enqueue(t, svc, 'ptr_unknown', shield())).rejects.toThrow(ApiError);
    await expect(enqueue(t, svc, partner.id, { action: 'ticket.update', resourceKey: 'ticket:t-1', data: { anything: { goes: [1] } } as never })).rejects.toThrow(/ticket.update does not match/);
    await enqueue(t, svc, partner.id, { action: 'ticket.update', resourceKey: 'intention:bi_1', data: { resaleId: 'bi_1', eventId: 'tour-2026', showId: 'show-1', paidAt: '2026-03-01T12:00:00.000Z', total: 44, currency: 'EUR', buyer: { id: null, email: 'b@example.com', phone: null, firstName: null, lastName: null }, tickets: [{ ticketId: 't-1', ticketOptionId: 'opt', seating: { section: null, row: null, seat: null }, orderId: null, listingId: 'lst_1', pricePaid: 44, currency: 'EUR', previousOwner: { id: null, email: 's@example.com', phone: null } }] } });
    await enqueue(t, svc, partner.id, { action: 'event.unlock', resourceKey: 'show:tour-2026/show-1', data: { eventId: 'tour-2026', showId: 'show-1' } });
    expect((await t.db.select({ n: count() }).from(webhookMessages).limit(1))[0]!.n).toBe(2);
  });
});

describe('webhooks: delivery', () => {
  it('delivers once, with the Standard Webhooks headers, the exact body, and a signature the partner verifies', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    t.clock.set(Date.now()); // the verifier checks the timestamp against the real time
    const msg = await enqueue(t, svc, partner.id, shield('show-1', false));

    expect(await svc.deliverDue()).toEqual({ attempted: 1, waiting: 0, delivered: 1, retrying: 0, failed: 0, claimedElsewhere: 0 });
    expect(await svc.deliverDue()).toEqual({ attempted: 0, waiting: 0, delivered: 0, retrying: 0, failed: 0, claimedElsewhere: 0 });
    expect(rx.received).toHaveLength(1);

    const req = rx.received[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hooks/resale');
    expect(req.body).toBe(JSON.stringify({ family: 'ticketShield', action: 'ticketShield.updated', data: { status: false, eventId: 'tour-2026', showId: 'show-1' } }));
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('resale-webhooks/1.0');
    expect(req.headers['webhook-id']).toBe(msg.id);
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(t.clock.now() / 1000)));
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // What a partner does with any Standard Webhooks library.
    const verified = new Webhook(partner.webhookSecret).verify(req.body, req.headers);
    expect(verified).toEqual({ family: 'ticketShield', action: 'ticketShield.updated', data: { status: false, eventId: 'tour-2026', showId: 'show-1' } });
    expect(() => new Webhook(partner.webhookSecret).verify(req.body.replace('false', 'true'), req.headers)).toThrow(/signature/);
    const otherSecret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    expect(() => new Webhook(otherSecret).verify(req.body, req.headers)).toThrow(/signature/);

    const { message, attempts } = await svc.get(partner.id, msg.id);
    expect(message).toMatchObject({ state: 'delivered', attempts: 1, nextAttemptAt: null, deliveredAt: t.clock.now(), lastStatus: 200, lastError: null });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, url: rx.url, at: t.clock.now(), statusCode: 200, error: null, nextAttemptAt: null });
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('sends, on every attempt, the body built at enqueue byte for byte (key order included: PostgreSQL jsonb would reorder it), and still sends a message stored as an object', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    t.clock.set(Date.now());
    const data = {
      resaleId: 'bi_1', eventId: 'tour-2026', showId: 'show-1', paidAt: '2026-03-01T12:00:00.000Z', total: 44.5, currency: 'EUR',
      buyer: { id: null, email: 'b@example.com', phone: null, firstName: 'Zoë', lastName: null },
      tickets: [{ ticketId: 't-1', ticketOptionId: 'opt', seating: { section: 'Pista', row: null, seat: '12' }, orderId: null, listingId: 'lst_1', pricePaid: 44.5, currency: 'EUR', previousOwner: { id: 'u-1', email: 's@example.com', phone: null } }],
    };
    const msg = await enqueue(t, svc, partner.id, { action: 'ticket.update', resourceKey: 'intention:bi_1', data });
    const sent = JSON.stringify({ family: 'ticket', action: 'ticket.update', data });
    // Stored as that text, not as an object the database may rewrite.
    expect((await t.db.select().from(webhookMessages).where(eq(webhookMessages.id, msg.id)))[0]!.payload).toBe(sent);
    expect(msg.payload).toEqual({ family: 'ticket', action: 'ticket.update', data });

    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, retrying: 1 });
    t.clock.advance(RETRY_SCHEDULE_MS[0]!);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received.map((r) => r.body)).toEqual([sent, sent]);
    for (const req of rx.received) expect(new Webhook(partner.webhookSecret).verify(req.body, req.headers)).toEqual({ family: 'ticket', action: 'ticket.update', data });
    // The operator API shows that body, in that order.
    expect(JSON.stringify((await svc.get(partner.id, msg.id)).message.payload)).toBe(sent);

  });

  it('retries a 500 on schedule: not before 5 s of clock time, then delivers; each attempt is logged', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    const start = t.clock.now();

    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, retrying: 1 });
    let { message, attempts } = await svc.get(partner.id, msg.id);
    expect(message).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: start + 5_000, lastStatus: 500, lastError: 'HTTP 500: upstream unavailable' });
    expect(attempts[0]).toMatchObject({ attempt: 1, statusCode: 500, error: 'HTTP 500: upstream unavailable', nextAttemptAt: start + 5_000 });

    t.clock.advance(4_999);
    expect((await svc.deliverDue()).attempted).toBe(0);
    expect(rx.received).toHaveLength(1);

    t.clock.advance(1);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(2);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([msg.id, msg.id]);
    expect(rx.received[1]!.headers['webhook-timestamp']).toBe(String(Math.floor((start + 5_000) / 1000)));

    ({ message, attempts } = await svc.get(partner.id, msg.id));
    expect(message).toMatchObject({ state: 'delivered', attempts: 2, deliveredAt: start + 5_000, lastStatus: 200, lastError: null, nextAttemptAt: null });
    expect(attempts.map((x) => [x.attempt, x.statusCode, x.at])).toEqual([
      [1, 500, start],
      [2, 200, start + 5_000],
    ]);
    for (const x of attempts) expect(Number.isInteger(x.latencyMs) && x.latencyMs >= 0).toBe(true);
  });

  it('keeps at most ~200 characters of a failed answer in the log', async () => {
    const rx = await receiver(() => 503, { errorBody: 'x'.repeat(5_000) });
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    const error = (await svc.get(partner.id, msg.id)).attempts[0]!.error!;
    expect(error.startsWith('HTTP 503: xxx')).toBe(true);
    expect(error.length).toBeLessThanOrEqual('HTTP 503: '.length + 201);
  });

  it('keeps retrying while the endpoint is down and delivers once it is up', async () => {
    const port = await closedPort();
    const { t, partner, svc } = await setup({ webhookUrl: `http://127.0.0.1:${port}/hooks` });
    const msg = await enqueue(t, svc, partner.id, shield());

    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, retrying: 1 });
    let attempts = (await svc.get(partner.id, msg.id)).attempts;
    expect(attempts[0]).toMatchObject({ statusCode: null, error: 'The endpoint could not be reached (ECONNREFUSED)' });

    t.clock.advance(5_000);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, retrying: 1 });

    const rx = await receiver(() => 204, { port });
    t.clock.advance(5 * 60_000);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]!.headers['webhook-id']).toBe(msg.id);
    attempts = (await svc.get(partner.id, msg.id)).attempts;
    expect(attempts.map((x) => x.statusCode)).toEqual([null, null, 204]);
    expect((await svc.get(partner.id, msg.id)).message.state).toBe('delivered');
  });

  it('counts an endpoint that does not answer within the time limit as a failed attempt', async () => {
    const rx = await receiver(() => 'hang');
    const { t, partner, svc } = await setup({ webhookUrl: rx.url }, { timeoutMs: 200 });
    const msg = await enqueue(t, svc, partner.id, shield());

    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, retrying: 1, delivered: 0 });
    expect(rx.received).toHaveLength(1);
    const { message, attempts } = await svc.get(partner.id, msg.id);
    expect(message).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: t.clock.now() + 5_000, lastStatus: null, lastError: 'No answer within 200 ms' });
    expect(attempts[0]).toMatchObject({ statusCode: null, error: 'No answer within 200 ms' });
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(150);
    expect(attempts[0]!.latencyMs).toBeLessThan(2_000);
  });

  it('gives up after the whole schedule (10 attempts over about 3 days): the message is failed', async () => {
    const total = RETRY_SCHEDULE_MS.reduce((s, x) => s + x, 0);
    expect(total).toBe(((75 * 60 + 35) * 60 + 5) * 1000); // 75 h 35 min 5 s
    expect(MAX_ATTEMPTS).toBe(10);
    expect(retryDelayMs(1)).toBe(5_000);
    expect(retryDelayMs(MAX_ATTEMPTS)).toBeNull();

    const rx = await receiver(() => 500);
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    const start = t.clock.now();

    for (let n = 1; n <= MAX_ATTEMPTS; n++) {
      const report = await svc.deliverDue();
      expect(report.attempted).toBe(1);
      const { message } = await svc.get(partner.id, msg.id);
      expect(message.attempts).toBe(n);
      if (n < MAX_ATTEMPTS) {
        expect(report.retrying).toBe(1);
        expect(message.nextAttemptAt).toBe(t.clock.now() + RETRY_SCHEDULE_MS[n - 1]!);
        t.clock.advance(RETRY_SCHEDULE_MS[n - 1]! - 1);
        expect((await svc.deliverDue()).attempted).toBe(0); // not a millisecond early
        t.clock.advance(1);
      } else {
        expect(report.failed).toBe(1);
      }
    }
    expect(t.clock.now() - start).toBe(total);
    const { message, attempts } = await svc.get(partner.id, msg.id);
    expect(message).toMatchObject({ state: 'failed', attempts: 10, nextAttemptAt: null, deliveredAt: null, lastStatus: 500 });
    expect(attempts.map((x) => x.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(attempts.at(-1)!.nextAttemptAt).toBeNull();

    t.clock.advance(30 * 86_400_000);
    expect((await svc.deliverDue()).attempted).toBe(0);
    expect(rx.received).toHaveLength(10);
  });

  it('delivers the messages of one resource in order; a failing one holds back only its own resource', async () => {
    let failFirst = true;
    let firstId = '';
    const rx = await receiver((_n, req) => (failFirst && req.headers['webhook-id'] === firstId ? 500 : 200));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const a1 = await enqueue(t, svc, partner.id, shield('show-a', true));
    firstId = a1.id;
    const a2 = await enqueue(t, svc, partner.id, shield('show-a', false));
    const b1 = await enqueue(t, svc, partner.id, shield('show-b', true));
    const sent = () => rx.received.map((r) => r.headers['webhook-id']);

    await svc.deliverDue();
    expect(sent()).toEqual([a1.id, b1.id]); // a2 waits behind the failing a1; b1 is not blocked

    t.clock.advance(5_000);
    await svc.deliverDue();
    expect(sent()).toEqual([a1.id, b1.id, a1.id]);
    expect((await svc.get(partner.id, a2.id)).message).toMatchObject({ state: 'pending', attempts: 0 }); // waiting spends no attempts

    failFirst = false;
    t.clock.advance(5 * 60_000);
    await svc.deliverDue();
    expect(sent()).toEqual([a1.id, b1.id, a1.id, a1.id]);
    await svc.deliverDue();
    expect(sent()).toEqual([a1.id, b1.id, a1.id, a1.id, a2.id]);
    expect((await svc.get(partner.id, a2.id)).message).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('lets the next message of a resource go once the one before it failed for good', async () => {
    const rx = await receiver(() => 500);
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const first = await enqueue(t, svc, partner.id, shield('show-a', true));
    const second = await enqueue(t, svc, partner.id, shield('show-a', false));
    for (const delay of [...RETRY_SCHEDULE_MS, 0]) {
      await svc.deliverDue();
      t.clock.advance(delay);
    }
    expect((await svc.get(partner.id, first.id)).message.state).toBe('failed');
    expect(rx.received.every((r) => r.headers['webhook-id'] === first.id)).toBe(true);
    rx.reply(() => 200);
    await svc.deliverDue();
    expect(rx.received.at(-1)!.headers['webhook-id']).toBe(second.id);
  });

  it('stores an action the partner does not subscribe to as skipped and never sends it', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url, webhookEvents: ['listing.created'] });
    const skipped = await enqueue(t, svc, partner.id, shield());
    const listing = await enqueue(t, svc, partner.id, {
      action: 'listing.created',
      resourceKey: 'listing:lst_1',
      data: { listingId: 'lst_1', ticketIds: ['t-1'], eventId: 'tour-2026', showId: 'show-1', ticketOptionId: 'opt-field', price: 50, currency: 'EUR', state: 'ACTIVE' },
    });
    expect(skipped).toMatchObject({ state: 'skipped', nextAttemptAt: null });
    expect(skipped.lastError).toMatch(/does not subscribe to ticketShield.updated/);

    t.clock.advance(86_400_000);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([listing.id]);
    expect(await svc.get(partner.id, skipped.id)).toMatchObject({ message: { state: 'skipped', attempts: 0 }, attempts: [] });
  });

  it('puts messages aside without attempts while no webhookUrl is configured, and sends them in order once one is set', async () => {
    const { t, partner, svc } = await setup();
    const first = await enqueue(t, svc, partner.id, shield());
    const second = await enqueue(t, svc, partner.id, shield());
    // Nothing due: no attempt, no retry schedule, however long it waits.
    t.clock.advance(86_400_000);
    expect(await svc.deliverDue()).toMatchObject({ attempted: 0, waiting: 0 });
    for (const msg of [first, second]) {
      expect(await svc.get(partner.id, msg.id)).toMatchObject({ message: { state: 'pending', attempts: 0, nextAttemptAt: null, lastError: WAITING_FOR_URL }, attempts: [] });
    }

    // A URL set (through the settings, as the console and the operator API set it): both go out, oldest first.
    const rx = await receiver();
    await t.deps.partners.update(partner.id, { settings: { webhookUrl: rx.url } });
    expect((await svc.get(partner.id, first.id)).message).toMatchObject({ nextAttemptAt: t.clock.now(), lastError: null });
    // One resource: the second after the first is delivered (the next pass).
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([first.id, second.id]);
    expect((await svc.get(partner.id, first.id)).attempts.map((x) => x.url)).toEqual([rx.url]);

    // The URL removed while a message is due: claimed, then put aside again, with no attempt counted.
    const third = await enqueue(t, svc, partner.id, shield());
    await t.deps.partners.update(partner.id, { settings: { webhookUrl: null } });
    expect(await svc.deliverDue()).toMatchObject({ attempted: 0, waiting: 1 });
    expect(await svc.get(partner.id, third.id)).toMatchObject({ message: { state: 'pending', attempts: 0, nextAttemptAt: null, lastError: WAITING_FOR_URL }, attempts: [] });
    await t.deps.partners.update(partner.id, { settings: { webhookUrl: rx.url } });
    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(3);
  });

  it('loses nothing across a restart: a new service instance delivers what was committed', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    // The process stops here, after the commit and before any delivery.
    const afterRestart = newService(t);
    expect(await afterRestart.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([msg.id]);
  });

  it('retries a message whose worker died after claiming it, once the lease is over', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url }, { timeoutMs: 1_000, leaseMarginMs: 4_000 });
    const msg = await enqueue(t, svc, partner.id, shield());
    expect(await svc.claim(msg)).toBe(t.clock.now() + 5_000); // claimed, then the process dies before sending

    const other = newService(t, { timeoutMs: 1_000, leaseMarginMs: 4_000 });
    expect((await other.deliverDue()).attempted).toBe(0);
    t.clock.advance(4_999);
    expect((await other.deliverDue()).attempted).toBe(0);
    t.clock.advance(1);
    expect(await other.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(1);
    expect((await svc.get(partner.id, msg.id)).message).toMatchObject({ state: 'delivered', attempts: 1 });
  });

  it('sends once when two workers deliver at the same time', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url }, { concurrency: 2 });
    const msgs = await inOrder(Array.from({ length: 6 }, (_, i) => i), (i) => enqueue(t, svc, partner.id, shield(`show-${i}`)));
    // Both read the same batch; with two lanes each, the second worker tries to claim
    // messages the first has not sent yet: the conditional update lets one of them win.
    const [r1, r2] = await Promise.all([svc.deliverDue(), newService(t, { concurrency: 2 }).deliverDue()]);
    expect(r1!.delivered + r2!.delivered).toBe(6);
    expect(r1!.claimedElsewhere + r2!.claimedElsewhere).toBeGreaterThan(0); // the race did happen
    expect(rx.received.map((r) => r.headers['webhook-id']).sort()).toEqual(msgs.map((m) => m.id).sort());
    expect((await t.db.select({ n: count() }).from(webhookAttempts).limit(1))[0]!.n).toBe(6);
  });

  it('claims an attempt only for the first of two workers that read the same row, and never past an older pending message', async () => {
    const { t, partner, svc } = await setup();
    const msg = await enqueue(t, svc, partner.id, shield('show-1'));
    const read = (await t.db.select().from(webhookMessages).where(eq(webhookMessages.id, msg.id)).limit(1))[0]!;
    expect(await svc.claim(read)).not.toBeNull();
    expect(await newService(t).claim(read)).toBeNull();
    expect(await svc.claim(read)).toBeNull();

    const older = await enqueue(t, svc, partner.id, shield('show-2'));
    const newer = await enqueue(t, svc, partner.id, shield('show-2'));
    expect(await svc.claim(newer)).toBeNull();
    expect(await svc.claim(older)).not.toBeNull();
  });

  it('never puts the signing secret in the log, even when an answer quotes it', async () => {
    const { t, partner, svc } = await setup();
    const rx = await receiver(() => 400, { errorBody: `bad signature; your secret is ${partner.webhookSecret}` });
    await t.deps.partners.update(partner.id, { settings: { webhookUrl: rx.url } });
    await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    const dump = JSON.stringify(await t.db.select().from(webhookAttempts)) + JSON.stringify(await t.db.select().from(webhookMessages));
    expect(dump).not.toContain(partner.webhookSecret);
    expect(dump).toContain('HTTP 400: bad signature; your secret is [redacted]');
  });
});
