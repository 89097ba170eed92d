import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResaleErrorEvent } from '../../events/error.js';
import type { ResaleReadyEvent } from '../../events/ready.js';
import { cta, envelopeResponse, nextEvent, shadow } from '../../internal/test-utils.js';
import type { AccessLayerComponent } from '../../internal/types.js';
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
