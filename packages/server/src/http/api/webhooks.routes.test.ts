import { afterEach, describe, expect, it } from 'vitest';
import { OpenAPIHono } from '@hono/zod-openapi';
import { Webhook } from 'standardwebhooks';
import { errorResponse } from '../../app.js';
import type { AppEnv } from '../../context.js';
import { OPERATOR_TOKEN, type TestApp } from '../../testing/harness.js';
import { WEBHOOK_ACTIONS } from '../../domain/webhooks/webhooks.catalog.js';
import { webhooksJob } from '../../jobs/webhooks.job.js';
import { webhookRoutes } from './webhooks.routes.js';
import type { WebhooksService } from '../../domain/webhooks/webhooks.service.js';
import { closeReceivers, enqueue, receiver, setup, shield } from '../../domain/webhooks/webhooks.testing.js';

afterEach(closeReceivers);

/** The operator routes mounted on their own app, with the app's error handler (app.ts does not mount them yet). */
function operatorApi(t: TestApp, svc: WebhooksService) {
  const app = new OpenAPIHono<AppEnv>();
  app.onError((err, c) => errorResponse(err, c, t.deps));
  app.route('/', webhookRoutes(t.deps, svc));
  async function call(method: string, path: string, opts: { token?: string | null } = {}) {
    const token = opts.token === undefined ? OPERATOR_TOKEN : opts.token;
    const res = await app.request(path, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, body: (await res.json()) as any };
  }
  return { app, call };
}

describe('operator API: webhooks', () => {
  it('lists a partner’s messages newest first, each with its attempts, filtered by state and action', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url, webhookEvents: ['ticketShield.updated', 'event.unlock'] });
    const api = operatorApi(t, svc);
    const first = await enqueue(t, svc, partner.id, shield('show-1'));
    t.clock.advance(1_000);
    const unlock = await enqueue(t, svc, partner.id, { action: 'event.unlock', resourceKey: 'show:tour-2026/show-2', data: { eventId: 'tour-2026', showId: 'show-2' } });
    t.clock.advance(1_000);
    const skipped = await enqueue(t, svc, partner.id, { action: 'ticket.update', resourceKey: 'ticket:t-1', data: { resaleId: 'bi_1', eventId: 'tour-2026', showId: 'show-1', paidAt: '2026-03-01T12:00:00.000Z', total: 44, currency: 'EUR', buyer: { id: null, email: 'b@example.com', phone: null, firstName: null, lastName: null }, tickets: [{ ticketId: 't-1', ticketOptionId: 'opt', seating: { section: null, row: null, seat: null }, orderId: null, listingId: 'lst_1', pricePaid: 44, currency: 'EUR', previousOwner: { id: null, email: 's@example.com', phone: null } }] } });
    await svc.deliverDue(); // first: 500, unlock: 200

    const res = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeNull();
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([skipped.id, unlock.id, first.id]);
    const failedOnce = res.body.data[2];
    expect(failedOnce).toMatchObject({
      id: first.id,
      action: 'ticketShield.updated',
      family: 'ticketShield',
      resourceKey: 'show:tour-2026/show-1',
      state: 'pending',
      body: { family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour-2026', showId: 'show-1' } },
      attemptCount: 1,
      nextAttemptAt: new Date(t.clock.now() + 5_000).toISOString(),
      deliveredAt: null,
      lastStatus: 500,
      lastError: 'HTTP 500: upstream unavailable',
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    expect(failedOnce.attempts).toHaveLength(1);
    expect(failedOnce.attempts[0]).toMatchObject({
      attempt: 1,
      url: rx.url,
      at: '2026-03-01T12:00:02.000Z',
      statusCode: 500,
      error: 'HTTP 500: upstream unavailable',
      answer: 'upstream unavailable',
      nextAttemptAt: '2026-03-01T12:00:07.000Z',
    });
    expect(typeof failedOnce.attempts[0].latencyMs).toBe('number');
    expect(res.body.data[1]).toMatchObject({ state: 'delivered', lastStatus: 200, deliveredAt: '2026-03-01T12:00:02.000Z', attempts: [{ statusCode: 200 }] });
    expect(res.body.data[0]).toMatchObject({ state: 'skipped', attemptCount: 0, attempts: [] });

    const skippedOnly = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks?state=skipped`);
    expect(skippedOnly.body.data.map((m: { id: string }) => m.id)).toEqual([skipped.id]);
    const byAction = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks?action=event.unlock`);
    expect(byAction.body.data.map((m: { id: string }) => m.id)).toEqual([unlock.id]);
    const limited = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks?limit=2`);
    expect(limited.body.data.map((m: { id: string }) => m.id)).toEqual([skipped.id, unlock.id]);

    // Another partner sees none of these.
    const otherPartner = await t.partner('Other');
    expect((await api.call('GET', `/admin/v1/partners/${otherPartner.id}/webhooks`)).body.data).toEqual([]);
  });

  it('validates the query, answers 404 for an unknown partner and 401 without the operator token', async () => {
    const { t, partner, svc } = await setup();
    const api = operatorApi(t, svc);
    const bad = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks?state=lost&limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string; in: string }) => `${e.in}:${e.path}`).sort()).toEqual(['query:limit', 'query:state']);

    const unknown = await api.call('GET', '/admin/v1/partners/ptr_unknown/webhooks');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('not_found');

    const msg = await enqueue(t, svc, partner.id, shield());
    for (const token of [null, 'wrong-token']) {
      expect((await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks`, { token })).status).toBe(401);
      const replay = await api.call('POST', `/admin/v1/partners/${partner.id}/webhooks/${msg.id}/replay`, { token });
      expect(replay.status).toBe(401);
      expect(replay.body.errors[0].code).toBe('unauthorized');
    }
  });

  it('replays a delivered message with the same webhook-id, and answers 404 for another partner’s message', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    t.clock.set(Date.now());
    const api = operatorApi(t, svc);
    const msg = await enqueue(t, svc, partner.id, shield());
    await svc.deliverDue();
    expect(rx.received).toHaveLength(1);

    const intruder = await t.partner('Intruder');
    const foreign = await api.call('POST', `/admin/v1/partners/${intruder.id}/webhooks/${msg.id}/replay`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe('not_found');
    expect((await api.call('POST', `/admin/v1/partners/${partner.id}/webhooks/msg_unknown/replay`)).status).toBe(404);
    expect((await api.call('POST', `/admin/v1/partners/ptr_unknown/webhooks/${msg.id}/replay`)).status).toBe(404);

    t.clock.advance(60_000);
    const replay = await api.call('POST', `/admin/v1/partners/${partner.id}/webhooks/${msg.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toMatchObject({ id: msg.id, state: 'pending', attemptCount: 0, nextAttemptAt: new Date(t.clock.now()).toISOString(), deliveredAt: null });
    expect(replay.body.data.attempts).toHaveLength(1); // the earlier attempt stays in the log

    expect(await svc.deliverDue()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(rx.received).toHaveLength(2);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([msg.id, msg.id]);
    expect(rx.received[1]!.body).toBe(rx.received[0]!.body);
    expect(Number(rx.received[1]!.headers['webhook-timestamp'])).toBe(Number(rx.received[0]!.headers['webhook-timestamp']) + 60);
    expect(new Webhook(partner.webhookSecret).verify(rx.received[1]!.body, rx.received[1]!.headers)).toMatchObject({ action: 'ticketShield.updated' });

    const after = await api.call('GET', `/admin/v1/partners/${partner.id}/webhooks`);
    expect(after.body.data[0]).toMatchObject({ state: 'delivered', attemptCount: 1 });
    expect(after.body.data[0].attempts.map((x: { attempt: number; statusCode: number }) => [x.attempt, x.statusCode])).toEqual([
      [1, 200],
      [1, 200],
    ]);
  });

  it('replays a skipped message (sent although not subscribed) and makes a pending retry due now', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const { t, partner, svc } = await setup({ webhookUrl: rx.url, webhookEvents: ['event.unlock'] });
    const api = operatorApi(t, svc);
    const unlock = await enqueue(t, svc, partner.id, { action: 'event.unlock', resourceKey: 'show:tour-2026/show-1', data: { eventId: 'tour-2026', showId: 'show-1' } });
    const skipped = await enqueue(t, svc, partner.id, shield('show-9'));
    await svc.deliverDue();
    expect((await svc.get(partner.id, unlock.id)).message).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: t.clock.now() + 5_000 });

    const retryNow = await api.call('POST', `/admin/v1/partners/${partner.id}/webhooks/${unlock.id}/replay`);
    expect(retryNow.body.data).toMatchObject({ state: 'pending', attemptCount: 1, nextAttemptAt: new Date(t.clock.now()).toISOString() });
    const replayed = await api.call('POST', `/admin/v1/partners/${partner.id}/webhooks/${skipped.id}/replay`);
    expect(replayed.body.data).toMatchObject({ state: 'pending', attemptCount: 0 });

    expect(await svc.deliverDue()).toMatchObject({ attempted: 2, delivered: 2 });
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([unlock.id, unlock.id, skipped.id]);
    expect((await svc.get(partner.id, unlock.id)).message).toMatchObject({ state: 'delivered', attempts: 2 });
  });

  it('documents the routes and every webhook kind in OpenAPI', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as any;
    const list = doc.paths['/admin/v1/partners/{partnerId}/webhooks'].get;
    expect(list).toMatchObject({ operationId: 'listPartnerWebhooks', tags: ['Operator'], security: [{ operatorToken: [] }] });
    expect(doc.paths['/admin/v1/partners/{partnerId}/webhooks/{messageId}/replay'].post.operationId).toBe('replayPartnerWebhook');
    expect(Object.keys(doc.webhooks)).toHaveLength(WEBHOOK_ACTIONS.length);
    // Registered on the app's own registry (not a mounted router), so the names carry no '/'.
    expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_ACTIONS]);
    expect(doc.webhooks['ticketShield.updated'].post.parameters.map((p: { name: string }) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const shieldSchema = doc.components.schemas.TicketShieldUpdatedWebhook;
    expect(shieldSchema.properties.family).toMatchObject({ enum: ['ticketShield'] });
    expect(shieldSchema.properties.action).toMatchObject({ enum: ['ticketShield.updated'] });
    expect(doc.components.schemas.TicketShieldUpdatedData.required.sort()).toEqual(['eventId', 'showId', 'status']);
    for (const name of ['ListingWebhookData', 'EventUnlockData', 'PayoutsDeliveredData', 'TicketUpdateData', 'WebhookMessage', 'WebhookAttempt']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });
});

describe('webhooks job', () => {
  it('delivers due messages from the app deps every second', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, svc, partner.id, shield());
    expect(webhooksJob).toMatchObject({ name: 'webhooks', everyMs: 1000 });
    await webhooksJob.run(t.deps);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([msg.id]);
    await webhooksJob.run(t.deps);
    expect(rx.received).toHaveLength(1);
  });
});
