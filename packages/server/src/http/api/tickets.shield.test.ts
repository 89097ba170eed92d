import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, showBody, ticketBody } from '../../testing/factories.js';
import { runUnlocks } from '../../domain/tickets/tickets.unlock.js';

async function setup(showDate = '2026-03-01T16:00:00Z') {
  const t = createTestApp();
  const p = await t.partner('Acme', { webhookUrl: 'http://127.0.0.1:9/hooks' });
  const shows = [showBody('show-1', { date: showDate }), showBody('show-2', { date: showDate })];
  await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { configuration: {}, shows }) });
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('v1', { orderId: 'order-1' }), ticketBody('v2', { ticketOptionId: 'opt-vip', buyer: '+34600111222' })],
  });
  return { t, p };
}

describe('ticketShield switch (operator)', () => {
  it('switches a show or a whole event and emits ticketShield.updated only for shows that changed', async () => {
    const { t, p } = await setup();
    const one = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-1', status: true } });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual([{ showId: 'show-1', status: true, changed: true, admissionCodes: { venueScans: 'partner', rotationSeconds: 15, rotating: false } }]);
    const all = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: true } });
    expect(all.body.data).toEqual([
      { showId: 'show-1', status: true, changed: false, admissionCodes: { venueScans: 'partner', rotationSeconds: 15, rotating: false } },
      { showId: 'show-2', status: true, changed: true, admissionCodes: { venueScans: 'partner', rotationSeconds: 15, rotating: false } },
    ]);
    const hooks = await t.deps.webhooks.list(p.id, { action: 'ticketShield.updated' });
    expect(hooks.map((h) => h.message.payload)).toEqual([
      { family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour', showId: 'show-2' } },
      { family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour', showId: 'show-1' } },
    ]);
    await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-2', status: false } });
    expect((await t.deps.webhooks.list(p.id, { action: 'ticketShield.updated' }))[0]!.message.payload.data).toEqual({ status: false, eventId: 'tour', showId: 'show-2' });
  });

  it('refuses without the operator token, for unknown events, shows and partners, and bad bodies', async () => {
    const { t, p } = await setup();
    const other = await t.partner('Other');
    expect((await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { key: p.keys.private, body: { eventId: 'tour', status: true } })).status).toBe(401);
    expect((await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'nope', status: true } })).status).toBe(404);
    expect((await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-9', status: true } })).status).toBe(404);
    expect((await t.request('PUT', `/admin/v1/partners/${other.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: true } })).status).toBe(404);
    expect((await t.request('PUT', '/admin/v1/partners/ptr_nope/ticketShield', { operator: true, body: { eventId: 'tour', status: true } })).status).toBe(404);
    const bad = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: 'yes' } });
    expect(bad.body.errors[0]).toMatchObject({ code: 'invalid_type', path: 'status' });
    expect(await t.deps.webhooks.list(p.id)).toHaveLength(0);
  });
});

describe('ticket URLs', () => {
  it('answers the secure view URL, which stops working when the ticket changes hands', async () => {
    const { t, p } = await setup();
    const res = await t.request('GET', '/v1/tickets/v1/url', { key: p.keys.private });
    expect(res.status).toBe(200);
    const url: string = res.body.data;
    expect(url).toMatch(/^http:\/\/resale\.test\/tickets\/view\/tkt_[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    expect((await t.request('GET', '/v1/tickets/v1/url', { key: p.keys.private })).body.data).toBe(url);
    await t.request('PUT', '/v1/tickets/v1', { key: p.keys.private, body: { buyer: 'someone-else@example.com' } });
    expect((await t.request('GET', '/v1/tickets/v1/url', { key: p.keys.private })).body.data).not.toBe(url);
    const other = await t.partner('Other');
    expect((await t.request('GET', '/v1/tickets/v1/url', { key: other.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/tickets/v1/url', { key: p.keys.public })).status).toBe(403);
  });

  it('answers the public sale URL of the event filtered to the ticket', async () => {
    const { t, p } = await setup();
    const res = await t.request('GET', '/v1/events/tickets/salePublicUrl?ticketId=v1&lang=es', { key: p.keys.private });
    expect(res.body.data).toBe(`http://resale.test/market/${p.id}/tour?showId=show-1&ticketId=v1&lang=es`);
    const missing = await t.request('GET', '/v1/events/tickets/salePublicUrl?ticketId=v1', { key: p.keys.private });
    expect(missing.body.errors[0]).toMatchObject({ code: 'missing_field', path: 'lang', in: 'query' });
    expect((await t.request('GET', '/v1/events/tickets/salePublicUrl?ticketId=v1&lang=fr', { key: p.keys.private })).body.errors[0].code).toBe('invalid_value');
    expect((await t.request('GET', '/v1/events/tickets/salePublicUrl?ticketId=nope&lang=en', { key: p.keys.private })).status).toBe(404);
  });
});

describe('QR unlock notifications', () => {
  it('at the unlock moment: event.unlock once per show, and one e-mail with the PDF (or SMS) per valid ticket', async () => {
    // The show starts at 16:00 UTC; the partner's default unlocks 3 h before, at 13:00; the clock says 12:00.
    const { t, p } = await setup();
    await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-1', status: true } });
    expect(await runUnlocks(t.deps)).toEqual({ announced: 0, notified: 0 });
    t.clock.set('2026-03-01T13:00:00Z');
    expect(await runUnlocks(t.deps)).toEqual({ announced: 1, notified: 2 });
    expect(await runUnlocks(t.deps)).toEqual({ announced: 0, notified: 0 });
    expect((await t.deps.webhooks.list(p.id, { action: 'event.unlock' })).map((h) => h.message.payload.data)).toEqual([{ eventId: 'tour', showId: 'show-1' }]);
    const mails = await t.deps.messages.list();
    const email = mails.find((m) => m.channel === 'email')!;
    expect(email.to).toBe('fan@example.com');
    expect(email.template).toBe('ticketUnlocked');
    expect(email.text).toContain('http://resale.test/tickets/view/tkt_');
    const pdf = await t.deps.messages.attachment(email.id, 0);
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.content.subarray(0, 5).toString()).toBe('%PDF-');
    const sms = mails.find((m) => m.channel === 'sms')!;
    expect(sms.to).toBe('+34600111222');
  });

  it('on a show whose venue scans the rotating code: no PDF, and the e-mail says to open the ticket on the phone', async () => {
    const { t, p } = await setup();
    const shield = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-1', status: true, admissionCodes: { venueScans: 'rotating', rotationSeconds: 20 } } });
    expect(shield.status).toBe(200);
    t.clock.set('2026-03-01T13:00:00Z');
    expect(await runUnlocks(t.deps)).toEqual({ announced: 1, notified: 2 });
    const email = (await t.deps.messages.list()).find((m) => m.channel === 'email')!;
    expect(email.template).toBe('ticketUnlocked');
    expect(email.text).toContain('its code changes every 20 seconds and only works on the phone that shows it');
    expect(email.text).not.toMatch(/PDF|QR/);
    await expect(t.deps.messages.attachment(email.id, 0)).rejects.toThrow();
  });

  it('honours a qrUnlock rule of the ticket option and skips listed-off shows and invalid tickets', async () => {
    const { t, p } = await setup('2026-03-03T12:00:00Z');
    await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: true } });
    await t.request('POST', '/v1/rules', {
      key: p.keys.private,
      body: [{ externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip', ruleType: 'qrUnlock', rules: { hoursBeforeShow: 48 } }],
    });
    // 48 h before: only the VIP ticket (v2) unlocks; the show itself (3 h) not yet.
    t.clock.set('2026-03-01T12:00:00Z');
    expect(await runUnlocks(t.deps)).toEqual({ announced: 0, notified: 1 });
    expect((await t.deps.messages.list()).map((m) => m.to)).toEqual(['+34600111222']);
    await t.request('DELETE', '/v1/tickets/v1', { key: p.keys.private });
    t.clock.set('2026-03-03T09:00:00Z');
    expect(await runUnlocks(t.deps)).toEqual({ announced: 2, notified: 0 });
  });
});
