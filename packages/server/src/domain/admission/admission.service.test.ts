import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, stepAt } from '@resale/shared/admission-code';
import type { Tx } from '../../db/client.js';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp, type TestPartner } from '../../testing/harness.js';

/**
 * Rotating admission codes against a real database (SQLite here, PostgreSQL in server-pg): a
 * phone certified for a ticket's holder makes a code each step; the service admits its ticket
 * once, refuses screenshots past the window, the seller's phone after a resale, an old phone
 * after a new one, and tickets listed, deleted or of a cancelled show.
 */

const ROTATION_MS = 15_000;

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  const sync = await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [ticketBody('tk-1', { buyer: 'ana@example.com' }), ticketBody('tk-2', { buyer: 'ana@example.com' }), ticketBody('tk-9', { showId: 'show-2', buyer: 'ana@example.com' })],
  });
  expect(sync.status).toBe(200);
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  /** A phone certified for the ticket's holder now, and its code at a step (now's by default). */
  const phone = async (ticketId: string) => {
    const { binding, code } = await certifiedPhone(t, p.id, ticketId);
    return { binding, code: async (step = stepAt(t.clock.now(), 15)) => await code(step) };
  };
  const verify = async (text: string, opts: { showPk?: string; partner?: TestPartner } = {}) => await tx(async (tx) => await t.deps.admission.verify(tx, (opts.partner ?? p).id, text, opts));
  return { t, p, tx, ticket, phone, verify };
}

describe('rotating admission codes', () => {
  it('admits a current code once: the same scan again is a retry, any other scan already_admitted', async () => {
    const { t, p, ticket, phone, verify } = await setup();
    const { binding, code } = await phone('tk-1');
    expect(binding).toMatchObject({ serial: 1, epoch: 1, rotationSeconds: 15 });
    expect((await phone('tk-2')).binding.serial).toBe(2);
    const text = await code();
    const first = await verify(text);
    expect(first).toMatchObject({ valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'tk-1' }, admittedAt: t.clock.now() });
    expect((await ticket('tk-1')).state).toBe('ADMITTED');
    // The gate's retry of the same scan (a timeout, another process): still let in.
    expect(await verify(text)).toMatchObject({ valid: true, reason: 'admitted', repeat: true, admittedAt: first.admittedAt });
    // A second person with the next code (or a screenshot of it): refused.
    t.clock.advance(ROTATION_MS);
    expect(await verify(await code())).toMatchObject({ valid: false, reason: 'already_admitted', ticket: { ticketId: 'tk-1' }, admittedAt: first.admittedAt });
    // The partner hears of it as of any admission.
    expect((await t.request('GET', '/v1/tickets/tk-1', { key: p.keys.private })).body.data).toMatchObject({ state: 'ADMITTED' });
  });

  it('accepts a code two steps old to one ahead, and refuses a screenshot older than that or a code from the future', async () => {
    const { t, phone, verify } = await setup();
    const { code } = await phone('tk-1');
    const now = stepAt(t.clock.now(), 15);
    expect(await verify(await code(now - 3))).toMatchObject({ valid: false, reason: 'expired', ticket: { ticketId: 'tk-1' } });
    expect(await verify(await code(now + 2))).toMatchObject({ valid: false, reason: 'not_yet_valid' });
    // A screenshot taken now, shown 50 seconds later (more than two 15-second steps): refused.
    const screenshot = await code();
    t.clock.advance(50_000);
    expect(await verify(screenshot)).toMatchObject({ valid: false, reason: 'expired' });
    expect(await verify(await code(stepAt(t.clock.now(), 15) - 2))).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('refuses the seller’s phone the moment a resale completes, and admits the buyer’s', async () => {
    const { t, p, tx, ticket, phone, verify } = await setup();
    const seller = await phone('tk-1');
    const sellersCode = await seller.code();
    const buyer = await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ben@example.com' }));
    await tx(async (tx) => await t.deps.tickets.transfer(tx, [(await ticket('tk-1')).id], buyer.id));
    expect(await verify(sellersCode)).toMatchObject({ valid: false, reason: 'revoked', ticket: { ticketId: 'tk-1' } });
    expect(await verify(await seller.code())).toMatchObject({ valid: false, reason: 'revoked' });
    // The buyer's phone: a new epoch of the same serial.
    const theirs = await phone('tk-1');
    expect(theirs.binding).toMatchObject({ serial: 1, epoch: 2 });
    expect(await verify(await theirs.code())).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('refuses an old phone once the holder certified a new one', async () => {
    const { phone, verify } = await setup();
    const old = await phone('tk-1');
    const fresh = await phone('tk-1');
    expect(fresh.binding.epoch).toBe(old.binding.epoch + 1);
    expect(await verify(await old.code())).toMatchObject({ valid: false, reason: 'revoked' });
    expect(await verify(await fresh.code())).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('refuses forged, malformed and other partners’ codes without naming a ticket, and a ticket of another show', async () => {
    const { t, p, phone, verify } = await setup();
    const { code } = await phone('tk-1');
    const bytes = base32Decode(await code())!;
    bytes[112] = bytes[112]! ^ 1; // the step, edited to stretch a screenshot
    expect(await verify(base32Encode(bytes))).toEqual({ valid: false, reason: 'forged', repeat: false, ticket: null, admittedAt: null });
    expect(await verify('https://partner.example/qr/tk-1')).toMatchObject({ valid: false, reason: 'malformed', ticket: null });
    const other = await t.partner('Other');
    expect(await verify(await code(), { partner: other })).toMatchObject({ valid: false, reason: 'unknown', ticket: null });
    const show2 = (await t.deps.events.findShow(t.db, p.id, 'tour', 'show-2')).show;
    expect(await verify(await code(), { showPk: show2.id })).toMatchObject({ valid: false, reason: 'other_show', ticket: { ticketId: 'tk-1' } });
  });

  it('refuses a listed, deleted or cancelled ticket, and certifies no phone for one', async () => {
    const { t, p, tx, ticket, phone, verify } = await setup();
    const one = await phone('tk-1');
    const two = await phone('tk-2');
    const nine = await phone('tk-9');
    const listing = await tx(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket('tk-1')).ownerPk, ticketPks: [(await ticket('tk-1')).id], priceMinor: 4000 }));
    expect(await verify(await one.code())).toMatchObject({ valid: false, reason: 'listed' });
    await expect(tx(async (tx) => await t.deps.admission.bind(tx, p.id, (await ticket('tk-1')).id, new Uint8Array(32)))).rejects.toMatchObject({ status: 409, reason: 'ticket_not_valid' });
    // Taken off sale: the same phone's codes work again.
    await tx(async (tx) => await t.deps.listings.terminateByTicket(tx, p.id, 'tk-1'));
    expect(listing.id).toBeTruthy();
    expect((await ticket('tk-1')).state).toBe('VALID');
    expect((await t.request('DELETE', '/v1/tickets/tk-2', { key: p.keys.private })).status).toBe(200);
    expect(await verify(await two.code())).toMatchObject({ valid: false, reason: 'deleted' });
    expect((await t.request('PUT', '/v1/events', { key: p.keys.private, body: { externalReferenceId: 'tour', shows: [{ showId: 'show-2', status: 'CANCELLED' }] } })).status).toBe(200);
    expect(await verify(await nine.code())).toMatchObject({ valid: false, reason: 'cancelled' });
    expect(await verify(await one.code())).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('admits a ticket exactly once when its codes are scanned at many gates at once', async () => {
    const { t, phone, verify } = await setup();
    const { code } = await phone('tk-1');
    const now = stepAt(t.clock.now(), 15);
    const texts = await Promise.all([now - 2, now - 1, now, now + 1].flatMap((s) => [code(s), code(s)]));
    const results = await Promise.all(texts.map((text) => verify(text)));
    const admitted = results.filter((r) => r.reason === 'admitted' && !r.repeat);
    expect(admitted).toHaveLength(1);
    // The rest: the same text as the winner (a repeat) or another scan.
    expect(results.every((r) => (r.reason === 'admitted' && (r.repeat || r === admitted[0])) || r.reason === 'already_admitted')).toBe(true);
  });

  it('never admits a ticket that changed hands after the scan read it: the admission is conditioned on the holder read', async () => {
    const { t, p, tx, ticket } = await setup();
    // What a scan read, before a transfer committed (on PostgreSQL another transaction may commit in between).
    const read = await ticket('tk-1');
    expect((await t.request('PUT', '/v1/tickets/tk-1', { key: p.keys.private, body: { buyer: 'carla@example.com' } })).status).toBe(200);
    const refusal = await tx(async (tx) => await t.deps.tickets.admitAsRead(tx, p.id, read, t.clock.now()));
    expect(refusal).toMatchObject({ reason: 'changed_hands' });
    expect((await ticket('tk-1')).state).toBe('VALID');
    // The row read now (the new holder's) admits.
    expect(await tx(async (tx) => await t.deps.tickets.admitAsRead(tx, p.id, await ticket('tk-1'), t.clock.now()))).toBeNull();
    expect((await ticket('tk-1')).state).toBe('ADMITTED');
  });
});
