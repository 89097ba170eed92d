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
import { contrastRatio, GRAPHIC_CONTRAST, seatPalette, TEXT_CONTRAST } from '@resale/shared/contrast';
import { TOKENS } from '../../styles/tokens.js';
import { mapData } from './seat-map.fixtures.js';
import type { ResaleSeatMap } from './seat-map.js';
import { FILL_TOKENS, PALETTE_ROLES } from './seat-map.styles.js';

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

  it('takes a plain chart as parsed (a copy each time) and cleans anything else, even one bad attribute, with DOMPurify', async () => {
    const { sanitizeSvg } = await import('../../internal/sanitize-svg.js');
    const plain = '<svg viewBox="0 0 10 10"><g data-area="A"><rect x="0" y="0" width="5" height="5" fill="#ccc"/><circle data-seat="1" cx="2" cy="2" r="1"/><text font-size="3">A</text></g></svg>';
    const a = sanitizeSvg(plain)!;
    const b = sanitizeSvg(plain)!;
    expect(a).not.toBe(b);
    expect(a.outerHTML).toBe(b.outerHTML);
    expect(a.querySelector('circle')!.getAttribute('data-seat')).toBe('1');
    for (const bad of ['<circle onclick="alert(1)"/>', '<circle style="fill:red"/>', '<a href="javascript:alert(1)"><circle/></a>', '<circle fill="url(https://evil.test/x)"/>', '<image href="https://evil.test/x.png"/>', '<!-- x --><circle/>']) {
      const svg = sanitizeSvg(plain.replace('</g>', `${bad}</g>`))!;
      const markup = svg.outerHTML.toLowerCase();
      for (const gone of ['onclick', 'style=', 'javascript:', 'evil.test', '<a ']) expect(markup, bad).not.toContain(gone);
      expect(svg.querySelector('[data-seat="1"]'), bad).toBeTruthy();
    }
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
    expect(shadow(el).querySelector('[part="list"] [part="area"]')).toBeTruthy(); // falls back to the area list
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
    // Not for sale: no state (drawn as a small hollow ring), not focusable.
    expect(seat(el, '1').hasAttribute('data-state')).toBe(false);
    expect(seat(el, '1').hasAttribute('tabindex')).toBe(false);
    expect(seat(el, '2').getAttribute('data-state')).toBe('sale');
    expect($(el, 'svg').getAttribute('aria-label')).toBe('Seating chart');
  });

  it('opens the offers of a zone in the list on Enter and on click', async () => {
    const el = await mountMap({ data: mapData() });
    expect(shadow(el).querySelectorAll('[part="listing"]')).toHaveLength(0);
    const enter = key(zone(el, 'A'), 'Enter');
    await el.updateComplete;
    expect(enter.defaultPrevented).toBe(true);
    expect([...shadow(el).querySelectorAll('[part="listing"]')].map((l) => l.getAttribute('data-listing-id'))).toEqual(['lst_a1', 'lst_a2']);
    expect(($(el, 'details[data-area="A"]') as HTMLDetailsElement).open).toBe(true);
    expect(zone(el, 'A').hasAttribute('data-active')).toBe(true);
    zone(el, 'B').dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true }));
    await el.updateComplete;
    expect(($(el, 'details[data-area="B"]') as HTMLDetailsElement).open).toBe(true);
    expect(($(el, 'details[data-area="A"]') as HTMLDetailsElement).open).toBe(false);
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
    expect(seat(el, '2').getAttribute('data-state')).toBe('selected');
    expect(seat(el, '2').getAttribute('aria-pressed')).toBe('true');
    expect(text($(el, '[part="live"]'))).toBe('Added Section C, Row 1, Seat 2. 1 selected.');
    expect($(el, '[part="live"]').getAttribute('aria-live')).toBe('polite');
    key(seat(el, '3'), 'Enter');
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c2', 'lst_c3']);
    key(seat(el, '4'), 'Enter');
    await el.updateComplete;
    const link = $(el, 'a[part~="continue"]');
    // The way back is the partner page the map is on (see the return-to test).
    expect(link.getAttribute('href')).toBe(`https://resale.example/market/ptr_1/tour-2026?showId=show-1&returnTo=${encodeURIComponent(location.href)}&listingIds=lst_c2,lst_c3,lst_c4`);
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

  it('continues with the way back to the partner: its return-to, else the partner page it is on; never the market itself, never replacing one the market carries', async () => {
    const pick = async (el: ResaleSeatMap) => {
      for (const n of ['2', '3', '4']) {
        key(seat(el, n), 'Enter');
        await el.updateComplete;
      }
      return new URL(el.continueHref!);
    };
    const given = await pick(await mountMap({ data: mapData(), returnTo: 'https://tickets.partner.example/e/1' }));
    expect(given.searchParams.get('returnTo')).toBe('https://tickets.partner.example/e/1');
    expect(given.searchParams.get('listingIds')).toBe('lst_c2,lst_c3,lst_c4');
    // On a partner page (another site than the market) the page itself is the way back.
    const onPage = await pick(await mountMap({ data: mapData() }));
    expect(onPage.searchParams.get('returnTo')).toBe(location.href.split('#')[0]);
    // On the market page itself (same site as selectUrl) there is nothing to add.
    const market = await pick(await mountMap({ data: mapData({ selectUrl: `${location.origin}/market/ptr_1/tour-2026?showId=show-1` }) }));
    expect(market.searchParams.has('returnTo')).toBe(false);
    // The market's own way back (returnTo and its tag in selectUrl) is kept as it is.
    const carried = await pick(await mountMap({ data: mapData({ selectUrl: 'https://resale.example/market/ptr_1/tour-2026?showId=show-1&returnTo=https%3A%2F%2Fp.example%2F&returnToTag=t' }), returnTo: 'https://other.example/' }));
    expect([carried.searchParams.get('returnTo'), carried.searchParams.get('returnToTag')]).toEqual(['https://p.example/', 't']);
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
      url: `https://resale.example/market/ptr_1/tour-2026?showId=show-1&returnTo=${encodeURIComponent(location.href)}&listingIds=lst_b1`,
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
    expect(shadow(el).querySelector('[part="toolbar"], [part="legend"]')).toBeNull(); // nothing to zoom or explain
    const areas = [...shadow(el).querySelectorAll<HTMLDetailsElement>('[part="area"]')];
    expect(areas.map((a) => a.getAttribute('data-area'))).toEqual(['A', 'B', 'C', 'D']);
    expect(text(areas[3])).toContain('ninguna a la venta');
    expect(text(areas[0]!.querySelector('summary'))).toBe('A 3 entradas · desde 40,00 €');
    areas[0]!.open = true;
    areas[0]!.dispatchEvent(new Event('toggle'));
    await el.updateComplete;
    expect([...areas[0]!.querySelectorAll('[part="listing"]')].map((l) => l.getAttribute('data-listing-id'))).toEqual(['lst_a1', 'lst_a2']);
  });

  it('drops an image that is not http(s) and escapes area names', async () => {
    const data = mapData({ chart: { svgCode: null, image: 'javascript:alert(1)' } });
    data.areas[0]!.area = '<img src=x onerror=alert(1)>';
    const el = await mountMap({ data });
    expect(shadow(el).querySelector('img')).toBeNull();
    expect(text(shadow(el).querySelector('[part="area"] summary span'))).toBe('<img src=x onerror=alert(1)>');
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

describe('<resale-seat-map> reload()', () => {
  const ATTRS = { 'api-base': 'https://resale.example', 'event-id': 'tour-2026', 'show-id': 'show-1', 'public-key': 'pk_1' };
  /** The same chart, lst_c3 sold since. */
  const sold = () => {
    const data = mapData();
    data.listings = data.listings.filter((l) => l.listingId !== 'lst_c3');
    data.areas = data.areas.map((a) => (a.area === 'C' ? { ...a, quantityForSale: 2 } : a));
    return data;
  };

  it('fetches again, keeps the chart with its zoom and focus and the picks still on sale, and dispatches nothing', async () => {
    const fetch = vi.fn(async (_url: string) => envelopeResponse(mapData()));
    vi.stubGlobal('fetch', fetch);
    const el = await mountMap({}, ATTRS);
    const svg = $(el, 'svg');
    ($(el, '[part="zoom-in"]') as HTMLButtonElement).click();
    await el.updateComplete;
    const zoomed = svg.getAttribute('viewBox');
    el.toggle('lst_c3');
    el.toggle('lst_c4');
    seat(el, '4').focus();
    const onEvent = vi.fn();
    el.addEventListener('resale-ready', onEvent);
    el.addEventListener('resale-error', onEvent);
    fetch.mockImplementation(async () => envelopeResponse(sold()));
    el.reload();
    await vi.waitFor(() => expect(seat(el, '3').hasAttribute('data-state')).toBe(false));
    await el.updateComplete;
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(fetch.mock.calls[1]![0]).toBe(fetch.mock.calls[0]![0]);
    // The same chart element, where it was, with the sold seat back to the default look.
    expect($(el, 'svg')).toBe(svg);
    expect(svg.getAttribute('viewBox')).toBe(zoomed);
    expect(shadow(el).activeElement).toBe(seat(el, '4'));
    expect(['tabindex', 'role', 'aria-pressed', 'aria-label'].filter((a) => seat(el, '3').hasAttribute(a))).toEqual([]);
    expect(seat(el, '4').getAttribute('data-state')).toBe('selected');
    expect(el.selection).toEqual(['lst_c4']);
    expect(zone(el, 'C').getAttribute('aria-label')).toBe('C: 2 tickets, from €60.00');
    expect(onEvent).not.toHaveBeenCalled();
  });

  it('keeps what is shown when the reload fails, and gathers calls during a load into one more', async () => {
    const fetch = vi.fn(async () => envelopeResponse(mapData()));
    vi.stubGlobal('fetch', fetch);
    const el = await mountMap({}, ATTRS);
    const onError = vi.fn();
    el.addEventListener('resale-error', onError);
    fetch.mockImplementation(async () => envelopeResponse(null, 503));
    el.reload();
    el.reload();
    el.reload();
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(3));
    await new Promise((r) => setTimeout(r, 10));
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(onError).not.toHaveBeenCalled();
    expect(seat(el, '3').getAttribute('data-state')).toBe('sale');
  });

  it('does nothing for data given as a property', async () => {
    const fetch = vi.fn();
    vi.stubGlobal('fetch', fetch);
    const el = await mountMap({ data: mapData() });
    el.reload();
    await el.updateComplete;
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('<resale-seat-map> every seat drawn, legend, the page’s selection', () => {
  /** The demo's way of drawing: zones as shapes beside their seats; B's seats have no offers. */
  const SIBLINGS = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 100">
    <rect data-area="C" x="0" y="0" width="140" height="100"/>
    <g data-section="C" data-row="1"><circle data-seat="1" cx="10" cy="50" r="4"/><circle data-seat="2" cx="20" cy="50" r="4"/><circle data-seat="3" cx="30" cy="50" r="4"/><circle data-seat="4" cx="40" cy="50" r="4"/><circle data-seat="5" cx="50" cy="50" r="4"/></g>
    <g data-area="D"><rect x="150" y="0" width="140" height="100"/><g data-section="D" data-row="1"><circle data-seat="1" cx="160" cy="50" r="4"/></g></g>
  </svg>`;

  it('gives every seat for sale a state, and every seat and label the palette of the fill it stands on (the zone’s, not a seat colour)', async () => {
    const el = await mountMap({ data: mapData({ chart: { svgCode: SIBLINGS, image: null } }) });
    // Zone C (offers: #0b4fb3) is a shape beside its seats: each seat carries the fill's palette.
    expect(zone(el, 'C').getAttribute('data-availability')).toBe('some');
    const seats = [...shadow(el).querySelectorAll('[data-section="C"] [data-seat]')];
    expect(seats.map((s) => s.getAttribute('data-on'))).toEqual(['zone-some', 'zone-some', 'zone-some', 'zone-some', 'zone-some']);
    expect(seats.map((s) => s.getAttribute('data-state'))).toEqual([null, 'sale', 'sale', 'sale', null]);
    // Zone D (no offers, #d0d7de) around its seats: the zone carries the palette, its seat inherits
    // it (no write per seat), still drawn (not for sale).
    expect(zone(el, 'D').getAttribute('data-availability')).toBe('none');
    expect(zone(el, 'D').getAttribute('data-on')).toBe('zone-none');
    expect($(el, '[data-area="D"] [data-seat]').hasAttribute('data-on')).toBe(false);
    expect($(el, '[data-area="D"] [data-seat]').hasAttribute('data-state')).toBe(false);
    // D's own shape is marked as the zone's drawing (painted in the zone colour); its seat is not.
    expect($(el, '[data-area="D"] rect').hasAttribute('data-zone-shape')).toBe(true);
    expect($(el, '[data-area="D"] [data-seat]').hasAttribute('data-zone-shape')).toBe(false);
  });

  it('draws labels on a zone in its label ink, and leaves the chart’s other text alone (the demo’s drawing)', async () => {
    // As demo/src/catalog.ts draws the gala: a stage with its name, then per zone a group of the
    // zone shape, its row letters (in the chart's dark grey: 2.46:1 on the cheapest green) and seats.
    const demo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 200">
      <rect x="90" y="0" width="120" height="30" fill="#33333d"/><text x="150" y="20" fill="#ffffff">Stage</text>
      <g><rect data-area="C" x="0" y="40" width="300" height="60" fill="#dbe7f7"/><text x="10" y="74" fill="#33333d">1</text>
        <circle data-section="C" data-row="1" data-seat="2" cx="30" cy="70" r="8"/><circle data-section="C" data-row="1" data-seat="3" cx="50" cy="70" r="8"/></g>
      <g data-area="D"><rect x="0" y="110" width="300" height="60"/><text x="10" y="144">9</text></g>
    </svg>`;
    const el = await mountMap({ data: mapData({ chart: { svgCode: demo, image: null } }) });
    const [stage, row, inD] = [...shadow(el).querySelectorAll('svg text')];
    expect(stage!.hasAttribute('data-on')).toBe(false);
    expect(stage!.closest('[data-area]')).toBeNull();
    expect(row!.getAttribute('data-on')).toBe('zone-some');
    // Inside its zone: inherits the zone's palette ([data-area] text takes --_label).
    expect(inD!.closest('[data-area]')!.getAttribute('data-on')).toBe('zone-none');
    expect(seat(el, '2').getAttribute('data-on')).toBe('zone-some');
    // The legend draws the states on the fill the seats for sale stand on.
    expect([...shadow(el).querySelectorAll('[part="legend"] svg:has([data-seat])')].map((s) => s.getAttribute('data-on'))).toEqual(['zone-some', 'zone-some', 'zone-some']);
  });

  it('computes the palette of each fill from the colours it got (seatPalette), for the chart and the legend', async () => {
    const el = await mountMap({ data: mapData() });
    const base = $(el, '[part="base"]') as HTMLElement;
    for (const fill of FILL_TOKENS) {
      const palette = seatPalette(TOKENS[fill], TOKENS['zone-selected']);
      for (const role of PALETTE_ROLES) expect(base.style.getPropertyValue(`--_${fill}-${role}`), `${fill} ${role}`).toBe(palette[role]);
    }
    // The cheapest green's row letters: white (5.07:1), where the chart's own #33333d was 2.46:1.
    expect(base.style.getPropertyValue('--_zone-cheapest-label')).toBe('#ffffff');
    // Set through the CSSOM (a strict style-src allows it), never as markup in the chart.
    expect($(el, '[part="chart"] svg').outerHTML).not.toContain('style=');
  });

  it.each(['#000000', '#ffffff', '#ffff00', '#1a7f37', '#777777', '#808080'])('draws on a partner’s zone colour %s with every state at 3:1 and labels at 4.5:1', async (color) => {
    // The partner's colours, as a page sets them: on the element (or any ancestor).
    const el = document.createElement('resale-seat-map');
    for (const token of ['zone-none', 'zone-some', 'zone-cheapest', 'color-surface']) el.style.setProperty(`--resale-${token}`, color);
    el.style.setProperty('--resale-zone-selected', color);
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    el.data = mapData();
    document.body.append(el);
    await ready;
    const base = $(el, '[part="base"]') as HTMLElement;
    for (const fill of FILL_TOKENS) {
      const get = (role: string) => base.style.getPropertyValue(`--_${fill}-${role}`);
      expect(get('ink')).toBe(seatPalette(color, color).ink);
      expect(contrastRatio(get('ink'), color), `for sale and selected ring on ${color}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(contrastRatio(get('muted'), color), `not for sale on ${color}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(contrastRatio(get('selected'), get('ink')), `selected centre in its ring on ${color}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(contrastRatio(get('label'), color), `labels on ${color}`).toBeGreaterThanOrEqual(TEXT_CONTRAST);
    }
  });

  it('has a legend of the seat states and zone colours, in the page’s language', async () => {
    const el = await mountMap({ data: mapData(), lang: 'es' });
    const legend = $(el, '[part="legend"]');
    expect(legend.getAttribute('aria-label')).toBe('Leyenda');
    expect([...legend.querySelectorAll('li')].map((li) => text(li))).toEqual(['A la venta', 'Elegido', 'No está a la venta', 'Zona más barata', 'Zona con entradas', 'Zona sin entradas']);
    // The chart's own seat states (no `data-state` is not for sale), on a swatch of the fill
    // they stand on (zone C of the fixture is only a group of seats: the surface).
    expect([...legend.querySelectorAll('[data-seat]')].map((s) => s.getAttribute('data-state'))).toEqual(['sale', 'selected', null]);
    expect([...legend.querySelectorAll('svg:has([data-seat])')].map((s) => [s.getAttribute('data-on'), s.querySelector('rect')!.getAttribute('fill')])).toEqual(Array(3).fill(['color-surface', TOKENS['color-surface']]));
  });

  it('shows the selection the page passes in `selected` as picked, under the same seat rule', async () => {
    const el = await mountMap({ data: mapData() }, { selected: 'lst_c2,lst_c3,lst_c4,lst_gone' });
    expect(el.selection).toEqual(['lst_c2', 'lst_c3', 'lst_c4']);
    expect(['2', '3', '4'].map((n) => seat(el, n).getAttribute('data-state'))).toEqual(['selected', 'selected', 'selected']);
    expect(seat(el, '3').getAttribute('aria-pressed')).toBe('true');
    expect(text($(el, '[part="count"]'))).toBe('3 selected');
    expect(text($(el, '[part="total"]'))).toBe('Total €180.00');
    expect(text($(el, '[part="summary"]'))).not.toContain('Nothing selected');
    expect(el.continueHref).toContain('listingIds=lst_c2,lst_c3,lst_c4');
    // A6 alone (here C3 alone) is refused on the map as on the market: same rule.
    el.setAttribute('selected', 'lst_c3');
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c3']);
    expect(seat(el, '2').getAttribute('data-state')).toBe('sale');
    expect(text($(el, '[part="message"]'))).toContain('single empty seat');
    expect(el.continueHref).toBeUndefined();
  });

  it('says in the panel how many tickets are picked and what they cost, packs counted whole, in the page’s language', async () => {
    const el = await mountMap({ data: mapData({ config: { allowOrphanTicketSelection: true } }), lang: 'es' });
    expect(text($(el, '[part="count"]'))).toBe('Nada elegido');
    expect(shadow(el).querySelector('[part="total"]')).toBeNull();
    el.toggle('lst_a1'); // a pack of 2 at 40
    await el.updateComplete;
    expect(text($(el, '[part="count"]'))).toBe('2 elegidas');
    expect(text($(el, '[part="total"]'))).toBe('Total 80,00 €');
    el.clearSelection();
    el.toggle('lst_c2');
    el.toggle('lst_c3');
    await el.updateComplete;
    expect(text($(el, '[part="total"]'))).toBe('Total 120,00 €');
    // Cents add up exactly (0.1 × 3 + 0.2 is not 0.5 in floating point).
    const ready = nextEvent<ResaleReadyEvent>(el, 'resale-ready');
    el.data = mapData({
      listings: [
        { listingId: 'x', ticketOptionId: 'o', area: 'A', quantity: 3, price: 0.1, currency: 'EUR', seats: [] },
        { listingId: 'y', ticketOptionId: 'o', area: 'A', quantity: 1, price: 0.2, currency: 'EUR', seats: [] },
      ],
    });
    await ready;
    el.toggle('x');
    el.toggle('y');
    await el.updateComplete;
    expect(text($(el, '[part="total"]'))).toBe('Total 0,50 €');
  });
});


describe('<resale-seat-map> list view and zoom', () => {
  it('lists the same seats by area beside the chart, in row and seat order, with the same selection both ways', async () => {
    const el = await mountMap({ data: mapData({ config: { allowOrphanTicketSelection: true } }) });
    const list = $(el, '[part="list"]');
    expect(text(list.querySelector('h3'))).toBe('Seats for sale');
    expect([...list.querySelectorAll('details')].map((d) => d.getAttribute('data-area'))).toEqual(['A', 'B', 'C', 'D']);
    // A seat picked on the chart opens its area in the list, shown as picked there.
    key(seat(el, '3'), 'Enter');
    await el.updateComplete;
    const offers = [...list.querySelectorAll<HTMLElement>('details[data-area="C"] [part="listing"]')];
    expect(offers.map((o) => o.getAttribute('data-listing-id'))).toEqual(['lst_c2', 'lst_c3', 'lst_c4']);
    expect(offers.map((o) => o.querySelector('[part="toggle"]')!.getAttribute('aria-pressed'))).toEqual(['false', 'true', 'false']);
    // And a pick in the list is a pick on the chart.
    offers[2]!.querySelector<HTMLButtonElement>('[part="toggle"]')!.click();
    await el.updateComplete;
    expect(el.selection).toEqual(['lst_c3', 'lst_c4']);
    expect(seat(el, '4').getAttribute('data-state')).toBe('selected');
  });

  it('zooms and pans with buttons and keys, keeping the view inside the chart', async () => {
    const el = await mountMap({ data: mapData() });
    const svg = $(el, 'svg');
    const zoomIn = $(el, '[part="zoom-in"]') as HTMLButtonElement;
    expect(($(el, '[part="zoom-out"]') as HTMLButtonElement).disabled).toBe(true);
    expect(zoomIn.getAttribute('aria-label')).toBe('Zoom in');
    zoomIn.click();
    await el.updateComplete;
    expect(svg.getAttribute('viewBox')).toBe('75 25 150 50');
    expect($(el, '[part="chart"]').hasAttribute('data-zoomed')).toBe(true);
    expect(($(el, '[part="zoom-out"]') as HTMLButtonElement).disabled).toBe(false);
    key(seat(el, '2'), 'ArrowLeft');
    key(seat(el, '2'), 'ArrowLeft');
    key(seat(el, '2'), 'ArrowLeft');
    expect(svg.getAttribute('viewBox')).toBe('0 25 150 50'); // stopped at the chart's edge
    expect(key(seat(el, '2'), '0').defaultPrevented).toBe(true);
    await el.updateComplete;
    expect(svg.getAttribute('viewBox')).toBe('0 0 300 100');
    expect($(el, '[part="chart"]').hasAttribute('data-zoomed')).toBe(false);
  });

  it('zooms in where a pointer taps a seat smaller than 24 px, and picks it once it is large enough', async () => {
    // Layout, as a browser has it: the 300-unit chart 300 px wide, seats 8 units across, 10 apart.
    const proto = Object.getPrototypeOf($(await mountMap({ data: mapData() }), 'svg circle')) as { getBBox?: unknown };
    const rects = vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
      return this.localName === 'svg' ? new DOMRect(0, 0, 300, 100) : new DOMRect(0, 0, 8, 8);
    });
    proto.getBBox = function (this: Element) {
      const cx = Number(this.getAttribute('cx'));
      return new DOMRect(cx - 4, 76, 8, 8);
    };
    try {
      document.body.replaceChildren();
      const el = await mountMap({ data: mapData({ config: { allowOrphanTicketSelection: true } }) });
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 5))); // measured after the first frame
      const tap = () => seat(el, '3').dispatchEvent(new MouseEvent('click', { bubbles: true, composed: true, detail: 1, clientX: 30, clientY: 80 }));
      tap();
      await el.updateComplete;
      expect(el.selection).toEqual([]);
      expect($(el, 'svg').getAttribute('viewBox')).not.toBe('0 0 300 100');
      expect(text($(el, '[part="live"]'))).toContain('Zoomed in');
      // Seats are now 8.5 units x 3.76 = 32 px on screen.
      rects.mockImplementation(function (this: Element) {
        return this.localName === 'svg' ? new DOMRect(0, 0, 300 * 3.77, 100 * 3.77) : new DOMRect(0, 0, 32, 32);
      });
      tap();
      await el.updateComplete;
      expect(el.selection).toEqual(['lst_c3']);
    } finally {
      delete proto.getBBox;
      rects.mockRestore();
    }
  });
});
