import { describe, expect, it } from 'vitest';
import { stepAt } from '@resale/shared/admission-code';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { sqlRows } from '../../testing/sql.js';

/**
 * POST /v1/shows/{showId}/admissions/sync: a door's offline scans, checked at their own time,
 * earliest first, each ticket admitted once (its webhook `source: sync`), a second entry with
 * one ticket named, a sync sent twice harmless, and every bad input refused with nothing
 * recorded. The test clock starts at 2026-03-01T12:00:00Z.
 */

const SYNC = '/v1/shows/show-1/admissions/sync?externalReferenceEventId=tour';
const iso = (ms: number) => new Date(ms).toISOString();

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  const body = [ticketBody('tk-1', { section: 'B', row: '4', seat: '11' }), ticketBody('tk-2'), ticketBody('tk-3'), ticketBody('tk-9', { showId: 'show-2' })];
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body })).status).toBe(200);
  /** A phone certified for the ticket's holder; its code at a moment (now by default). */
  const phone = async (ticketId: string) => {
    const { code } = await certifiedPhone(t, p.id, ticketId);
    return async (at = t.clock.now()) => await code(stepAt(at, 15));
  };
  const sync = (scans: unknown, key: string | null = p.keys.private, path = SYNC) => t.request('POST', path, { key, body: { scans } });
  const admittedHooks = async () => (await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = 'ticket.admitted' order by created_at`)).map((h) => JSON.parse(h.payload).data);
  return { t, p, phone, sync, admittedHooks };
}

describe('POST /v1/shows/{showId}/admissions/sync', () => {
  it('checks each scan at its own time, earliest first: one admission per ticket, dated when scanned, and the second entry named', async () => {
    const { t, p, phone, sync, admittedHooks } = await setup();
    const one = await phone('tk-1');
    const two = await phone('tk-2');
    const start = t.clock.now();
    // At the door, offline: tk-1 at 12:00:00, someone with tk-1's next code at 12:00:20 (a second entry),
    // tk-2 at 12:00:30, a screenshot of tk-2's code a minute old, junk, and a forgery.
    const first = await one(start);
    const second = await one(start + 20_000);
    const third = await two(start + 30_000);
    const old = await two(start - 60_000);
    // A byte of the tag changed (bytes 114–123, characters 182–197 of the text): what the service checks online.
    const forged = first.slice(0, 190) + (first[190] === 'A' ? 'B' : 'A') + first.slice(191);
    t.clock.advance(30 * 60_000);
    // Sent in any order: the earliest scan of tk-1 wins.
    const scans = [
      { text: second, scannedAt: iso(start + 20_000) },
      { text: first, scannedAt: iso(start) },
      { text: third, scannedAt: iso(start + 30_000) },
      { text: old, scannedAt: iso(start + 30_000) },
      { text: 'not a code', scannedAt: iso(start + 40_000) },
      { text: forged, scannedAt: iso(start + 40_000) },
    ];
    const res = await sync(scans);
    expect(res.status).toBe(200);
    const seat = { section: 'B', row: '4', seat: '11' };
    expect(res.body.data.results).toEqual([
      { valid: false, reason: 'already_admitted', repeat: false, ticket: { ticketId: 'tk-1', externalReferenceEventId: 'tour', showId: 'show-1', seat }, admittedAt: iso(start) },
      { valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'tk-1', externalReferenceEventId: 'tour', showId: 'show-1', seat }, admittedAt: iso(start) },
      expect.objectContaining({ valid: true, reason: 'admitted', ticket: expect.objectContaining({ ticketId: 'tk-2' }), admittedAt: iso(start + 30_000) }),
      expect.objectContaining({ valid: false, reason: 'already_admitted', ticket: expect.objectContaining({ ticketId: 'tk-2' }) }),
      { valid: false, reason: 'malformed', repeat: false, ticket: null, admittedAt: null },
      { valid: false, reason: 'forged', repeat: false, ticket: null, admittedAt: null },
    ]);
    const ticket = await t.request('GET', '/v1/tickets/tk-1', { key: p.keys.private });
    expect(ticket.body.data.state).toBe('ADMITTED');
    expect(await admittedHooks()).toEqual([
      { ticketId: 'tk-1', eventId: 'tour', showId: 'show-1', seat, admittedAt: iso(start), source: 'sync', door: null },
      { ticketId: 'tk-2', eventId: 'tour', showId: 'show-1', seat: { section: null, row: null, seat: null }, admittedAt: iso(start + 30_000), source: 'sync', door: null },
    ]);

    // The door sends it all again (it never heard the answer): the same verdicts, the winners as repeats, no webhook more.
    const again = await sync(scans);
    expect(again.body.data.results.map((r: { reason: string; repeat: boolean }) => `${r.reason}${r.repeat ? ' (repeat)' : ''}`)).toEqual(['already_admitted', 'admitted (repeat)', 'admitted (repeat)', 'already_admitted', 'malformed', 'forged']);
    expect(await admittedHooks()).toHaveLength(2);
  });

  it('checks the code’s step at the scan’s time, not the sync’s, and the holder as it is now', async () => {
    const { t, p, phone, sync } = await setup();
    const three = await phone('tk-3');
    const start = t.clock.now();
    const code = await three(start);
    // A code read at 12:00 and synced an hour later admits; the same code claimed to be scanned at 12:02 is a screenshot.
    t.clock.advance(3_600_000);
    expect((await sync([{ text: code, scannedAt: iso(start + 120_000) }])).body.data.results[0]).toMatchObject({ valid: false, reason: 'expired' });
    // The ticket changed hands since: the offline scan admitted someone the ticket is no longer for.
    expect((await t.request('PUT', '/v1/tickets/tk-3', { key: p.keys.private, body: { buyer: 'new@example.com' } })).status).toBe(200);
    expect((await sync([{ text: code, scannedAt: iso(start) }])).body.data.results[0]).toMatchObject({ valid: false, reason: 'revoked' });
    // A ticket admitted online first stays admitted as first recorded.
    const one = await phone('tk-1');
    const online = await one();
    expect((await t.request('POST', '/v1/tickets/admission/verify', { key: p.keys.private, body: { text: online } })).body.data.reason).toBe('admitted');
    const offline = await one(t.clock.now() - 30_000);
    expect((await sync([{ text: offline, scannedAt: iso(t.clock.now() - 30_000) }])).body.data.results[0]).toMatchObject({ valid: false, reason: 'already_admitted', admittedAt: iso(t.clock.now()) });
    // Another show's ticket at this door.
    const nine = await phone('tk-9');
    expect((await sync([{ text: await nine(), scannedAt: iso(t.clock.now()) }])).body.data.results[0]).toMatchObject({ valid: false, reason: 'other_show' });
  });

  it('refuses bad syncs with every error at once, the wrong key, unknown or another partner’s shows, and records nothing', async () => {
    const { t, p, phone, sync, admittedHooks } = await setup();
    const one = await phone('tk-1');
    const now = t.clock.now();
    const good = { text: await one(), scannedAt: iso(now) };
    const both = await sync([good, { text: good.text, scannedAt: iso(now + 6 * 60_000) }, { text: good.text, scannedAt: iso(now - 25 * 3_600_000) }]);
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { path: string; code: string }) => `${e.path} ${e.code}`)).toEqual(['scans.1.scannedAt out_of_range', 'scans.2.scannedAt out_of_range']);
    expect((await sync([])).status).toBe(400);
    expect((await sync(Array.from({ length: 501 }, () => good))).status).toBe(400);
    const shapes = await sync([{ text: good.text }, { scannedAt: iso(now) }, { ...good, scannedAt: 'yesterday' }, { ...good, extra: 1 }]);
    expect(shapes.status).toBe(400);
    expect(shapes.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['scans.0.scannedAt', 'scans.1.text', 'scans.2.scannedAt']));
    expect((await t.request('POST', SYNC, { key: p.keys.private, body: { scans: [good], more: true } })).status).toBe(400);
    expect((await sync([good], p.keys.private, '/v1/shows/show-1/admissions/sync')).status).toBe(400);
    expect((await sync([good], p.keys.private, '/v1/shows/show-9/admissions/sync?externalReferenceEventId=tour')).status).toBe(404);
    const other = await t.partner('Other');
    await withEvent(t, other, eventBody('theirs', { shows: [showBody('x-1')] }));
    expect((await sync([good], p.keys.private, '/v1/shows/x-1/admissions/sync?externalReferenceEventId=theirs')).status).toBe(404);
    // Another partner's key on its own show: the code names none of its tickets.
    expect((await sync([good], other.keys.private, '/v1/shows/x-1/admissions/sync?externalReferenceEventId=theirs')).body.data.results[0]).toMatchObject({ reason: 'unknown', ticket: null });
    expect([401, 403]).toContain((await sync([good], p.keys.public)).status);
    expect((await sync([good], null)).status).toBe(401);
    expect((await t.deps.tickets.get(t.db, p.id, 'tk-1')).state).toBe('VALID');
    expect(await admittedHooks()).toEqual([]);
    expect((await sync([good])).body.data.results[0].reason).toBe('admitted');
  });
});
