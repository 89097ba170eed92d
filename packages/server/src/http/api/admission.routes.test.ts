import { describe, expect, it } from 'vitest';
import { stepAt } from '@resale/shared/admission-code';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { sqlRows } from '../../testing/sql.js';
import { ENGINE } from '../../db/engine.js';

/** POST /v1/tickets/admission/verify over HTTP: the answer's shape, and every bad input refused with nothing written. */

const URL_ = '/v1/tickets/admission/verify';

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('tk-1', { section: 'B', row: '4', seat: '11' })] })).status).toBe(200);
  const phone = await certifiedPhone(t, p.id, 'tk-1');
  const code = async () => await phone.code(stepAt(t.clock.now(), 15));
  return { t, p, code };
}

describe('POST /v1/tickets/admission/verify', () => {
  it('admits with the ticket, its show and seat, and answers a refusal as a verdict (200), not an error', async () => {
    const { t, p, code } = await setup();
    const text = await code();
    const res = await t.request('POST', URL_, { key: p.keys.private, body: { text, externalReferenceEventId: 'tour', showId: 'show-1' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      valid: true,
      reason: 'admitted',
      repeat: false,
      ticket: { ticketId: 'tk-1', externalReferenceEventId: 'tour', showId: 'show-1', seat: { section: 'B', row: '4', seat: '11' } },
      admittedAt: '2026-03-01T12:00:00.000Z',
    });
    const again = await t.request('POST', URL_, { key: p.keys.private, body: { text } });
    expect(again.body.data).toMatchObject({ valid: true, reason: 'admitted', repeat: true });
    // The partner hears of the admission once, signed like every webhook; the retry sends nothing.
    const hooks = await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    expect(hooks.map((h) => JSON.parse(h.payload).data)).toEqual([{ ticketId: 'tk-1', eventId: 'tour', showId: 'show-1', seat: { section: 'B', row: '4', seat: '11' }, admittedAt: '2026-03-01T12:00:00.000Z', source: 'code', door: null }]);
    const junk = await t.request('POST', URL_, { key: p.keys.private, body: { text: 'not a code' } });
    expect(junk.status).toBe(200);
    expect(junk.body.data).toEqual({ valid: false, reason: 'malformed', repeat: false, ticket: null, admittedAt: null });
  });

  it('refuses bad input with every error at once, the wrong key, another partner’s show, and admits nothing meanwhile', async () => {
    const { t, p, code } = await setup();
    const text = await code();
    const post = (body: unknown, key: string | null = p.keys.private, headers: Record<string, string> = {}) => t.request('POST', URL_, { key, body, headers });
    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toContain('text');
    expect((await post({ text: 'x'.repeat(2_001) })).status).toBe(400);
    expect((await post({ text, extra: 1 })).status).toBe(400);
    expect((await post({ text: 42 })).status).toBe(400);
    const half = await post({ text, showId: 'show-1' });
    expect(half.status).toBe(400);
    expect(half.body.errors[0].path).toBe('externalReferenceEventId');
    expect((await post({ text, externalReferenceEventId: 'tour', showId: 'show-9' })).status).toBe(404);
    const other = await t.partner('Other');
    await withEvent(t, other, eventBody('theirs', { shows: [showBody('x-1')] }));
    expect((await post({ text, externalReferenceEventId: 'theirs', showId: 'x-1' })).status).toBe(404);
    // Another partner's key reads the code as unknown: it names none of its tickets.
    expect((await post({ text }, other.keys.private)).body.data).toMatchObject({ valid: false, reason: 'unknown', ticket: null });
    expect([401, 403]).toContain((await post({ text }, p.keys.public)).status);
    expect((await post({ text }, null)).status).toBe(401);
    const typed = await t.app.request(URL_, { method: 'POST', headers: { authorization: `Bearer ${p.keys.private}`, 'content-type': 'text/plain' }, body: JSON.stringify({ text }) });
    expect(typed.status).toBeGreaterThanOrEqual(400);
    expect(typed.status).toBeLessThan(500);
    // Nothing of it admitted the ticket.
    expect((await t.deps.tickets.get(t.db, p.id, 'tk-1')).state).toBe('VALID');
    expect((await post({ text })).body.data.reason).toBe('admitted');
  });
});

describe('a door’s scans arriving together (grouped in one transaction on SQLite)', () => {
  it('admits each ticket once, answers each scan as if alone, and queues one webhook per admission', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1')] }));
    await withRotatingCodes(t, p);
    const ids = ['tk-1', 'tk-2', 'tk-3'];
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: ids.map((id) => ticketBody(id)) })).status).toBe(200);
    const phone = async (ticketId: string) => (await certifiedPhone(t, p.id, ticketId)).code;
    const step = stepAt(t.clock.now(), 15);
    const [one, two, three] = await Promise.all(ids.map(phone));
    // tk-1: four different codes (its holder's screenshots) and one of them twice (a gate's retry); tk-2 and tk-3 once each.
    const ones = await Promise.all([step - 2, step - 1, step, step + 1].map((s) => one!(s)));
    const texts = [...ones, ones[0]!, await two!(step), await three!(step)];
    const transactions = { root: 0 };
    const transact = t.db.transact;
    t.db.transact = ((fn) => (transactions.root++, transact(fn))) as typeof transact;
    const answers = (await Promise.all(texts.map((text) => t.request('POST', URL_, { key: p.keys.private, body: { text } })))).map((r) => {
      expect(r.status).toBe(200);
      return r.body.data as { valid: boolean; reason: string; repeat: boolean; ticket: { ticketId: string } | null };
    });
    t.db.transact = transact;
    const ofOne = answers.slice(0, 5);
    expect(ofOne.filter((a) => a.reason === 'admitted' && !a.repeat)).toHaveLength(1);
    expect(ofOne.filter((a) => a.reason === 'already_admitted')).toHaveLength(ofOne.filter((a) => a.reason !== 'admitted').length);
    // The retry of the winning text reads as the winner did; of a losing text, as that text did.
    expect(answers[4]!.reason).toBe(answers[0]!.reason);
    if (answers[0]!.reason === 'admitted') expect(answers[4]).toMatchObject({ valid: true, repeat: true });
    expect(answers.slice(5)).toMatchObject([{ valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'tk-2' } }, { valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'tk-3' } }]);
    for (const id of ids) expect((await t.deps.tickets.get(t.db, p.id, id)).state).toBe('ADMITTED');
    const hooks = await sqlRows<{ payload: string }>(t.db, `select payload from webhook_messages where action = 'ticket.admitted'`);
    expect(hooks.map((h) => JSON.parse(h.payload).data.ticketId).sort()).toEqual(ids);
    // SQLite: the scans that arrived together shared transactions (PostgreSQL: one each).
    if (ENGINE === 'sqlite') expect(transactions.root).toBeLessThan(texts.length);
    else expect(transactions.root).toBe(texts.length);
  });

  it('answers a scan that fails on its own (an unknown door) without undoing the others of its group', async () => {
    const { t, p, code } = await setup();
    const text = await code();
    const [lost, admitted] = await Promise.all([
      t.request('POST', URL_, { key: p.keys.private, body: { text, externalReferenceEventId: 'tour', showId: 'show-9' } }),
      t.request('POST', URL_, { key: p.keys.private, body: { text } }),
    ]);
    expect(lost.status).toBe(404);
    expect(admitted.body.data).toMatchObject({ valid: true, reason: 'admitted', repeat: false });
    expect((await t.deps.tickets.get(t.db, p.id, 'tk-1')).state).toBe('ADMITTED');
  });
});
