import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEvents, catalogTickets, FESTIVAL_ID, GALA_ID, galaSeatingSvg } from './catalog.js';
import { withRetry } from './seed.js';
import { ServiceError } from './service-client.js';
import { DemoStore } from './store.js';
import { startTestStack, type TestStack } from './testing.js';

describe('the catalog', () => {
  const events = catalogEvents(new Date('2030-01-10T12:00:00Z'));
  const tickets = catalogTickets(events);

  it('dates the shows weeks after now', () => {
    const now = Date.parse('2030-01-10T12:00:00Z');
    for (const e of events) expect(Date.parse(e.date) - now).toBeGreaterThan(21 * 86_400_000);
  });

  it('draws the seated event with the chart convention: a zone per area, a seat element per ticket', () => {
    const svg = galaSeatingSvg();
    const gala = events.find((e) => e.id === GALA_ID)!;
    expect(gala.svg).toBe(svg);
    for (const o of gala.options) expect(svg).toContain(`data-area="${o.area}"`);
    const seats = [...svg.matchAll(/data-section="([^"]+)" data-row="([^"]+)" data-seat="([^"]+)"/g)];
    expect(seats.length).toBeGreaterThanOrEqual(24);
    expect(seats.length).toBeLessThanOrEqual(60);
    for (const t of tickets.filter((x) => x.eventId === GALA_ID)) {
      expect(svg, t.ticketId).toContain(`data-section="${t.section}" data-row="${t.row}" data-seat="${t.seat}"`);
      expect(gala.options.find((o) => o.id === t.ticketOptionId)!.area).toBe(t.section);
    }
    expect(svg).not.toMatch(/<script|on\w+=|href/i);
  });

  it('gives every ticket a unique id and the general-admission ones no seat', () => {
    expect(new Set(tickets.map((t) => t.ticketId)).size).toBe(tickets.length);
    for (const t of tickets.filter((x) => x.eventId === FESTIVAL_ID)) expect([t.section, t.row, t.seat]).toEqual([null, null, null]);
    expect(events.find((e) => e.id === FESTIVAL_ID)!.options).toHaveLength(2);
  });
});

describe('withRetry', () => {
  it('retries retryable failures, stops at once on others', async () => {
    let calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        if (calls < 3) throw new ServiceError('down', null, true);
        return 'ok';
      }, 5, 1),
    ).resolves.toBe('ok');
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new ServiceError('bad request', 400, false);
      }, 5, 1),
    ).rejects.toThrow('bad request');
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new ServiceError('down', 503, true);
      }, 3, 1),
    ).rejects.toThrow('down');
    expect(calls).toBe(3);
  });
});

describe('seeding against the real service', () => {
  let s: TestStack;
  beforeAll(async () => {
    s = await startTestStack();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('creates both events in the service, the seated one with its chart, options, areas and a price type', async () => {
    expect(s.demo.seeded.events).toEqual([
      { id: GALA_ID, outcome: 'created' },
      { id: FESTIVAL_ID, outcome: 'created' },
    ]);
    const gala = await s.api('GET', `/v1/events/${GALA_ID}`);
    expect(gala.status).toBe(200);
    expect(gala.body.data.seating.svgCode).toContain('data-area="Stalls"');
    const show = gala.body.data.shows[0];
    expect(show.showId).toBe('gala-1');
    expect(show.resaleEnabled).toBe(true);
    expect(show.ticketOptions.map((o: { ticketId: string; area: string }) => [o.ticketId, o.area])).toEqual([
      ['gala-stalls', 'Stalls'],
      ['gala-balcony', 'Balcony'],
    ]);
    expect(Date.parse(show.date)).toBeGreaterThan(Date.now() + 7 * 86_400_000);
    const fest = await s.api('GET', `/v1/events/${FESTIVAL_ID}`);
    expect(fest.status).toBe(200);
    expect(fest.body.data.seating).toBeUndefined();
    expect(fest.body.data.shows[0].ticketOptions).toHaveLength(2);
  });

  it('pushes every ticket with its holder, seat, order and access code', async () => {
    const state = s.demo.store.state;
    expect(s.demo.seeded.ticketsPushed).toBe(state.tickets.length);
    const a5 = await s.api('GET', '/v1/tickets/dt-gala-a5');
    expect(a5.status).toBe(200);
    const t = a5.body.data;
    expect(JSON.stringify(t)).toContain('ana@demo.test');
    expect(t.orderId).toBe('ord-1001');
    expect(t.seating).toEqual({ section: 'Stalls', row: 'A', seat: '5' });
    expect(t.ticketAccess).toMatchObject({ type: 'OTHER', locator: 'DT-GALA-A5' });
    for (const ticket of state.tickets) expect((await s.api('GET', `/v1/tickets/${ticket.ticketId}`)).status, ticket.ticketId).toBe(200);
  });

  it('a restart upserts the events again but never re-pushes tickets: a resale stays done', async () => {
    // A resale moved Carla's C4 to Ben (as the webhook handler does), in the state file.
    const store = s.demo.store;
    const c4 = store.ticket('dt-gala-c4')!;
    c4.ownerId = 'u-ben';
    store.save();
    const seededAt = store.state.seededAt;
    await s.demo.stop();

    const again = await s.restartDemo();
    expect(again.seeded.events.map((e) => e.outcome)).toEqual(['updated', 'updated']);
    expect(again.seeded.ticketsPushed).toBe(0);
    expect(again.store.state.seededAt).toBe(seededAt);
    expect(again.store.ticket('dt-gala-c4')!.ownerId).toBe('u-ben');
    const onDisk = JSON.parse(readFileSync(s.statePath, 'utf8'));
    expect(onDisk.tickets.find((t: { ticketId: string }) => t.ticketId === 'dt-gala-c4').ownerId).toBe('u-ben');
    // The service was not told Carla owns it again.
    const inService = await s.api('GET', '/v1/tickets/dt-gala-c4');
    expect(JSON.stringify(inService.body.data)).toContain('carla@demo.test');
  });

  it('waits for a service that is still starting', async () => {
    await s.demo.stop();
    await s.stopService();
    // The demo starts first; the service follows a moment later.
    const demo = s.restartDemo();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await s.startService();
    const running = await demo;
    expect(running.seeded.events.map((e) => e.outcome)).toEqual(['updated', 'updated']);
    const res = await fetch(`${running.url}/`);
    expect(res.status).toBe(200);
  });

  it('refuses a state file that is not one', async () => {
    const bad = `${s.dir}/not-state.json`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bad, '{"hello":"world"}');
    expect(() => DemoStore.open(bad)).toThrow(/not a demo state file/);
  });
});
