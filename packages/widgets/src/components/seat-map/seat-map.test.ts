import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const floating = vi.hoisted(() => ({ cleanup: vi.fn(), autoUpdate: vi.fn() }));
vi.mock('@floating-ui/dom', async (importOriginal) => {
  const real = await importOriginal<typeof import('@floating-ui/dom')>();
  return {
    ...real,
    computePosition: vi.fn(async () => ({ x: 12, y: 34, placement: 'top', strategy: 'fixed', middlewareData: {} })),
    autoUpdate: floating.autoUpdate.mockImplementation((_ref: Element, _el: HTMLElement, update: () => void) => {
      update();
      return floating.cleanup;
    }),
  };
});

import type { ResaleCtaClickEvent } from '../../events/cta-click.js';
import type { ResaleErrorEvent } from '../../events/error.js';
import type { ResaleReadyEvent } from '../../events/ready.js';
import { $, envelopeResponse, nextEvent, shadow, text } from '../../internal/test-utils.js';
import type { SeatMapData } from '../../internal/types.js';
import '../../seat-map.js';
import { mapData } from './seat-map.fixtures.js';
import type { ResaleSeatMap } from './seat-map.js';

async function mountMap(props: Partial<ResaleSeatMap> = {}, attrs: Record<string, string> = {}): Promise<ResaleSeatMap> {
  const el = document.createElement('resale-seat-map');
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
  Object.assign(el, props);
  document.body.append(el);
  await ready;
  return el;
}

const zone = (el: Element, area: string) => $(el, `svg [data-area="${area}"]`);
const seat = (el: Element, n: string) => $(el, `svg [data-seat="${n}"]`);
const key = (target: Element, k: string) => {
  const e = new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true, composed: true });
  target.dispatchEvent(e);
  return e;
};
const toggleOf = (el: Element, listingId: string) => $(el, `[data-listing-id="${listingId}"] [part="toggle"]`);

beforeEach(() => {
  floating.cleanup.mockClear();
  floating.autoUpdate.mockClear();
});
afterEach(() => {
  document.body.replaceChildren();
  vi.unstubAllGlobals();
});

describe('<resale-seat-map> chart', () => {
  it('sanitises a malicious SVG before it reaches the page', async () => {
    const evil = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">
      <foreignObject><iframe src="https://evil.test"></iframe><img src=x onerror="alert(1)"></foreignObject>
      <a href="javascript:alert(1)"><rect data-area="A" width="10" height="10" onclick="alert(1)" style="fill:red"/></a>
      <a xlink:href="javascript:alert(2)"><text>x</text></a>
      <image href="https://evil.test/track.png" width="5" height="5"/>
      <image xlink:href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=" width="5" height="5"/>
      <use xlink:href="https://evil.test/sprite.svg#s"/>
      <linearGradient id="g"/><rect data-area="B" fill="url(#g)" width="5" height="5" onmouseover="alert(1)"/>
      <animate attributeName="href" values="javascript:alert(1)"/>
      <set attributeName="onmouseover" to="alert(1)"/>
      <script>alert(1)</script>
    </svg>`;
    const el = await mountMap({ data: mapData({ chart: { svgCode: evil, image: null } }) });
    const svg = $(el, '[part="chart"] svg');
    const markup = svg.outerHTML.toLowerCase();
    expect(svg.querySelectorAll('script, foreignObject, foreignobject, iframe, img, a, animate, set')).toHaveLength(0);
    for (const bad of ['javascript:', 'data:', 'onload', 'onclick', 'onerror', 'onmouseover', 'evil.test', 'style=']) expect(markup).not.toContain(bad);
    // What a chart needs survives: zones (the content of a removed link too), same-document references.
    expect(svg.querySelector('[data-area="A"]')).toBeTruthy();
    expect(svg.querySelector('[data-area="B"]')!.getAttribute('fill')).toBe('url(#g)');
  });

  it('removes <style> and <script> from a chart', async () => {
    for (const code of ['<svg><style>:host{display:none}</style><rect data-area="A"/></svg>', '<svg><rect data-area="A"/><script>alert(1)</script></svg>']) {
      const el = await mountMap({ data: mapData({ chart: { svgCode: code, image: null } }) });
      const svg = $(el, '[part="chart"] svg');
      expect(svg.querySelectorAll('style, script')).toHaveLength(0);
      expect(svg.outerHTML).not.toContain('alert');
      expect(svg.outerHTML).not.toContain('display:none');
    }
  });

  it('renders nothing of a chart whose root is not an SVG', async () => {
    const el = await mountMap({ data: mapData({ chart: { svgCode: '<div data-area="A">x</div>', image: null } }) });
    expect(shadow(el).querySelector('[part="chart"]')).toBeNull();
    expect(shadow(el).querySelector('[part="areas"]')).toBeTruthy(); // falls back to the area list
  });

  it('colours zones by availability and makes zones with stock operable', async () => {
    const el = await mountMap({ data: mapData() });
    expect(zone(el, 'A').getAttribute('data-availability')).toBe('some');
    expect(zone(el, 'B').getAttribute('data-availability')).toBe('cheapest');
    expect(zone(el, 'D').getAttribute('data-availability')).toBe('none');
    const a = zone(el, 'A');
    expect(a.getAttribute('tabindex')).toBe('0');
    expect(a.getAttribute('role')).toBe('button');
    expect(a.getAttribute('aria-label')).toBe('A: 3 tickets, from €40.00');
    expect(zone(el, 'D').hasAttribute('tabindex')).toBe(false);
    expect(zone(el, 'D').getAttribute('aria-label')).toBe('D: not available');
    // A zone holding seats is a group: its seats are the controls (no nested buttons).
    expect(zone(el, 'C').getAttribute('role')).toBe('group');
    expect(seat(el, '2').getAttribute('role')).toBe('button');
    expect(seat(el, '2').getAttribute('aria-label')).toBe('Section C, Row 1, Seat 2: €60.00 per ticket');
    expect(seat(el, '1').getAttribute('data-availability')).toBe('none');
    expect(seat(el, '1').hasAttribute('tabindex')).toBe(false);
    expect($(el, 'svg').getAttribute('aria-label')).toBe('Seating chart');
  });

  it('shows the offers of a zone on Enter and on click', async () => {
    const el = await mountMap({ data: mapData() });
    expect(text($(el, '[part="hint"]'))).toContain('Choose an area');
    const enter = key(zone(el, 'A'), 'Enter');
    await el.updateComplete;
    expect(enter.defaultPrevented).toBe(true);
    expect([...shadow(el).querySelectorAll('[part="listing"]')].map((l) => l.getAttribute('data-listing-id'))).toEqual(['lst_a1', 'lst_a2']);
    expect(zone(el, 'A').hasAttribute('data-active')).toBe(true);
    zone(el, 'B').dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    await el.updateComplete;
    expect(text($(el, '[part="listings"] h3'))).toBe('Offers in B');
    expect(shadow(el).querySelectorAll('[part="listing"]')).toHaveLength(1);
  });

  it('shows a tooltip on focus, positioned by floating-ui, and cleans up on blur and disconnect', async () => {
    const el = await mountMap({ data: mapData() });
    const tip = $(el, '[part="tooltip"]');
    expect(tip.hidden).toBe(true);
    zone(el, 'A').dispatchEvent(new FocusEvent('focusin', { bubbles: true, composed: true }));
    await el.updateComplete;
    expect(tip.hidden).toBe(false);
    expect(tip.getAttribute('role')).toBe('tooltip');
    expect(text(tip)).toMatch(/^A: 3 tickets/);
    expect(floating.autoUpdate).toHaveBeenCalledOnce();
    await vi.waitFor(() => expect(tip.style.left).toBe('12px'));
    zone(el, 'A').dispatchEvent(new FocusEvent('focusout', { bubbles: true, composed: true }));
    expect(floating.cleanup).toHaveBeenCalledOnce();
    expect(tip.hidden).toBe(true);
    seat(el, '3').dispatchEvent(new Event('pointerover', { bubbles: true, composed: true }));
    expect(floating.autoUpdate).toHaveBeenCalledTimes(2);
    el.remove();
    expect(floating.cleanup).toHaveBeenCalledTimes(2);
  });
});

describe('<resale-seat-map> selection', () => {
  it('picks seats, announces it, and builds the Continue URL', async () => {
    const el = await mountMap({ data: mapData({ config: { allowOrphanTicketSelection: true } }) });
    expect(($(el, '[part~="continue"]') as HTMLButtonElement).disabled).toBe(true);
    key(seat(el, '2'), ' ');
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c2']);
    expect(seat(el, '2').hasAttribute('data-selected')).toBe(true);
    expect(seat(el, '2').getAttribute('aria-pressed')).toBe('true');
    expect(text($(el, '[part="live"]'))).toBe('Added Section C, Row 1, Seat 2. 1 selected.');
    expect($(el, '[part="live"]').getAttribute('aria-live')).toBe('polite');
    key(seat(el, '3'), 'Enter');
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c2', 'lst_c3']);
    key(seat(el, '4'), 'Enter');
    await el.updateComplete;
    const link = $(el, 'a[part~="continue"]');
    expect(link.getAttribute('href')).toBe('https://resale.example/market/ptr_1/tour-2026?showId=show-1&listingIds=lst_c2,lst_c3,lst_c4');
    // Unpick from the offer list.
    toggleOf(el, 'lst_c4').click();
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c2', 'lst_c3']);
    expect(text($(el, '[part="live"]'))).toMatch(/^Removed/);
  });

  it('holds Continue, with a visible message, while the selection would leave a single seat, and lets it be completed', async () => {
    const el = await mountMap({ data: mapData() });
    key(seat(el, '3'), 'Enter'); // seat 2 would sit alone between 1 (not for sale) and 3
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c3']);
    const message = $(el, '[part="message"]');
    expect(message.getAttribute('role')).toBe('alert');
    expect(text(message)).toContain('single empty seat');
    expect(el.continueHref).toBeUndefined();
    expect(($(el, '[part~="continue"]') as HTMLButtonElement).disabled).toBe(true);
    key(seat(el, '2'), 'Enter'); // 2 and 3 together: nothing stranded on that side
    await el.updateComplete;
    key(seat(el, '4'), 'Enter');
    await el.updateComplete;
    expect(shadow(el).querySelector('[part="message"]')).toBeNull();
    expect(el.continueHref).toContain('listingIds=lst_c3,lst_c2,lst_c4');
  });

  it('allows that pick when the event allows orphan seats', async () => {
    const el = await mountMap({ data: mapData({ config: { allowOrphanTicketSelection: true } }) });
    key(seat(el, '3'), 'Enter');
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c3']);
    expect(shadow(el).querySelector('[part="message"]')).toBeNull();
  });

  it('keeps a selection within one ticket option', async () => {
    const el = await mountMap({ data: mapData() });
    el.showArea('A');
    await el.updateComplete;
    toggleOf(el, 'lst_a1').click();
    await el.updateComplete;
    toggleOf(el, 'lst_a2').click(); // same area, another ticket option
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_a1']);
    expect(text($(el, '[part="message"]'))).toContain('one ticket category');
    expect(toggleOf(el, 'lst_a1').getAttribute('aria-pressed')).toBe('true');
    $(el, '[part="clear"]').click();
    await el.updateComplete;
    expect(el.selection).toEqual([]);
  });

  it('dispatches a cancelable resale-cta-click before Continue navigates', async () => {
    const el = await mountMap({ data: mapData() });
    el.showArea('B');
    await el.updateComplete;
    toggleOf(el, 'lst_b1').click();
    await el.updateComplete;
    const seen = vi.fn((e: ResaleCtaClickEvent) => e.preventDefault());
    document.addEventListener('resale-cta-click', seen);
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    $(el, 'a[part~="continue"]').dispatchEvent(click);
    document.removeEventListener('resale-cta-click', seen);
    expect(seen.mock.calls[0]![0].detail).toEqual({
      componentClass: 'integratedMap',
      url: 'https://resale.example/market/ptr_1/tour-2026?showId=show-1&listingIds=lst_b1',
      listingIds: ['lst_b1'],
      ticketOptionId: 'opt-b',
    });
    expect(click.defaultPrevented).toBe(true);
  });

  it('never links Continue to a selectUrl that is not http(s)', async () => {
    const el = await mountMap({ data: mapData({ selectUrl: 'javascript:alert(1)//' }) });
    el.showArea('B');
    await el.updateComplete;
    toggleOf(el, 'lst_b1').click();
    await el.updateComplete;
    expect(shadow(el).querySelector('a[part~="continue"]')).toBeNull();
  });
});

describe('<resale-seat-map> image charts and loading', () => {
  it('shows an image chart with the area list beside it', async () => {
    const el = await mountMap({ data: mapData({ chart: { svgCode: null, image: 'https://cdn.example/chart.png' } }), lang: 'es' });
    expect($(el, '[part="image"]').getAttribute('src')).toBe('https://cdn.example/chart.png');
    expect($(el, '[part="image"]').getAttribute('alt')).toBe('Plano de asientos');
    const areas = [...shadow(el).querySelectorAll<HTMLButtonElement>('[part="area"]')];
    expect(areas.map((a) => a.getAttribute('data-area'))).toEqual(['A', 'B', 'C', 'D']);
    expect(areas[3]!.disabled).toBe(true);
    expect(text(areas[3])).toContain('ninguna a la venta');
    areas[0]!.click();
    await el.updateComplete;
    expect(text($(el, '[part="listings"] h3'))).toBe('Ofertas en A');
  });

  it('drops an image that is not http(s) and escapes area names', async () => {
    const data = mapData({ chart: { svgCode: null, image: 'javascript:alert(1)' } });
    data.areas[0]!.area = '<img src=x onerror=alert(1)>';
    const el = await mountMap({ data });
    expect(shadow(el).querySelector('img')).toBeNull();
    expect(text(shadow(el).querySelector('[part="area"] span'))).toBe('<img src=x onerror=alert(1)>');
  });

  it('loads from api-base with the public key, without credentials', async () => {
    const fetch = vi.fn(async () => envelopeResponse(mapData()));
    vi.stubGlobal('fetch', fetch);
    const el = await mountMap({}, { 'api-base': 'https://resale.example', 'event-id': 'tour 2026', 'show-id': 'show-1', 'public-key': 'pk_1' });
    const [url, init] = fetch.mock.calls[0]! as unknown as [string, RequestInit];
    expect(url).toBe('https://resale.example/v1/wrapper/seatmap?eventId=tour+2026&showId=show-1');
    expect((init.headers as Record<string, string>)['Authorization']).toBe('pk_1');
    expect(init.credentials).toBe('omit');
    expect(shadow(el).querySelector('svg')).toBeTruthy();
  });

  it('loads from src, and reports a failure with resale-error while rendering nothing', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => envelopeResponse({ not: 'a map' })));
    const el = document.createElement('resale-seat-map');
    el.setAttribute('src', 'https://resale.example/market/map.json');
    const failed = nextEvent<ResaleErrorEvent>(el, 'resale-error');
    document.body.append(el);
    expect((await failed).detail.reason).toBe('parse');
    expect(shadow(el).querySelector('[part="base"]')).toBeNull();
  });

  it('ignores a src that is not http(s)', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const el = document.createElement('resale-seat-map');
    el.setAttribute('src', 'javascript:alert(1)');
    document.body.append(el);
    await el.updateComplete;
    expect(fetch).not.toHaveBeenCalled();
  });

  it('keeps still-listed picks when fresh data arrives', async () => {
    const el = await mountMap({ data: mapData() });
    el.toggle('lst_c2');
    const fresh: SeatMapData = mapData();
    fresh.listings = fresh.listings.filter((l) => l.listingId !== 'lst_c3');
    const ready = nextEvent(el, 'resale-ready');
    el.data = fresh;
    await ready;
    expect(el.selection).toEqual(['lst_c2']);
  });
});
