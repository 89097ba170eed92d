import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../app.js';
import { buildDeps } from '../../deps.js';
import { createTestApp, TEST_SECRET_KEY, type TestApp, type TestPartner } from '../../testing/harness.js';
import { ticketBody, withEvent } from '../../testing/factories.js';
import { messages } from '../email/email.table.js';
import { leads } from './leads.table.js';
import { wishlistJob } from '../../jobs/wishlist.job.js';
import { notifyWishlists, WAITING_LIST_LEAD_TAG, WISHLIST_BATCH } from './leads.wishlist.js';

async function setup(settings: Parameters<TestApp['partner']>[1] = {}) {
  const t = createTestApp();
  const p = await t.partner('Acme Tickets', settings);
  await withEvent(t, p);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('f1'), ticketBody('f2'), ticketBody('v1', { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 }), ticketBody('s2', { showId: 'show-2' })],
  });
  return { t, p, ...helpers(t, p) };
}

function helpers(t: TestApp, p: TestPartner) {
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const list = async (id: string, priceMinor = 4000) => await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket(id)).ownerPk, ticketPks: [(await ticket(id)).id], priceMinor }));
  const terminate = async (id: string) => await t.db.transact(async (tx) => await t.deps.listings.terminateByTicket(tx, p.id, id));
  const wish = async (overrides: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'Wish@Example.com' }, ...overrides } });
    expect(res.status).toBe(200);
    return res.body.data.lead as { id: string; notifiedAt: string | null };
  };
  const mails = async () => (await t.db.select().from(messages)).filter((m) => m.template === 'wishlistAvailable');
  const stored = async (id: string) => (await t.db.select().from(leads)).find((l) => l.id === id)!;
  return { list, terminate, wish, mails, stored };
}

describe('wishlist notifications', () => {
  it('e-mails a wishlist lead once, when resale stock first appears for its show, with a link to the market page', async () => {
    const { t, p, list, terminate, wish, mails, stored } = await setup();
    const lead = await wish();
    expect(await notifyWishlists(t.deps)).toBe(0);
    // Stock of another show does not count.
    await list('s2');
    expect(await notifyWishlists(t.deps)).toBe(0);
    t.clock.advance(5_000);
    await list('f1');
    expect(await notifyWishlists(t.deps)).toBe(1);
    const [mail, ...more] = await mails();
    expect(more).toHaveLength(0);
    expect(mail).toMatchObject({ to: 'wish@example.com', lang: 'en', partnerId: p.id, state: 'pending', subject: 'Resale tickets are available for The Big Tour 2026' });
    expect(mail!.text).toContain(`See the tickets: http://resale.test/market/${p.id}/tour?showId=show-1&lang=en`);
    expect(await stored(lead.id)).toMatchObject({ notifiedAt: Date.parse('2026-03-01T12:00:05Z'), notificationId: mail!.id });

    // Once: more stock, a re-sent lead, stock gone and back, the job again: nothing more.
    await list('f2');
    const again = await wish({ tags: ['again'] });
    expect(again.notifiedAt).toBe('2026-03-01T12:00:05.000Z');
    await terminate('f1');
    await terminate('f2');
    await list('f1');
    expect(await notifyWishlists(t.deps)).toBe(0);
    await wishlistJob.run(t.deps);
    expect(await mails()).toHaveLength(1);
    // The outbox delivers it.
    expect(await t.deps.messages.deliverDue()).toMatchObject({ sent: 1 });
  });

  it('notifies a lead sent while stock is already on the market, in the partner’s language', async () => {
    const { t, p, list, wish, mails } = await setup({ defaultLang: 'es' });
    await list('f1');
    await wish();
    await wishlistJob.run(t.deps);
    expect(await mails()).toHaveLength(1);
    expect((await mails())[0]).toMatchObject({ lang: 'es', subject: 'Hay entradas de reventa para The Big Tour 2026' });
    expect((await mails())[0]!.text).toContain(`Ver las entradas: http://resale.test/market/${p.id}/tour?showId=show-1&lang=es`);
  });

  it('waits for stock of the lead’s ticket option when it named one, and links to it', async () => {
    const { t, p, list, wish, mails } = await setup();
    await wish({ ticketOptionId: 'opt-vip' });
    await list('f1');
    expect(await notifyWishlists(t.deps)).toBe(0);
    await list('v1', 11000);
    expect(await notifyWishlists(t.deps)).toBe(1);
    expect((await mails())[0]!.text).toContain('Tickets (VIP) for The Big Tour 2026');
    expect((await mails())[0]!.text).toContain(`http://resale.test/market/${p.id}/tour?showId=show-1&lang=en&ticketOptionId=opt-vip`);
  });

  it('leaves out leads of other kinds, leads without an e-mail, and shows whose resale is closed', async () => {
    const { t, p, list, wish, mails, stored } = await setup();
    const phoneOnly = await wish({ buyer: { phone: '+34600111222' } });
    await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: { type: 'VIRTUAL_QUEUE', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'queue@example.com' } } });
    await list('f1');
    expect(await notifyWishlists(t.deps)).toBe(0);
    expect((await stored(phoneOnly.id)).notifiedAt).toBeNull();

    // Resale switched off for the show: no e-mail while it is; one once it is back on.
    await wish();
    const resale = (resaleEnabled: boolean) => t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', resaleEnabled }] } });
    expect((await resale(false)).status).toBe(200);
    expect(await notifyWishlists(t.deps)).toBe(0);
    expect((await resale(true)).status).toBe(200);
    // The show has started: too late.
    t.clock.set('2026-05-01T19:00:01Z');
    expect(await notifyWishlists(t.deps)).toBe(0);
    t.clock.set('2026-04-01T12:00:00Z');
    expect(await notifyWishlists(t.deps)).toBe(1);
    expect((await mails()).map((m) => m.to)).toEqual(['wish@example.com']);
  });

  it('leaves a fan in the show’s waiting list to its offers (no generic e-mail besides)', async () => {
    const { t, list, wish, mails, stored } = await setup();
    const queued = await wish({ tags: [WAITING_LIST_LEAD_TAG] });
    const other = await wish({ buyer: { email: 'other@example.com' } });
    await list('f1');
    expect(await notifyWishlists(t.deps)).toBe(1);
    expect((await mails()).map((m) => m.to)).toEqual(['other@example.com']);
    expect((await stored(queued.id)).notifiedAt).toBeNull();
    expect((await stored(other.id)).notifiedAt).not.toBeNull();
  });

  it('works through the waiting leads in batches', async () => {
    const { t, p, list, mails } = await setup();
    const items = Array.from({ length: WISHLIST_BATCH + 5 }, (_, i) => ({ type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: `fan${i}@example.com` } }));
    const bulk = await t.request('POST', '/v1/marketdata/users/bulk', { key: p.keys.private, body: { items } });
    expect(bulk.body.data.created).toBe(items.length);
    await list('f1');
    expect(await notifyWishlists(t.deps, 100)).toBe(100);
    await wishlistJob.run(t.deps);
    expect(await mails()).toHaveLength(items.length);
    expect(new Set((await mails()).map((m) => m.to)).size).toBe(items.length);
  });

  it('sends once when two processes over one database run the job', async () => {
    const t = createTestApp();
    // Another process's services over the same database (on PostgreSQL, connections of their own from the pool).
    const otherDeps = buildDeps({ db: t.db, clock: t.clock, config: t.deps.config, logger: pino({ level: 'silent' }), secretKey: TEST_SECRET_KEY });
    const a = { deps: t.deps, app: t.app };
    const b = { deps: otherDeps, app: createApp(otherDeps) };
    const partner = await t.partner('Acme');
    const key = partner.keys.private;
    const call = (app: typeof a.app, path: string, body: unknown) => app.request(path, { method: 'POST', headers: { authorization: key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await withEvent(t, partner);
    await call(a.app, '/v1/sync/tickets', [ticketBody('f1')]);
    await call(b.app, '/v1/marketdata/users', { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' } });
    const owner = await a.deps.tickets.get(a.deps.db, partner.id, 'f1');
    await a.deps.db.transact(async (tx) => await a.deps.listings.create(tx, partner.id, { sellerPk: owner.ownerPk, ticketPks: [owner.id], priceMinor: 4000 }));
    expect((await notifyWishlists(b.deps)) + (await notifyWishlists(a.deps)) + (await notifyWishlists(b.deps))).toBe(1);
    expect((await a.deps.db.select().from(messages)).filter((m) => m.template === 'wishlistAvailable')).toHaveLength(1);
  });
});
