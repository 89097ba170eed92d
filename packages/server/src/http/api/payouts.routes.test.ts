import { describe, expect, it } from 'vitest';
import { setup } from '../../flows/flows.testing.js';

type Journey = Awaited<ReturnType<typeof setup>>;

/** Resales of these tickets, each paid by card (sandbox): a payout scheduled per listing. */
async function sold(j: Journey, ...tickets: string[]) {
  const listingIds: string[] = [];
  for (const ticket of tickets) {
    const listing = await j.list(ticket);
    expect((await j.pay(await j.reserve(listing.id))).kind).toBe('paid');
    listingIds.push(listing.id);
  }
  return listingIds;
}

const list = async (j: Journey, query = '', opts: { operator?: boolean; key?: string } = { operator: true }) => await j.t.request('GET', `/admin/v1/payouts${query}`, opts);

describe('GET /admin/v1/payouts', () => {
  it('lists sellers’ payouts with what they are owed, when, and as the partner knows the seller', async () => {
    const j = await setup();
    const [first, second] = await sold(j, 's1', 's2');
    const res = await list(j);
    expect(res.status).toBe(200);
    expect(res.body.data.nextCursor).toBeNull();
    expect(res.body.data.items.map((p: { listingId: string }) => p.listingId)).toEqual([first, second]);
    expect(res.body.data.items[0]).toMatchObject({
      partnerId: j.p.id,
      sellerId: 'seller@example.com',
      amount: 38,
      amountMinor: 3800,
      currency: 'EUR',
      state: 'SCHEDULED',
      deliveredAt: null,
      cancelledAt: null,
      transferRef: null,
      lastError: null,
    });
    expect(res.body.data.items[0].id).toMatch(/^po_/);
    expect(Date.parse(res.body.data.items[0].dueAt)).toBeGreaterThan(j.t.clock.now());
  });

  it('pages with a cursor, and filters by partner, state and overdue', async () => {
    const j = await setup();
    await sold(j, 's1', 's2');
    const one = await list(j, '?limit=1');
    expect(one.body.data.items).toHaveLength(1);
    const rest = await list(j, `?limit=1&startingAfter=${one.body.data.nextCursor}`);
    expect(rest.body.data.items).toHaveLength(1);
    expect(rest.body.data.items[0].id).not.toBe(one.body.data.items[0].id);
    expect(rest.body.data.nextCursor).toBeNull();

    // Not due yet: nothing overdue. Past its date with the job not run: both are.
    expect((await list(j, '?overdue=true')).body.data.items).toEqual([]);
    const dueAt = Date.parse(one.body.data.items[0].dueAt);
    j.t.clock.set(dueAt);
    expect((await list(j, '?overdue=true')).body.data.items).toHaveLength(2);
    expect((await list(j, '?overdue=false')).body.data.items).toHaveLength(2);
    expect(await j.t.deps.payouts.deliverDue()).toBe(2);
    expect((await list(j, '?overdue=true')).body.data.items).toEqual([]);
    const delivered = await list(j, '?state=DELIVERED');
    expect(delivered.body.data.items).toHaveLength(2);
    expect(delivered.body.data.items[0]).toMatchObject({ state: 'DELIVERED', deliveredAt: new Date(dueAt).toISOString() });
    expect((await list(j, '?state=SCHEDULED')).body.data.items).toEqual([]);

    const other = await j.t.partner('Other');
    expect((await list(j, `?partnerId=${other.id}`)).body.data.items).toEqual([]);
    expect((await list(j, `?partnerId=${j.p.id}`)).body.data.items).toHaveLength(2);
  });

  it('refuses bad filters, unknown partners, repeated parameters and anything but the operator token', async () => {
    const j = await setup();
    const field = async (query: string, path: string) => {
      const res = await list(j, query);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0], query).toMatchObject({ path, in: 'query' });
    };
    await field('?state=PAID', 'state');
    await field('?overdue=yes', 'overdue');
    await field('?limit=0', 'limit');
    await field('?limit=201', 'limit');
    await field('?limit=ten', 'limit');
    await field('?startingAfter=', 'startingAfter');
    expect((await list(j, '?state=SCHEDULED&state=DELIVERED')).status).toBe(400);
    const unknown = await list(j, '?partnerId=ptr_unknown');
    expect(unknown.status).toBe(404);
    expect((await list(j, '', {})).status).toBe(401);
    expect((await list(j, '', { key: j.p.keys.private })).status).toBe(401);
    expect((await list(j, '', { key: j.p.keys.public })).status).toBe(401);
  });
});
