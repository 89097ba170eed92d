import { describe, expect, it } from 'vitest';
import { stepAt } from '@resale/shared/admission-code';
import { createDoor, revokeDoor, CONSOLE_DOOR_ACTIONS } from '../../flows/console-doors.js';
import type { AuditContext } from '../../domain/audit/audit.service.js';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { sqlRows } from '../../testing/sql.js';

/**
 * The door API (/v1/door…), what the venue's scanner page calls with a door's token: the door
 * and its show, the kit, verify and the sync of offline scans, each bound to the door's show;
 * and every token that opens no door (none, a partner's key, unknown, revoked, expired)
 * refused. The test clock starts at 2026-03-01T12:00:00Z; the shows start 2026-05-01T19:00Z.
 */

const ctx: AuditContext = { actor: { kind: 'console', userId: 'cu_1', email: 'lead@venue.example', role: 'partner_admin' } };
const iso = (ms: number) => new Date(ms).toISOString();

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  const body = [ticketBody('tk-1', { section: 'B', row: '4', seat: '11' }), ticketBody('tk-2'), ticketBody('tk-9', { showId: 'show-2' })];
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body })).status).toBe(200);
  const made = await createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', label: '  North   gate 3 ' });
  const token = made.link.split('#')[1]!;
  /** A phone certified for the ticket's holder; its code at a moment (now by default). */
  const phone = async (ticketId: string, partner = p) => {
    const { code } = await certifiedPhone(t, partner.id, ticketId);
    return async (at = t.clock.now()) => await code(stepAt(at, 15));
  };
  const door = (method: string, path: string, body?: unknown, key: string | null = `Bearer ${token}`) => t.request(method, path, { key, ...(body === undefined ? {} : { body }) });
  return { t, p, made, token, phone, door };
}

describe('the door API', () => {
  it('names the door, its show and whether the venue scans rotating codes; the link holds the token after #, kept only as its hash', async () => {
    const { t, made, token, door } = await setup();
    expect(made.link).toMatch(/^http:\/\/resale\.test\/door#door_[0-9A-Za-z]{43}$/);
    expect(made.label).toBe('North gate 3');
    const res = await door('GET', '/v1/door');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      doorId: made.doorId,
      label: 'North gate 3',
      expiresAt: '2026-05-02T07:00:00.000Z',
      show: { externalReferenceEventId: 'tour', showId: 'show-1', eventTitle: 'The Big Tour 2026', title: 'Night show-1', startsAt: '2026-05-01T19:00:00.000Z', timeZone: 'Europe/Madrid', status: expect.any(String) },
      codes: { rotating: true, rotationSeconds: 15 },
      serverTime: '2026-03-01T12:00:00.000Z',
    });
    const rows = await sqlRows<{ token_hash: string; last_seen_at: number; created_by: string }>(t.db, 'select token_hash, last_seen_at, created_by from admission_doors');
    expect(rows).toEqual([{ token_hash: expect.stringMatching(/^[0-9a-f]{64}$/), last_seen_at: t.clock.now(), created_by: 'lead@venue.example' }]);
    expect(JSON.stringify(rows)).not.toContain(token);
    const audit = await sqlRows<{ action: string; target: string; after: unknown }>(t.db, `select action, target, after from audit_log where action like 'door.%'`);
    // jsonb on PostgreSQL, JSON text on SQLite.
    expect(audit.map((a) => ({ ...a, after: typeof a.after === 'string' ? JSON.parse(a.after) : a.after }))).toEqual([{ action: CONSOLE_DOOR_ACTIONS.create, target: `tour/show-1/${made.doorId}`, after: { label: 'North gate 3' } }]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('verifies and admits codes of its show only: once, the same scan a repeat, another show’s ticket other_show, with the webhook', async () => {
    const { t, p, made, phone, door } = await setup();
    const one = await phone('tk-1');
    const code = await one();
    const first = await door('POST', '/v1/door/verify', { text: code });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'tk-1', externalReferenceEventId: 'tour', showId: 'show-1', seat: { section: 'B', row: '4', seat: '11' } }, admittedAt: iso(t.clock.now()) });
    expect((await door('POST', '/v1/door/verify', { text: code })).body.data).toMatchObject({ valid: true, repeat: true });
    expect((await door('POST', '/v1/door/verify', { text: await one(t.clock.now() + 15_000) })).body.data).toMatchObject({ valid: false, reason: 'already_admitted' });
    const other = await phone('tk-9');
    expect((await door('POST', '/v1/door/verify', { text: await other() })).body.data).toMatchObject({ valid: false, reason: 'other_show', ticket: { ticketId: 'tk-9' } });
    expect((await t.request('GET', '/v1/tickets/tk-9', { key: p.keys.private })).body.data.state).toBe('VALID');
    const hooks = await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    // The partner learns which door let the ticket in, by the name staff gave it.
    expect(hooks.map((h) => JSON.parse(h.payload).data)).toEqual([expect.objectContaining({ ticketId: 'tk-1', source: 'code', door: { doorId: made.doorId, name: 'North gate 3' } })]);
    // Another partner's code names none of this partner's tickets.
    const q = await t.partner('Other');
    await withEvent(t, q, eventBody('tour', { shows: [showBody('show-1')] }));
    await withRotatingCodes(t, q);
    expect((await t.request('POST', '/v1/sync/tickets', { key: q.keys.private, body: [ticketBody('tk-1')] })).status).toBe(200);
    const theirs = await phone('tk-1', q);
    expect((await door('POST', '/v1/door/verify', { text: await theirs() })).body.data).toMatchObject({ valid: false, ticket: null });
  });

  it('serves its show’s kit, whole and as a delta, and syncs offline scans dated when scanned', async () => {
    const { t, made, phone, door } = await setup();
    const one = await phone('tk-1');
    await phone('tk-9');
    t.clock.advance(5 * 60_000);
    const kit = await door('GET', '/v1/door/scanner-kit');
    expect(kit.status).toBe(200);
    expect(kit.headers.get('cache-control')).toBe('no-store');
    expect(kit.body.data).toMatchObject({ showId: 'show-1', tickets: { ticketId: ['tk-1'] } });
    expect(kit.body.data.keys).toHaveLength(1);
    t.clock.advance(5 * 60_000);
    expect((await door('GET', `/v1/door/scanner-kit?since=${kit.body.data.serverTime}`)).body.data).toMatchObject({ since: kit.body.data.serverTime, tickets: { ticketId: [] } });
    expect((await door('GET', '/v1/door/scanner-kit?since=yesterday')).status).toBe(400);

    const scannedAt = t.clock.now();
    const text = await one(scannedAt);
    t.clock.advance(10 * 60_000);
    const synced = await door('POST', '/v1/door/sync', { scans: [{ text, scannedAt: iso(scannedAt) }] });
    expect(synced.status).toBe(200);
    expect(synced.body.data.results).toEqual([expect.objectContaining({ valid: true, reason: 'admitted', admittedAt: iso(scannedAt) })]);
    expect((await door('POST', '/v1/door/sync', { scans: [{ text, scannedAt: iso(scannedAt) }] })).body.data.results[0]).toMatchObject({ valid: true, repeat: true });
    const hooks = await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    expect(hooks.map((h) => JSON.parse(h.payload).data)).toEqual([expect.objectContaining({ ticketId: 'tk-1', source: 'sync', admittedAt: iso(scannedAt), door: { doorId: made.doorId, name: 'North gate 3' } })]);
  });

  it('refuses bad bodies with every error named, and records nothing', async () => {
    const { t, phone, door } = await setup();
    const one = await phone('tk-1');
    const text = await one();
    const cases: [string, unknown][] = [
      ['/v1/door/verify', {}],
      ['/v1/door/verify', { text: '' }],
      ['/v1/door/verify', { text: 'x'.repeat(2_001) }],
      ['/v1/door/verify', { text, showId: 'show-2' }],
      ['/v1/door/sync', { scans: [] }],
      ['/v1/door/sync', { scans: [{ text }] }],
      ['/v1/door/sync', { scans: Array.from({ length: 501 }, () => ({ text, scannedAt: iso(t.clock.now()) })) }],
      ['/v1/door/sync', { scans: 'all of them' }],
    ];
    for (const [path, body] of cases) expect((await door('POST', path, body)).status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
    const range = await door('POST', '/v1/door/sync', { scans: [{ text, scannedAt: iso(t.clock.now() + 10 * 60_000) }, { text, scannedAt: iso(t.clock.now() - 25 * 3_600_000) }] });
    expect(range.status).toBe(400);
    expect(range.body.errors.map((e: { path: string }) => e.path)).toEqual(['scans.0.scannedAt', 'scans.1.scannedAt']);
    const plain = await t.request('POST', '/v1/door/verify', { raw: `text=${text}`, key: (await setup()).token, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(plain.status).toBe(415);
    expect(await sqlRows(t.db, `select 1 from webhook_messages where action = 'ticket.admitted'`)).toEqual([]);
    expect((await door('POST', '/v1/door/verify', { text })).body.data).toMatchObject({ valid: true, repeat: false });
  });

  it('opens nothing without a door’s token: none, a partner’s key, an unknown one, a revoked door, an expired one', async () => {
    const { t, p, made, door } = await setup();
    for (const key of [null, p.keys.private, p.keys.public, 'Bearer door_unknown', 'Bearer ' + 'door_'.padEnd(48, 'A')]) {
      for (const [method, path] of [['GET', '/v1/door'], ['GET', '/v1/door/scanner-kit'], ['POST', '/v1/door/verify']] as const) {
        const res = await door(method, path, method === 'POST' ? { text: 'x' } : undefined, key);
        expect(res.status, `${key} ${path}`).toBe(401);
        expect(res.body.errors[0].code).toBe('unauthorized');
      }
    }
    // A door's token opens nothing of the partner's API.
    expect((await door('GET', '/v1/tickets/tk-1')).status).toBe(401);
    expect((await door('POST', '/v1/tickets/admission/verify', { text: 'x' })).status).toBe(401);

    expect(await revokeDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', doorId: made.doorId })).toEqual({ changed: true });
    expect(await revokeDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', doorId: made.doorId })).toEqual({ changed: false });
    const revoked = await door('GET', '/v1/door');
    expect(revoked.status).toBe(401);
    expect(revoked.body.errors[0].message).toMatch(/revoked/);
    expect((await sqlRows<{ action: string }>(t.db, `select action from audit_log where action like 'door.%' order by at`)).map((r) => r.action)).toEqual(['door.create', 'door.revoke']);

    const late = await createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', label: 'Late gate' });
    const lateToken = `Bearer ${late.link.split('#')[1]}`;
    expect((await door('GET', '/v1/door', undefined, lateToken)).status).toBe(200);
    t.clock.set(Date.parse('2026-05-02T07:00:00Z'));
    const expired = await door('GET', '/v1/door', undefined, lateToken);
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].message).toMatch(/expired/);
  });

  it('refuses a door of another partner’s show, an unknown show or door, a bad name, and revoking another show’s door', async () => {
    const { t, p, made } = await setup();
    const q = await t.partner('Other');
    await expect(createDoor(t.deps, ctx, q.id, { eventId: 'tour', showId: 'show-1', label: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-7', label: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', label: '   ' })).rejects.toMatchObject({ status: 400 });
    await expect(createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', label: 'x'.repeat(61) })).rejects.toMatchObject({ status: 400 });
    await expect(revokeDoor(t.deps, ctx, q.id, { eventId: 'tour', showId: 'show-1', doorId: made.doorId })).rejects.toMatchObject({ status: 404 });
    await expect(revokeDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-2', doorId: made.doorId })).rejects.toMatchObject({ status: 404 });
    await expect(revokeDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', doorId: 'dor_nope' })).rejects.toMatchObject({ status: 404 });
    expect(await sqlRows(t.db, `select 1 from audit_log where action like 'door.%'`)).toHaveLength(1);
    expect(await sqlRows(t.db, `select 1 from admission_doors`)).toHaveLength(1);
  });

  it('is in the OpenAPI document with the door’s own security scheme', async () => {
    const { t } = await setup();
    const doc: any = (await t.request('GET', '/v1/openapi.json')).body;
    expect(doc.components.securitySchemes.doorToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, method] of [['/v1/door', 'get'], ['/v1/door/scanner-kit', 'get'], ['/v1/door/verify', 'post'], ['/v1/door/sync', 'post']] as const) {
      expect(doc.paths[path][method].security).toEqual([{ doorToken: [] }]);
    }
  });
});
