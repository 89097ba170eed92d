import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditContext } from '../domain/audit/audit.service.js';
import { auditLog, type AuditRow } from '../domain/audit/audit.table.js';
import { eventBody, showBody } from '../testing/factories.js';
import { createTestApp, listen, OPERATOR_TOKEN, type TestApp } from '../testing/harness.js';
import { sqlRows } from '../testing/sql.js';
import { createPartner, OPERATOR_ACTIONS, rotatePartnerKey, setTicketShield, updatePartner } from './operator-changes.js';

/**
 * Every change made through the operator API (`/admin/v1`) leaves exactly one audit entry,
 * written in the change's transaction: who (the operator token), partner, action, target, the
 * fields that changed, when, client address and request id. A refused change leaves none, and
 * no secret (keys, webhook secrets, the platform secret) ever reaches the log.
 */

const PLATFORM_SECRET = 'platform-secret-of-acme-0123456789';
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A feed server on 127.0.0.1 answering `[]` to every path. */
async function emptyFeeds(): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[]'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The log, oldest first, as the service reads it. */
async function entries(t: TestApp): Promise<AuditRow[]> {
  return (await t.db.read(async (tx) => await t.deps.audit.list(tx, { limit: 200 }))).items.reverse();
}

/** Every row of the log as the database holds it, as one text (what no secret may be in). */
async function rawLog(t: TestApp): Promise<string> {
  return JSON.stringify(await sqlRows(t.db, 'select * from audit_log'));
}

/** The one entry the request left, checked for what every operator entry holds. */
async function onlyNewEntry(t: TestApp, before: number, res: { headers: Headers }): Promise<AuditRow> {
  const all = await entries(t);
  expect(all).toHaveLength(before + 1);
  const entry = all[all.length - 1]!;
  expect(entry).toMatchObject({ actorKind: 'operator_token', actorId: null, actorEmail: null, role: null, at: t.clock.now(), clientAddress: 'unknown' });
  expect(entry.requestId).toBe(res.headers.get('request-id'));
  expect(entry.id).toMatch(/^aud_/);
  return entry;
}

async function withShows(t: TestApp, key: string) {
  const res = await t.request('POST', '/v1/events', { key, body: eventBody('tour', { configuration: {}, shows: [showBody('show-1'), showBody('show-2')] }) });
  expect(res.status).toBe(200);
}

describe('operator changes: one audit entry each, in the change’s transaction', () => {
  it('POST /admin/v1/partners: partner.create with the name and the settings given, never a secret', async () => {
    const t = createTestApp();
    const res = await t.request('POST', '/admin/v1/partners', {
      operator: true,
      body: { name: 'Acme Tickets', settings: { webhookUrl: 'https://acme.example/hooks', oneTimeTokenTtlSeconds: 600, platformSecret: PLATFORM_SECRET } },
    });
    expect(res.status).toBe(201);
    const id: string = res.body.data.partner.id;
    const entry = await onlyNewEntry(t, 0, res);
    expect(entry).toMatchObject({ action: 'partner.create', partnerId: id, target: id, before: null });
    expect(entry.after).toEqual({
      name: 'Acme Tickets',
      'settings.webhookUrl': 'https://acme.example/hooks',
      'settings.oneTimeTokenTtlSeconds': 600,
      'settings.platformSecret': '[redacted]',
    });
    const log = await rawLog(t);
    for (const secret of [PLATFORM_SECRET, res.body.data.webhookSecret, ...Object.values<string>(res.body.data.keys)]) expect(log).not.toContain(secret);
  });

  it('PATCH /admin/v1/partners/{id}: partner.update with only the fields that changed; the platform secret as [redacted] or null', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme Tickets', { feedPollSeconds: 60 });
    const patch = (body: unknown) => t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body });

    const renamed = await patch({ name: 'Acme', settings: { feedPollSeconds: 60, qrLockHoursBeforeShow: 24, fees: { buyerPercent: 12 }, platformSecret: PLATFORM_SECRET } });
    expect(renamed.status).toBe(200);
    const first = await onlyNewEntry(t, 0, renamed);
    expect(first).toMatchObject({ action: 'partner.update', partnerId: p.id, target: p.id });
    expect(first.before).toEqual({ name: 'Acme Tickets', 'settings.qrLockHoursBeforeShow': 3, 'settings.fees.buyerPercent': 10, 'settings.platformSecret': null });
    expect(first.after).toEqual({ name: 'Acme', 'settings.qrLockHoursBeforeShow': 24, 'settings.fees.buyerPercent': 12, 'settings.platformSecret': '[redacted]' });

    // Set again: it reads the same, yet it was replaced. Cleared: null.
    const again = await patch({ settings: { platformSecret: `${PLATFORM_SECRET}-2` } });
    expect((await onlyNewEntry(t, 1, again)).after).toEqual({ 'settings.platformSecret': '[redacted]' });
    const cleared = await patch({ settings: { platformSecret: null } });
    const last = await onlyNewEntry(t, 2, cleared);
    expect([last.before, last.after]).toEqual([{ 'settings.platformSecret': '[redacted]' }, { 'settings.platformSecret': null }]);

    // A PATCH that changes nothing is still the operator's act: recorded, with nothing changed.
    const nothing = await patch({ settings: { feedPollSeconds: 60 } });
    expect(await onlyNewEntry(t, 3, nothing)).toMatchObject({ before: {}, after: {} });
    expect(await rawLog(t)).not.toContain(PLATFORM_SECRET);
  });

  it('records the client’s address as the service resolved it, over a real socket', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const http = await listen(t.app);
    try {
      const res = await fetch(`${http.base}/admin/v1/partners/${p.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json', 'request-id': 'ops-change-42' },
        body: JSON.stringify({ name: 'Acme 2' }),
      });
      expect(res.status).toBe(200);
    } finally {
      await http.close();
    }
    expect(await entries(t)).toEqual([expect.objectContaining({ action: 'partner.update', clientAddress: '127.0.0.1', requestId: 'ops-change-42' })]);
  });

  it('POST …/keys/rotate and …/webhookSecret/rotate: the kind and grace, never the secret', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const rotate = (body: unknown) => t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body });

    const key = await rotate({ kind: 'private', graceSeconds: 3600 });
    expect(key.status).toBe(200);
    expect(await onlyNewEntry(t, 0, key)).toMatchObject({ action: 'partner.key.rotate', partnerId: p.id, target: p.id, before: null, after: { kind: 'private', graceSeconds: 3600 } });

    // The webhook secret through the keys endpoint is recorded as what it is.
    const viaKeys = await rotate({ kind: 'webhookSecret' });
    expect(await onlyNewEntry(t, 1, viaKeys)).toMatchObject({ action: 'partner.webhook_secret.rotate', after: { webhookSecret: '[redacted]', graceSeconds: 0 } });

    const bare = await t.request('POST', `/admin/v1/partners/${p.id}/webhookSecret/rotate`, { operator: true });
    expect(bare.status).toBe(200);
    expect(await onlyNewEntry(t, 2, bare)).toMatchObject({ action: 'partner.webhook_secret.rotate', partnerId: p.id, before: null, after: { webhookSecret: '[redacted]', graceSeconds: 86_400 } });

    const log = await rawLog(t);
    for (const secret of [key.body.data.secret, viaKeys.body.data.secret, bare.body.data.webhookSecret, p.webhookSecret, p.keys.private]) expect(log).not.toContain(secret);
  });

  it('PUT …/ticketShield and POST …/webhooks/{id}/replay: each show switched, the message’s state before → after', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { webhookUrl: 'http://127.0.0.1:9/hooks' });
    await withShows(t, p.keys.private);

    const one = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', showId: 'show-1', status: true } });
    expect(one.status).toBe(200);
    expect(await onlyNewEntry(t, 0, one)).toMatchObject({ action: 'partner.ticket_shield.set', partnerId: p.id, target: 'tour/show-1', before: { 'shows.show-1': false }, after: { 'shows.show-1': true } });
    // Only the shows whose flag changed.
    const all = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: true } });
    expect(await onlyNewEntry(t, 1, all)).toMatchObject({ target: 'tour', before: { 'shows.show-2': false }, after: { 'shows.show-2': true } });

    const [message] = await t.deps.webhooks.list(p.id, { action: 'ticketShield.updated' });
    t.clock.advance(60_000);
    const replayed = await t.request('POST', `/admin/v1/partners/${p.id}/webhooks/${message!.message.id}/replay`, { operator: true });
    expect(replayed.status).toBe(200);
    const entry = await onlyNewEntry(t, 2, replayed);
    expect(entry).toMatchObject({ action: 'webhook.replay', partnerId: p.id, target: message!.message.id });
    expect(entry.before).toEqual({ nextAttemptAt: new Date(t.clock.now() - 60_000).toISOString() });
    expect(entry.after).toEqual({ nextAttemptAt: new Date(t.clock.now()).toISOString() });
  });

  it('POST …/feeds/poll: feeds.poll naming the runs it started', async () => {
    const t = createTestApp();
    const base = await emptyFeeds();
    const p = await t.partner('Acme', { eventsFeedUrl: `${base}/events`, cancelledFeedUrl: `${base}/cancelled` });
    const res = await t.request('POST', `/admin/v1/partners/${p.id}/feeds/poll`, { operator: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject([{ feed: 'events', ok: true }, { feed: 'cancelled', ok: true }]);
    const entry = await onlyNewEntry(t, 0, res);
    expect(entry).toMatchObject({ action: 'feeds.poll', partnerId: p.id, target: p.id, before: null });
    expect(entry.after).toEqual({ runs: res.body.data.map((r: { feed: string; id: string }) => ({ feed: r.feed, id: r.id })) });

    // A partner without feeds: the poll was asked for, nothing ran.
    const other = await t.partner('Without feeds');
    const none = await t.request('POST', `/admin/v1/partners/${other.id}/feeds/poll`, { operator: true });
    expect((await onlyNewEntry(t, 1, none)).after).toEqual({ runs: [] });
  });

  it('leaves no entry for a change refused (400, 401, 404)', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { webhookUrl: 'http://127.0.0.1:9/hooks' });
    await withShows(t, p.keys.private);
    const refused: [string, string, unknown, number][] = [
      ['POST', '/admin/v1/partners', { name: '' }, 400],
      ['POST', '/admin/v1/partners', { name: 'X', settings: { nope: 1 } }, 400],
      ['PATCH', '/admin/v1/partners/ptr_unknown', { name: 'X' }, 404],
      ['PATCH', `/admin/v1/partners/${p.id}`, { settings: { platformSecret: 'short' } }, 400],
      ['POST', '/admin/v1/partners/ptr_unknown/keys/rotate', { kind: 'private' }, 404],
      ['POST', `/admin/v1/partners/${p.id}/keys/rotate`, { kind: 'root' }, 400],
      ['POST', '/admin/v1/partners/ptr_unknown/webhookSecret/rotate', undefined, 404],
      ['POST', `/admin/v1/partners/${p.id}/webhookSecret/rotate`, { graceSeconds: -1 }, 400],
      ['POST', `/admin/v1/partners/${p.id}/webhooks/msg_unknown/replay`, undefined, 404],
      ['POST', '/admin/v1/partners/ptr_unknown/feeds/poll', undefined, 404],
      ['PUT', `/admin/v1/partners/${p.id}/ticketShield`, { eventId: 'nope', status: true }, 404],
      ['PUT', `/admin/v1/partners/${p.id}/ticketShield`, { eventId: 'tour', showId: 'show-9', status: true }, 404],
      ['PUT', `/admin/v1/partners/${p.id}/ticketShield`, { eventId: 'tour', status: 'on' }, 400],
    ];
    for (const [method, path, body, status] of refused) {
      expect((await t.request(method, path, { operator: true, body })).status, `${method} ${path}`).toBe(status);
      expect((await t.request(method, path, { body })).status, `${method} ${path} without the token`).toBe(401);
      expect((await t.request(method, path, { key: p.keys.private, body })).status, `${method} ${path} with a partner key`).toBe(401);
    }
    expect(await entries(t)).toEqual([]);
  });
});

describe('operator changes called by the console', () => {
  const console_: AuditContext = { actor: { kind: 'console', userId: 'cu_01jd8x3k4f5g6h7j8k9m0n1p2q', email: 'ops@resale.example', role: 'operator' }, clientAddress: '198.51.100.4', requestId: 'req_console_1' };

  it('records the console user as the actor', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const { secret } = await rotatePartnerKey(t.deps, console_, p.id, { kind: 'public' });
    expect(await entries(t)).toEqual([
      expect.objectContaining({
        actorKind: 'console',
        actorId: 'cu_01jd8x3k4f5g6h7j8k9m0n1p2q',
        actorEmail: 'ops@resale.example',
        role: 'operator',
        action: OPERATOR_ACTIONS.rotatePartnerKey,
        clientAddress: '198.51.100.4',
        requestId: 'req_console_1',
      }),
    ]);
    expect(await rawLog(t)).not.toContain(secret);
  });

  it('creates a partner of a free name once when asked to: two at once (a double click) make one, and a taken name none', async () => {
    const t = createTestApp();
    await t.partner('Gala Tickets');
    const both = await Promise.allSettled([0, 1].map(async () => await createPartner(t.deps, console_, { name: 'North Stage', nameFree: true })));
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(both.find((r) => r.status === 'rejected')!.reason).toMatchObject({ status: 409, reason: 'partner_name_taken', entries: [{ path: 'name' }] });
    await expect(createPartner(t.deps, console_, { name: ' gala   TICKETS', nameFree: true })).rejects.toMatchObject({ reason: 'partner_name_taken' });
    expect((await t.deps.partners.list()).map((p) => p.name).sort()).toEqual(['Gala Tickets', 'North Stage']);
    expect((await entries(t)).map((e) => e.action)).toEqual([OPERATOR_ACTIONS.createPartner]);
    // Without `nameFree` (the API, or the console's "create another"), a name may repeat.
    await createPartner(t.deps, console_, { name: 'North Stage' });
    expect(await t.deps.partners.namedAs('north stage')).toHaveLength(2);
  });

  it('rotates a kind given the version its form read only once: a form sent again, or by two people at once, replaces one key', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const read = async () => await t.db.read(async (tx) => await t.deps.partners.keyVersionsIn(tx, p.id));
    const before = await read();
    // Nothing of a 256-bit secret in its version.
    expect(before.webhookSecret).toMatch(/^[0-9a-f]{16}$/);
    expect(p.webhookSecret).not.toContain(before.webhookSecret);

    for (const kind of ['private', 'webhookSecret'] as const) {
      // Two at once with what one page showed: one replaces the key, the other is told it changed.
      const both = await Promise.allSettled([0, 1].map(async () => await rotatePartnerKey(t.deps, console_, p.id, { kind, graceSeconds: 60, ifVersion: before[kind] })));
      expect(both.map((r) => r.status).sort(), kind).toEqual(['fulfilled', 'rejected']);
      const refused = both.find((r) => r.status === 'rejected')!.reason;
      expect(refused).toMatchObject({ status: 409, reason: 'key_changed', entries: [{ path: 'kind' }] });
      const after = await read();
      expect(after[kind], kind).not.toBe(before[kind]);
      // The others did not move; a version of another kind is no version of this one.
      for (const other of ['public', 'channels'] as const) expect(after[other]).toBe(before[other]);
      await expect(rotatePartnerKey(t.deps, console_, p.id, { kind, ifVersion: before.public })).rejects.toMatchObject({ reason: 'key_changed' });
    }
    // The key the winner answered is the one in force (with the first through its grace).
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(404);
    t.clock.advance(61_000);
    expect((await t.request('GET', '/v1/events/none', { key: p.keys.private })).status).toBe(401);
    expect((await entries(t)).map((e) => e.action)).toEqual([OPERATOR_ACTIONS.rotatePartnerKey, OPERATOR_ACTIONS.rotatePartnerWebhookSecret]);
  });

  it('makes the change and its entry together: an entry that cannot be written takes the change back with it', async () => {
    const t = createTestApp();
    const p = await t.partner('Acme', { webhookUrl: 'http://127.0.0.1:9/hooks' });
    await withShows(t, p.keys.private);
    const failing = { ...t.deps, audit: { record: () => Promise.reject(new Error('the audit log is unavailable')) } as unknown as typeof t.deps.audit };
    await expect(updatePartner(failing, console_, p.id, { name: 'Renamed' })).rejects.toThrow(/audit log is unavailable/);
    expect((await t.deps.partners.get(p.id)).name).toBe('Acme');
    await expect(setTicketShield(failing, console_, p.id, { eventId: 'tour', status: true })).rejects.toThrow(/audit log is unavailable/);
    expect(await t.deps.webhooks.list(p.id, { action: 'ticketShield.updated' })).toEqual([]);
    expect(await t.db.select().from(auditLog)).toEqual([]);
  });
});
