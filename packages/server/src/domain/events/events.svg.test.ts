import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, showBody } from '../../testing/factories.js';
import { FeedsService } from '../feeds/feeds.service.js';
import { events } from './events.table.js';
import { cleanSvgChart } from './events.svg.js';

/**
 * A partner's seating chart is sanitised when it is received (API, pull feed, manual load) and
 * stored clean, so the pages that draw it never meet its scripts, handlers or external
 * references (they made every market page report CSP violations).
 */

/** A chart with everything a chart must not carry, around the zones and seats the seat map needs. */
const EVIL = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" onload="alert(1)">
  <script>alert(1)</script>
  <foreignObject width="10" height="10"><iframe src="https://evil.example"></iframe><img src="x" onerror="alert(1)"/></foreignObject>
  <a href="javascript:alert(1)"><rect data-area="Field" class="zone" x="0" y="0" width="50" height="50" onclick="alert(1)" style="fill:red"/></a>
  <a xlink:href="javascript:alert(2)"><text x="5" y="60">Stage</text></a>
  <image href="https://evil.example/track.png" width="5" height="5"/>
  <use xlink:href="https://evil.example/sprite.svg#s"/>
  <linearGradient id="gold"><stop offset="0" stop-color="#fc0"/></linearGradient>
  <g id="lounge" data-area="Lounge" fill="url(#gold)" filter="url(https://evil.example/f.svg#x)" onmouseover="alert(1)">
    <g data-section="A" data-row="1">
      <circle id="seat-a-1-1" class="seat" data-seat="1" cx="60" cy="60" r="2" onfocus="alert(1)"/>
      <circle id="seat-a-1-2" class="seat" data-seat="2" cx="66" cy="60" r="2"/>
    </g>
  </g>
  <animate attributeName="href" values="javascript:alert(1)"/>
  <set attributeName="onmouseover" to="alert(1)"/>
</svg>`;

/** What the stored chart must not contain, whatever its path in. */
const FORBIDDEN = ['<script', 'foreignobject', '<iframe', '<img', '<a ', '<animate', '<set', 'javascript:', 'onload', 'onclick', 'onerror', 'onmouseover', 'onfocus', 'evil.example', 'style=', 'alert'];

/** The chart is clean and what the seat map needs (zones, seats, ids, classes, text, local references) is intact. */
function expectCleanChart(svg: string) {
  const lower = svg.toLowerCase();
  for (const bad of FORBIDDEN) expect(lower, bad).not.toContain(bad);
  expect(svg.startsWith('<svg')).toBe(true);
  for (const kept of [
    'viewBox="0 0 100 100"',
    '<rect data-area="Field" class="zone" x="0" y="0" width="50" height="50">',
    '<text x="5" y="60">Stage</text>',
    '<linearGradient id="gold">',
    'fill="url(#gold)"',
    '<g data-section="A" data-row="1">',
    '<circle id="seat-a-1-1" class="seat" data-seat="1" cx="60" cy="60" r="2">',
    '<circle id="seat-a-1-2" class="seat" data-seat="2" cx="66" cy="60" r="2">',
  ]) {
    expect(svg).toContain(kept);
  }
  expect(svg).toMatch(/<g id="lounge" data-area="Lounge" fill="url\(#gold\)">/);
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))));
});

/** A partner platform answering `body` as JSON on every path. */
async function feedServer(body: unknown): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
}

/** The chart as stored in the events table. */
const storedChart = async (t: ReturnType<typeof createTestApp>, partnerId: string, ref: string) =>
  (await t.db.select().from(events).where(and(eq(events.partnerId, partnerId), eq(events.externalReferenceId, ref))).limit(1))[0]?.seating?.svgCode;

describe('seating charts are sanitised when received', () => {
  it('through the API: stored and served clean by the event, the seat map data and the market page, seats intact', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { allowedOrigins: ['https://acme.example'] });
    const created = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { seating: { svgCode: EVIL } }) });
    expect(created.status).toBe(200);
    expectCleanChart(created.body.data.seating.svgCode);

    const stored = (await storedChart(t, p.id, 'tour'))!;
    expectCleanChart(stored);
    expect((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data.seating.svgCode).toBe(stored);
    const seatmap = await t.request('GET', '/v1/wrapper/seatmap?eventId=tour&showId=show-1', { key: p.keys.public });
    expect(seatmap.status).toBe(200);
    expect(seatmap.body.data.chart.svgCode).toBe(stored);
    const market = await t.app.request(`/market/${p.id}/tour/seatmap.json?showId=show-1`);
    expect(market.status).toBe(200);
    expect(((await market.json()) as { data: { chart: { svgCode: string } } }).data.chart.svgCode).toBe(stored);

    // PUT replaces it (sanitised again); sending back what GET answered changes nothing.
    const again = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', seating: { svgCode: stored } } });
    expect(again.status).toBe(200);
    expect(await storedChart(t, p.id, 'tour')).toBe(stored);
    const updated = await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', seating: { svgCode: EVIL.replace('Stage', 'Main stage') } } });
    expect(updated.status).toBe(200);
    expect(await storedChart(t, p.id, 'tour')).toBe(stored.replace('Stage', 'Main stage'));
  });

  it('refuses a chart with nothing usable left, naming seating.svgCode, and writes nothing', async () => {
    const t = createTestApp();
    const p = await t.partner();
    for (const svgCode of ['<script>alert(1)</script>', '<svg onload="alert(1)"><script>alert(1)</script></svg>', '<div data-area="Field">x</div>', 'not markup', '<foreignObject><svg><rect/></svg></foreignObject>']) {
      const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { seating: { svgCode } }) });
      expect(res.status, svgCode).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ code: 'invalid_value', path: 'seating.svgCode', in: 'body' })]);
      expect(res.body.errors[0].message).toMatch(/^seating\.svgCode must be an SVG chart/);
    }
    expect(await t.db.select().from(events)).toEqual([]);
    // An empty chart is no chart, as before.
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { seating: { svgCode: '' } }) })).status).toBe(200);
  });

  it('through the pull feed: the same clean chart; a chart with nothing usable skips its event with the reason', async () => {
    const t = createTestApp();
    const feedShow = () => {
      const { date: _date, ...show } = showBody('show-1');
      return { ...show, status: 'ON_SALE', dates: { startsAt: '2026-05-01T21:00:00+02:00' } };
    };
    const url = await feedServer([eventBody('tour', { seating: { svgCode: EVIL }, shows: [feedShow()] }), eventBody('bad', { seating: { svgCode: '<svg onload="alert(1)"></svg>' }, shows: [feedShow()] })]);
    const p = await t.partner('Acme', { eventsFeedUrl: url });
    const run = await new FeedsService(t.deps, { timeoutMs: 5_000 }).pollEvents(p.id);
    expect(run).toMatchObject({ ok: true, applied: 1, skipped: 1 });
    expect(run!.problems.join(' ')).toContain('seating.svgCode');
    const stored = (await storedChart(t, p.id, 'tour'))!;
    expectCleanChart(stored);
    expect(stored).toBe(cleanSvgChart(EVIL));
    expect(await storedChart(t, p.id, 'bad')).toBeUndefined();
  });

  it('through the manual load: the service itself sanitises (the sheet has no chart column; any caller of the service is covered)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    // What import.ts does for a new event, with a chart that never met the API's schema.
    await t.db.transact(async (tx) => await t.deps.events.create(tx, p.id, { ...eventBody('tour'), seating: { svgCode: EVIL } } as never, 'import'));
    const stored = (await storedChart(t, p.id, 'tour'))!;
    expectCleanChart(stored);
    expect(stored).toBe(cleanSvgChart(EVIL));
    await expect(t.db.transact(async (tx) => await t.deps.events.upsert(tx, p.id, { externalReferenceId: 'tour', seating: { svgCode: '<svg><script>x</script></svg>' } }, 'import'))).rejects.toThrow(expect.objectContaining({ status: 400, entries: [expect.objectContaining({ path: 'seating.svgCode' })] }));
    expect(await storedChart(t, p.id, 'tour')).toBe(stored);
  });

  it('is idempotent and keeps a clean chart as it is', () => {
    const clean = cleanSvgChart(EVIL)!;
    expect(cleanSvgChart(clean)).toBe(clean);
    expect(cleanSvgChart('<svg viewBox="0 0 1 1"><rect data-area="A" width="1" height="1"></rect></svg>')).toBe('<svg viewBox="0 0 1 1"><rect data-area="A" width="1" height="1"></rect></svg>');
    expect(cleanSvgChart('   ')).toBe('');
    // CSS escapes that could hide an external url(…) go with the attribute.
    expect(cleanSvgChart('<svg><rect fill="u\\72 l(https://evil.example/x)" data-area="A"/></svg>')).toBe('<svg><rect data-area="A"></rect></svg>');
  });
});
