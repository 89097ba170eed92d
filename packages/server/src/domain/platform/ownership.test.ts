import { closeServers } from '../../testing/servers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createTestApp } from '../../testing/harness.js';
import { eventBody } from '../../testing/factories.js';
import { checkOwnership, syncUnknownTickets, type OwnedTicket } from './ownership.js';

const SECRET = 'a-very-secret-header-value';

/** A real HTTP server on 127.0.0.1 playing the partner's ownership endpoint; closed after each test. */
const servers: Server[] = [];
async function platform(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: (path = '/owned') => `http://127.0.0.1:${port}${path}`, port, seen };
}

afterEach(() => closeServers(servers));

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const RECORD = {
  eventId: 'tour-2026',
  ticketId: 'tkt-1',
  showId: 'show-1',
  ticketOptionId: 'opt-field',
  ticketTypeId: 'pt-early',
  paidPrice: 39.5,
  seating: { row: '12', seat: '7', section: 'A' },
  properties: { orderId: 'order-55', channel: 'web' },
  tags: ['vip:true'],
};

async function setup(ownershipUrl: string | null, logs: unknown[] = []) {
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const t = createTestApp({}, { logger });
  const p = await t.partner('Acme', { ownershipUrl, platformSecret: SECRET });
  return { t, p, partner: await t.deps.partners.get(p.id), logs };
}

describe('checkOwnership', () => {
  it('GETs ?user= with the secret header and maps the platform records', async () => {
    const srv = await platform((_req, res) => json(res, 200, [RECORD, { eventId: 'tour-2026', ticketId: 77, showId: 'show-1', ticketOptionId: 'opt-vip' }]));
    const { t, partner } = await setup(srv.url('/owned?src=resale'));
    const res = await checkOwnership(t.deps, partner, 'ana@example.com');
    expect(res).toEqual({
      kind: 'owned',
      tickets: [
        {
          ticketId: 'tkt-1',
          externalReferenceEventId: 'tour-2026',
          showId: 'show-1',
          ticketOptionId: 'opt-field',
          priceTypeId: 'pt-early',
          paidPrice: 39.5,
          seating: { row: '12', seat: '7', section: 'A' },
          orderId: 'order-55',
          tags: ['vip:true'],
          ticketAccess: null,
        },
        {
          ticketId: '77',
          externalReferenceEventId: 'tour-2026',
          showId: 'show-1',
          ticketOptionId: 'opt-vip',
          priceTypeId: null,
          paidPrice: null,
          seating: null,
          orderId: null,
          tags: [],
          ticketAccess: null,
        },
      ],
    });
    const req = srv.seen[0]!;
    expect(req.url).toBe('/owned?src=resale&user=ana%40example.com');
    expect(req.headers['x-resale-secret']).toBe(SECRET);
    expect(req.headers.accept).toBe('application/json');
  });

  it('reads the service’s names too, and leaves out records without their ids (logged, never owned)', async () => {
    const srv = await platform((_req, res) =>
      json(res, 200, [
        { externalReferenceEventId: 'tour-2026', ticketId: 't-2', ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: '45.50', orderId: 'o-2', seating: 'row 1' },
        { eventId: 'tour-2026', ticketOptionId: 'opt-field' },
        { ticketId: 't-4', ticketOptionId: 'opt-field' },
        'garbage',
      ]),
    );
    const { t, partner, logs } = await setup(srv.url());
    const res = await checkOwnership(t.deps, partner, 'user-881');
    expect(res.kind).toBe('owned');
    if (res.kind !== 'owned') return;
    expect(res.tickets).toEqual([expect.objectContaining({ ticketId: 't-2', externalReferenceEventId: 'tour-2026', priceTypeId: 'pt-standard', paidPrice: 45.5, orderId: 'o-2', seating: null, showId: null })]);
    expect(logs).toEqual([expect.objectContaining({ partnerId: partner.id, dropped: 3, kept: 1 })]);
    expect(JSON.stringify(logs)).not.toContain('user-881');
  });

  it('answers no tickets for 204, an empty body and []', async () => {
    for (const answer of [
      (res: ServerResponse) => res.writeHead(204).end(),
      (res: ServerResponse) => res.writeHead(200).end(),
      (res: ServerResponse) => json(res, 200, []),
    ]) {
      const srv = await platform((_req, res) => answer(res));
      const { t, partner } = await setup(srv.url());
      expect(await checkOwnership(t.deps, partner, 'ana@example.com')).toEqual({ kind: 'owned', tickets: [] });
    }
  });

  it('answers no_account for 404', async () => {
    const srv = await platform((_req, res) => json(res, 404, { error: 'no such user' }));
    const { t, partner, logs } = await setup(srv.url());
    expect(await checkOwnership(t.deps, partner, 'ana@example.com')).toEqual({ kind: 'no_account' });
    expect(logs).toHaveLength(0);
  });

  it('is unavailable, never owned, for 5xx, other statuses, garbage, a non-array, a timeout, a dead host or no URL', async () => {
    const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, object][] = [
      ['500', (_q, res) => json(res, 500, [RECORD]), { reason: 'http', status: 500 }],
      ['503', (_q, res) => json(res, 503, {}), { reason: 'http', status: 503 }],
      ['401', (_q, res) => json(res, 401, [RECORD]), { reason: 'http', status: 401 }],
      ['not JSON', (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[{"ticketId": '), { reason: 'invalid_json', status: 200 }],
      ['an object', (_q, res) => json(res, 200, { tickets: [RECORD] }), { reason: 'invalid_body', status: 200 }],
      ['a string', (_q, res) => json(res, 200, 'yes'), { reason: 'invalid_body', status: 200 }],
    ];
    for (const [name, handler, expected] of cases) {
      const srv = await platform(handler);
      const { t, partner } = await setup(srv.url());
      expect(await checkOwnership(t.deps, partner, 'ana@example.com'), name).toEqual({ kind: 'unavailable', ...expected });
    }

    const silent = await platform(() => undefined); // never answers
    const slow = await setup(silent.url());
    expect(await checkOwnership(slow.t.deps, slow.partner, 'ana@example.com', { timeoutMs: 100 })).toEqual({ kind: 'unavailable', reason: 'timeout' });

    const gone = await platform(() => undefined);
    const closedUrl = gone.url();
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const dead = await setup(closedUrl);
    expect(await checkOwnership(dead.t.deps, dead.partner, 'ana@example.com')).toEqual({ kind: 'unavailable', reason: 'network' });

    const none = await setup(null);
    expect(await checkOwnership(none.t.deps, none.partner, 'ana@example.com')).toEqual({ kind: 'unavailable', reason: 'not_configured' });
  });

  it('asks the platform every time (never cached)', async () => {
    let n = 0;
    const srv = await platform((_req, res) => json(res, 200, n++ === 0 ? [RECORD] : []));
    const { t, partner } = await setup(srv.url());
    expect((await checkOwnership(t.deps, partner, 'ana@example.com')) as { tickets: unknown[] }).toMatchObject({ tickets: [expect.anything()] });
    expect(await checkOwnership(t.deps, partner, 'ana@example.com')).toEqual({ kind: 'owned', tickets: [] });
    expect(srv.seen).toHaveLength(2);
  });
});

describe('syncUnknownTickets', () => {
  const owned = (o: Partial<OwnedTicket> & { ticketId: string }): OwnedTicket => ({
    externalReferenceEventId: 'tour-2026',
    showId: 'show-1',
    ticketOptionId: 'opt-field',
    priceTypeId: null,
    paidPrice: null,
    seating: null,
    orderId: null,
    tags: [],
    ticketAccess: null,
    ...o,
  });

  it('creates the tickets the service does not know, and leaves the known ones alone', async () => {
    const { t, p } = await setup(null);
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody() })).status).toBe(200);
    const known = await t.request('POST', '/v1/sync/tickets', {
      key: p.keys.private,
      body: [{ externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketId: 'tkt-known', ticketOptionId: 'opt-vip', buyer: 'bob@example.com', ticketAccess: { type: 'API', locator: 'QR-1' } }],
    });
    expect(known.body.data.created).toBe(1);
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { id: 'user-881', email: 'ana@example.com' }));

    const report = await t.db.transact(async (tx) =>
      await syncUnknownTickets(t.deps, tx, p.id, user, [
        owned({ ticketId: 'tkt-known' }),
        owned({ ticketId: 'tkt-new', paidPrice: 45.5, seating: { row: '12', seat: '7', section: 'A' }, orderId: 'order-55', tags: ['vip:true', 'not a tag'] }),
        owned({ ticketId: 'tkt-url', ticketOptionId: 'opt-vip', ticketAccess: { type: 'URL', locator: 'https://acme.example/qr/9' } }),
        owned({ ticketId: 'tkt-new' }),
        owned({ ticketId: 'tkt-bad', ticketOptionId: 'opt-unknown' }),
      ]),
    );
    expect(report).toEqual({
      created: ['tkt-new', 'tkt-url'],
      known: ['tkt-known'],
      rejected: [{ ticketId: 'tkt-bad', errors: [expect.objectContaining({ code: 'invalid_value', path: 'ticketOptionId' })] }],
    });

    const created = await t.deps.tickets.get(t.db, p.id, 'tkt-new');
    expect(created).toMatchObject({
      ownerPk: user.id,
      state: 'VALID',
      priceMinor: 4550,
      currency: 'EUR',
      ticketAccess: { type: 'OTHER', locator: 'tkt-new' },
      section: 'A',
      row: '12',
      seat: '7',
      orderId: 'order-55',
      tags: ['vip:true'],
    });
    expect((await t.deps.tickets.get(t.db, p.id, 'tkt-url')).ticketAccess).toEqual({ type: 'URL', locator: 'https://acme.example/qr/9' });
    // The known ticket keeps its owner and access.
    const kept = await t.deps.tickets.get(t.db, p.id, 'tkt-known');
    expect(kept.ownerPk).not.toBe(user.id);
    expect(kept.ticketAccess).toEqual({ type: 'API', locator: 'QR-1' });
    await expect(t.deps.tickets.get(t.db, p.id, 'tkt-bad')).rejects.toThrow();

    // A second pass knows them all.
    const again = await t.db.transact(async (tx) => await syncUnknownTickets(t.deps, tx, p.id, user, [owned({ ticketId: 'tkt-new' }), owned({ ticketId: 'tkt-url' })]));
    expect(again).toEqual({ created: [], known: ['tkt-new', 'tkt-url'], rejected: [] });
  });

  it('works end to end from the platform answer', async () => {
    const srv = await platform((_req, res) => json(res, 200, [{ ...RECORD, ticketTypeId: undefined }]));
    const { t, p, partner } = await setup(srv.url());
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody() });
    const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ana@example.com' }));
    const res = await checkOwnership(t.deps, partner, user.email!);
    if (res.kind !== 'owned') throw new Error(res.kind);
    expect((await t.db.transact(async (tx) => await syncUnknownTickets(t.deps, tx, p.id, user, res.tickets))).created).toEqual(['tkt-1']);
    expect((await t.deps.tickets.get(t.db, p.id, 'tkt-1')).ownerPk).toBe(user.id);
  });
});
