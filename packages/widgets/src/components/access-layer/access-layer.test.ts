import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResaleErrorEvent } from '../../events/error.js';
import type { ResaleReadyEvent } from '../../events/ready.js';
import type { ResaleStockEvent } from '../../events/stock.js';
import type { Stock } from '../../internal/stock-stream.js';
import { cta, envelopeResponse, FakeEventSource, nextEvent, setVisibility, shadow, text } from '../../internal/test-utils.js';
import type { AccessLayerComponent, IntegratedMapComponent } from '../../internal/types.js';
import { mapData } from '../seat-map/seat-map.fixtures.js';
import type { ResaleAccessLayer } from './access-layer.js';

const COMPONENTS: AccessLayerComponent[] = [
  { type: 'banner', class: 'buyBanner', buyBanner: { title: 'Resale', description: 'd', image: null, visible: true, colors: { background: '#fff', text: '#000' }, callToAction: cta() } },
  { type: 'modal', class: 'buyModal', buyModal: { title: 'M', description: 'd', image: '', visible: false, callToAction: cta() } },
  { type: 'button', class: 'buyButton', buyButton: { visible: true, callToAction: cta(), colors: { background: '#0b4fb3', text: '#fff' } } },
  { type: 'list', class: 'categoriesList', categoriesList: { visible: true, categories: [{ ticketOptionId: 'opt-a', quantityForSale: 2, floorPrice: 10, visible: true, callToAction: cta() }] } },
];

const ATTRS = { 'event-id': 'tour-2026', 'show-id': 'show-1', 'public-key': 'pk_test_123', 'api-base': 'https://resale.example/', lang: 'es' };

function create(attrs: Record<string, string> = ATTRS): ResaleAccessLayer {
  const el = document.createElement('resale-access-layer');
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

const rendered = (el: Element) => [...shadow(el).querySelectorAll('[part="base"] > *')].map((c) => c.localName);

/** A fetch that never answers until aborted, recording its calls. */
function hangingFetch() {
  return vi.fn((_url: string, init?: RequestInit) => new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))));
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

describe('<resale-access-layer>', () => {
  it('fetches the buy access layer with the public key and renders the visible components in order', async () => {
    const fetch = vi.fn(async () => envelopeResponse(COMPONENTS));
    vi.stubGlobal('fetch', fetch);
    const el = create();
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    const event = await ready;
    expect(fetch).toHaveBeenCalledOnce();
    const [url, init] = fetch.mock.calls[0]! as unknown as [string, RequestInit];
    expect(url).toBe('https://resale.example/v1/wrapper/accesslayer?type=buy&eventId=tour-2026&showId=show-1&lang=es');
    expect((init.headers as Record<string, string>)['Authorization']).toBe('pk_test_123');
    expect(init.credentials).toBe('omit');
    expect(event.detail).toEqual({ source: 'fetch', count: 3 });
    expect(event.bubbles && event.composed).toBe(true);
    expect(rendered(el)).toEqual(['resale-buy-banner', 'resale-buy-button', 'resale-categories-list']);
    const button = shadow(el).querySelector('resale-buy-button')!;
    expect(button.lang).toBe('es');
    expect(button.getAttribute('exportparts')).toContain('cta:buy-button-cta');
  });

  it.each([
    ['network', () => Promise.reject(new TypeError('Failed to fetch')), { reason: 'network' }],
    ['non-2xx', async () => envelopeResponse(null, 401), { reason: 'http', status: 401 }],
    ['bad JSON', async () => new Response('<html>oops</html>', { status: 200 }), { reason: 'parse' }],
    ['not an envelope', async () => new Response('[1,2]', { status: 200 }), { reason: 'parse' }],
    ['data not a list', async () => envelopeResponse({ nope: true }), { reason: 'parse' }],
  ])('renders nothing and dispatches resale-error on %s', async (_name, answer, expected) => {
    vi.stubGlobal('fetch', vi.fn(answer));
    const el = create();
    const failed = nextEvent<ResaleErrorEvent>(el, 'resale-error');
    document.body.append(el);
    const event = await failed;
    expect(event.detail).toMatchObject(expected);
    expect(event.bubbles && event.composed).toBe(true);
    await el.updateComplete;
    expect(shadow(el).querySelector('[part="base"]')).toBeNull();
  });

  it('passes return-to to every buy call to action, and leaves out the banner and modal when nothing is for sale', async () => {
    const off = cta({ enabled: false });
    vi.stubGlobal('fetch', vi.fn(async () => envelopeResponse([
      { type: 'banner', class: 'buyBanner', buyBanner: { title: 'Sold out? Not quite.', description: 'd', image: null, visible: true, colors: { background: '#fff', text: '#000' }, callToAction: off } },
      { type: 'modal', class: 'buyModal', buyModal: { title: 'M', description: 'd', image: '', visible: true, callToAction: off } },
      COMPONENTS[2]!,
      COMPONENTS[3]!,
    ])));
    const el = create({ ...ATTRS, 'return-to': 'https://tickets.example/events/gala' });
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    expect((await ready).detail).toEqual({ source: 'fetch', count: 2 });
    expect(rendered(el)).toEqual(['resale-buy-button', 'resale-categories-list']);
    for (const tag of ['resale-buy-button', 'resale-categories-list'] as const) {
      const inner = shadow(el).querySelector(tag)!;
      await inner.updateComplete;
      expect(new URL(shadow(inner).querySelector('a')!.getAttribute('href')!).searchParams.get('returnTo'), tag).toBe('https://tickets.example/events/gala');
    }
  });

  it('does not fetch until event, show and key are all set', async () => {
    const fetch = vi.fn(async () => envelopeResponse([]));
    vi.stubGlobal('fetch', fetch);
    const el = create({ 'event-id': 'e', 'api-base': 'https://resale.example' });
    document.body.append(el);
    await el.updateComplete;
    expect(fetch).not.toHaveBeenCalled();
  });

  it('aborts the request in flight when an attribute changes, and fetches again', async () => {
    const fetch = hangingFetch();
    vi.stubGlobal('fetch', fetch);
    const el = create();
    document.body.append(el);
    await el.updateComplete;
    const first = (fetch.mock.calls[0]![1] as RequestInit).signal!;
    el.setAttribute('show-id', 'show-2');
    await el.updateComplete;
    expect(first.aborted).toBe(true);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(fetch.mock.calls[1]![0]).toContain('showId=show-2');
  });

  it('aborts on disconnect without reporting an error', async () => {
    const fetch = hangingFetch();
    vi.stubGlobal('fetch', fetch);
    const el = create();
    const onError = vi.fn();
    el.addEventListener('resale-error', onError);
    document.body.append(el);
    await el.updateComplete;
    el.remove();
    expect((fetch.mock.calls[0]![1] as RequestInit).signal!.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(onError).not.toHaveBeenCalled();
  });

  it('renders components given as a property without fetching, including a sell banner', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const el = create({});
    el.components = [
      { type: 'banner', class: 'sellBanner', sellBanner: { title: 'Sell', description: 'd', image: null, visible: true, colors: { background: '#fff', text: '#000' }, callToAction: cta() } },
      { type: 'unknown', class: 'fromTheFuture' } as never,
      COMPONENTS[2]!,
    ];
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    expect((await ready).detail).toEqual({ source: 'property', count: 2 });
    expect(fetch).not.toHaveBeenCalled();
    expect(rendered(el)).toEqual(['resale-sell-banner', 'resale-buy-button']);
  });

  it('passes the holds of a signed answer through to the button and the list, and exports their parts', async () => {
    vi.stubGlobal('fetch', vi.fn());
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    const yourHold = { tickets: 2, expiresAt: soon, url: 'https://resale.example/checkout/ptr_1/int_1', releaseUrl: 'https://resale.example/market/ptr_1/tour?showId=s1' };
    const el = create({ lang: 'en' });
    el.components = [
      { type: 'button', class: 'buyButton', buyButton: { visible: true, callToAction: cta({ enabled: false, yourHold, reserved: { tickets: 1, backAt: soon, whose: 'others' } }), colors: { background: '#0b4fb3', text: '#fff' } } },
      { type: 'list', class: 'categoriesList', categoriesList: { visible: true, categories: [{ ticketOptionId: 'opt-a', quantityForSale: 0, floorPrice: 0, visible: true, callToAction: cta({ enabled: false, reserved: { tickets: 1, backAt: soon, whose: 'others' } }) }] } },
    ];
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    await ready;
    const button = shadow(el).querySelector('resale-buy-button')!;
    const list = shadow(el).querySelector('resale-categories-list')!;
    await Promise.all([button.updateComplete, list.updateComplete]);
    expect(button.component).toBe(el.components[0]);
    expect(shadow(button).querySelector('[part="your-hold-continue"]')!.getAttribute('href')).toMatch(/^https:\/\/resale\.example\/checkout\/ptr_1\/int_1\?returnTo=/);
    expect(shadow(button).querySelector('[part="reserved"]')!.textContent).toMatch(/^Reserved by another fan — may be back at/);
    expect(shadow(list).querySelector('[part="quantity"]')!.textContent).toMatch(/^1 ticket reserved by another fan — may be back at/);
    for (const part of ['reserved', 'your-hold', 'your-hold-title', 'your-hold-time', 'your-hold-continue', 'your-hold-release']) expect(button.getAttribute('exportparts')).toContain(`${part}:buy-button-${part}`);
    for (const part of ['your-hold', 'your-hold-title', 'your-hold-time', 'your-hold-continue', 'your-hold-release']) expect(list.getAttribute('exportparts')).toContain(`${part}:categories-list-${part}`);
  });

  it('says the fan’s own hold once: in its category when the list shows it, else on the button', async () => {
    vi.stubGlobal('fetch', vi.fn());
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    const yourHold = { tickets: 1, expiresAt: soon, url: 'https://resale.example/checkout/ptr_1/int_1', releaseUrl: 'https://resale.example/market/ptr_1/tour?showId=s1' };
    const button = { type: 'button', class: 'buyButton', buyButton: { visible: true, callToAction: cta({ yourHold }), colors: { background: '#0b4fb3', text: '#fff' } } } as const;
    const category = (visible: boolean) => ({ type: 'list', class: 'categoriesList', categoriesList: { visible: true, categories: [{ ticketOptionId: 'opt-a', quantityForSale: 1, floorPrice: 40, visible, callToAction: cta({ yourHold }) }] } }) as const;
    const holdsIn = async (components: unknown[]) => {
      const el = create({ lang: 'en' });
      el.components = components as typeof el.components;
      const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
      document.body.append(el);
      await ready;
      const inner = [...shadow(el).querySelectorAll<HTMLElement & { updateComplete: Promise<unknown> }>('resale-buy-button, resale-categories-list')];
      await Promise.all(inner.map((e) => e.updateComplete));
      const out = inner.map((e) => [e.localName, shadow(e).querySelectorAll('[part~="your-hold"]').length]);
      el.remove();
      return out;
    };
    expect(await holdsIn([button, category(true)])).toEqual([['resale-buy-button', 0], ['resale-categories-list', 1]]);
    // The category hidden (or no list): the button says it.
    expect(await holdsIn([button, category(false)])).toEqual([['resale-buy-button', 1], ['resale-categories-list', 0]]);
    expect(await holdsIn([button])).toEqual([['resale-buy-button', 1]]);
  });

  it('loads the seat map chunk and passes its attributes when an integratedMap arrives', async () => {
    // The map then asks for its own data; answer that with an error so nothing else happens.
    const fetch = vi.fn(async (url: string) =>
      url.includes('/accesslayer')
        ? envelopeResponse([
            COMPONENTS[3]!,
            {
              type: 'map',
              class: 'integratedMap',
              integratedMap: { map: { config: { allowOrphanTicketSelection: false }, totalCount: 3, bestListing: { listingId: 'l', ticketOptionId: 'opt-a', area: 'A', quantity: 1, currency: 'EUR', price: 10, seats: [], url: 'https://x.test' }, results: [] } },
            },
          ])
        : envelopeResponse(null, 404),
    );
    vi.stubGlobal('fetch', fetch);
    const el = create();
    const ready = nextEvent(el, 'resale-ready');
    document.body.append(el);
    await ready;
    const map = shadow(el).querySelector('resale-seat-map')!;
    expect(map.getAttribute('api-base')).toBe('https://resale.example');
    expect(map.getAttribute('event-id')).toBe('tour-2026');
    expect(map.getAttribute('show-id')).toBe('show-1');
    expect(map.getAttribute('public-key')).toBe('pk_test_123');
    await customElements.whenDefined('resale-seat-map');
    await vi.waitFor(() => expect(fetch.mock.calls.some(([u]) => String(u).startsWith('https://resale.example/v1/wrapper/seatmap?eventId=tour-2026&showId=show-1'))).toBe(true));
    // Categories take the currency of the map's best listing when the partner gives none.
    const list = shadow(el).querySelector('resale-categories-list')!;
    expect(list.currency).toBe('EUR');
  });
});

describe('<resale-access-layer> live stock', () => {
  const STREAM = 'https://resale.example/v1/wrapper/accesslayer/stream?type=buy&eventId=tour-2026&showId=show-1&lang=en&publicKey=pk_test_123';
  const LIVE_ATTRS = { ...ATTRS, lang: 'en' };
  const soon = new Date(Date.now() + 10 * 60_000).toISOString();
  const later = new Date(Date.now() + 20 * 60_000).toISOString();

  const MAP: IntegratedMapComponent = {
    type: 'map',
    class: 'integratedMap',
    integratedMap: {
      map: {
        config: { allowOrphanTicketSelection: false },
        totalCount: 5,
        bestListing: null,
        results: [
          { area: 'A', quantityForSale: 3, floorPrice: 40, ticketOptionIds: ['opt-a'] },
          { area: 'B', quantityForSale: 2, floorPrice: 25.5, ticketOptionIds: ['opt-b'] },
        ],
      },
    },
  };
  /** Banner, modal (not shown), button, a list of opt-a and opt-b. */
  const LIVE: AccessLayerComponent[] = [
    COMPONENTS[0]!,
    COMPONENTS[1]!,
    COMPONENTS[2]!,
    {
      type: 'list',
      class: 'categoriesList',
      categoriesList: {
        visible: true,
        categories: [
          { ticketOptionId: 'opt-a', title: 'Field', currency: 'EUR', quantityForSale: 3, floorPrice: 40, visible: true, callToAction: cta() },
          { ticketOptionId: 'opt-b', title: 'Stalls', currency: 'EUR', quantityForSale: 2, floorPrice: 25.5, visible: true, callToAction: cta() },
        ],
      },
    },
  ];
  /** The stock of LIVE as loaded (the first snapshot, usually). */
  const stockOf = (over: Partial<Stock> = {}): Stock => ({
    eventId: 'tour-2026',
    showId: 'show-1',
    enabled: true,
    totalCount: 5,
    categories: [
      { ticketOptionId: 'opt-a', quantityForSale: 3, floorPrice: 40, currency: 'EUR', enabled: true },
      { ticketOptionId: 'opt-b', quantityForSale: 2, floorPrice: 25.5, currency: 'EUR', enabled: true },
    ],
    areas: [
      { area: 'A', quantityForSale: 3, floorPrice: 40 },
      { area: 'B', quantityForSale: 2, floorPrice: 25.5 },
    ],
    ...over,
  });
  /** opt-b sold out, two of its tickets in checkouts, one more in opt-a's; the show disabled to see the button change. */
  const SOLD: Stock = stockOf({
    enabled: false,
    totalCount: 1,
    categories: [
      { ticketOptionId: 'opt-a', quantityForSale: 1, floorPrice: 45, currency: 'EUR', enabled: true, reserved: { tickets: 1, backAt: later, whose: 'any' } },
      { ticketOptionId: 'opt-b', quantityForSale: 0, floorPrice: 0, currency: 'EUR', enabled: false, reserved: { tickets: 2, backAt: soon, whose: 'any' } },
      { ticketOptionId: 'opt-new', quantityForSale: 9, floorPrice: 1, currency: 'EUR', enabled: true },
    ],
    areas: [
      { area: 'A', quantityForSale: 1, floorPrice: 45 },
      { area: 'B', quantityForSale: 0, floorPrice: 0 },
      { area: 'Nowhere', quantityForSale: 9, floorPrice: 1 },
    ],
  });

  /** The components the element holds now (its private state). */
  const items = (el: ResaleAccessLayer) => (el as unknown as { _items: AccessLayerComponent[] })._items;
  const quantities = async (el: ResaleAccessLayer) => {
    const list = shadow(el).querySelector('resale-categories-list')!;
    await list.updateComplete;
    return [...shadow(list).querySelectorAll('[part="quantity"]')].map((q) => text(q));
  };

  /** Mounts the element answering `components` (the seat map's data too), and waits for resale-ready. */
  async function mountLive(components: AccessLayerComponent[] = LIVE, attrs: Record<string, string> = LIVE_ATTRS) {
    const fetch = vi.fn(async (url: string) => (url.includes('/seatmap') ? envelopeResponse(mapData()) : envelopeResponse(components)));
    vi.stubGlobal('fetch', fetch);
    const el = create(attrs);
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    await ready;
    return { el, fetch };
  }

  beforeEach(() => {
    FakeEventSource.all = [];
    vi.stubGlobal('EventSource', FakeEventSource);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    Reflect.deleteProperty(document, 'visibilityState');
  });

  it('opens one stream per element, for the show, in the language, with the public key in the query', async () => {
    const { el } = await mountLive();
    expect(FakeEventSource.all.map((s) => s.url)).toEqual([STREAM]);
    el.labels = { 'opt-a': 'Pitch' };
    await el.updateComplete;
    expect(FakeEventSource.all).toHaveLength(1);
    // Other attributes: that stream closed, the new show's opened.
    el.setAttribute('show-id', 'show-2');
    await el.updateComplete;
    expect(FakeEventSource.all[0]!.readyState).toBe(FakeEventSource.CLOSED);
    expect(FakeEventSource.only.url).toBe(STREAM.replace('show-1', 'show-2'));
  });

  it('brings the button, the banner, the categories and the map totals up to date, with resale-stock and no resale-ready', async () => {
    const { el } = await mountLive([...LIVE, MAP]);
    const onReady = vi.fn();
    el.addEventListener('resale-ready', onReady);
    const before = items(el);
    expect(await quantities(el)).toEqual(['3 tickets', '2 tickets']);

    const changed = nextEvent<ResaleStockEvent>(el, 'resale-stock');
    FakeEventSource.only.opened().emit('stock', SOLD, 'e-2');
    const event = await changed;
    expect(event.detail).toEqual({ source: 'stream' });
    expect(event.bubbles && event.composed).toBe(true);

    const after = items(el);
    const [banner, modal, button, list, map] = after as [
      Extract<AccessLayerComponent, { class: 'buyBanner' }>,
      AccessLayerComponent,
      Extract<AccessLayerComponent, { class: 'buyButton' }>,
      Extract<AccessLayerComponent, { class: 'categoriesList' }>,
      IntegratedMapComponent,
    ];
    // New objects where numbers changed (Lit renders them), the modal as it was.
    expect(button).not.toBe(before[2]);
    expect(modal).toBe(before[1]);
    const shown = { tickets: 3, backAt: soon, whose: 'any' };
    expect(button.buyButton.callToAction).toEqual({ ...cta(), enabled: false, reserved: shown });
    expect(banner.buyBanner.callToAction).toEqual({ ...cta(), enabled: false, reserved: shown });
    expect(list.categoriesList.categories.map((c) => [c.ticketOptionId, c.quantityForSale, c.floorPrice, c.callToAction.enabled, c.callToAction.reserved?.tickets])).toEqual([
      ['opt-a', 1, 45, true, 1],
      ['opt-b', 0, 0, false, 2],
    ]);
    expect(map.integratedMap.map.totalCount).toBe(1);
    expect(map.integratedMap.map.results).toEqual([
      { area: 'A', quantityForSale: 1, floorPrice: 45, ticketOptionIds: ['opt-a'] },
      { area: 'B', quantityForSale: 0, floorPrice: 0, ticketOptionIds: ['opt-b'] },
    ]);
    // Rendered: the banner leaves (nothing to lead to), the button is disabled with its note, the list counts.
    expect(rendered(el)).toEqual(['resale-buy-button', 'resale-categories-list', 'resale-seat-map']);
    const buttonEl = shadow(el).querySelector('resale-buy-button')!;
    await buttonEl.updateComplete;
    expect(shadow(buttonEl).querySelector('[part~="cta-disabled"]')).not.toBeNull();
    expect(text(shadow(buttonEl).querySelector('[part="reserved"]'))).toMatch(/^Reserved in checkouts — may be back at/);
    expect(await quantities(el)).toEqual(['1 ticket', expect.stringMatching(/^2 tickets reserved in checkouts — may be back at/)]);
    // Nothing live-announced, nothing focused.
    expect(shadow(el).querySelector('[aria-live]')).toBeNull();
    expect(onReady).not.toHaveBeenCalled();

    // Back on sale: the reserved notes go, the banner comes back.
    const again = nextEvent(el, 'resale-stock');
    FakeEventSource.only.emit('stock', stockOf(), 'e-3');
    await again;
    expect((items(el)[2] as typeof button).buyButton.callToAction).toEqual(cta());
    expect(rendered(el)).toEqual(['resale-buy-banner', 'resale-buy-button', 'resale-categories-list', 'resale-seat-map']);
    expect(await quantities(el)).toEqual(['3 tickets', '2 tickets']);
  });

  it('changes nothing for the stock already shown, and ignores malformed events, another show’s, and categories or areas it does not have', async () => {
    const { el } = await mountLive([...LIVE, MAP]);
    const onStock = vi.fn();
    el.addEventListener('resale-stock', onStock);
    const before = items(el);
    const source = FakeEventSource.only.opened();
    source.emit('snapshot', stockOf(), 'e-1');
    source.emit('stock', '{"eventId":', 'e-2');
    source.emit('stock', { ...SOLD, totalCount: 'one' }, 'e-3');
    source.emit('stock', { ...SOLD, categories: [{ ...SOLD.categories[0], quantityForSale: null }] }, 'e-4');
    source.emit('stock', { ...SOLD, showId: 'show-9' }, 'e-5');
    source.emit('stock', stockOf({ categories: [...stockOf().categories, { ticketOptionId: 'opt-new', quantityForSale: 9, floorPrice: 1, currency: 'EUR', enabled: true }], areas: [...stockOf().areas, { area: 'Nowhere', quantityForSale: 9, floorPrice: 1 }] }), 'e-6');
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 0));
    expect(items(el)).toBe(before);
    expect(onStock).not.toHaveBeenCalled();
    // A valid one after them is applied, without the unknown category and area.
    const changed = nextEvent(el, 'resale-stock');
    source.emit('stock', SOLD, 'e-7');
    await changed;
    const list = items(el).find((c) => c.class === 'categoriesList')!;
    expect(list.categoriesList.categories.map((c) => c.ticketOptionId)).toEqual(['opt-a', 'opt-b']);
    const map = items(el).find((c) => c.class === 'integratedMap')!;
    expect(map.integratedMap.map.results.map((r) => r.area)).toEqual(['A', 'B']);
  });

  it('keeps the signed URLs and the fan’s own hold of components passed in, and streams when the key is set', async () => {
    vi.stubGlobal('fetch', vi.fn());
    const yourHold = { tickets: 2, expiresAt: soon, url: 'https://resale.example/checkout/ptr_1/int_1?oneTimeToken=ott_1', releaseUrl: 'https://resale.example/market/ptr_1/tour?showId=show-1&oneTimeToken=ott_2#own-hold-0' };
    const signed = (over: Partial<ReturnType<typeof cta>> = {}) => cta({ url: 'https://resale.example/market/ptr_1/tour?showId=show-1&oneTimeToken=ott_3', ...over });
    const components: AccessLayerComponent[] = [
      { type: 'button', class: 'buyButton', buyButton: { visible: true, callToAction: signed({ yourHold, reserved: { tickets: 1, backAt: later, whose: 'others' } }), colors: { background: '#0b4fb3', text: '#fff' } } },
      {
        type: 'list',
        class: 'categoriesList',
        categoriesList: {
          visible: true,
          categories: [
            { ticketOptionId: 'opt-a', quantityForSale: 3, floorPrice: 40, visible: true, callToAction: signed({ reserved: { tickets: 1, backAt: later, whose: 'others' } }) },
            { ticketOptionId: 'opt-b', quantityForSale: 2, floorPrice: 25.5, visible: true, callToAction: signed({ yourHold }) },
          ],
        },
      },
    ];
    const el = create(LIVE_ATTRS);
    el.components = structuredClone(components);
    const ready = nextEvent(el, 'resale-ready');
    document.body.append(el);
    await ready;
    expect(FakeEventSource.only.url).toBe(STREAM);
    const changed = nextEvent(el, 'resale-stock');
    FakeEventSource.only.emit('snapshot', SOLD, 'e-1');
    await changed;
    const [button, list] = items(el) as [Extract<AccessLayerComponent, { class: 'buyButton' }>, Extract<AccessLayerComponent, { class: 'categoriesList' }>];
    // The fan's hold, its reserved (the stream cannot tell the fan's checkout from others') and the signed URL stay.
    expect(button.buyButton.callToAction).toEqual({ ...(components[0] as typeof button).buyButton.callToAction, enabled: false });
    const [a, b] = list.categoriesList.categories;
    // Signed for a fan with no hold there: the stream's numbers, still said to be other fans'.
    expect(a!.callToAction).toEqual({ ...signed(), enabled: true, reserved: { tickets: 1, backAt: later, whose: 'others' } });
    expect(b!.callToAction).toEqual({ ...signed({ yourHold }), enabled: false });
    expect([a!.quantityForSale, b!.quantityForSale]).toEqual([1, 0]);
    // The components given stay as given.
    expect(el.components).toEqual(components);
  });

  it('applies stock that arrives while the components are fetched, once they arrive', async () => {
    let answer!: (r: Response) => void;
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((resolve) => (answer = resolve))));
    const el = create(LIVE_ATTRS);
    const onStock = vi.fn();
    el.addEventListener('resale-stock', onStock);
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    document.body.append(el);
    await el.updateComplete;
    FakeEventSource.only.emit('snapshot', SOLD, 'e-1');
    answer(envelopeResponse(LIVE));
    // The banner is left out: the stock says nothing is for sale.
    expect((await ready).detail).toEqual({ source: 'fetch', count: 2 });
    expect(await quantities(el)).toEqual(['1 ticket', expect.stringMatching(/^2 tickets reserved in checkouts/)]);
    expect(onStock).not.toHaveBeenCalled();
  });

  it('keeps the stock of a new show until that show’s components arrive', async () => {
    const { el } = await mountLive();
    const before = items(el);
    let answer!: (r: Response) => void;
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>((resolve) => (answer = resolve))));
    el.setAttribute('show-id', 'show-2');
    await el.updateComplete;
    const onStock = vi.fn();
    el.addEventListener('resale-stock', onStock);
    FakeEventSource.only.emit('snapshot', { ...SOLD, showId: 'show-2' }, 'e-1');
    await el.updateComplete;
    expect(items(el)).toBe(before); // show-1's components are not given show-2's numbers
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    answer(envelopeResponse(LIVE));
    await ready;
    expect(await quantities(el)).toEqual(['1 ticket', expect.stringMatching(/^2 tickets reserved/)]);
    expect(onStock).not.toHaveBeenCalled();
  });

  it('closes the stream when removed, and opens a new one when put back', async () => {
    const { el } = await mountLive();
    const first = FakeEventSource.only;
    el.remove();
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    document.body.append(el);
    await el.updateComplete;
    expect(FakeEventSource.only).not.toBe(first);
    expect(FakeEventSource.only.url).toBe(STREAM);
  });

  it('closes the stream while the page is hidden and reopens it when visible, with the last id', async () => {
    const { el } = await mountLive();
    const first = FakeEventSource.only.opened();
    const changed = nextEvent(el, 'resale-stock');
    first.emit('snapshot', stockOf(), 'e-1').emit('stock', SOLD, 'e-2');
    await changed;
    setVisibility('hidden');
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    expect(FakeEventSource.open).toHaveLength(0);
    setVisibility('visible');
    expect(FakeEventSource.only.url).toBe(`${STREAM}&lastEventId=e-2`);
  });

  it('after an HTTP error (a 503) opens the stream again after 30 s, not before', async () => {
    await mountLive();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    FakeEventSource.only.fail(true);
    vi.advanceTimersByTime(29_999);
    expect(FakeEventSource.open).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.only.url).toBe(STREAM);
    expect(FakeEventSource.all).toHaveLength(2);
  });

  it('opens nothing with live="off"; .live = false closes the stream and true opens it again', async () => {
    await mountLive(LIVE, { ...LIVE_ATTRS, live: 'off' });
    expect(FakeEventSource.all).toHaveLength(0);
    document.body.replaceChildren();
    const { el } = await mountLive();
    expect(el.live).toBe(true);
    el.live = false;
    await el.updateComplete;
    expect(FakeEventSource.open).toHaveLength(0);
    el.removeAttribute('live');
    el.live = true;
    await el.updateComplete;
    expect(FakeEventSource.only.url).toBe(STREAM);
  });

  it('works as before without EventSource', async () => {
    vi.stubGlobal('EventSource', undefined);
    const onError = vi.fn();
    window.addEventListener('resale-error', onError);
    const { el } = await mountLive();
    expect(rendered(el)).toEqual(['resale-buy-banner', 'resale-buy-button', 'resale-categories-list']);
    setVisibility('hidden');
    setVisibility('visible');
    el.remove();
    window.removeEventListener('resale-error', onError);
    expect(onError).not.toHaveBeenCalled();
  });

  it('asks the seat map to reload 1 to 3 s after its areas changed, once for a burst, and not for other changes', async () => {
    const { el, fetch } = await mountLive([...LIVE, MAP]);
    const mapEl = shadow(el).querySelector('resale-seat-map')!;
    await customElements.whenDefined('resale-seat-map');
    await vi.waitFor(() => expect(mapEl.selection).toBeDefined());
    const reload = vi.spyOn(mapEl, 'reload');
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const source = FakeEventSource.only.opened();
    // Categories only (the areas as they are): no reload.
    source.emit('stock', stockOf({ categories: stockOf().categories.map((c) => ({ ...c, reserved: { tickets: 1, backAt: later, whose: 'any' as const } })) }), 'e-1');
    vi.advanceTimersByTime(5000);
    expect(reload).not.toHaveBeenCalled();
    // Two changes of the areas within the wait: one reload, 2 s after the first.
    source.emit('stock', SOLD, 'e-2');
    vi.advanceTimersByTime(1000);
    source.emit('stock', stockOf(), 'e-3');
    vi.advanceTimersByTime(999);
    expect(reload).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(reload).toHaveBeenCalledOnce();
    vi.advanceTimersByTime(5000);
    expect(reload).toHaveBeenCalledOnce();
    vi.useRealTimers();
    // The map fetched its data again.
    await vi.waitFor(() => expect(fetch.mock.calls.filter(([u]) => String(u).includes('/seatmap'))).toHaveLength(2));
  });

  it('forgets a reload due when removed', async () => {
    const { el } = await mountLive([...LIVE, MAP]);
    const mapEl = shadow(el).querySelector('resale-seat-map')!;
    await customElements.whenDefined('resale-seat-map');
    const reload = vi.spyOn(mapEl, 'reload');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    FakeEventSource.only.emit('stock', SOLD, 'e-1');
    el.remove();
    vi.advanceTimersByTime(5000);
    expect(reload).not.toHaveBeenCalled();
  });
});
