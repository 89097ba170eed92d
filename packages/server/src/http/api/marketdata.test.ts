import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, showBody, withEvent } from '../../testing/factories.js';

describe('market data: inventory', () => {
  it('keeps the show’s inventory, merging the fields sent, and its details per ticket option', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const path = '/v1/marketdata/events/tour/inventory?showId=show-1';
    const first = await t.request('PUT', path, { key: p.keys.private, body: { capacity: 20000, soldPercentage: 92.5 } });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ showId: 'show-1', capacity: 20000, soldPercentage: 92.5, soldOut: null, items: [] });
    const second = await t.request('PUT', path, { key: p.keys.private, body: { soldOut: true } });
    expect(second.body.data).toMatchObject({ capacity: 20000, soldPercentage: 92.5, soldOut: true });
    const details = await t.request('PUT', '/v1/marketdata/events/tour/inventory/details?showId=show-1', {
      key: p.keys.private,
      body: { items: [{ ticketOptionId: 'opt-field', priceTypeId: 'pt-early', releasedTickets: 500, soldOut: true }, { ticketOptionId: 'opt-vip', soldPercentage: 40 }] },
    });
    expect(details.body.data.items).toHaveLength(2);
    const read = await t.request('GET', path, { key: p.keys.private });
    expect(read.body.data).toMatchObject({ capacity: 20000, soldOut: true, items: [{ ticketOptionId: 'opt-field', priceTypeId: 'pt-early', releasedTickets: 500 }, { ticketOptionId: 'opt-vip' }] });
  });

  it('needs showId when the event has several shows, enforces ranges and ids, and hides other partners', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('solo', { shows: [showBody('only')] }) });
    expect((await t.request('PUT', '/v1/marketdata/events/tour/inventory', { key: p.keys.private, body: { capacity: 1 } })).body.errors[0]).toMatchObject({ code: 'missing_field', path: 'showId' });
    expect((await t.request('PUT', '/v1/marketdata/events/solo/inventory', { key: p.keys.private, body: { capacity: 1 } })).status).toBe(200);
    const bad = await t.request('PUT', '/v1/marketdata/events/solo/inventory', { key: p.keys.private, body: { soldPercentage: 101, releasedTickets: -1, reservedSpace: 1.5 } });
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['releasedTickets', 'reservedSpace', 'soldPercentage']);
    const badId = await t.request('PUT', '/v1/marketdata/events/solo/inventory/details', { key: p.keys.private, body: { items: [{ ticketOptionId: 'nope' }] } });
    expect(badId.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'items.0.ticketOptionId' });
    expect((await t.request('GET', '/v1/marketdata/events/tour/inventory?showId=show-2', { key: p.keys.private })).status).toBe(404);
    const other = await t.partner('Other');
    expect((await t.request('PUT', '/v1/marketdata/events/solo/inventory', { key: other.keys.private, body: { capacity: 1 } })).status).toBe(404);
    expect((await t.request('PUT', '/v1/marketdata/events/solo/inventory', { key: p.keys.public, body: { capacity: 1 } })).status).toBe(403);
  });
});
