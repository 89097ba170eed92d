import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResaleCtaClickEvent } from '../events/cta-click.js';
import type { ResaleReadyEvent } from '../events/ready.js';
import type { AccessLayerComponent, BuyButtonComponent, CategoriesListComponent, CtaWaitingList } from './types.js';
import { $, cta, envelopeResponse, FakeEventSource, mount, nextEvent, shadow, text } from './test-utils.js';
import type { Stock } from './stock-stream.js';

/**
 * The show's waiting list in the buy button, the categories list and the access layer
 * (waiting.ts): the join in place of a dead end, the fans in line, the fan's own place.
 */

const JOIN = 'https://resale.example/market/ptr_1/tour?showId=s1#waitinglist';
const PLACE = 'https://resale.example/market/ptr_1/tour?showId=s1&oneTimeToken=ott_9#waitinglist';
const list = (fans: number, yours?: CtaWaitingList['yours']): CtaWaitingList => ({ fans, joinUrl: JOIN, ...(yours ? { yours } : {}) });
const button = (callToAction: ReturnType<typeof cta>): BuyButtonComponent => ({ type: 'button', class: 'buyButton', buyButton: { visible: true, callToAction, colors: { background: '#112233', text: '#ffffff' } } });
const categories = (...items: { id: string; quantity: number; callToAction: ReturnType<typeof cta> }[]): CategoriesListComponent => ({
  type: 'list',
  class: 'categoriesList',
  categoriesList: { visible: true, categories: items.map((c) => ({ ticketOptionId: c.id, quantityForSale: c.quantity, floorPrice: c.quantity > 0 ? 40 : 0, visible: true, callToAction: c.callToAction })) },
});

afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

describe('<resale-buy-button> with a waiting list', () => {
  it('offers the join form instead of a disabled button when nothing is for sale, and says how many fans wait', async () => {
    const el = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: list(12) })) });
    expect(shadow(el).querySelector('button[disabled]')).toBeNull();
    const join = $(el, 'a[part~="waiting-join"]') as HTMLAnchorElement;
    expect(join.getAttribute('part')).toBe('cta waiting-join');
    expect(text(join)).toBe('Join the waiting list');
    // The way back rides along; the fragment that opens the form stays last.
    const href = new URL(join.href);
    expect(href.searchParams.get('returnTo')).toBe('http://localhost:3000/');
    expect(href.hash).toBe('#waitinglist');
    expect(join.style.getPropertyValue('--_cta-bg')).toBe('#112233');
    expect(text($(el, '[part="waiting-fans"]'))).toBe('12 fans waiting');
  });

  it('says it in Spanish, leaves the count out while nobody waits, and announces the click as a join', async () => {
    const es = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: list(1) })) }, { lang: 'es' });
    expect(text($(es, '[part~="waiting-join"]'))).toBe('Apuntarme a la lista de espera');
    expect(text($(es, '[part="waiting-fans"]'))).toBe('1 persona en espera');
    const none = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: list(0) })) });
    expect(shadow(none).querySelector('[part="waiting-fans"]')).toBeNull();
    const clicked = nextEvent<ResaleCtaClickEvent>(none, 'resale-cta-click');
    none.addEventListener('resale-cta-click', (e) => e.preventDefault());
    $(none, '[part~="waiting-join"]').click();
    expect((await clicked).detail).toMatchObject({ componentClass: 'buyButton', waitingList: 'join', url: expect.stringContaining('#waitinglist') });
  });

  it('keeps the ordinary link while tickets are for sale, and the disabled button without a usable join', async () => {
    const forSale = await mount('resale-buy-button', { component: button(cta({ waitingList: list(3) })) });
    expect(shadow(forSale).querySelector('[part~="waiting-join"]')).toBeNull();
    expect(text($(forSale, 'a[part~="cta"]'))).toBe('Buy resale tickets');
    const bad = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: { fans: 2, joinUrl: 'javascript:alert(1)' } })) });
    expect(shadow(bad).querySelector('a')).toBeNull();
    expect(($(bad, 'button[part~="cta"]') as HTMLButtonElement).disabled).toBe(true);
    const garbled = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: { fans: -1, joinUrl: JOIN } })) });
    expect(shadow(garbled).querySelector('[part~="waiting-join"]')).toBeNull();
  });

  it('shows a fan in line their place with a link to it, and no join', async () => {
    const el = await mount('resale-buy-button', { component: button(cta({ enabled: false, waitingList: list(40, { position: 3, quantity: 2, state: 'WAITING', url: PLACE }) })) });
    expect(shadow(el).querySelector('[part~="waiting-join"]')).toBeNull();
    expect(($(el, 'button[part~="cta"]') as HTMLButtonElement).disabled).toBe(true);
    const place = $(el, '[part="waiting-place"]');
    expect(text(place)).toBe('You are #3 in line for 2 tickets. See your place');
    const link = $(el, '[part="waiting-place-link"]') as HTMLAnchorElement;
    expect(new URL(link.href).searchParams.get('oneTimeToken')).toBe('ott_9');
    const clicked = nextEvent<ResaleCtaClickEvent>(el, 'resale-cta-click');
    el.addEventListener('resale-cta-click', (e) => e.preventDefault());
    link.click();
    expect((await clicked).detail.waitingList).toBe('place');
  });

  it('leaves an offer to the fan’s own hold, which says it with its time left', async () => {
    const soon = new Date(Date.now() + 10 * 60_000).toISOString();
    const yourHold = { tickets: 1, expiresAt: soon, url: 'https://resale.example/checkout/ptr_1/bi_1', releaseUrl: JOIN };
    const el = await mount('resale-buy-button', { component: button(cta({ enabled: false, yourHold, waitingList: list(5, { position: 1, quantity: 1, state: 'OFFERED', offerExpiresAt: soon, url: yourHold.url }) })) });
    expect(shadow(el).querySelector('[part="waiting-place"]')).toBeNull();
    expect(shadow(el).querySelectorAll('[part~="your-hold"]')).toHaveLength(1);
  });
});

describe('<resale-categories-list> with a waiting list', () => {
  it('offers each empty category’s join form, and says the fan’s place once above the list', async () => {
    const yours = { position: 7, quantity: 1, state: 'WAITING' as const, url: PLACE };
    const vipJoin = { fans: 9, joinUrl: 'https://resale.example/market/ptr_1/tour?showId=s1&ticketOptionId=vip#waitinglist', yours };
    const el = await mount('resale-categories-list', { component: categories({ id: 'field', quantity: 2, callToAction: cta({ waitingList: list(9, yours) }) }, { id: 'vip', quantity: 0, callToAction: cta({ enabled: false, waitingList: vipJoin }) }) });
    expect(shadow(el).querySelectorAll('[part="waiting-place"]')).toHaveLength(1);
    expect(text($(el, '[part="waiting-place"]'))).toContain('You are #7 in line for 1 ticket.');
    // The fan is in line already: no join, the disabled button.
    expect(shadow(el).querySelector('[part~="waiting-join"]')).toBeNull();

    const other = await mount('resale-categories-list', { component: categories({ id: 'field', quantity: 2, callToAction: cta({ waitingList: list(9) }) }, { id: 'vip', quantity: 0, callToAction: cta({ enabled: false, waitingList: { fans: 9, joinUrl: vipJoin.joinUrl } }) }) });
    const joins = [...shadow(other).querySelectorAll<HTMLAnchorElement>('[part~="waiting-join"]')];
    expect(joins).toHaveLength(1);
    expect(joins[0]!.closest('li')!.dataset['ticketOptionId']).toBe('vip');
    expect(new URL(joins[0]!.href).searchParams.get('ticketOptionId')).toBe('vip');
    // The count is the button's to say, not each category's.
    expect(shadow(other).querySelector('[part="waiting-fans"]')).toBeNull();
    const clicked = nextEvent<ResaleCtaClickEvent>(other, 'resale-cta-click');
    other.addEventListener('resale-cta-click', (e) => e.preventDefault());
    joins[0]!.click();
    expect((await clicked).detail).toMatchObject({ componentClass: 'categoriesList', ticketOptionId: 'vip', waitingList: 'join' });
  });
});

describe('<resale-access-layer> with a waiting list', () => {
  beforeEach(() => {
    FakeEventSource.all = [];
    vi.stubGlobal('EventSource', FakeEventSource);
  });

  const yours = { position: 2, quantity: 1, state: 'WAITING' as const, url: PLACE };
  const signedIn = (): AccessLayerComponent[] => [button(cta({ enabled: false, waitingList: list(4, yours) })), categories({ id: 'field', quantity: 0, callToAction: cta({ enabled: false, waitingList: list(4, yours) }) })];
  async function show(components: AccessLayerComponent[], attrs: Record<string, string> = {}) {
    vi.stubGlobal('fetch', vi.fn(async () => envelopeResponse(components)));
    const el = document.createElement('resale-access-layer');
    for (const [k, v] of Object.entries({ 'event-id': 'tour', 'show-id': 's1', 'public-key': 'pk_test_1', 'api-base': 'https://resale.example/', lang: 'en', ...attrs })) el.setAttribute(k, v);
    el.components = components;
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    await ready;
    const inner = () => [...shadow(el).querySelectorAll<HTMLElement & { updateComplete: Promise<unknown> }>('resale-buy-button, resale-categories-list')];
    await Promise.all(inner().map((e) => e.updateComplete));
    return { el, inner };
  }

  it('says the fan’s place once, on the button, and exports the parts', async () => {
    const { inner } = await show(signedIn());
    expect(inner().map((e) => [e.localName, shadow(e).querySelectorAll('[part="waiting-place"]').length])).toEqual([
      ['resale-buy-button', 1],
      ['resale-categories-list', 0],
    ]);
    const [b, l] = inner();
    for (const part of ['waiting-join', 'waiting-fans', 'waiting-place', 'waiting-place-link']) expect(b!.getAttribute('exportparts')).toContain(`${part}:buy-button-${part}`);
    expect(l!.getAttribute('exportparts')).toContain('waiting-join:categories-list-waiting-join');
    // Without a button, the list says it.
    document.body.replaceChildren();
    const only = await show([signedIn()[1]!]);
    expect(shadow(only.inner()[0]!).querySelectorAll('[part="waiting-place"]')).toHaveLength(1);
  });

  it('follows the fans in line with the live stock, and takes the join away when the list closes', async () => {
    const { el, inner } = await show([button(cta({ enabled: false, waitingList: list(4) }))]);
    const stock = (waitingFans?: number): Stock => ({ eventId: 'tour', showId: 's1', enabled: false, totalCount: 0, ...(waitingFans === undefined ? {} : { waitingFans }), categories: [], areas: [] });
    let changed = nextEvent(el, 'resale-stock');
    FakeEventSource.only.emit('snapshot', stock(6), 'e-1');
    await changed;
    await inner()[0]!.updateComplete;
    expect(text($(inner()[0]!, '[part="waiting-fans"]'))).toBe('6 fans waiting');
    changed = nextEvent(el, 'resale-stock');
    FakeEventSource.only.emit('stock', stock(), 'e-2');
    await changed;
    await inner()[0]!.updateComplete;
    expect(shadow(inner()[0]!).querySelector('[part~="waiting-join"]')).toBeNull();
    expect(($(inner()[0]!, 'button[part~="cta"]') as HTMLButtonElement).disabled).toBe(true);
  });
});
