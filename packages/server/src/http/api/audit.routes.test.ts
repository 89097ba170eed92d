import { describe, expect, it } from 'vitest';
import type { AuditContext } from '../../domain/audit/audit.service.js';
import { createTestApp, type TestApp } from '../../testing/harness.js';

const CONSOLE_USER = 'cu_01jd8x3k4f5g6h7j8k9m0n1p2q';
const asConsole: AuditContext = { actor: { kind: 'console', userId: CONSOLE_USER, email: 'ops@resale.example', role: 'partner_admin' }, clientAddress: '198.51.100.4', requestId: 'req_c1' };

const list = async (t: TestApp, query = '', opts: { operator?: boolean; headers?: Record<string, string> } = { operator: true }) => await t.request('GET', `/admin/v1/audit${query}`, opts);
const actions = (res: { body: { data: { items: { action: string }[] } } }) => res.body.data.items.map((e) => e.action);

/**
 * A log of five entries, one minute apart from 12:01 (the test clock starts at 12:00): two
 * operator changes of partner A through the API, one of partner B, then two console changes.
 */
async function setup() {
  const t = createTestApp();
  const a = await t.partner('A');
  const b = await t.partner('B');
  const step = () => t.clock.advance(60_000);
  step();
  expect((await t.request('PATCH', `/admin/v1/partners/${a.id}`, { operator: true, body: { name: 'A2' } })).status).toBe(200);
  step();
  expect((await t.request('POST', `/admin/v1/partners/${a.id}/keys/rotate`, { operator: true, body: { kind: 'public' } })).status).toBe(200);
  step();
  expect((await t.request('PATCH', `/admin/v1/partners/${b.id}`, { operator: true, body: { settings: { payoutDelayDays: 3 } } })).status).toBe(200);
  step();
  await t.db.transact(async (tx) => await t.deps.audit.record(tx, asConsole, { action: 'membership.invite', partnerId: a.id, target: 'cm_1', after: { email: 'dev@a.example', role: 'developer' } }));
  step();
  await t.db.transact(async (tx) => await t.deps.audit.record(tx, asConsole, { action: 'console.settings.update' }));
  return { t, a, b };
}

describe('GET /admin/v1/audit', () => {
  it('lists every entry newest first, with who, what, before → after, when, where from and which request', async () => {
    const { t, a } = await setup();
    const res = await list(t);
    expect(res.status).toBe(200);
    expect(actions(res)).toEqual(['console.settings.update', 'membership.invite', 'partner.update', 'partner.key.rotate', 'partner.update']);
    expect(res.body.data.nextCursor).toBeNull();
    const oldest = res.body.data.items[4];
    expect(oldest).toEqual({
      id: expect.stringMatching(/^aud_/),
      at: '2026-03-01T12:01:00.000Z',
      actor: { kind: 'operator_token', userId: null, email: null, role: null },
      partnerId: a.id,
      action: 'partner.update',
      target: a.id,
      before: { name: 'A' },
      after: { name: 'A2' },
      clientAddress: 'unknown',
      requestId: expect.stringMatching(/^req_/),
    });
    expect(res.body.data.items[1]).toMatchObject({
      actor: { kind: 'console', userId: CONSOLE_USER, email: 'ops@resale.example', role: 'partner_admin' },
      target: 'cm_1',
      before: null,
      after: { email: 'dev@a.example', role: 'developer' },
      clientAddress: '198.51.100.4',
      requestId: 'req_c1',
    });
    expect(res.body.data.items[0]).toMatchObject({ partnerId: null, target: null, before: null, after: null });
  });

  it('filters by partner, actor, action and period (from inclusive, to exclusive), together', async () => {
    const { t, a, b } = await setup();
    expect(actions(await list(t, `?partnerId=${a.id}`))).toEqual(['membership.invite', 'partner.key.rotate', 'partner.update']);
    expect(actions(await list(t, `?partnerId=${b.id}`))).toEqual(['partner.update']);
    expect(actions(await list(t, '?partnerId=ptr_nobody'))).toEqual([]);
    expect(actions(await list(t, '?actor=operator_token'))).toEqual(['partner.update', 'partner.key.rotate', 'partner.update']);
    expect(actions(await list(t, `?actor=${CONSOLE_USER}`))).toEqual(['console.settings.update', 'membership.invite']);
    expect(actions(await list(t, '?actor=cu_someone_else'))).toEqual([]);
    expect(actions(await list(t, '?action=partner.update'))).toEqual(['partner.update', 'partner.update']);
    expect(actions(await list(t, '?from=2026-03-01T12:02:00Z&to=2026-03-01T12:04:00Z'))).toEqual(['partner.update', 'partner.key.rotate']);
    expect(actions(await list(t, '?from=2026-03-01T13:02:00%2B01:00'))).toEqual(['console.settings.update', 'membership.invite', 'partner.update', 'partner.key.rotate']);
    expect(actions(await list(t, '?to=2026-03-01T12:02:00.000Z'))).toEqual(['partner.update']);
    expect(actions(await list(t, `?partnerId=${a.id}&actor=operator_token&action=partner.update&from=2026-03-01T12:00:00Z`))).toEqual(['partner.update']);
  });

  it('pages with a cursor, newest first, without repeating or skipping an entry', async () => {
    const { t } = await setup();
    const all = (await list(t)).body.data.items.map((e: { id: string }) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(t, `?limit=2${cursor ? `&startingAfter=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.items.map((e: { id: string }) => e.id));
      cursor = res.body.data.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all);
    // The cursor keeps the filters' order too; entries written meanwhile do not shift a page.
    const first = await list(t, '?actor=operator_token&limit=1');
    expect((await t.request('PATCH', `/admin/v1/partners/${first.body.data.items[0].partnerId}`, { operator: true, body: { name: 'C' } })).status).toBe(200);
    const next = await list(t, `?actor=operator_token&limit=5&startingAfter=${first.body.data.nextCursor}`);
    expect(actions(next)).toEqual(['partner.key.rotate', 'partner.update']);
  });

  it('refuses bad input with every error: unknown and repeated parameters, bad instants, from ≥ to, limit out of range, an unknown cursor', async () => {
    const { t } = await setup();
    const errors = async (query: string) => {
      const res = await list(t, query);
      expect(res.status, query).toBe(400);
      return res.body.errors.map((e: { code: string; path?: string; in?: string }) => [e.code, e.path, e.in]);
    };
    expect(await errors('?partner=ptr_1&actorId=x')).toEqual([
      ['unknown_field', 'partner', 'query'],
      ['unknown_field', 'actorId', 'query'],
    ]);
    expect(await errors('?from=yesterday&to=2026-03-01&limit=0')).toEqual([
      ['invalid_format', 'from', 'query'],
      ['invalid_format', 'to', 'query'],
      ['out_of_range', 'limit', 'query'],
    ]);
    expect(await errors('?from=2026-03-01T12:00:00Z&to=2026-03-01T12:00:00Z&limit=201')).toEqual([
      ['out_of_range', 'limit', 'query'],
      ['invalid_value', 'to', 'query'],
    ]);
    expect(await errors('?from=2026-03-01T13:00:00Z&to=2026-03-01T12:00:00Z')).toEqual([['invalid_value', 'to', 'query']]);
    expect(await errors('?limit=ten&action=')).toEqual([
      ['out_of_range', 'action', 'query'],
      ['invalid_type', 'limit', 'query'],
    ]);
    expect(await errors('?action=partner.update&action=partner.create&limit=2&limit=3')).toEqual([
      ['invalid_value', 'action', 'query'],
      ['invalid_value', 'limit', 'query'],
    ]);
    expect(await errors('?startingAfter=aud_01jd8x3k4f5g6h7j8k9m0n1p2q')).toEqual([['invalid_value', 'startingAfter', 'query']]);
    const from = await list(t, '?from=2026-03-01T12:00:00Z&to=2026-03-01T11:00:00Z');
    expect(from.body.errors[0].message).toBe('to must be after from');
  });

  it('answers 401 without the operator token, with another token or with a partner key', async () => {
    const { t, a } = await setup();
    expect((await list(t, '', {})).status).toBe(401);
    expect((await list(t, '', { headers: { authorization: 'Bearer not-the-operator-token' } })).status).toBe(401);
    expect((await t.request('GET', '/admin/v1/audit', { key: a.keys.private })).status).toBe(401);
    expect((await t.request('GET', '/admin/v1/audit', { key: `Bearer ${a.keys.private}` })).status).toBe(401);
    // Refused before its query is read: a bad query without the token is still 401.
    expect((await list(t, '?limit=0&nope=1', {})).status).toBe(401);
  });
});
