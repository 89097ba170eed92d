import { describe, expect, it } from 'vitest';
import type { Tx } from '../db/client.js';
import type { AuditContext } from '../domain/audit/audit.service.js';
import { auditLog } from '../domain/audit/audit.table.js';
import { ApiError } from '../lib/errors.js';
import { eventBody, showBody, ticketBody, withEvent } from '../testing/factories.js';
import { createTestApp } from '../testing/harness.js';
import { CONSOLE_WAITINGLIST_ACTIONS, setWaitingListSettings } from './console-waitinglist.js';

/**
 * The console's change of a show's waiting list (flows/console-waitinglist.ts) through the real
 * service and audit log, on SQLite here and PostgreSQL in the server-pg project.
 */

const CTX: AuditContext = { actor: { kind: 'console', userId: 'cu_1', email: 'admin@acme.example', role: 'partner_admin' }, clientAddress: '198.51.100.7', requestId: 'req-1' };
const SHOW = { eventId: 'tour', showId: 'show-1' };
const KEY = { externalReferenceEventId: 'tour', showId: 'show-1' };

async function setup() {
  const t = createTestApp();
  const p = await t.partner('Acme');
  const other = await t.partner('Other');
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2')] }));
  await withEvent(t, other, eventBody('other-tour'));
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const audit = async () => await t.db.read(async (tx) => await tx.select().from(auditLog));
  const stored = async () => await t.db.read(async (tx) => await t.deps.waitingList.getSettings(tx, p.id, KEY));
  return { t, p, other, tx, audit, stored };
}

/** The ApiError `fn` throws. */
async function refusal(fn: () => Promise<unknown>): Promise<ApiError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('setWaitingListSettings', () => {
  it('writes the settings through the service and records what changed, before → after, in the same transaction', async () => {
    const { t, p, audit, stored } = await setup();
    const first = await setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: true, offerMinutes: 30, quietHours: { start: '22:00', end: '08:00' }, priceCap: 'FACE_VALUE' });
    expect(first.changed).toBe(true);
    expect(first.settings).toMatchObject({ enabled: true, offerMinutes: 30, quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' }, priceCap: 'FACE_VALUE' });
    expect(await stored()).toMatchObject(first.settings);
    const [entry] = await audit();
    expect(entry).toMatchObject({
      action: CONSOLE_WAITINGLIST_ACTIONS.setSettings,
      partnerId: p.id,
      target: 'tour/show-1',
      actorKind: 'console',
      actorEmail: 'admin@acme.example',
      requestId: 'req-1',
      before: { enabled: false, offerMinutes: 15, priceCap: 'RULES', 'quietHours.start': null, 'quietHours.end': null, 'quietHours.timeZone': null },
      after: { enabled: true, offerMinutes: 30, priceCap: 'FACE_VALUE', 'quietHours.start': '22:00', 'quietHours.end': '08:00', 'quietHours.timeZone': 'Europe/Madrid' },
    });

    // The same again changes nothing, and says so (recorded as every console change is, with nothing before or after).
    const again = await setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: true, offerMinutes: 30, quietHours: { start: '22:00', end: '08:00' }, priceCap: 'FACE_VALUE' });
    expect(again.changed).toBe(false);
    expect((await audit())[1]).toMatchObject({ before: {}, after: {} });
    // A show never set, set to the defaults: a change (the organiser chose them).
    expect((await setWaitingListSettings(t.deps, CTX, p.id, { eventId: 'tour', showId: 'show-2' }, { enabled: false, priceCap: 'RULES' })).changed).toBe(true);
  });

  it('refuses invalid settings with every field at once (400), and an unknown or another partner’s show (404), writing and recording nothing', async () => {
    const { t, p, audit, stored } = await setup();
    const bad = await refusal(() => setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: true, offerMinutes: 4, quietHours: { start: '25:00', end: '8' }, priceCap: 'CHEAP' as never }));
    expect(bad.status).toBe(400);
    expect(bad.entries.map((e) => e.path)).toEqual(['offerMinutes', 'quietHours.start', 'quietHours.end', 'priceCap']);
    expect((await refusal(() => setWaitingListSettings(t.deps, CTX, p.id, { eventId: 'tour', showId: 'show-9' }, { enabled: true, priceCap: 'RULES' }))).status).toBe(404);
    expect((await refusal(() => setWaitingListSettings(t.deps, CTX, p.id, { eventId: 'other-tour', showId: 'show-1' }, { enabled: true, priceCap: 'RULES' }))).status).toBe(404);
    expect((await stored()).updatedAt).toBeNull();
    expect(await audit()).toEqual([]);
  });

  it('turned on again, offers what is on sale to the line in its own transaction', async () => {
    const { t, p, tx, stored } = await setup();
    await setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: true, priceCap: 'RULES' });
    const ana = await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email: 'ana@example.com' }));
    const entry = await tx(async (tx) => await t.deps.waitingList.join(tx, p.id, { ...KEY, userPk: ana.id, quantity: 1, maxPerBuyer: 4, together: false }));
    // Paused: a listing published now goes on public sale, and Ana keeps her place.
    await setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: false, priceCap: 'RULES' });
    await tx(async (tx) => await t.deps.tickets.syncCreate(tx, p.id, [ticketBody('f1', { buyer: 'seller@example.com' })]));
    const ticket = await t.deps.tickets.get(t.db, p.id, 'f1');
    const listing = await tx(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: ticket.ownerPk, ticketPks: [ticket.id], priceMinor: 4000 }));
    expect(listing.state).toBe('ACTIVE');
    expect(await t.db.read(async (tx) => await t.deps.waitingList.get(tx, p.id, entry.id))).toMatchObject({ state: 'WAITING', position: 1 });
    expect((await stored()).waiting).toBe(1);

    await setWaitingListSettings(t.deps, CTX, p.id, SHOW, { enabled: true, priceCap: 'RULES' });
    expect(await t.db.read(async (tx) => await t.deps.waitingList.get(tx, p.id, entry.id))).toMatchObject({ state: 'OFFERED', offer: { listingIds: [listing.id] } });
  });
});
