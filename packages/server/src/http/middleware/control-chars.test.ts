import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, ticketBody, withEvent } from '../../testing/factories.js';
import { tickets } from '../../domain/tickets/tickets.table.js';

describe('control characters', () => {
  it('are refused in a JSON string, naming the field, and nothing is written', async () => {
    const t = createTestApp();
    const p = await t.partner();
    for (const bad of ['Gala\u0000', 'Gala\u0007', '\u001bGala', 'Gala\u007f', 'Gala\u0085', 'Gala\u009f', 'Gala\b', 'Gala\f']) {
      const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { title: bad }) });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errors).toEqual([{ code: 'invalid_value', path: 'title', in: 'body', message: 'title must not contain control characters or unpaired surrogates' }]);
    }
    expect((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).status).toBe(404);
  });

  it('are found in nested arrays and keys, and in a bulk of tickets', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    const nested = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a1'), ticketBody('a2', { buyer: { id: 'user\u0000' } })] });
    expect(nested.body.errors[0]).toMatchObject({ code: 'invalid_value', path: '1.buyer.id' });
    const key = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a1', { props: { 'x\u0001': 1 } })] });
    expect(key.body.errors[0]).toMatchObject({ path: '0.props.x\u0001' });
    const queued = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [ticketBody('a1', { section: 'A\u0000' })] });
    expect(queued.status).toBe(400);
    expect(await t.db.select().from(tickets)).toEqual([]);
  });

  it('refuse an unpaired surrogate escape in a key or a value (not text: PostgreSQL refuses to store it), and let a pair through', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p);
    // JSON.stringify writes a lone surrogate as its escape, as a client would send it.
    const inKey = await t.request('POST', '/v1/tickets', { key: p.keys.private, body: [{ ...ticketBody('a1'), 'externalReferenceEventId\udfff': 'tour' }] });
    expect(inKey.status).toBe(400);
    expect(inKey.body.errors[0]).toMatchObject({ code: 'invalid_value', path: '0.externalReferenceEventId\udfff' });
    for (const bad of ['Gala\ud800', '\udc00Gala', 'Gala\udfff\ud83d']) {
      const res = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a2', { section: bad })] });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'invalid_value', path: '0.section' });
    }
    expect(await t.db.select().from(tickets)).toEqual([]);
    const paired = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('a3', { section: 'Gala \ud83c\udfab' })] });
    expect(paired.status).toBe(200);
  });

  it('leaves tab, line feed and carriage return, and escaped backslashes, alone', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const text = 'Line one\nLine two\r\n\tindented, and a literal \\u0000 and \\b';
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { description: text }) });
    expect(res.status).toBe(200);
    expect((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data.description).toBe(text);
  });

  it('are refused in the URL, query or path', async () => {
    const t = createTestApp();
    const p = await t.partner();
    for (const url of ['/v1/auth/oneTimeToken?user=ana%00', '/v1/auth/oneTimeToken?user=ana%0a', '/v1/events/tour%1F', '/v1/events/tour%7f', '/v1/events/tour%C2%85']) {
      const res = await t.request('GET', url, { key: p.keys.private });
      expect(res.status, url).toBe(400);
      expect(res.body.errors).toEqual([{ code: 'invalid_value', message: 'The URL must not contain control characters' }]);
    }
    // An encoded percent sign followed by digits is not a control, nor is a letter beyond ASCII.
    expect((await t.request('GET', '/v1/events/tour%2500', { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', '/v1/events/gal%C3%A1', { key: p.keys.private })).status).toBe(404);
  });

  it('leave malformed JSON to the JSON error', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await t.request('POST', '/v1/events', { key: p.keys.private, raw: '{"title": "a\\u0000' });
    expect(res.body.errors[0].code).toBe('invalid_json');
  });
});
