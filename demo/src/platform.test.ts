import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnershipRecord } from './records.js';
import { startTestStack, signedHeaders, TEST_KEYS, TestBrowser, type TestStack } from './testing.js';

/** The platform-side contracts the service calls: the ownership endpoint and the webhook receiver. */

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(async () => {
  await s?.stop();
});

const ownership = (user: string | null, secret: string | null = TEST_KEYS.platformSecret) =>
  fetch(`${s.demoUrl}/platform/ownership${user === null ? '' : `?user=${encodeURIComponent(user)}`}`, { headers: secret === null ? {} : { 'X-Resale-Secret': secret } });

describe('GET /platform/ownership', () => {
  it('answers the platform-side ticket records of the user, by e-mail or id', async () => {
    const res = await ownership('ana@demo.test');
    expect(res.status).toBe(200);
    const records = await res.json();
    expect(records).toEqual([
      {
        eventId: 'demo-gala',
        ticketId: 'dt-gala-a5',
        showId: 'gala-1',
        ticketOptionId: 'gala-stalls',
        ticketTypeId: 'standard',
        paidPrice: 60,
        seating: { row: 'A', seat: '5', section: 'Stalls' },
        properties: { orderId: 'ord-1001' },
        tags: ['channel:demo'],
      },
      expect.objectContaining({ ticketId: 'dt-gala-a6' }),
      expect.objectContaining({ eventId: 'demo-festival', ticketOptionId: 'fest-ga', seating: { row: '', seat: '', section: '' }, properties: { orderId: 'ord-1004' } }),
    ]);
    const byId = await ownership('u-ana');
    expect(await byId.json()).toEqual(records);
    const upper = await ownership('ANA@demo.test');
    expect(upper.status).toBe(200);
  });

  it('204 for a known user without tickets, 404 for an unknown one, 400 without user', async () => {
    expect((await ownership('dan@demo.test')).status).toBe(204);
    expect((await ownership('nobody@demo.test')).status).toBe(404);
    expect((await ownership(null)).status).toBe(400);
  });

  it('requires the platform secret (401 without it or with another one)', async () => {
    expect((await ownership('ana@demo.test', null)).status).toBe(401);
    expect((await ownership('ana@demo.test', 'wrong-secret-wrong-secret')).status).toBe(401);
    expect((await ownership('ana@demo.test', `${TEST_KEYS.platformSecret}x`)).status).toBe(401);
    expect((await ownership('ana@demo.test', '')).status).toBe(401);
  });

  it('is what the service reads: the sell flow checks the holder live through it', async () => {
    const sellUrl = async () => {
      const res = await s.api('POST', '/v1/wrapper/accesslayer', {
        user: 'ana@demo.test',
        autologin: true,
        tickets: [{ eventId: 'demo-gala', showId: 'gala-1', ticketId: 'dt-gala-a6', ticketOptionId: 'gala-stalls', priceTypeId: 'standard' }],
      });
      expect(res.body.data.tickets[0]).toMatchObject({ ticketId: 'dt-gala-a6', status: 'SELLABLE' });
      return res.body.data.tickets[0].callToActions.find((c: { key: string }) => c.key === 'SELL').url as string;
    };
    const open = async (url: string) => {
      const b = new TestBrowser();
      const landing = await b.get(url);
      expect(landing.status).toBe(302);
      return b.get(new URL(landing.location!, url).href);
    };
    const owned = await open(await sellUrl());
    expect(owned.status).toBe(200);
    expect(owned.text).toContain('name="price"');

    // The platform says the ticket moved (the service was not told): the sell flow refuses it.
    const a6 = s.demo.store.ticket('dt-gala-a6')!;
    a6.ownerId = 'u-carla';
    try {
      const moved = await open(await sellUrl());
      expect(moved.status).toBe(403);
      expect(moved.text).toContain('This ticket is not in your account');
      expect(moved.text).not.toContain('name="price"');
    } finally {
      a6.ownerId = 'u-ana';
    }
  });
});

/** A `ticket.update` body as the service sends it (TicketUpdateData). */
function resaleBody(ticketIds: string[], buyer: { id?: string | null; email: string | null; firstName?: string | null; lastName?: string | null }, resaleId = 'bi_01testresale0000000000000') {
  return JSON.stringify({
    family: 'ticket',
    action: 'ticket.update',
    data: {
      resaleId,
      eventId: 'demo-festival',
      showId: 'fest-1',
      paidAt: new Date().toISOString(),
      total: 77,
      currency: 'EUR',
      buyer: { id: buyer.id ?? null, email: buyer.email, phone: null, firstName: buyer.firstName ?? null, lastName: buyer.lastName ?? null },
      tickets: ticketIds.map((ticketId) => ({
        ticketId,
        ticketOptionId: 'fest-ga',
        seating: { section: null, row: null, seat: null },
        orderId: 'ord-1006',
        listingId: 'lst_01test',
        pricePaid: 38.5,
        currency: 'EUR',
        previousOwner: { id: null, email: 'carla@demo.test', phone: null },
      })),
    },
  });
}

const deliver = (body: string, headers: Record<string, string>) => fetch(`${s.demoUrl}/webhooks`, { method: 'POST', headers, body });

describe('POST /webhooks', () => {
  const carlaFest = () => s.demo.store.state.tickets.filter((t) => t.eventId === 'demo-festival' && t.orderId === 'ord-1006').map((t) => t.ticketId);

  it('applies a correctly signed ticket.update once: tickets to the buyer (a new account), in a new order', async () => {
    const [first, second] = carlaFest();
    expect(first && second).toBeTruthy();
    const body = resaleBody([first!, second!], { email: 'Zoe@Example.com', firstName: 'Zoe', lastName: '<b>Lopez</b>' });
    const res = await deliver(body, signedHeaders('msg_resale_1', body));
    expect(res.status).toBe(204);

    const zoe = s.demo.store.findUser('zoe@example.com')!;
    expect(zoe).toMatchObject({ id: 'u-zoe', name: 'Zoe <b>Lopez</b>', email: 'zoe@example.com' });
    for (const id of [first!, second!]) {
      const t = s.demo.store.ticket(id)!;
      expect(t.ownerId).toBe('u-zoe');
      expect(t.orderId).toBe('bi_01testresale0000000000000');
      expect(t.paidPrice).toBe(38.5);
      expect(t.resale).toMatchObject({ resaleId: 'bi_01testresale0000000000000', fromUserId: 'u-carla' });
    }
    // The platform now answers the new holder's tickets, and no longer the seller's.
    const zoeOwns = await ownership('zoe@example.com');
    expect(((await zoeOwns.json()) as OwnershipRecord[]).map((r) => [r.ticketId, r.properties.orderId])).toEqual([
      [first, 'bi_01testresale0000000000000'],
      [second, 'bi_01testresale0000000000000'],
    ]);
    const carlaOwns = (await (await ownership('carla@demo.test')).json()) as OwnershipRecord[];
    expect(carlaOwns.map((r) => r.ticketId)).not.toContain(first);

    // The same message again (a retry or a replay: same webhook-id), even with another buyer: nothing changes.
    const replay = resaleBody([first!], { email: 'ben@demo.test' });
    const again = await deliver(replay, signedHeaders('msg_resale_1', replay));
    expect(again.status).toBe(204);
    expect(s.demo.store.ticket(first!)!.ownerId).toBe('u-zoe');
    const [latest, previous] = s.demo.store.state.webhooks;
    expect(latest).toMatchObject({ id: 'msg_resale_1', verified: true, type: 'ticket.update' });
    expect(latest!.verdict).toMatch(/^duplicate/);
    expect(previous!.verdict).toMatch(/^applied: 2 ticket/);
  });

  it('a known buyer gets the tickets in their own account', async () => {
    const body = resaleBody(['dt-gala-d3'], { email: 'ana@demo.test' }, 'bi_02');
    const res = await deliver(body, signedHeaders('msg_resale_2', body));
    expect(res.status).toBe(204);
    // dt-gala-d3 belongs to the gala, not to the festival the message names: left alone.
    expect(s.demo.store.ticket('dt-gala-d3')!.ownerId).toBe('u-ben');
    expect(s.demo.store.state.webhooks[0]!.verdict).toContain('unknown ticket(s) left alone: dt-gala-d3');
    const ok = resaleBody(['dt-festival-0002'], { email: 'ana@demo.test' }, 'bi_03');
    expect(s.demo.store.ticket('dt-festival-0002')!.ownerId).toBe('u-ben');
    expect((await deliver(ok, signedHeaders('msg_resale_3', ok))).status).toBe(204);
    expect(s.demo.store.ticket('dt-festival-0002')!.ownerId).toBe('u-ana');
    expect(s.demo.store.state.users.filter((u) => u.email === 'ana@demo.test')).toHaveLength(1);
  });

  it('gives the tickets of a refunded resale back to their seller, in the order they left, once', async () => {
    const ticketId = s.demo.store.state.tickets.find((t) => t.orderId === 'ord-1004')!.ticketId;
    const sold = resaleBody([ticketId], { email: 'erin@example.com' }, 'bi_refund_me');
    expect((await deliver(sold, signedHeaders('msg_sold_r', sold))).status).toBe(204);
    expect(s.demo.store.ticket(ticketId)!.ownerId).toBe('u-erin');
    const refunded = JSON.stringify({
      family: 'resale',
      action: 'resale.refunded',
      data: { resaleId: 'bi_refund_me', eventId: 'demo-festival', showId: 'fest-1', refundedAt: new Date().toISOString(), amount: 38.5, currency: 'EUR', reason: 'operator', buyer: { id: null, email: 'erin@example.com', phone: null }, tickets: [{ ticketId, listingId: 'lst_01test', previousOwner: { id: null, email: 'carla@demo.test', phone: null } }, { ticketId: 'dt-gala-d3', listingId: 'lst_01test', previousOwner: { id: null, email: 'carla@demo.test', phone: null } }] },
    });
    expect((await deliver(refunded, signedHeaders('msg_refund_r', refunded))).status).toBe(204);
    expect(s.demo.store.ticket(ticketId)).toMatchObject({ ownerId: 'u-ana', orderId: 'ord-1004', resale: null });
    expect(s.demo.store.state.webhooks[0]!.verdict).toBe('applied: 1 ticket(s) back to their seller (resale bi_refund_me refunded); left alone (unknown or not held through this resale): dt-gala-d3');
    // The buyer holds nothing any more (no content), the seller holds it again.
    expect((await ownership('erin@example.com')).status).toBe(204);
    expect(((await (await ownership('ana@demo.test')).json()) as OwnershipRecord[]).map((r) => r.ticketId)).toContain(ticketId);
  });

  it('stores a bad signature as REJECTED and applies nothing (400)', async () => {
    const target = 'dt-gala-c5';
    const before = s.demo.store.ticket(target)!.ownerId;
    const body = resaleBody([target], { email: 'mallory@evil.example' });
    const cases: Record<string, string>[] = [
      signedHeaders('msg_forged', body, { secret: 'whsec_b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldA==' }),
      { ...signedHeaders('msg_forged_2', body), 'webhook-signature': 'v1,AAAA' },
      signedHeaders('msg_old', body, { at: new Date(Date.now() - 10 * 60_000) }),
      { 'content-type': 'application/json' },
    ];
    // A signature of another body does not verify this one.
    const tampered = signedHeaders('msg_tampered', resaleBody([target], { email: 'ben@demo.test' }));
    cases.push(tampered);
    for (const headers of cases) {
      const res = await deliver(body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(s.demo.store.state.webhooks[0]).toMatchObject({ verified: false, type: 'ticket.update' });
      expect(s.demo.store.state.webhooks[0]!.verdict).toMatch(/^REJECTED/);
    }
    expect(s.demo.store.ticket(target)!.ownerId).toBe(before);
    expect(s.demo.store.findUser('mallory@evil.example')).toBeUndefined();
    // A rejected id is not remembered as applied: the genuine message with that id still applies.
    expect(s.demo.store.state.appliedWebhookIds).not.toContain('msg_forged');
  });

  it('answers 2xx to verified messages it has nothing to do with, and 413 to huge bodies', async () => {
    const other = JSON.stringify({ family: 'listing', action: 'listing.created', data: { listingId: 'lst_1' } });
    expect((await deliver(other, signedHeaders('msg_listing', other))).status).toBe(204);
    expect(s.demo.store.state.webhooks[0]!.verdict).toMatch(/^received/);
    const malformed = JSON.stringify({ family: 'ticket', action: 'ticket.update', data: { nope: true } });
    expect((await deliver(malformed, signedHeaders('msg_malformed', malformed))).status).toBe(204);
    expect(s.demo.store.state.webhooks[0]!.verdict).toBe('ignored: malformed ticket.update');
    const huge = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) });
    expect((await deliver(huge, signedHeaders('msg_huge', huge))).status).toBe(413);
  });

  it('the /webhooks page lists deliveries newest first with the verdict and the escaped payload', async () => {
    const page = await new TestBrowser().get(`${s.demoUrl}/webhooks`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('signature verified');
    expect(page.text).toContain('REJECTED');
    expect(page.text).toContain('msg_resale_1');
    expect(page.text).not.toContain('<b>Lopez</b>');
    expect(page.text).toContain('&lt;b&gt;Lopez&lt;/b&gt;');
    expect(page.text.indexOf('msg_malformed')).toBeLessThan(page.text.indexOf('msg_resale_1'));
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('keeps every change in the state file across a restart', async () => {
    await s.demo.stop();
    const again = await s.restartDemo();
    expect(again.store.ticket('dt-festival-0002')!.ownerId).toBe('u-ana');
    expect(again.store.findUser('zoe@example.com')).toBeDefined();
    expect(again.store.state.appliedWebhookIds).toContain('msg_resale_1');
    const replay = resaleBody(['dt-festival-0002'], { email: 'ben@demo.test' }, 'bi_03');
    await deliver(replay, signedHeaders('msg_resale_3', replay));
    expect(again.store.ticket('dt-festival-0002')!.ownerId).toBe('u-ana');
  });
});
