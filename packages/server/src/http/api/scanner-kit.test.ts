import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, stepAt } from '@resale/shared/admission-code';
import { createKitVerifier, mergeKit, type ScannerKit } from '@resale/shared/admission-kit';
import type { Tx } from '../../db/client.js';
import { certifiedPhone, eventBody, showBody, ticketBody, withEvent, withRotatingCodes } from '../../testing/factories.js';
import { createTestApp } from '../../testing/harness.js';
import { admissionIssuers } from '../../domain/admission/admission.table.js';

/**
 * GET /v1/shows/{showId}/scanner-kit and the offline verifier that reads it
 * (@resale/shared/admission-kit): a door without the service admits a current code once, and
 * refuses screenshots, forgeries, other shows' codes, the seller's phone after a resale and
 * tickets listed, with only what the kit holds.
 */

const KIT = (showId = 'show-1', event = 'tour') => `/v1/shows/${showId}/scanner-kit?externalReferenceEventId=${event}`;

async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withRotatingCodes(t, p);
  const body = [ticketBody('tk-1', { section: 'B', row: '4', seat: '11', buyer: 'ana@example.com' }), ticketBody('tk-2', { buyer: 'ana@example.com' }), ticketBody('tk-3', { buyer: 'ana@example.com' }), ticketBody('tk-9', { showId: 'show-2' })];
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body })).status).toBe(200);
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
  const phone = async (ticketId: string) => {
    const { code } = await certifiedPhone(t, p.id, ticketId);
    return async (step = stepAt(t.clock.now(), 15)) => await code(step);
  };
  const kit = async (): Promise<ScannerKit> => {
    const res = await t.request('GET', KIT(), { key: p.keys.private });
    expect(res.status).toBe(200);
    return res.body.data as ScannerKit;
  };
  return { t, p, tx, ticket, phone, kit };
}

describe('the scanner kit', () => {
  it('lists the show’s key and its tickets with a code, and holds no secret nor anyone’s e-mail', async () => {
    const { t, kit, phone } = await setup();
    expect((await kit()).keys).toEqual([]);
    await phone('tk-1');
    await phone('tk-2');
    const k = await kit();
    expect(k).toMatchObject({ v: 1, externalReferenceEventId: 'tour', showId: 'show-1', serverTime: '2026-03-01T12:00:00.000Z', validUntil: '2026-03-02T00:00:00.000Z', window: { past: 2, future: 1 } });
    expect(k.keys).toHaveLength(1);
    expect(k.tickets).toEqual({ serial: [1, 2], ticketId: ['tk-1', 'tk-2'], section: ['B', null], row: ['4', null], seat: ['11', null], minEpoch: [1, 1], state: ['', ''] });
    const text = JSON.stringify(k);
    expect(text).not.toMatch(/example\.com|sealed|v2\./);
    const [issuer] = await t.db.select().from(admissionIssuers);
    expect(text).not.toContain(issuer!.privateKeySealed);
    expect(text).not.toContain(issuer!.tagSecretSealed);
    expect(text).toContain(issuer!.publicKey);
  });

  it('lets a door without the service admit a current code once and refuse the rest', async () => {
    const { t, kit, phone } = await setup();
    const code = await phone('tk-1');
    const other = await phone('tk-9'); // show-2: its own issuer
    const verifier = await createKitVerifier(await kit());
    const now = t.clock.now();
    const text = await code();
    expect(await verifier.verify(text, now)).toEqual({ valid: true, reason: 'admitted', repeat: false, ticket: { serial: 1, ticketId: 'tk-1', section: 'B', row: '4', seat: '11' } });
    expect(await verifier.verify(`  ${text.toLowerCase()} `, now)).toMatchObject({ valid: true, repeat: true });
    expect(await verifier.verify(await code(stepAt(now, 15) + 1), now)).toMatchObject({ valid: false, reason: 'already_admitted' });
    expect([...verifier.admitted.keys()]).toEqual([1]);
    expect(await verifier.verify(await other(), now)).toMatchObject({ valid: false, reason: 'unknown', ticket: null });
    expect(await verifier.verify('TKT-123', now)).toMatchObject({ reason: 'malformed' });
    // Past the kit's validity nothing is admitted offline.
    expect(await verifier.verify(text, Date.parse('2026-03-02T00:00:01Z'))).toMatchObject({ valid: false, reason: 'kit_expired' });
  });

  it('refuses screenshots, codes from the future and forgeries offline', async () => {
    const { t, kit, phone } = await setup();
    const code = await phone('tk-1');
    const verifier = await createKitVerifier(await kit());
    const now = t.clock.now();
    const step = stepAt(now, 15);
    expect(await verifier.verify(await code(step - 3), now)).toMatchObject({ valid: false, reason: 'expired', ticket: { ticketId: 'tk-1' } });
    expect(await verifier.verify(await code(step + 2), now)).toMatchObject({ valid: false, reason: 'not_yet_valid' });
    const bytes = base32Decode(await code())!;
    bytes[112] = bytes[112]! ^ 1;
    expect(await verifier.verify(base32Encode(bytes), now)).toMatchObject({ valid: false, reason: 'forged', ticket: null });
    expect(verifier.admitted.size).toBe(0);
  });

  it('refuses the seller’s phone after a resale, and a listed or admitted ticket, from the next kit', async () => {
    const { t, p, tx, ticket, kit, phone } = await setup();
    const seller = await phone('tk-1');
    const listed = await phone('tk-2');
    const used = await phone('tk-3');
    const buyer = await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ben@example.com' }));
    await tx(async (tx) => await t.deps.tickets.transfer(tx, [(await ticket('tk-1')).id], buyer.id));
    await tx(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: (await ticket('tk-2')).ownerPk, ticketPks: [(await ticket('tk-2')).id], priceMinor: 4000 }));
    expect((await t.request('POST', '/v1/tickets/tk-3/eventAdmission', { key: p.keys.private })).status).toBe(200);
    const k = await kit();
    expect(k.tickets).toMatchObject({ minEpoch: [2, 1, 1], state: ['', 'listed', 'admitted'] });
    const verifier = await createKitVerifier(k);
    const now = t.clock.now();
    expect(await verifier.verify(await seller(), now)).toMatchObject({ valid: false, reason: 'revoked', ticket: { ticketId: 'tk-1' } });
    expect(await verifier.verify(await listed(), now)).toMatchObject({ valid: false, reason: 'listed' });
    expect(await verifier.verify(await used(), now)).toMatchObject({ valid: false, reason: 'already_admitted' });
    // The buyer's new phone (epoch 2, bound after the kit was fetched) is admitted offline.
    const theirs = await phone('tk-1');
    expect(await verifier.verify(await theirs(), now)).toMatchObject({ valid: true, reason: 'admitted' });
  });

  it('sends a door only what changed since its last kit (`since`), which merges into the same kit as a whole one', async () => {
    const { t, p, tx, ticket, kit, phone } = await setup();
    // (The show was switched to rotating codes at the start: a change of the show, which sends whole kits.)
    t.clock.advance(5 * 60_000);
    await phone('tk-1');
    await phone('tk-2');
    t.clock.advance(5 * 60_000);
    const first = await kit();
    const delta = async (since: string) => {
      const res = await t.request('GET', `${KIT()}&since=${encodeURIComponent(since)}`, { key: p.keys.private });
      expect(res.status).toBe(200);
      return res.body.data as ScannerKit;
    };
    // Nothing changed since (the minute before it included, in case a transaction was still open): an empty delta.
    t.clock.advance(5 * 60_000);
    const quiet = await delta(first.serverTime);
    expect(quiet).toMatchObject({ since: first.serverTime, tickets: { serial: [] } });
    expect(quiet.keys).toEqual(first.keys);
    // A transfer of tk-1, an admission of tk-2, and a first phone for tk-3.
    const buyer = await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ben@example.com' }));
    await tx(async (tx) => await t.deps.tickets.transfer(tx, [(await ticket('tk-1')).id], buyer.id));
    expect((await t.request('POST', '/v1/tickets/tk-2/eventAdmission', { key: p.keys.private })).status).toBe(200);
    await phone('tk-3');
    t.clock.advance(5 * 60_000);
    const changed = await delta(quiet.serverTime);
    expect(changed.tickets).toEqual({ serial: [1, 2, 3], ticketId: ['tk-1', 'tk-2', 'tk-3'], section: ['B', null, null], row: ['4', null, null], seat: ['11', null, null], minEpoch: [2, 1, 1], state: ['', 'admitted', ''] });
    // Merged into the door's kit, it is the whole kit of now.
    const whole = await kit();
    const { since: _s, ...merged } = mergeKit(mergeKit(first, quiet), changed);
    expect(merged).toEqual(whole);
    expect(mergeKit(first, whole)).toBe(whole);
    // Too old a `since`, one from the future, or a show changed since: the whole kit.
    expect((await delta('2026-02-28T00:00:00Z')).since).toBeUndefined();
    expect((await delta('2027-01-01T00:00:00Z')).since).toBeUndefined();
    expect((await t.request('GET', `${KIT()}&since=yesterday`, { key: p.keys.private })).status).toBe(400);
    expect(() => mergeKit(first, { ...changed, showId: 'show-2' })).toThrow(/another show/);
  });

  it('needs the private key, the event, and a show of the partner’s', async () => {
    const { t, p } = await setup();
    expect((await t.request('GET', '/v1/shows/show-1/scanner-kit', { key: p.keys.private })).status).toBe(400);
    expect((await t.request('GET', KIT('show-9'), { key: p.keys.private })).status).toBe(404);
    expect((await t.request('GET', KIT('show-1', 'nope'), { key: p.keys.private })).status).toBe(404);
    const other = await t.partner('Other');
    expect((await t.request('GET', KIT(), { key: other.keys.private })).status).toBe(404);
    expect([401, 403]).toContain((await t.request('GET', KIT(), { key: p.keys.public })).status);
    expect((await t.request('GET', KIT(), { key: null })).status).toBe(401);
  });
});
