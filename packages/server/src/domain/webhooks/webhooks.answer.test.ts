import { afterEach, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { ApiError } from '../../lib/errors.js';
import { WEBHOOK_EXAMPLES } from './webhooks.catalog.js';
import { answerOf, MAX_ANSWER_CHARS } from './webhooks.delivery.js';
import { isTestMessage, TEST_RESOURCE_PREFIX } from './webhooks.service.js';
import { webhookAttempts, webhookMessages } from './webhooks.table.js';
import { closedPort, closeReceivers, enqueue, receiver, setup, shield } from './webhooks.testing.js';

afterEach(closeReceivers);

/** What the delivery log holds of a message's attempts, oldest first. */
async function attemptsOf(t: Awaited<ReturnType<typeof setup>>['t'], messageId: string) {
  return await t.db.read(async (tx) => await tx.select().from(webhookAttempts).where(eq(webhookAttempts.messageId, messageId)).orderBy(asc(webhookAttempts.attempt)));
}

describe('webhooks: what the endpoint answered', () => {
  it('keeps the first 1,024 characters of the body of a failed answer and of a delivered one, the error still short', async () => {
    const long = `{"error":"${'x'.repeat(5000)}"}`;
    const rx = await receiver((n) => (n === 1 ? 500 : 200), { errorBody: long, okBody: `accepted ${'y'.repeat(3000)}` });
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    t.clock.advance(5_000);
    await svc.deliverDue();
    const [failed, delivered] = await attemptsOf(t, msg.id);
    expect(failed!.statusCode).toBe(500);
    expect(failed!.answer).toBe(long.slice(0, MAX_ANSWER_CHARS));
    expect(failed!.answer).toHaveLength(1024);
    expect(failed!.error!.length).toBeLessThanOrEqual(`HTTP 500: `.length + 201);
    expect(delivered!.statusCode).toBe(200);
    expect(delivered!.answer).toHaveLength(1024);
    expect(delivered!.answer!.startsWith('accepted yyy')).toBe(true);
  });

  it('keeps a short body whole (its whitespace too), and nothing when the body is empty or nothing answered', async () => {
    const rx = await receiver(() => 200, { okBody: '{\n  "received": true\n}' });
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    expect((await attemptsOf(t, msg.id))[0]!.answer).toBe('{\n  "received": true\n}');

    const empty = await receiver(() => 204, { okBody: '' });
    const other = await t.partner('Empty', { webhookUrl: empty.url });
    const none = await enqueue(t, svc, other.id, shield());
    await svc.deliverDue();
    expect((await attemptsOf(t, none.id))[0]).toMatchObject({ statusCode: 204, answer: null });

    const closed = await t.partner('Closed', { webhookUrl: `http://127.0.0.1:${await closedPort()}/hooks` });
    const refused = await enqueue(t, svc, closed.id, shield());
    await svc.deliverDue();
    expect((await attemptsOf(t, refused.id))[0]).toMatchObject({ statusCode: null, answer: null });
  });

  it('keeps nothing of a redirect: neither its body nor its target', async () => {
    const target = 'https://elsewhere.example/secret-path?token=abc';
    const rx = await receiver(() => 302, { errorBody: `Redirecting to ${target}`, headers: { location: target } });
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    const [attempt] = await attemptsOf(t, msg.id);
    expect(attempt).toMatchObject({ statusCode: 302, answer: null, error: 'HTTP 302 (redirects are not followed)' });
    const stored = await t.db.read(async (tx) => [await tx.select().from(webhookAttempts), await tx.select().from(webhookMessages)]);
    expect(JSON.stringify(stored)).not.toContain('elsewhere.example');
  });

  it('never keeps the signing secret an endpoint echoes, nor a NUL character, nor half of a character', async () => {
    const { t, partner, svc } = await setup();
    // The endpoint echoes the secret back (its body is made once the secret is known).
    const echo = await receiver(() => 400, { errorBody: `bad signature for ${partner.webhookSecret}\u0000 end` });
    await t.request('PATCH', `/admin/v1/partners/${partner.id}`, { operator: true, body: { settings: { webhookUrl: echo.url } } });
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    const [attempt] = await attemptsOf(t, msg.id);
    expect(attempt!.answer).toBe('bad signature for [redacted] end');
    // The error repeats it, cleaned the same way (PostgreSQL's text refuses a NUL).
    expect(attempt!.error).toBe('HTTP 400: bad signature for [redacted] end');
    expect(JSON.stringify(attempt)).not.toContain(partner.webhookSecret);

    // UTF-16: a pair across the cut is left out whole; multi-byte UTF-8 is counted in characters.
    expect(answerOf('a' + '😀'.repeat(1000))).toBe('a' + '😀'.repeat(511));
    expect(answerOf('é'.repeat(2000))).toBe('é'.repeat(1024));
    expect(answerOf('\u0000')).toBeNull();
  });
});

describe('webhooks: test events', () => {
  it('queues the kind’s example on a resource of its own, sent like a real message even when the partner does not subscribe', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url, webhookEvents: ['event.unlock'] });
    t.clock.set(Date.now());
    const test = await t.db.transact(async (tx) => await svc.enqueueTestIn(tx, partner.id, 'listing.created'));
    expect(test).toMatchObject({ action: 'listing.created', family: 'listing', state: 'pending', resourceKey: `${TEST_RESOURCE_PREFIX}${test.id}` });
    expect(isTestMessage(test)).toBe(true);
    expect(test.payload).toEqual({ family: 'listing', action: 'listing.created', data: WEBHOOK_EXAMPLES['listing.created'] });
    await svc.deliverDue();
    expect(rx.received).toHaveLength(1);
    const req = rx.received[0]!;
    expect(req.headers['webhook-id']).toBe(test.id);
    expect(new Webhook(partner.webhookSecret).verify(req.body, req.headers)).toEqual(test.payload);
    // A real message of the same kind is still skipped: the test changed nothing of the subscription.
    const real = await enqueue(t, svc, partner.id, { action: 'listing.created', resourceKey: 'listing:lst_1', data: WEBHOOK_EXAMPLES['listing.created'] });
    expect(real.state).toBe('skipped');
    // The test events' keys are theirs only.
    await expect(enqueue(t, svc, partner.id, { ...shield(), resourceKey: 'test:mine' })).rejects.toThrow(/test events/);
  });

  it('never holds back a real message, nor another test, while it is retried', async () => {
    const rx = await receiver((_n, req) => (JSON.parse(req.body).action === 'ticketShield.updated' ? 200 : 500));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const test = await t.db.transact(async (tx) => await svc.enqueueTestIn(tx, partner.id, 'event.unlock'));
    await svc.deliverDue();
    t.clock.advance(1_000);
    const second = await t.db.transact(async (tx) => await svc.enqueueTestIn(tx, partner.id, 'event.unlock'));
    const real = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    const states = await t.db.read(async (tx) => await tx.select({ id: webhookMessages.id, state: webhookMessages.state, attempts: webhookMessages.attempts }).from(webhookMessages));
    expect(states.find((m) => m.id === real.id)).toMatchObject({ state: 'delivered' });
    expect(states.find((m) => m.id === second.id)).toMatchObject({ state: 'pending', attempts: 1 });
    expect(states.find((m) => m.id === test.id)).toMatchObject({ state: 'pending', attempts: 1 });
  });
});

describe('webhooks: the log a page at a time', () => {
  it('pages newest first with a cursor, by state and action, and refuses a cursor of another partner', async () => {
    const { t, partner, svc } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const unlock = { action: 'event.unlock' as const, resourceKey: `show:tour-2026/show-${i}`, data: { eventId: 'tour-2026', showId: `show-${i}` } };
      ids.push((i % 2 === 0 ? await enqueue(t, svc, partner.id, shield(`show-${i}`)) : await enqueue(t, svc, partner.id, unlock)).id);
      if (i < 3) t.clock.advance(1_000);
    }
    const newest = [...ids].reverse();
    const first = await svc.page(partner.id, { limit: 2 });
    expect(first.items.map((m) => m.message.id)).toEqual(newest.slice(0, 2));
    const second = await svc.page(partner.id, { limit: 2, startingAfter: first.nextCursor! });
    expect(second.items.map((m) => m.message.id)).toEqual(newest.slice(2, 4));
    const last = await svc.page(partner.id, { limit: 2, startingAfter: second.nextCursor! });
    expect(last).toMatchObject({ nextCursor: null });
    expect(last.items.map((m) => m.message.id)).toEqual(newest.slice(4));
    expect((await svc.page(partner.id, { action: 'event.unlock' })).items.map((m) => m.message.id)).toEqual([ids[3], ids[1]]);
    expect((await svc.page(partner.id, { state: 'delivered' })).items).toEqual([]);

    const other = await t.partner('Other');
    const foreign = await enqueue(t, svc, other.id, shield());
    await expect(svc.page(partner.id, { startingAfter: foreign.id })).rejects.toMatchObject({ status: 400 });
    await expect(svc.page('ptr_unknown')).rejects.toBeInstanceOf(ApiError);
  });
});
