import ExcelJS from 'exceljs';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { events } from '../../../domain/events/events.table.js';
import { manualLoads } from '../../../domain/loads/loads.table.js';
import { LOAD_PREVIEW_MS } from '../../../domain/loads/loads.store.js';
import { hashSecret } from '../../../lib/crypto.js';
import { createTestApp, type TestApp } from '../../../testing/harness.js';
import { csrfOf, TestBrowser, type BrowserResponse } from '../auth/auth.testing.js';
import { signIn, submit, withOperators } from './console.testing.js';

/**
 * The manual load tab over HTTP: an upload (multipart, with the form's CSRF token) answers the
 * preview or every bad row and cell; nothing is written before the apply; the apply writes the
 * whole sheet once. Limits, types by content, roles, another partner, CSRF.
 */

const OPERATOR = 'ops@resale.test';
const ADMIN = 'ana@acme.example';
const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../docs/samples');
const CSV = readFileSync(resolve(SAMPLES, 'events.csv'), 'utf8');
const XLSX = readFileSync(resolve(SAMPLES, 'events.xlsx'));

/** The sample CSV with row `row` (spreadsheet numbering) changed by `edit`. */
function csvWith(row: number, edit: (line: string) => string): string {
  const lines = CSV.split('\n');
  lines[row - 1] = edit(lines[row - 1]!);
  return lines.join('\n');
}

/** An operator, a partner (Acme) with a partner admin signed in, and another partner. */
async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme');
  const other = await t.partner('Other');
  const ops = await signIn(t, OPERATOR);
  await invite(ops, p.id, ADMIN, 'partner_admin');
  const admin = await signIn(t, ADMIN);
  return { t, p, other, ops, admin };
}

async function invite(operator: TestBrowser, partnerId: string, email: string, role: string) {
  const res = await submit(operator, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
  expect(res.status, res.text.slice(0, 300)).toBe(303);
}

/** Posts `form` as multipart/form-data with the browser's cookies, as a browser submits a file. */
async function postMultipart(t: TestApp, browser: TestBrowser, url: string, form: FormData): Promise<BrowserResponse> {
  const headers: Record<string, string> = { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  const res = await t.app.request(url, { method: 'POST', headers, body: form }, { incoming: { socket: { remoteAddress: browser.ip } } });
  return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location'), setCookies: res.headers.getSetCookie() };
}

/** Opens the load tab and uploads `data` as `name` with the form's token (or `csrf` when given; null: none). */
async function upload(t: TestApp, browser: TestBrowser, partnerId: string, name: string, data: string | Buffer, csrf?: string | null): Promise<BrowserResponse> {
  const action = `/console/partners/${partnerId}/load`;
  const token = csrf === undefined ? csrfOf((await browser.get(action)).text, action) : csrf;
  const form = new FormData();
  if (token) form.set('_csrf', token);
  form.set('sheet', new File([typeof data === 'string' ? data : new Uint8Array(data)], name, { type: name.endsWith('.xlsx') ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv' }));
  return postMultipart(t, browser, action, form);
}

/** Follows an upload's redirect to its preview and posts its apply form. */
async function applyFrom(browser: TestBrowser, previewUrl: string): Promise<BrowserResponse> {
  const action = `${previewUrl}/apply`;
  return submit(browser, previewUrl, action, {});
}

async function eventCount(t: TestApp, partnerId: string): Promise<number> {
  return (await t.db.select({ n: count() }).from(events).where(eq(events.partnerId, partnerId)).limit(1))[0]!.n;
}

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form no page shows it). */
async function csrfFor(t: TestApp, browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

describe('console manual load', () => {
  it('previews a CSV writing nothing, applies it once, shows what each event became; a second apply does nothing twice; audited', async () => {
    const { t, p, admin } = await setup();
    const tab = await admin.get(`/console/partners/${p.id}/load`);
    expect(tab.status).toBe(200);
    expect(tab.text).toContain('aria-current="page">Manual load</a>');
    expect(tab.text).toContain('enctype="multipart/form-data"');

    const sent = await upload(t, admin, p.id, 'events.csv', CSV);
    expect(sent.status, sent.text.slice(0, 500)).toBe(303);
    const previewUrl = sent.location!;
    expect(previewUrl).toMatch(new RegExp(`^/console/partners/${p.id}/load/mld_`));
    const preview = await admin.get(previewUrl);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Preview of events.csv');
    expect(preview.text).toContain('Nothing has been written yet');
    expect(preview.text).toMatch(/Events<\/th><td class="num">2 \(2 new, 0 updated\)/);
    expect(preview.text).toMatch(/Shows<\/th><td class="num">3</);
    expect(preview.text).toMatch(/Ticket options<\/th><td class="num">6</);
    expect(preview.text).toContain('<code>tour-2026</code></td><td>creates it</td><td>2–8</td>');
    expect(preview.text).toContain('Apply 2 event(s)');
    expect(await eventCount(t, p.id)).toBe(0);

    const applied = await applyFrom(admin, previewUrl);
    expect(applied.status, applied.text.slice(0, 500)).toBe(303);
    expect(applied.location).toBe(`${previewUrl}?done=1`);
    const result = await admin.get(applied.location!);
    expect(result.text).toContain('Applied: 2 event(s) created, 0 updated.');
    expect(result.text).toContain('<code>jazz-harbour-2026</code></td><td>created</td>');
    expect(await eventCount(t, p.id)).toBe(2);
    expect((await t.request('GET', '/v1/events/tour-2026', { key: p.keys.private })).body.data.title).toBe('The Big Tour 2026');

    // The same form posted again (a double click, a resent form): nothing is applied twice.
    const again = await admin.post(`${previewUrl}/apply`, { _csrf: await csrfFor(t, admin, `${previewUrl}/apply`) });
    expect(again.status).toBe(303);
    expect(again.location).toBe(`${previewUrl}?again=1`);
    expect((await admin.get(again.location!)).text).toContain('nothing was applied again');
    const entries = await t.db.read(async (tx) => await tx.select().from(auditLog).where(eq(auditLog.action, 'load.apply')));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorKind: 'console', actorEmail: ADMIN, role: 'partner_admin', partnerId: p.id, after: { file: 'events.csv', events: 2, created: 2, updated: 0, rows: 9 } });
    // The tab lists the load as applied.
    expect((await admin.get(`/console/partners/${p.id}/load`)).text).toMatch(/events\.csv<\/a>.*applied/s);
  });

  it('reads an Excel workbook (by its content, whatever its name), and a second load of the same events updates them', async () => {
    const { t, p, ops } = await setup();
    const first = await upload(t, ops, p.id, 'events.xlsx', XLSX);
    expect(first.status).toBe(303);
    expect((await applyFrom(ops, first.location!)).status).toBe(303);
    expect(await eventCount(t, p.id)).toBe(2);
    // A CSV named .xlsx is read as the CSV it is.
    const second = await upload(t, ops, p.id, 'really-a-csv.xlsx', CSV);
    expect(second.status).toBe(303);
    expect((await ops.get(second.location!)).text).toMatch(/Events<\/th><td class="num">2 \(0 new, 2 updated\)/);
    expect((await applyFrom(ops, second.location!)).status).toBe(303);
    expect(await eventCount(t, p.id)).toBe(2);
    expect((await t.db.read(async (tx) => await tx.select().from(auditLog).where(eq(auditLog.action, 'load.apply')))).map((e) => (e.after as { updated: number }).updated).sort()).toEqual([0, 2]);
  });

  it('refuses a sheet with one bad row, naming its row and cell, writing and keeping nothing; the corrected sheet is applied', async () => {
    const { t, p, admin } = await setup();
    const bad = csvWith(4, (line) => line.replace(',EUR,Lounge,', ',EUX,Lounge,'));
    const refused = await upload(t, admin, p.id, 'events.csv', bad);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('The sheet has 1 problem(s)');
    expect(refused.text).toContain('Nothing was written');
    expect(refused.text).toContain('<td class="num">4</td><td><code>currency</code></td><td class="long">tour-2026</td><td class="long">currency must be an ISO 4217 currency code such as EUR (found &#39;EUX&#39;)</td>');
    expect(refused.text).toContain('href="#problems">Row 4 (currency)</a>');
    expect(await eventCount(t, p.id)).toBe(0);
    expect(await t.db.select().from(manualLoads)).toEqual([]);

    // A row the service refuses (a new ticket option without a name) is found by the preview too.
    const unnamed = await upload(t, admin, p.id, 'events.csv', csvWith(10, (line) => line.replace(',Table for two,', ',,')));
    expect(unnamed.status).toBe(422);
    expect(unnamed.text).toContain('<td class="num">10</td><td><code>ticketOptionName</code></td>');
    expect(await eventCount(t, p.id)).toBe(0);

    const fixed = await upload(t, admin, p.id, 'events.csv', CSV);
    expect(fixed.status).toBe(303);
    expect((await applyFrom(admin, fixed.location!)).status).toBe(303);
    expect(await eventCount(t, p.id)).toBe(2);
  });

  it('refuses a file over the size or row limit, of the wrong type, empty or unreadable, each with a clear error', async () => {
    const { t, p, admin } = await setup();
    // The test app's MAX_BODY_BYTES is 256 KiB: a file may take it all but 64 KiB (196,608 bytes).
    const big = `eventId,showId,ticketOptionId,eventDescription\n${`e,s,o,${'x'.repeat(1000)}\n`.repeat(200)}`;
    const tooBig = await upload(t, admin, p.id, 'big.csv', big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.text).toContain('The file is larger than 197 KB: split the sheet.');
    expect(tooBig.text).toContain('href="#f-sheet"');
    expect(tooBig.text).toContain('aria-invalid="true"');

    // Over MAX_BODY_BYTES itself: refused before anything reads it, as a page (not the API's JSON), in the person's language.
    const huge = await upload(t, admin, p.id, 'huge.csv', `eventId,showId,ticketOptionId\n${'e,s,o\n'.repeat(60_000)}`);
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toContain('text/html');
    expect(huge.text).toContain('That is too large');
    expect(huge.text).toContain('larger than the 263 KB we accept at once');
    expect(await t.db.select().from(manualLoads)).toEqual([]);

    const rows = `eventId,showId,ticketOptionId\n${Array.from({ length: 5001 }, (_, i) => `e,s,o${i}`).join('\n')}\n`;
    const tooMany = await upload(t, admin, p.id, 'rows.csv', rows);
    expect(tooMany.status).toBe(413);
    expect(tooMany.text).toContain('The sheet has 5,001 rows; at most 5,000 are loaded at once: split it.');

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const image = await upload(t, admin, p.id, 'events.csv', png);
    expect(image.status).toBe(415);
    expect(image.text).toContain('This file is not a CSV or an Excel workbook (.xlsx).');
    const xls = await upload(t, admin, p.id, 'events.xls', Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]));
    expect(xls.status).toBe(415);
    expect(xls.text).toContain('Excel 97–2003 workbook (.xls)');
    const latin1 = await upload(t, admin, p.id, 'events.csv', Buffer.from('eventId,showId,ticketOptionId,eventTitle\ne,s,o,Caf\xe9\n', 'latin1'));
    expect(latin1.status).toBe(415);
    expect(latin1.text).toContain('The CSV is not UTF-8');
    const broken = await upload(t, admin, p.id, 'events.csv', 'eventId,showId,ticketOptionId\ne,s,o\n"open,s,o\n');
    expect(broken.status).toBe(422);
    expect(broken.text).toContain('The file cannot be read as a sheet (row 3)');
    const empty = await upload(t, admin, p.id, 'empty.csv', '');
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('The file is empty.');
    // No file at all (a form posted without one).
    const action = `/console/partners/${p.id}/load`;
    const none = await admin.post(action, { _csrf: await csrfFor(t, admin, action) });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Choose a CSV or .xlsx file.');
    // In Spanish.
    expect((await admin.get(`${action}?lang=es`)).text).toContain('Carga manual');
    const es = await upload(t, admin, p.id, 'events.csv', png);
    expect(es.status).toBe(415);
    expect(es.text).toContain('Este archivo no es un CSV ni un libro de Excel (.xlsx).');
    expect(await eventCount(t, p.id)).toBe(0);
    expect(await t.db.select().from(manualLoads)).toEqual([]);
  });

  it('answers the tab and its forms to partner admins and operators only: 403 for a developer or a viewer, 404 for another partner; no CSRF token, 403', async () => {
    const { t, p, other, ops, admin } = await setup();
    await invite(ops, p.id, 'dev@acme.example', 'developer');
    await invite(ops, p.id, 'viewer@acme.example', 'viewer');
    const staged = await upload(t, admin, p.id, 'events.csv', CSV);
    const previewUrl = staged.location!;
    for (const email of ['dev@acme.example', 'viewer@acme.example']) {
      const who = await signIn(t, email);
      expect((await who.get(`/console/partners/${p.id}`)).text, email).not.toContain('Manual load');
      expect((await who.get(`/console/partners/${p.id}/load`)).status, email).toBe(403);
      expect((await who.get(previewUrl)).status, email).toBe(403);
      const action = `/console/partners/${p.id}/load`;
      const posted = await upload(t, who, p.id, 'events.csv', CSV, await csrfFor(t, who, action));
      expect(posted.status, email).toBe(403);
      expect(posted.text).toContain('Your role cannot do this here');
      const apply = await who.post(`${previewUrl}/apply`, { _csrf: await csrfFor(t, who, `${previewUrl}/apply`) });
      expect(apply.status, email).toBe(403);
    }
    // Acme's admin and another partner: as unknown.
    const foreign = `/console/partners/${other.id}/load`;
    expect((await admin.get(foreign)).status).toBe(404);
    expect((await upload(t, admin, other.id, 'events.csv', CSV, await csrfFor(t, admin, foreign))).status).toBe(404);
    // Acme's load under another partner's path (as the operator, who sees both): gone.
    const loadId = previewUrl.split('/').at(-1)!;
    expect((await ops.get(`/console/partners/${other.id}/load/${loadId}`)).status).toBe(404);
    const crossApply = `/console/partners/${other.id}/load/${loadId}/apply`;
    expect((await ops.post(crossApply, { _csrf: await csrfFor(t, ops, crossApply) })).status).toBe(404);
    // Without the form's token, or with another form's.
    expect((await upload(t, admin, p.id, 'events.csv', CSV, null)).status).toBe(403);
    expect((await upload(t, admin, p.id, 'events.csv', CSV, await csrfFor(t, admin, `/console/partners/${p.id}/team`))).status).toBe(403);
    expect((await admin.post(`${previewUrl}/apply`, {})).status).toBe(403);
    expect(await eventCount(t, p.id)).toBe(0);
    expect(await eventCount(t, other.id)).toBe(0);
  });

  it('says a preview is gone once it expired, and applies nothing', async () => {
    const { t, p, admin } = await setup();
    const staged = await upload(t, admin, p.id, 'events.csv', CSV);
    const previewUrl = staged.location!;
    t.clock.advance(LOAD_PREVIEW_MS);
    // The console session would have ended after 30 idle minutes: sign in again.
    const back = await signIn(t, ADMIN);
    expect((await back.get(previewUrl)).status).toBe(404);
    const late = await back.post(`${previewUrl}/apply`, { _csrf: await csrfFor(t, back, `${previewUrl}/apply`) });
    expect(late.status).toBe(404);
    expect(late.text).toContain('That preview is gone');
    expect(await eventCount(t, p.id)).toBe(0);
  });

  it('reads a workbook with a bad cell and names its row and column', async () => {
    const { t, p, admin } = await setup();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('events');
    ws.addRow(['eventId', 'eventTitle', 'showId', 'showDate', 'ticketOptionId', 'ticketOptionName', 'price', 'currency']);
    ws.addRow(['xl-1', 'From Excel', 's1', '2026-09-01T20:00:00+02:00', 'o1', 'Stalls', 20, 'EUR']);
    ws.addRow(['xl-1', 'From Excel', 's1', '2026-09-01T20:00:00+02:00', 'o2', 'Box', 'twenty', 'EUR']);
    const refused = await upload(t, admin, p.id, 'sheet.xlsx', Buffer.from(await wb.xlsx.writeBuffer()));
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<td class="num">3</td><td><code>price</code></td>');
    expect(await eventCount(t, p.id)).toBe(0);
  });
});
