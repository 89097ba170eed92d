import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio, GRAPHIC_CONTRAST, TEXT_CONTRAST } from '@resale/shared/contrast';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { servePage, startStack, type Stack } from './stack.js';
import { CARLA, steps } from './steps.js';

/**
 * The seat map as drawn by Chromium: its states and labels measured against the fill behind
 * them for partner colours at the extremes, the legend drawn like the seats, and no button whose
 * text is clipped, in both languages, on the market and on a partner's page.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { signIn, sell } = steps(() => stack);
const { person } = journeyBrowser();

/** The widths a fan reads the map at: a phone and a laptop. */
const WIDTHS = [390, 1280] as const;

/**
 * Every button, summary and block link (in the page and in every shadow root) whose text is wider
 * than its box: `scrollWidth > clientWidth`, as "Selected" was in a 75 px button.
 */
function clippedControls(page: Page) {
  return page.evaluate(() => {
    const out: string[] = [];
    const visit = (root: Document | ShadowRoot) => {
      for (const el of Array.from(root.querySelectorAll<HTMLElement>('*'))) {
        if (el.shadowRoot) visit(el.shadowRoot);
        if (!el.matches('button, summary, a, [role="button"]') || el instanceof SVGElement || el.getClientRects().length === 0) continue;
        // An inline link has no box of its own to clip in (its clientWidth is 0).
        if (getComputedStyle(el).display === 'inline') continue;
        if (el.scrollWidth > el.clientWidth) out.push(`${el.localName} "${el.textContent?.trim().replace(/\s+/g, ' ')}": ${el.scrollWidth} px of text in ${el.clientWidth} px`);
      }
    };
    visit(document);
    return out;
  });
}

/** What the page's seat map shows in its panel, once picks are in. */
const panel = async (page: Page) => (await page.locator('resale-seat-map [part~="summary"]').innerText()).replace(/\u00a0/g, ' ');

describe('the seat map', () => {
  it('(1) never clips a button’s text on the market, in English and Spanish, at 390 and 1280 px, and shows the selection’s count and total', async () => {
    const seller = await person();
    await journey(seller, 'seatmap-clip-sell', async () => {
      await signIn(seller, CARLA.name);
      await sell(seller, 'dt-gala-c4', '62', CARLA.email);
      await sell(seller, 'dt-gala-c5', '64', CARLA.email);
    });
    const answer = await stack.api('GET', `/v1/marketplace/buyingflow/url/entrypoint?${new URLSearchParams({ externalReferenceEventId: 'demo-gala', showId: 'gala-1', returnTo: `${stack.demoUrl}/events/demo-gala` })}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const entry = answer.body.data as string;
    for (const lang of ['en', 'es'] as const) {
      const page = await person();
      await journey(page, `seatmap-clip-market-${lang}`, async () => {
        const url = new URL(entry);
        url.searchParams.set('lang', lang);
        await page.goto(url.href);
        const map = page.locator('resale-seat-map');
        const seat = (n: string) => map.locator(`[part~="chart"] [data-section="Stalls"][data-row="C"][data-seat="${n}"]`);
        await expect.poll(() => seat('4').getAttribute('role')).toBe('button');
        // Both seats picked: their row opens in the list with its "Selected" buttons.
        await seat('4').click();
        await seat('5').click();
        await expect.poll(() => map.locator('[part~="toggle"][aria-pressed="true"]').count()).toBe(2);
        expect(await panel(page)).toContain(lang === 'en' ? '2 selected' : '2 elegidas');
        // The seats' prices, buyer fees included (the tooltip's €68.20 and €70.40).
        expect(await panel(page)).toContain(lang === 'en' ? 'Total €138.60' : 'Total 138,60 €');
        expect(await map.locator('[part~="toggle"][aria-pressed="true"]').first().innerText()).toBe(lang === 'en' ? 'Selected' : 'Elegida');
        for (const width of WIDTHS) {
          await page.setViewportSize({ width, height: 900 });
          expect(await clippedControls(page), `the market in ${lang} at ${width} px`).toEqual([]);
        }
        await expectSoundPage(page, { label: `the market with picked seats (${lang})` });
      });
    }
  });

  it('(2) draws every state at 3:1 and labels at 4.5:1 against partner zone colours at the extremes, the legend as the seats, and clips nothing on a partner’s page', async () => {
    // The demo's gala chart (zones drawn as shapes beside their seats, row letters in #33333d),
    // with offers on seats of both zones, one of them picked.
    const { chart } = (await stack.api('GET', '/v1/wrapper/seatmap?eventId=demo-gala&showId=gala-1')).body.data as { chart: { svgCode: string } };
    const listing = (id: string, area: string, row: string, seat: string, price: number) => ({ listingId: id, ticketOptionId: `opt-${area}`, area, quantity: 1, price, currency: 'EUR', seats: [{ section: area, row, seat }] });
    const data = {
      eventId: 'demo-gala',
      showId: 'gala-1',
      chart: { svgCode: chart.svgCode, image: null },
      config: { allowOrphanTicketSelection: true },
      areas: [
        { area: 'Stalls', quantityForSale: 3, floorPrice: 40, currency: 'EUR', ticketOptionIds: ['opt-Stalls'] },
        { area: 'Balcony', quantityForSale: 2, floorPrice: 55, currency: 'EUR', ticketOptionIds: ['opt-Balcony'] },
      ],
      listings: [listing('s1', 'Stalls', 'A', '5', 40), listing('s2', 'Stalls', 'B', '2', 42), listing('s3', 'Stalls', 'C', '7', 44), listing('b1', 'Balcony', 'D', '3', 55), listing('b2', 'Balcony', 'E', '4', 58)],
      selectUrl: `${stack.serviceUrl}/market/x?showId=gala-1`,
    };
    const page = await person();
    for (const color of ['#000000', '#ffffff', '#ffff00', '#1a7f37', '#777777', '#808080']) {
      for (const lang of ['en', 'es'] as const) {
        // The partner's own page, its colours on the element (every zone and the picked seats).
        const fixture = await servePage(
          { 'content-security-policy': `default-src 'none'; script-src ${stack.serviceUrl}; connect-src ${stack.serviceUrl}; style-src 'unsafe-inline'` },
          `<!doctype html><html lang="${lang}"><head><title>Seats</title><script type="module" src="${stack.serviceUrl}/widgets/v1/resale.js"></script>
<style>resale-seat-map{--resale-zone-none:${color};--resale-zone-some:${color};--resale-zone-cheapest:${color};--resale-zone-selected:${color}}</style></head>
<body><main><h1>Seats</h1><resale-seat-map selected="s1,s2"></resale-seat-map></main></body></html>`,
        );
        try {
          await journey(page, `seatmap-colors-${color.slice(1)}-${lang}`, async () => {
            await page.goto(fixture.url);
            await expect.poll(() => page.evaluate(() => customElements.get('resale-seat-map') !== undefined)).toBe(true);
            await page.evaluate((d) => Object.assign(document.querySelector('resale-seat-map')!, { data: d }), data);
            const map = page.locator('resale-seat-map');
            await expect.poll(() => map.locator('[part~="chart"] [data-state="selected"]').count()).toBe(2);
            const drawn = await page.evaluate(() => {
              const root = document.querySelector('resale-seat-map')!.shadowRoot!;
              const paint = (el: Element) => {
                const s = getComputedStyle(el);
                // A width from a unitless custom property (the map's `--_ring`) reads `calc(1.5)`.
                return { fill: s.fill, stroke: s.stroke, strokeWidth: Number(/[\d.]+/.exec(s.strokeWidth)?.[0]) };
              };
              const inZone = (area: string, state: string | null) =>
                Array.from(root.querySelectorAll(`[part~="chart"] [data-seat][data-section="${area}"]`)).find((el) => el.getAttribute('data-state') === state)!;
              const zones = ['Stalls', 'Balcony'].map((area) => ({
                area,
                zone: getComputedStyle(root.querySelector(`[part~="chart"] [data-area="${area}"]`)!).fill,
                label: getComputedStyle(Array.from(root.querySelectorAll('[part~="chart"] text')).find((t) => t.parentElement!.querySelector(`:scope > [data-area="${area}"]`))!).fill,
                notForSale: paint(inZone(area, null)),
                forSale: paint(inZone(area, 'sale')),
                selected: area === 'Stalls' ? paint(inZone(area, 'selected')) : null,
              }));
              const legend = Array.from(root.querySelectorAll('[part~="legend"] svg')).filter((s) => s.querySelector('[data-seat]'));
              return { zones, legend: legend.map((s) => ({ swatch: getComputedStyle(s.querySelector('rect')!).fill, seat: paint(s.querySelector('[data-seat]')!) })) };
            });
            for (const z of drawn.zones) {
              const on = `on ${z.area} in ${color} (${z.zone})`;
              expect(z.zone).toBe(`rgb(${[1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16)).join(', ')})`);
              expect(contrastRatio(z.forSale.fill, z.zone), `for sale ${on}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
              expect(z.forSale.fill).toBe(z.forSale.stroke); // a solid disc
              expect(contrastRatio(z.notForSale.stroke, z.zone), `not for sale ${on}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
              expect(z.notForSale.fill).toBe('rgba(0, 0, 0, 0)'); // a hollow ring…
              expect(z.notForSale.strokeWidth).toBeLessThan(z.forSale.strokeWidth); // …thinner
              expect(contrastRatio(z.notForSale.stroke, z.zone)).toBeLessThanOrEqual(contrastRatio(z.forSale.fill, z.zone)); // …and muted
              expect(contrastRatio(z.label, z.zone), `row letters ${on}`).toBeGreaterThanOrEqual(TEXT_CONTRAST);
              if (z.selected) {
                expect(contrastRatio(z.selected.stroke, z.zone), `selected ${on}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
                expect(contrastRatio(z.selected.fill, z.selected.stroke), `selected centre in its ring ${on}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
                expect(z.selected.strokeWidth).toBeGreaterThan(z.forSale.strokeWidth);
              }
            }
            // The legend: the seats' own states on a swatch of the fill they stand on, drawn alike.
            const stalls = drawn.zones[0]!;
            expect(drawn.legend.map((l) => l.swatch)).toEqual([stalls.zone, stalls.zone, stalls.zone]);
            expect(drawn.legend.map((l) => [l.seat.fill, l.seat.stroke])).toEqual([stalls.forSale, stalls.selected!, stalls.notForSale].map((p) => [p.fill, p.stroke]));
            for (const width of WIDTHS) {
              await page.setViewportSize({ width, height: 900 });
              expect(await clippedControls(page), `the widget in ${lang} on ${color} at ${width} px`).toEqual([]);
            }
          });
        } finally {
          await fixture.close();
        }
      }
    }
  });
});
