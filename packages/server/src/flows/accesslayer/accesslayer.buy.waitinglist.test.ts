import { describe, expect, it } from 'vitest';
import { setup } from './accesslayer.buy.testing.js';
import { buyConfig } from './accesslayer.buy.js';
import { ShowSnapshots } from './accesslayer.buy.cache.js';
import { showStock } from './accesslayer.stream.js';

/**
 * The waiting list in the buy access layer's calls to action (`waitingList`: the fans in line,
 * the join form, and the signed-for fan's place) and in the live stock (`waitingFans`), on
 * SQLite here and PostgreSQL in the server-pg project.
 */

type Cta = { enabled: boolean; url: string; yourHold?: unknown; waitingList?: { fans: number; joinUrl: string; yours?: { position: number; quantity: number; state: string; offerExpiresAt?: string; url: string } } };
type Component = { type: string; class: string } & Record<string, any>;
const SHOW = { externalReferenceEventId: 'tour', showId: 'show-1' };

async function waitingSetup() {
  const s = await setup();
  const { t, p } = s;
  const settings = async (enabled: boolean) => {
    const res = await t.request('PUT', '/v1/waitinglist/settings', { key: p.keys.private, body: { ...SHOW, enabled, priceCap: 'RULES' } });
    expect(res.status).toBe(200);
  };
  const join = async (user: string, over: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/v1/waitinglist/entries', { key: p.keys.private, body: { ...SHOW, quantity: 1, together: false, user, ...over } });
    expect(res.status).toBe(201);
    return res.body.data as { id: string; position: number };
  };
  /** The button's and every category's call to action of an answer. */
  const ctas = (data: Component[]) => {
    const button = data.find((c) => c.class === 'buyButton')!.buyButton.callToAction as Cta;
    const cats = Object.fromEntries((data.find((c) => c.class === 'categoriesList')!.categoriesList.categories as { ticketOptionId: string; callToAction: Cta }[]).map((c) => [c.ticketOptionId, c.callToAction]));
    return { button, cats };
  };
  const signed = async (user: string) => {
    const res = await s.buy({ 'loginTrust[user]': user }, p.keys.private);
    expect(res.status).toBe(200);
    return ctas(res.body.data);
  };
  const stock = async () => {
    const partner = await t.deps.partners.get(p.id);
    const snapshots = new ShowSnapshots(t.db, t.clock);
    const r = await snapshots.get(p.id, 'tour', 'show-1', snapshots.counter.read());
    if (!r.found) throw new Error('no snapshot');
    return showStock(buyConfig(partner), r.snapshot, t.clock.now());
  };
  return { ...s, settings, join, ctas, signed, stock };
}

describe('buy access layer: the waiting list', () => {
  it('says nothing of a list that is off, then how many fans wait and where to join, following joins at once', async () => {
    const { p, buy, settings, join, ctas, stock } = await waitingSetup();
    const off = ctas((await buy()).body.data);
    expect(off.button.waitingList).toBeUndefined();
    expect(off.cats['opt-field']!.waitingList).toBeUndefined();
    expect((await stock()).waitingFans).toBeUndefined();

    await settings(true);
    const empty = ctas((await buy()).body.data);
    const market = `http://resale.test/market/${p.id}/tour?showId=show-1&lang=en`;
    expect(empty.button).toMatchObject({ enabled: false, waitingList: { fans: 0, joinUrl: `${market}#waitinglist` } });
    // A category's join form names its category; the count is the show's line.
    expect(empty.cats['opt-vip']!.waitingList).toEqual({ fans: 0, joinUrl: `${market}&ticketOptionId=opt-vip#waitinglist` });

    await join('ana@example.com');
    await join('ben@example.com', { ticketOptionId: 'opt-vip', quantity: 2 });
    const two = ctas((await buy()).body.data);
    expect(two.button.waitingList!.fans).toBe(2);
    expect(two.cats['opt-field']!.waitingList!.fans).toBe(2);
    // An unsigned answer is everyone's: no fan's place in it.
    expect(two.button.waitingList!.yours).toBeUndefined();
    expect((await stock()).waitingFans).toBe(2);

    // Paused: fans keep their place, but the widgets no longer invite anyone to join.
    await settings(false);
    expect(ctas((await buy()).body.data).button.waitingList).toBeUndefined();
    expect((await stock()).waitingFans).toBeUndefined();
  });

  it('shows a fan signed for their place in line, then the offer holding tickets for them with its checkout', async () => {
    const { t, p, list, settings, join, signed, ctas, buy } = await waitingSetup();
    await settings(true);
    await join('ana@example.com');
    const ben = await join('ben@example.com');
    const carla = await signed('carla@example.com');
    expect(carla.button.waitingList).toMatchObject({ fans: 2 });
    expect(carla.button.waitingList!.yours).toBeUndefined();

    const b = await signed('ben@example.com');
    expect(b.button.waitingList!.yours).toMatchObject({ position: 2, quantity: 1, state: 'WAITING' });
    expect(b.button.waitingList!.yours!.offerExpiresAt).toBeUndefined();
    // The market, where Ben sees the line and can leave it, signed with its own one-time token.
    const url = new URL(b.button.waitingList!.yours!.url);
    expect(`${url.origin}${url.pathname}`).toBe(`http://resale.test/market/${p.id}/tour`);
    expect(url.hash).toBe('#waitinglist');
    expect(url.searchParams.get('oneTimeToken')).toBeTruthy();
    expect(new URL(b.button.waitingList!.joinUrl).searchParams.get('oneTimeToken')).not.toBe(url.searchParams.get('oneTimeToken'));
    // The line is the show's: the same place in every category's call to action.
    expect(b.cats['opt-vip']!.waitingList!.yours).toMatchObject({ position: 2, state: 'WAITING' });

    // A listing goes to Ana, first in line: it is held for her, not on sale.
    const listing = await list(['f3'], 4000);
    const a = await signed('ana@example.com');
    const yours = a.button.waitingList!.yours!;
    expect(yours).toMatchObject({ position: 1, quantity: 1, state: 'OFFERED' });
    const offer = (await t.db.read(async (tx) => await t.deps.waitingList.entriesOf(tx, p.id, (await t.deps.users.resolve(tx, p.id, { email: 'ana@example.com' })).id, { live: true })))[0]!.offer!;
    expect(offer.listingIds).toEqual([listing.id]);
    expect(yours.offerExpiresAt).toBe(new Date(offer.expiresAt).toISOString());
    expect(new URL(yours.url).pathname).toBe(`/checkout/${p.id}/${offer.intentionId}`);
    // Everyone else sees nothing to buy, and the fans still in line.
    const unsigned = ctas((await buy()).body.data);
    expect(unsigned.button.enabled).toBe(false);
    // Held for Ana, it passes to the next fan if she does not buy it: not "reserved, may be back".
    expect(unsigned.button).not.toHaveProperty('reserved');
    expect(unsigned.cats['opt-field']).not.toHaveProperty('reserved');
    expect(unsigned.button.waitingList!.fans).toBe(2);
    expect((await signed('ben@example.com')).button.waitingList!.yours).toMatchObject({ position: 2, state: 'WAITING' });

    // Ben leaves: his place goes, the count follows.
    expect((await t.request('DELETE', `/v1/waitinglist/entries/${ben.id}`, { key: p.keys.private })).status).toBe(200);
    expect((await signed('ben@example.com')).button.waitingList).toEqual({ fans: 1, joinUrl: expect.stringContaining('#waitinglist') });
  });

  it('answers the same in bulk, and nothing once resale of the show has closed', async () => {
    const { t, p, bulk, settings, join } = await waitingSetup();
    await settings(true);
    await join('ana@example.com');
    const res = await bulk([{ eventId: 'tour', showIds: ['show-1', 'show-2'] }], { 'loginTrust[user]': 'ana@example.com' }, p.keys.private);
    expect(res.status).toBe(200);
    const [one, two] = res.body.data as { components: Component[] }[];
    expect(one!.components[0]!.buyButton.callToAction.waitingList).toMatchObject({ fans: 1, yours: { position: 1, state: 'WAITING' } });
    // show-2 has no list.
    expect(two!.components[0]!.buyButton.callToAction.waitingList).toBeUndefined();

    // The show started: resale closed, nothing to join.
    t.clock.set('2030-01-01T00:00:00Z');
    const later = await bulk([{ eventId: 'tour', showIds: ['show-1'] }]);
    expect(later.body.data[0].components[0].buyButton.callToAction.waitingList).toBeUndefined();
  });
});

