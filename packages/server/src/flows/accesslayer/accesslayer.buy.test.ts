import { describe, expect, it } from 'vitest';
import type { TestPartner } from '../../testing/harness.js';
import { BANNER_SETTINGS } from './accesslayer.buy.fixtures.js';
import { setup } from './accesslayer.buy.testing.js';
import { ShowSnapshots } from './accesslayer.buy.cache.js';
import { reserveListings } from '../reserve-listings.js';

// The fixture (event `tour`, its shows, tickets and fees) is in accesslayer.buy.testing.ts; the
// SQLite change counter the cache compares is tested in db/change-counter.sqlite-only.test.ts.

const BRAND = {
  buyBanner: BANNER_SETTINGS,
  buyModal: {
    visible: false,
    title: { en: 'Tickets from fans', es: 'Entradas de fans' },
    description: { en: 'Safe and official.', es: 'Seguro y oficial.' },
    ctaText: { en: 'Open', es: 'Abrir' },
    image: 'https://partner.example/img/modal.jpg',
  },
  buyButton: {
    visible: true,
    ctaText: { en: 'Resale', es: 'Reventa' },
    colors: { background: '#000000', text: '#ffffff' },
    ctaColors: { background: '#ff0000', text: '#00ff00' },
  },
  categoriesList: { visible: true, ctaText: { en: 'Buy', es: 'Comprar' }, colors: { background: '#eeeeee', text: '#111111' }, ctaColors: { background: '#123456', text: '#abcdef' } },
  integratedMap: { allowOrphanTicketSelection: false },
  disabledTicketOptions: [] as { eventId: string; showId?: string; ticketOptionId: string }[],
};

type Component = { type: string; class: string } & Record<string, any>;
const find = (data: Component[], cls: string) => data.find((c) => c.class === cls)?.[cls];
const categories = (data: Component[]) => find(data, 'categoriesList').categories as { ticketOptionId: string; quantityForSale: number; floorPrice: number; visible: boolean; callToAction: { enabled: boolean; url: string } }[];
const numbers = (data: Component[]) => Object.fromEntries(categories(data).map((c) => [c.ticketOptionId, [c.quantityForSale, c.floorPrice]]));
const market = (p: TestPartner, q: string) => `http://resale.test/market/${p.id}/tour?showId=show-1&lang=${q}`;

describe('buy access layer: the default set', () => {
  it('answers a visible buy button and every category, in the show’s order, to the public key', async () => {
    const { p, list, buy } = await setup();
    await list(['f3'], 4000);
    await list(['v1'], 12000);
    const res = await buy();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body.status).toBe(200);
    expect(res.body.errors).toBeNull();
    expect(res.body.data.map((c: Component) => [c.type, c.class])).toEqual([
      ['button', 'buyButton'],
      ['list', 'categoriesList'],
    ]);
    expect(res.body.data[0].buyButton).toEqual({
      visible: true,
      callToAction: { text: 'Buy resale tickets', url: market(p, 'en'), enabled: true },
      colors: { background: '#0b4fb3', text: '#ffffff' },
    });
    const cats = categories(res.body.data);
    expect(cats.map((c) => c.ticketOptionId)).toEqual(['opt-field', 'opt-vip', 'opt-box', 'opt-stand']);
    expect(cats[0]).toEqual({
      ticketOptionId: 'opt-field',
      title: 'General field',
      currency: 'EUR',
      quantityForSale: 1,
      floorPrice: 44,
      visible: true,
      callToAction: { text: 'See tickets', url: `${market(p, 'en')}&ticketOptionId=opt-field`, enabled: true },
    });
    expect(numbers(res.body.data)).toEqual({ 'opt-field': [1, 44], 'opt-vip': [1, 132], 'opt-box': [0, 0], 'opt-stand': [0, 0] });
    // Nothing of a category for sale: its call to action is disabled. webVisibility false: not visible.
    expect(cats[2]).toMatchObject({ visible: false, callToAction: { enabled: false } });
    expect(cats[3]).toMatchObject({ visible: true, callToAction: { enabled: false } });
    // No seating, no map setting: no map.
    expect(find(res.body.data, 'integratedMap')).toBeUndefined();
  });

  it('speaks Spanish when asked, and the partner’s language by default', async () => {
    const { t, p, buy } = await setup();
    const es = await buy({ lang: 'es' });
    expect(es.body.data[0].buyButton.callToAction).toMatchObject({ text: 'Comprar entradas de reventa', url: market(p, 'es') });
    expect(categories(es.body.data)[0]!.callToAction).toMatchObject({ url: `${market(p, 'es')}&ticketOptionId=opt-field` });
    expect(find(es.body.data, 'categoriesList').categories[0].callToAction.text).toBe('Ver entradas');
    await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { defaultLang: 'es' } } });
    expect((await buy()).body.data[0].buyButton.callToAction.text).toBe('Comprar entradas de reventa');
    expect((await buy({ lang: 'fr' })).status).toBe(400);
  });
});

describe('buy access layer: live numbers', () => {
  it('follows listings created, repriced, packed, terminated and delisted, at once and without moving the clock', async () => {
    const { t, p, list, reprice, terminate, buy } = await setup();
    const before = await buy();
    expect(numbers(before.body.data)['opt-field']).toEqual([0, 0]);
    expect(before.body.data[0].buyButton.callToAction.enabled).toBe(false);

    const a = await list(['f3'], 4000);
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([1, 44]);
    // Same millisecond, new numbers: a cheaper listing lowers the floor; a pack counts each ticket.
    await list(['f4'], 3000);
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([2, 33]);
    await list(['f1', 'f2'], 5000);
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([4, 33]);
    // Repricing the cheapest below and above.
    const f4 = await t.deps.listings.getByTicket(t.db, p.id, 'f4');
    await reprice(f4.id, 2500);
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([4, 27.5]);
    await reprice(f4.id, 6000);
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([4, 44]);
    // Terminated by its seller.
    await terminate('f3');
    expect(a.id).toBeTruthy();
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([3, 55]);
    // Delisted by the organiser.
    const delist = await t.request('POST', '/v1/delist', { key: p.keys.public, body: { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field' } });
    expect(delist.body.data.delisted).toBe(2);
    const after = await buy();
    expect(numbers(after.body.data)['opt-field']).toEqual([0, 0]);
    expect(after.body.data[0].buyButton.callToAction.enabled).toBe(false);
    expect(categories(after.body.data)[0]!.callToAction.enabled).toBe(false);
  });
});

describe('buy access layer: tickets held in checkouts', () => {
  it('says how many tickets other checkouts hold and when they may be back, and shows a fan signed for their own hold', async () => {
    const { t, p, list, buy } = await setup();
    const field = await list(['f3'], 4000);
    await list(['v1'], 12000);
    const partner = await t.deps.partners.get(p.id);
    const buyer = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'buyer@example.com' }));
    const hold = await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [field.id], buyerPk: buyer.id }));
    const backAt = new Date(hold.expiresAt).toISOString();
    type Cta = { enabled: boolean; reserved?: unknown; yourHold?: { tickets: number; expiresAt: string; url: string; releaseUrl: string } };
    const ctaOf = (data: Component[], option: string): Cta => categories(data).find((c) => c.ticketOptionId === option)!.callToAction as Cta;

    // Anyone (the public, cached answer): the field's one ticket is held, and may be back when the hold ends.
    const anyone = (await buy()).body.data as Component[];
    expect(ctaOf(anyone, 'opt-field')).toMatchObject({ enabled: false, reserved: { tickets: 1, backAt, whose: 'any' } });
    expect(numbers(anyone)['opt-field']).toEqual([0, 0]);
    expect(ctaOf(anyone, 'opt-vip').reserved).toBeUndefined();
    expect(find(anyone, 'buyButton').callToAction).toMatchObject({ enabled: true, reserved: { tickets: 1, backAt, whose: 'any' } });

    // Signed for the fan who holds them: their hold, its checkout and the market to release it, each URL signed; nobody else's.
    const mine = (await buy({ 'loginTrust[user]': 'buyer@example.com' }, p.keys.private)).body.data as Component[];
    const own = ctaOf(mine, 'opt-field');
    expect(own.reserved).toBeUndefined();
    expect(own.yourHold).toMatchObject({ tickets: 1, expiresAt: backAt });
    const checkout = new URL(own.yourHold!.url);
    expect(checkout.pathname).toBe(`/checkout/${p.id}/${hold.id}`);
    expect(checkout.searchParams.get('oneTimeToken')).toMatch(/.{22,}/);
    const release = new URL(own.yourHold!.releaseUrl);
    expect([release.pathname, release.hash, release.searchParams.get('showId')]).toEqual([`/market/${p.id}/tour`, '#own-hold-0', 'show-1']);
    expect(release.searchParams.get('oneTimeToken')).not.toBe(checkout.searchParams.get('oneTimeToken'));
    expect(find(mine, 'buyButton').callToAction.yourHold).toMatchObject({ tickets: 1 });
    expect(ctaOf(mine, 'opt-vip').yourHold).toBeUndefined();

    // Signed for another fan: held by others.
    const other = (await buy({ 'loginTrust[user]': 'someone@example.com' }, p.keys.private)).body.data as Component[];
    expect(ctaOf(other, 'opt-field')).toMatchObject({ reserved: { tickets: 1, backAt, whose: 'others' } });
    expect(ctaOf(other, 'opt-field').yourHold).toBeUndefined();

    // Past its end (before the expiry job ran): no longer offered as the fan's to continue.
    t.clock.advance(hold.expiresAt - t.clock.now() + 1);
    expect(ctaOf((await buy({ 'loginTrust[user]': 'buyer@example.com' }, p.keys.private)).body.data, 'opt-field').yourHold).toBeUndefined();
  });

  it('forgets a hold at once when it is paid (its listing leaves RESERVED for SOLD, not for ACTIVE)', async () => {
    const { t, p, list, buy } = await setup();
    const field = await list(['f3'], 4000);
    const partner = await t.deps.partners.get(p.id);
    const buyer = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'buyer@example.com' }));
    const hold = await t.db.transact(async (tx) => await reserveListings(t.deps, tx, { partner, listingIds: [field.id], buyerPk: buyer.id }));
    expect(find((await buy()).body.data, 'buyButton').callToAction.reserved).toMatchObject({ tickets: 1 });
    await t.db.transact(async (tx) => {
      await t.deps.intentions.markPaid(tx, hold.id);
      await t.deps.listings.markSold(tx, hold.id);
    });
    expect(find((await buy()).body.data, 'buyButton').callToAction.reserved).toBeUndefined();
  });
});

describe('buy access layer: validators and caches', () => {
  it('answers 304 to an If-None-Match of the current answer, a new ETag once the show changes, and lets caches hold an unsigned answer a few seconds', async () => {
    const { p, list, buy } = await setup();
    await list(['f3'], 4000);
    const first = await buy();
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[\w-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=2, stale-while-revalidate=10');
    expect(first.headers.get('vary')).toMatch(/Authorization/);
    // Weak comparison: with or without W/, in a list, or *.
    for (const asked of [etag, etag.slice(2), `"nope", ${etag}`, '*']) {
      const again = await buy({}, p.keys.public, { 'if-none-match': asked });
      expect([again.status, again.body, again.headers.get('etag'), again.headers.get('cache-control')]).toEqual([304, '', etag, 'public, max-age=2, stale-while-revalidate=10']);
    }
    expect((await buy({}, p.keys.public, { 'if-none-match': 'W/"something-else"' })).status).toBe(200);
    // The same answer in another language is another answer.
    expect((await buy({ lang: 'es' }, p.keys.public, { 'if-none-match': etag })).status).toBe(200);
    // A change of the show: the old validator no longer matches.
    await list(['v1'], 12000);
    const changed = await buy({}, p.keys.public, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('never lets a cache hold an answer signed for a fan (one-time tokens): private, no-store, no validator', async () => {
    const { p, buy, bulk } = await setup();
    const signed = await buy({ 'loginTrust[user]': 'fan@example.com' }, p.keys.private);
    expect(signed.status).toBe(200);
    expect(signed.headers.get('cache-control')).toBe('private, no-store');
    expect(signed.headers.get('etag')).toBeNull();
    const signedBulk = await bulk([{ eventId: 'tour', showIds: ['show-1'] }], { 'loginTrust[user]': 'fan@example.com' }, p.keys.private);
    expect(signedBulk.status).toBe(200);
    expect(signedBulk.headers.get('cache-control')).toBe('private, no-store');
  });
});

describe('buy access layer: resale closed', () => {
  it('disables every call to action when resale is off, the show cancelled, or the show started', async () => {
    const { t, p, list, buy } = await setup();
    await list(['f3'], 4000);
    const enabled = async () => {
      const data = (await buy()).body.data as Component[];
      return [data[0]!.buyButton.callToAction.enabled, categories(data)[0]!.callToAction.enabled];
    };
    expect(await enabled()).toEqual([true, true]);
    const off = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', resaleEnabled: false }] } });
    expect(off.status).toBe(200);
    expect(await enabled()).toEqual([false, false]);
    // Still counted: the listing is on the market, it just cannot be bought now.
    expect(numbers((await buy()).body.data)['opt-field']).toEqual([1, 44]);
    await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-1', resaleEnabled: true }] } });
    expect(await enabled()).toEqual([true, true]);
    // The show starts: only the clock moves, no write.
    t.clock.set('2026-05-01T19:00:00Z');
    expect(await enabled()).toEqual([false, false]);
    t.clock.set('2026-05-01T18:59:59Z');
    expect(await enabled()).toEqual([true, true]);
    await t.request('POST', '/v1/events/tour/cancellation?showId=show-1', { key: p.keys.private });
    const cancelled = (await buy()).body.data as Component[];
    expect(cancelled[0]!.buyButton.callToAction.enabled).toBe(false);
    expect(numbers(cancelled)['opt-field']).toEqual([0, 0]);
  });
});

describe('buy access layer: the partner’s settings', () => {
  it('returns the configured components with their texts, colours and images, keeps visible false, leaves disabled categories out', async () => {
    const { t, p, list, buy, settings } = await setup();
    await list(['f3'], 4000);
    await list(['v1'], 12000);
    const saved = await settings({ ...BRAND, disabledTicketOptions: [{ eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip' }, { eventId: 'tour', ticketOptionId: 'opt-stand' }, { eventId: 'other', ticketOptionId: 'opt-field' }] });
    expect(saved.status).toBe(200);
    const res = await buy({ lang: 'es' });
    expect(res.body.data.map((c: Component) => c.class)).toEqual(['buyBanner', 'buyModal', 'buyButton', 'categoriesList']);
    const url = market(p, 'es');
    expect(find(res.body.data, 'buyBanner')).toEqual({
      title: '¿Agotado? No del todo.',
      description: 'Reventa oficial entre fans.',
      image: 'https://partner.example/img/banner.jpg',
      visible: true,
      colors: { background: '#112233', text: '#fafafa' },
      callToAction: { text: 'Ver reventa', url, enabled: true },
    });
    expect(find(res.body.data, 'buyModal')).toEqual({
      title: 'Entradas de fans',
      description: 'Seguro y oficial.',
      image: 'https://partner.example/img/modal.jpg',
      visible: false,
      callToAction: { text: 'Abrir', url, enabled: true },
    });
    expect(find(res.body.data, 'buyButton')).toEqual({
      visible: true,
      callToAction: { text: 'Reventa', url, enabled: true, colors: { background: '#ff0000', text: '#00ff00' } },
      colors: { background: '#000000', text: '#ffffff' },
    });
    const cats = categories(res.body.data);
    expect(cats.map((c) => c.ticketOptionId)).toEqual(['opt-field', 'opt-box']);
    expect(cats[0]).toMatchObject({
      colors: { background: '#eeeeee', text: '#111111' },
      callToAction: { text: 'Comprar', enabled: true, colors: { background: '#123456', text: '#abcdef' } },
    });
    // The disabled VIP listing counts nowhere: only the field listing is for sale.
    await settings({ ...BRAND, disabledTicketOptions: [{ eventId: 'tour', ticketOptionId: 'opt-field' }] });
    const noField = await buy();
    expect(categories(noField.body.data).map((c) => c.ticketOptionId)).toEqual(['opt-vip', 'opt-box', 'opt-stand']);
    await settings({ ...BRAND, disabledTicketOptions: [{ eventId: 'tour', ticketOptionId: 'opt-field' }, { eventId: 'tour', ticketOptionId: 'opt-vip' }] });
    expect(find((await buy()).body.data, 'buyButton').callToAction.enabled).toBe(false);
    // Another show of the event is not touched by a show-scoped entry.
    await settings({ ...BRAND, disabledTicketOptions: [{ eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field' }] });
    expect(categories((await buy({ showId: 'show-2' })).body.data).map((c) => c.ticketOptionId)).toEqual(['opt-field', 'opt-vip']);
    // A hidden list is returned hidden, category by category.
    await settings({ categoriesList: { ...BRAND.categoriesList, visible: false } });
    const hidden = await buy();
    expect(hidden.body.data.map((c: Component) => c.class)).toEqual(['categoriesList']);
    expect(find(hidden.body.data, 'categoriesList').visible).toBe(false);
    expect(categories(hidden.body.data).every((c) => c.visible === false)).toBe(true);
    // Back to the default set.
    await settings(null);
    expect((await buy()).body.data.map((c: Component) => c.class)).toEqual(['buyButton', 'categoriesList']);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.buyAccessLayer).toBeNull();
  });

  it('refuses invalid settings: colours not hex, images not https, unknown fields, texts not localised', async () => {
    const { t, p, settings } = await setup();
    const bad = await settings({
      ...BRAND,
      buyBanner: { ...BRAND.buyBanner, image: 'http://partner.example/i.png', colors: { background: 'red', text: '#fff' } },
      buyModal: { ...BRAND.buyModal, image: 'javascript:alert(1)' },
      buyButton: { ...BRAND.buyButton, ctaColors: { background: '#12345g', text: '#000000' } },
      categoriesList: { ...BRAND.categoriesList, ctaText: { en: 'Buy' } },
      integratedMap: { allowOrphanTicketSelection: false, zoom: 3 },
      disabledTicketOptions: [{ eventId: 'tour' }],
      sparkles: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'settings.buyAccessLayer.buyBanner.colors.background',
      'settings.buyAccessLayer.buyBanner.colors.text',
      'settings.buyAccessLayer.buyBanner.image',
      'settings.buyAccessLayer.buyButton.ctaColors.background',
      'settings.buyAccessLayer.buyModal.image',
      'settings.buyAccessLayer.categoriesList.ctaText.es',
      'settings.buyAccessLayer.disabledTicketOptions.0.ticketOptionId',
      'settings.buyAccessLayer.integratedMap.zoom',
      'settings.buyAccessLayer.sparkles',
    ]);
    expect(bad.body.errors.find((e: { path: string }) => e.path === 'settings.buyAccessLayer.sparkles').code).toBe('unknown_field');
    expect((await t.deps.partners.get(p.id)).settings.buyAccessLayer).toBeNull();
    // Valid: stored, disabledTicketOptions defaulted.
    const good = await settings({ buyButton: BRAND.buyButton });
    expect(good.status).toBe(200);
    expect(good.body.data.settings.buyAccessLayer).toEqual({ buyButton: BRAND.buyButton, disabledTicketOptions: [] });
  });
});

describe('buy access layer: the map', () => {
  it('is returned only for an event with seating, with the map setting, and offers in an area', async () => {
    const { p, list, buy, settings } = await setup({ seating: true });
    await settings({ ...BRAND, integratedMap: { allowOrphanTicketSelection: true } });
    // Nothing for sale yet: no map.
    expect(find((await buy()).body.data, 'integratedMap')).toBeUndefined();
    // An offer without an area: still no map.
    await list(['s1'], 2000);
    expect(find((await buy()).body.data, 'integratedMap')).toBeUndefined();
    await list(['f1', 'f2'], 4000);
    await list(['f3'], 5000);
    await list(['v1'], 12000);
    await list(['b1'], 15000);
    const res = await buy();
    expect(res.body.data.map((c: Component) => c.class)).toEqual(['buyBanner', 'buyModal', 'buyButton', 'categoriesList', 'integratedMap']);
    const map = find(res.body.data, 'integratedMap').map;
    expect(map.config).toEqual({ allowOrphanTicketSelection: true });
    expect(map.totalCount).toBe(6);
    // The cheapest offer is the standing one (no area): 20.00 + 10 %.
    expect(map.bestListing).toMatchObject({ ticketOptionId: 'opt-stand', area: null, quantity: 1, currency: 'EUR', price: 22 });
    expect(map.bestListing.url).toMatch(new RegExp(`^${market(p, 'en').replace(/[?]/g, '\\?')}&ticketOptionId=opt-stand&listingId=lst_`));
    expect(map.results).toEqual([
      { area: 'Field', quantityForSale: 3, floorPrice: 44, ticketOptionIds: ['opt-field'] },
      { area: 'Lounge', quantityForSale: 2, floorPrice: 132, ticketOptionIds: ['opt-vip', 'opt-box'] },
    ]);
    // Disabled options leave the map too; the best listing is then the field pack, seats in order.
    await settings({ ...BRAND, disabledTicketOptions: [{ eventId: 'tour', ticketOptionId: 'opt-stand' }, { eventId: 'tour', ticketOptionId: 'opt-box' }] });
    const filtered = find((await buy()).body.data, 'integratedMap').map;
    expect(filtered.totalCount).toBe(4);
    expect(filtered.bestListing).toMatchObject({ ticketOptionId: 'opt-field', area: 'Field', quantity: 2, price: 44, seats: [{ section: 'A', row: '1', seat: '1' }, { section: 'A', row: '1', seat: '2' }] });
    expect(filtered.results[1]).toEqual({ area: 'Lounge', quantityForSale: 1, floorPrice: 132, ticketOptionIds: ['opt-vip'] });
    // Without the map setting: no map.
    await settings({ ...BRAND, integratedMap: null });
    expect(find((await buy()).body.data, 'integratedMap')).toBeUndefined();
  });

  it('is not returned for an event without seating', async () => {
    const { list, buy, settings } = await setup();
    await settings(BRAND);
    await list(['f3'], 4000);
    expect(find((await buy()).body.data, 'integratedMap')).toBeUndefined();
  });
});

describe('buy access layer: requests and keys', () => {
  it('takes type in any letter case and refuses another type or missing ids', async () => {
    const { buy } = await setup();
    expect((await buy({ type: 'BUY' })).status).toBe(200);
    expect((await buy({ type: 'Buy' })).status).toBe(200);
    const sell = await buy({ type: 'sell' });
    expect(sell.status).toBe(400);
    expect(sell.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'type', in: 'query', message: 'type must be buy (any letter case)' });
    const { t, p } = await setup();
    const none = await t.request('GET', '/v1/wrapper/accesslayer?eventId=tour&showId=show-1', { key: p.keys.public });
    expect(none.body.errors[0]).toMatchObject({ code: 'missing_field', path: 'type' });
    const missing = await t.request('GET', '/v1/wrapper/accesslayer?type=buy', { key: p.keys.public });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string; code: string }) => [e.path, e.code]).sort()).toEqual([
      ['eventId', 'missing_field'],
      ['showId', 'missing_field'],
    ]);
    expect((await buy({ showId: '' })).body.errors[0]).toMatchObject({ path: 'showId' });
  });

  it('accepts the public or the private key, refuses the channels key and no key', async () => {
    const { p, buy } = await setup();
    expect((await buy({}, p.keys.private)).status).toBe(200);
    const channels = await buy({}, p.keys.channels);
    expect(channels.status).toBe(403);
    expect(channels.body.errors[0].code).toBe('forbidden_key_kind');
    expect((await buy({}, null)).status).toBe(401);
  });

  it('sees a rotated key at once, and the end of a grace period with only the clock moving (the key lookup is cached)', async () => {
    const { t, p, buy } = await setup();
    expect((await buy()).status).toBe(200);
    const rotated = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'public', graceSeconds: 60 } });
    expect((await buy()).status).toBe(200);
    expect((await buy({}, rotated.body.data.secret)).status).toBe(200);
    t.clock.advance(60_000);
    expect((await buy()).status).toBe(401);
    const again = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'public' } });
    expect((await buy({}, rotated.body.data.secret)).status).toBe(401);
    expect((await buy({}, again.body.data.secret)).status).toBe(200);
  });

  it('signs every URL with its own single-use token for loginTrust[user], with the private key only', async () => {
    const { t, p, list, buy, settings } = await setup({ seating: true });
    await settings(BRAND);
    await list(['f3'], 4000);
    const pub = await buy({ 'loginTrust[user]': 'fan@example.com' });
    expect(pub.status).toBe(403);
    expect(pub.body.errors[0]).toMatchObject({ code: 'forbidden_key_kind' });
    // Percent-encoded brackets are the same parameter.
    const encoded = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1&loginTrust%5Buser%5D=fan%40example.com', { key: p.keys.public });
    expect(encoded.status).toBe(403);

    const res = await buy({ 'loginTrust[user]': 'fan@example.com' }, p.keys.private);
    expect(res.status).toBe(200);
    const urls: string[] = [];
    const walk = (v: unknown) => {
      if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === 'url' && typeof x === 'string' ? urls.push(x) : walk(x);
    };
    walk(res.body.data);
    // banner, modal, button, 4 categories, the best listing.
    expect(urls).toHaveLength(8);
    const tokens = urls.map((u) => new URL(u).searchParams.get('oneTimeToken'));
    expect(tokens.every((tok) => tok && tok.length >= 22)).toBe(true);
    expect(new Set(tokens).size).toBe(urls.length);
    expect(new URL(urls[0]!).pathname).toBe(`/market/${p.id}/tour`);
    // Each token opens once, for that user.
    const fan = (await t.deps.tickets.get(t.db, p.id, 'f1')).ownerPk;
    const first = await t.db.transact(async (tx) => await t.deps.auth.redeemOneTimeToken(tx, tokens[0]!, p.id));
    expect(first).toMatchObject({ ok: true, userPk: fan, purpose: 'accessLayer' });
    expect(await t.db.transact(async (tx) => await t.deps.auth.redeemOneTimeToken(tx, tokens[0]!, p.id))).toMatchObject({ ok: false, reason: 'used' });
    expect(await t.db.transact(async (tx) => await t.deps.auth.redeemOneTimeToken(tx, tokens[1]!, p.id))).toMatchObject({ ok: true });
    // They live as long as the partner's oneTimeTokenTtlSeconds (300 s by default).
    t.clock.advance(300_000);
    expect(await t.db.transact(async (tx) => await t.deps.auth.redeemOneTimeToken(tx, tokens[2]!, p.id))).toMatchObject({ ok: false, reason: 'expired' });
    // A bad user is a 400 naming the parameter.
    const badUser = await buy({ 'loginTrust[user]': 'not an e-mail@' }, p.keys.private);
    expect(badUser.body.errors[0]).toMatchObject({ path: 'loginTrust[user]' });
  });

  it('answers 404 for an unknown event or show and for another partner’s', async () => {
    const { t, buy } = await setup();
    const event = await buy({ eventId: 'nope' });
    expect(event.status).toBe(404);
    expect(event.body).toMatchObject({ status: 404, data: null, errors: [{ code: 'not_found', message: "No event 'nope' was found" }] });
    expect((await buy({ showId: 'show-9' })).body.errors[0]).toMatchObject({ code: 'not_found', message: "No show 'show-9' was found" });
    const other = await t.partner('Other');
    const foreign = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: other.keys.public });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0].code).toBe('not_found');
  });
});

describe('buy access layer: the OpenAPI document', () => {
  it('documents both operations with their parameters, keys and components', async () => {
    const { t } = await setup();
    const doc = (await t.request('GET', '/v1/openapi.json')).body as unknown as Record<string, any>;
    const get = doc.paths['/v1/wrapper/accesslayer'].get;
    expect(get.operationId).toBe('buyAccessLayer');
    expect(get.parameters.map((p: { name: string; required?: boolean }) => [p.name, !!p.required])).toEqual([
      ['type', true],
      ['eventId', true],
      ['showId', true],
      ['lang', false],
      ['loginTrust[user]', false],
      ['if-none-match', false],
    ]);
    expect(get.responses['304'].description).toMatch(/^Not modified/);
    expect(get.security).toEqual([{ publicKey: [] }, { privateKey: [] }]);
    expect(doc.paths['/v1/wrapper/accesslayer'].post.operationId).toBe('sellAccessLayer');
    expect(doc.paths['/v1/wrapper/accesslayer/bulk'].post.operationId).toBe('buyAccessLayerBulk');
    for (const name of ['BuyBannerComponent', 'BuyModalComponent', 'BuyButtonComponent', 'CategoriesListComponent', 'IntegratedMapComponent', 'BuyAccessLayerSettings']) {
      expect(doc.components.schemas[name]).toBeDefined();
    }
  });
});

describe('buy access layer: bulk', () => {
  it('answers buttons, modals and banners per show, in request order; unknown or foreign shows get an empty list', async () => {
    const { t, p, list, bulk, settings } = await setup({ seating: true });
    await settings(BRAND);
    await list(['f3'], 4000);
    const res = await bulk([
      { eventId: 'tour', showIds: ['show-2', 'show-1', 'show-9'] },
      { eventId: 'nope', showIds: ['show-1'] },
    ], { type: 'BUY', lang: 'es' });
    expect(res.status).toBe(200);
    const data = res.body.data as { eventId: string; showId: string; components: Component[] }[];
    expect(data.map((d) => [d.eventId, d.showId, d.components.map((c) => c.class).join()])).toEqual([
      ['tour', 'show-2', 'buyBanner,buyModal,buyButton'],
      ['tour', 'show-1', 'buyBanner,buyModal,buyButton'],
      ['tour', 'show-9', ''],
      ['nope', 'show-1', ''],
    ]);
    expect(data[1]!.components[2]!.buyButton.callToAction).toEqual({ text: 'Reventa', url: market(p, 'es'), enabled: true, colors: BRAND.buyButton.ctaColors });
    // show-2 has nothing for sale.
    expect(data[0]!.components[2]!.buyButton.callToAction.enabled).toBe(false);
    // Another partner reads the same ids as unknown.
    const other = await t.partner('Other', { buyAccessLayer: BRAND });
    const foreign = await t.request('POST', '/v1/wrapper/accesslayer/bulk?type=buy', { key: other.keys.public, body: [{ eventId: 'tour', showIds: ['show-1'] }] });
    expect(foreign.body.data).toEqual([{ eventId: 'tour', showId: 'show-1', components: [] }]);
    // The default set in bulk is the button alone.
    await settings(null);
    expect((await bulk([{ eventId: 'tour', showIds: ['show-1'] }])).body.data[0].components.map((c: Component) => c.class)).toEqual(['buyButton']);
    expect((await bulk([])).body.data).toEqual([]);
  });

  it('signs every URL of every show with loginTrust[user] (private key only)', async () => {
    const { p, bulk, settings } = await setup();
    await settings(BRAND);
    expect((await bulk([{ eventId: 'tour', showIds: ['show-1'] }], { 'loginTrust[user]': 'fan@example.com' })).status).toBe(403);
    const res = await bulk([{ eventId: 'tour', showIds: ['show-1', 'show-2'] }], { 'loginTrust[user]': 'fan@example.com' }, p.keys.private);
    const urls = res.body.data.flatMap((d: { components: Component[] }) => d.components.map((c) => c[c.class].callToAction.url as string));
    expect(urls).toHaveLength(6);
    const tokens = urls.map((u: string) => new URL(u).searchParams.get('oneTimeToken'));
    expect(tokens.every(Boolean)).toBe(true);
    expect(new Set(tokens).size).toBe(6);
  });

  it('refuses a wrong type, too many events or shows, and malformed items', async () => {
    const { p, bulk } = await setup();
    expect((await bulk([{ eventId: 'tour', showIds: ['show-1'] }], { type: 'sell' })).body.errors[0]).toMatchObject({ path: 'type', in: 'query' });
    const events = await bulk(Array.from({ length: 51 }, (_, i) => ({ eventId: `e${i}`, showIds: ['s'] })));
    expect(events.status).toBe(400);
    expect(events.body.errors[0]).toMatchObject({ code: 'out_of_range', message: 'the request must hold at most 50 item(s)' });
    const shows = await bulk([
      { eventId: 'a', showIds: Array.from({ length: 150 }, (_, i) => `s${i}`) },
      { eventId: 'b', showIds: Array.from({ length: 51 }, (_, i) => `s${i}`) },
    ]);
    expect(shows.status).toBe(400);
    expect(shows.body.errors[0].message).toMatch(/at most 200 shows in all \(201 sent\)/);
    expect((await bulk([{ eventId: 'a', showIds: Array.from({ length: 201 }, (_, i) => `s${i}`) }])).body.errors[0]).toMatchObject({ path: '0.showIds', code: 'out_of_range' });
    expect((await bulk([{ eventId: 'tour', showIds: [] }])).body.errors[0]).toMatchObject({ path: '0.showIds', code: 'out_of_range' });
    expect((await bulk([{ eventId: 'tour' }])).body.errors[0]).toMatchObject({ path: '0.showIds', code: 'missing_field' });
    expect((await bulk([{ eventId: 'tour', showIds: ['show-1'], extra: 1 }])).body.errors[0]).toMatchObject({ path: '0.extra', code: 'unknown_field' });
    expect((await bulk({ eventId: 'tour' })).status).toBe(400);
    expect((await bulk([{ eventId: 'tour', showIds: ['show-1'] }], {}, p.keys.channels)).status).toBe(403);
  });
});

describe('buy access layer: the snapshot cache under a burst', () => {
  it('shares one read of the show among the requests that miss it together', async () => {
    const { t, p } = await setup();
    const snapshots = new ShowSnapshots(t.db, t.clock);
    const version = snapshots.counter.read();
    const answers = await Promise.all(Array.from({ length: 20 }, async () => await snapshots.get(p.id, 'tour', 'show-1', version)));
    expect(snapshots.rebuilds).toBe(1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]!.found).toBe(true);
    // After a write, the burst shares one check (or rebuild) again.
    await t.partner('Someone else');
    const later = snapshots.counter.read();
    await Promise.all(Array.from({ length: 20 }, async () => await snapshots.get(p.id, 'tour', 'show-1', later)));
    expect(snapshots.rebuilds + snapshots.checks).toBeLessThanOrEqual(2);
  });

  it('keeps the shows asked for most recently when it is full (recency renewed once a second, not on every hit)', async () => {
    const { t, p } = await setup();
    const snapshots = new ShowSnapshots(t.db, t.clock, 2);
    const version = snapshots.counter.read();
    const get = async (showId: string) => await snapshots.get(p.id, 'tour', showId, version);
    await get('show-1');
    await get('show-2');
    // show-1 asked again within the second: not renewed, so it is the oldest still.
    await get('show-1');
    await get('no-such-show');
    let before = snapshots.rebuilds;
    await get('show-2');
    expect(snapshots.rebuilds).toBe(before);
    await get('show-1');
    expect(snapshots.rebuilds).toBe(before + 1);
    // Now no-such-show is the oldest; a second later a hit renews it: it stays, show-1 goes.
    t.clock.advance(1_000);
    await get('no-such-show');
    await get('show-2');
    before = snapshots.rebuilds;
    await get('no-such-show');
    expect(snapshots.rebuilds).toBe(before);
    await get('show-1');
    expect(snapshots.rebuilds).toBe(before + 1);
  });
});
