import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { AuditContext } from '../domain/audit/audit.service.js';
import { auditLog } from '../domain/audit/audit.table.js';
import { events } from '../domain/events/events.table.js';
import { importEvents } from '../domain/events/import/import.js';
import { manualLoads } from '../domain/loads/loads.table.js';
import { LOAD_PREVIEW_MS } from '../domain/loads/loads.store.js';
import { eventBody, showBody } from '../testing/factories.js';
import { createTestApp, type TestApp } from '../testing/harness.js';
import { applyLoad, LOAD_APPLY_ACTION, previewLoad, type PreviewOutcome } from './manual-load.js';

/**
 * The console's manual load below HTTP: the preview writes nothing, the apply is the whole sheet
 * in one transaction (a row refused at apply time leaves nothing of the sheet), once (twice at
 * the same moment applies once), audited with counts and never the cells; and the command's
 * `importEvents` and the console's flow store the same events from the same sheet.
 */

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../docs/samples');
const CSV = readFileSync(resolve(SAMPLES, 'events.csv'));
const CTX: AuditContext = { actor: { kind: 'console', userId: 'cu_test', email: 'ana@acme.example', role: 'partner_admin' }, clientAddress: '198.51.100.7', requestId: 'req-1' };

async function eventCount(t: TestApp, partnerId: string): Promise<number> {
  return (await t.db.select({ n: count() }).from(events).where(eq(events.partnerId, partnerId)).limit(1))[0]!.n;
}

function staged(outcome: PreviewOutcome) {
  if (outcome.kind !== 'staged') throw new Error(`not staged: ${JSON.stringify(outcome)}`);
  return outcome.load;
}

/** Reads an event back through the API, without ids and timestamps. */
async function readBack(t: TestApp, key: string, id: string) {
  const res = await t.request('GET', `/v1/events/${id}`, { key });
  expect(res.status).toBe(200);
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = res.body.data;
  return rest;
}

describe('manual load (flow)', () => {
  it('previews writing nothing, then applies the sheet once, as npm run import stores it; audited with counts only', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const load = staged(await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'events.csv', data: CSV }));
    expect(load).toMatchObject({ state: 'previewed', format: 'csv', rows: 9, fileName: 'events.csv', expiresAt: t.clock.now() + LOAD_PREVIEW_MS });
    expect(load.preview.events.map((e) => [e.externalReferenceId, e.outcome])).toEqual([
      ['tour-2026', 'created'],
      ['jazz-harbour-2026', 'created'],
    ]);
    expect(await eventCount(t, p.id)).toBe(0);

    const done = await applyLoad(t.deps, CTX, { partnerId: p.id, loadId: load.id, userId: 'cu_test' });
    expect(done.kind).toBe('applied');
    expect(await eventCount(t, p.id)).toBe(2);

    // The command, over the same sheet for another partner, stores the same events.
    const other = await t.partner('Other');
    await importEvents(t.deps, { partnerId: other.id, file: resolve(SAMPLES, 'events.csv') });
    for (const id of ['tour-2026', 'jazz-harbour-2026']) expect(await readBack(t, p.keys.private, id)).toEqual(await readBack(t, other.keys.private, id));

    const again = await applyLoad(t.deps, CTX, { partnerId: p.id, loadId: load.id, userId: 'cu_test' });
    expect(again.kind).toBe('already');
    const entries = await t.db.select().from(auditLog);
    expect(entries.map((e) => e.action)).toEqual([LOAD_APPLY_ACTION]);
    expect(entries[0]).toMatchObject({
      actorEmail: 'ana@acme.example',
      role: 'partner_admin',
      partnerId: p.id,
      target: load.id,
      after: { file: 'events.csv', rows: 9, events: 2, created: 2, updated: 0, rejected: 0, shows: 3, ticketOptions: 6, priceTypes: 4, combinations: 7 },
    });
    // Counts, never the sheet.
    expect(JSON.stringify(entries)).not.toContain('Arena Norte');
    // The sheet is not kept once applied.
    expect((await t.db.select().from(manualLoads))[0]!.sheet).toBeNull();
  });

  it('applies once when the same preview is applied twice at the same moment', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const load = staged(await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'events.csv', data: CSV }));
    const both = await Promise.all([0, 1].map(() => applyLoad(t.deps, CTX, { partnerId: p.id, loadId: load.id, userId: 'cu_test' })));
    expect(both.map((b) => b.kind).sort()).toEqual(['already', 'applied']);
    expect(await eventCount(t, p.id)).toBe(2);
    expect((await t.db.select().from(auditLog)).filter((e) => e.action === LOAD_APPLY_ACTION)).toHaveLength(1);
  });

  it('writes nothing of the sheet when a row is refused at apply time (the stored events changed since the preview)', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const load = staged(await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'events.csv', data: CSV }));
    // Meanwhile the partner's platform creates jazz-harbour-2026 with opt-ga in dollars: the sheet's EUR is now a currency change.
    const jazz = eventBody('jazz-harbour-2026', { shows: [{ ...showBody('jazz-2026-06-20'), ticketOptions: [{ ticketId: 'opt-ga', title: 'GA', description: '', currency: 'USD', price: 30 }] }] });
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: jazz })).status).toBe(200);
    const before = await readBack(t, p.keys.private, 'jazz-harbour-2026');

    const done = await applyLoad(t.deps, CTX, { partnerId: p.id, loadId: load.id, userId: 'cu_test' });
    expect(done.kind).toBe('refused');
    if (done.kind !== 'refused') return;
    expect(done.report.errors).toEqual([{ row: 9, column: 'currency', eventId: 'jazz-harbour-2026', message: "currency cannot change from USD on an existing ticket option; create a new option (found 'EUR')" }]);
    // tour-2026 had nothing wrong, yet it was not written either: the sheet is one transaction.
    expect((await t.request('GET', '/v1/events/tour-2026', { key: p.keys.private })).status).toBe(404);
    expect(await readBack(t, p.keys.private, 'jazz-harbour-2026')).toEqual(before);
    expect(await t.db.select().from(auditLog)).toEqual([]);
    // Still a preview: nothing was claimed.
    expect((await t.db.select().from(manualLoads))[0]).toMatchObject({ state: 'previewed', appliedAt: null });
  });

  it('keeps no sheet with a bad row, and cannot apply an expired or another partner’s preview', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const other = await t.partner('Other');
    const bad = await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'bad.csv', data: readFileSync(resolve(SAMPLES, 'events-bad.csv')) });
    expect(bad.kind).toBe('invalid');
    if (bad.kind === 'invalid') expect(bad.report.errors.map((e) => [e.row, e.column])).toEqual([[5, 'ticketOptionName'], [6, 'showDate'], [7, 'currency'], [8, 'ticketOptionId'], [9, 'eventId']]);
    expect(await t.db.select().from(manualLoads)).toEqual([]);
    expect(await eventCount(t, p.id)).toBe(0);
    expect(await previewLoad(t.deps, { partnerId: 'ptr_nobody', userId: 'cu_test', fileName: 'events.csv', data: CSV })).toEqual({ kind: 'no_partner' });

    const load = staged(await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'events.csv', data: CSV }));
    expect(await applyLoad(t.deps, CTX, { partnerId: other.id, loadId: load.id, userId: 'cu_test' })).toEqual({ kind: 'gone' });
    t.clock.advance(LOAD_PREVIEW_MS);
    expect(await applyLoad(t.deps, CTX, { partnerId: p.id, loadId: load.id, userId: 'cu_test' })).toEqual({ kind: 'gone' });
    expect(await eventCount(t, p.id)).toBe(0);
    // The next upload deletes what expired.
    staged(await previewLoad(t.deps, { partnerId: p.id, userId: 'cu_test', fileName: 'events.csv', data: CSV }));
    expect((await t.db.select().from(manualLoads)).map((l) => l.id)).not.toContain(load.id);
  });
});
