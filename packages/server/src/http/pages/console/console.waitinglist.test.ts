import { describe, expect, it } from 'vitest';
import type { Tx } from '../../../db/client.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import type { JoinInput, SettingsInput } from '../../../domain/waitinglist/waitinglist.model.js';
import { HISTORY_EXPORT_COLUMNS } from '../../../domain/waitinglist/waitinglist.service.js';
import { createTestApp, type TestApp, type TestPartner } from '../../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody, ticketBody, withEvent } from '../../../testing/factories.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { csrfFor, decoded, signIn, submit, withOperators } from './console.testing.js';
import { QUEUE_PAGE_SIZE } from './console.waitinglist.load.js';

const OPERATOR = 'ops@resale.test';
const SHOW = { externalReferenceEventId: 'tour', showId: 'show-1' };
const ON: SettingsInput = { enabled: true, priceCap: 'RULES' };

/**
 * Partner Acme with event `tour` (show-1 and show-2, in Europe/Madrid) and event `no-zone` (a
 * venue without a time zone), partner Other with `other-tour`; the operator signed in; helpers
 * that put fans in show-1's line through the service, as the API does.
 */
async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme');
  const other = await t.partner('Other');
  await withEvent(t, p, eventBody('tour', { title: 'The Big Tour', shows: [priceDetailShowBody('show-1'), showBody('show-2')] }));
  await withEvent(t, p, eventBody('no-zone', { location: { city: 'Madrid', venueName: 'Somewhere', country: 'ES' } }));
  await withEvent(t, other, eventBody('other-tour', { title: 'Secret tour' }));
  const ops = await signIn(t, OPERATOR);
  const tx = <T>(fn: (tx: Tx) => Promise<T>) => t.db.transact(fn);
  const wl = t.deps.waitingList;
  const fan = async (email: string) => (await tx(async (tx) => await t.deps.users.resolve(tx, p.id, { email }))).id;
  const settings = async (input: SettingsInput = ON) => await tx(async (tx) => await wl.putSettings(tx, p.id, SHOW, input));
  const join = async (email: string, over: Partial<JoinInput> = {}) => {
    const userPk = await fan(email);
    return await tx(async (tx) => await wl.join(tx, p.id, { ...SHOW, userPk, quantity: 1, maxPerBuyer: 4, together: false, ...over }));
  };
  const stored = async () => await t.db.read(async (tx) => await wl.getSettings(tx, p.id, SHOW));
  return { t, p, other, ops, tx, wl, settings, join, stored };
}

/** The page of a show's waiting list (`rest`: `/settings`, `.csv`, a query). */
const wlPage = (p: TestPartner, rest = '', eventId = 'tour', showId = 'show-1') => `/console/partners/${p.id}/events/${eventId}/shows/${showId}/waiting-list${rest}`;

/** The audit log, oldest first. */
const audit = async (t: TestApp) => (await t.db.read(async (tx) => await tx.select().from(auditLog))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** Invites `email` to `partnerId` with `role` through the console, and signs them in. */
async function member(t: TestApp, ops: TestBrowser, partnerId: string, email: string, role: string): Promise<TestBrowser> {
  const res = await submit(ops, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  return await signIn(t, email);
}

/** The rows of the line's table (between `#line` and `#history`), each row's cells as text. */
function lineRows(html: string): string[][] {
  const part = html.slice(html.indexOf('id="line"'), html.indexOf('id="history"'));
  const body = part.slice(part.indexOf('<tbody>'), part.indexOf('</tbody>'));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => decoded(m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim())));
}

/** The form's fields for the settings (all valid unless overridden). */
const form = (over: Record<string, string> = {}) => ({ enabled: 'on', offerMinutes: '20', quietStart: '22:00', quietEnd: '08:00', priceCap: 'FACE_VALUE', ...over });

describe('console waiting list: the page', () => {
  it('shows the settings, the figures, the line in join order (position, fan, tickets, category, state with the offer’s end, joined) and the history; the event page links to it', async () => {
    const { t, p, ops, settings, join } = await setup();
    expect((await ops.get(wlPage(p))).text).toContain('Never set: these are the defaults (off).');
    await settings({ enabled: true, priceCap: 'RULES', offerMinutes: 30 });
    await join('ana@example.com', { quantity: 2, together: false });
    await join('ben@example.com', { ticketOptionId: 'opt-vip' });
    await join('cat@example.com');
    // A single field ticket for sale: Ana waits for two and Ben for VIP, so Cat is offered it.
    expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('f1', { buyer: 'seller@example.com' })] })).status).toBe(200);
    const f1 = await t.deps.tickets.get(t.db, p.id, 'f1');
    await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: f1.ownerPk, ticketPks: [f1.id], priceMinor: 4000 }));

    const res = await ops.get(wlPage(p));
    expect(res.status).toBe(200);
    expect(res.text).toContain('Waiting list: Night show-1');
    expect(res.text).toContain(`<a href="/console/partners/${p.id}/events" aria-current="page">Events</a>`);
    expect(res.text).toMatch(/In the line<\/p><p class="stat-value">3</);
    expect(res.text).toMatch(/Holding an offer<\/p><p class="stat-value">1</);
    expect(res.text).toMatch(/Offer window<\/p><p class="stat-value">30 min</);
    const rows = lineRows(res.text);
    expect(rows.map((r) => r.slice(0, 4))).toEqual([
      ['1', 'ana@example.com', '2', 'any'],
      ['2', 'ben@example.com', '1', 'VIP opt-vip'],
      ['3', 'cat@example.com', '1', 'any'],
    ]);
    expect(rows[0]![4]).toBe('waiting');
    // Madrid is UTC+2 in April: the offer ends 30 minutes after the test clock.
    expect(rows[2]![4]).toMatch(/^offered until .*\d{2}:\d{2}/);
    expect(rows[2]![5]).toMatch(/\d{4}/);
    // The history, newest first: the offer, then the joins.
    const history = res.text.slice(res.text.indexOf('id="history"'));
    expect(history).toContain('offered tickets');
    expect(history).toContain('at position 3');
    expect(history).toContain(`href="${wlPage(p, '.csv')}"`);
    // The form, filled with the stored settings.
    expect(res.text).toMatch(/<input type="radio" id="f-enabled" name="enabled" value="on" checked=""/);
    expect(res.text).toContain('value="30"');
    expect(res.text).toMatch(/name="priceCap" value="RULES" checked=""/);
    expect(res.text).toContain('Europe/Madrid');

    // The event page tells the show's line and links here.
    const event = await ops.get(`/console/partners/${p.id}/events/tour?show=show-1`);
    expect(event.text).toContain('On: 3 fans in the line.');
    expect(event.text).toContain(`href="${wlPage(p)}"`);
    expect((await ops.get(`/console/partners/${p.id}/events/tour?show=show-2`)).text).toContain('Off.');
    // In Spanish.
    const es = await ops.get(`${wlPage(p)}?lang=es`);
    expect(es.text).toContain('Lista de espera: Night show-1');
    expect(es.text).toContain('esperando');
  });

  it('pages the line 50 at a time (positions run on), clamps the page, and finds a fan by e-mail with their position', async () => {
    const { t, p, ops, wl, settings } = await setup();
    await settings();
    const total = QUEUE_PAGE_SIZE * 2 + 20;
    // One transaction for the whole line: joining is what the API does, many times.
    await t.db.transact(async (tx) => {
      for (let i = 1; i <= total; i++) {
        const user = await t.deps.users.resolve(tx, p.id, { email: `fan-${String(i).padStart(3, '0')}@example.com` });
        await wl.join(tx, p.id, { ...SHOW, userPk: user.id, quantity: 1, maxPerBuyer: 4, together: false });
      }
    });
    const first = await ops.get(wlPage(p));
    const rows = lineRows(first.text);
    expect(rows).toHaveLength(QUEUE_PAGE_SIZE);
    expect(rows[0]!.slice(0, 2)).toEqual(['1', 'fan-001@example.com']);
    expect(rows.at(-1)!.slice(0, 2)).toEqual(['50', 'fan-050@example.com']);
    expect(first.text).not.toContain('fan-051@example.com');
    expect(first.text).toContain('Page 1 of 3');
    expect(first.text).toContain(`href="${wlPage(p, '?page=2')}#line"`);
    expect(first.text).toContain(`href="${wlPage(p, '?page=3')}#line"`);

    const last = await ops.get(wlPage(p, '?page=3'));
    expect(lineRows(last.text).map((r) => r[0])).toEqual(Array.from({ length: 20 }, (_, i) => String(101 + i)));
    expect(last.text).toContain('Page 3 of 3');
    expect(last.text).not.toContain('Next page');
    // Past the end: the last page; nonsense: the first.
    expect(lineRows((await ops.get(wlPage(p, '?page=99'))).text)[0]![0]).toBe('101');
    expect(lineRows((await ops.get(wlPage(p, '?page=abc'))).text)[0]![0]).toBe('1');

    // A fan ahead leaves: everyone behind moves up.
    const ahead = (await t.db.read(async (tx) => await wl.entriesOf(tx, p.id, (await t.deps.users.find(tx, p.id, 'fan-002@example.com'))!.id)))[0]!;
    await t.db.transact(async (tx) => await wl.leave(tx, p.id, ahead.id));
    const moved = lineRows((await ops.get(wlPage(p, '?page=2'))).text);
    expect(moved[0]!.slice(0, 2)).toEqual(['51', 'fan-052@example.com']);

    // Found by e-mail, whatever its case, with the position.
    const found = await ops.get(wlPage(p, `?fan=${encodeURIComponent('FAN-077@example.com')}`));
    expect(lineRows(found.text).map((r) => r.slice(0, 2))).toEqual([['76', 'fan-077@example.com']]);
    expect(found.text).toContain('Show the whole line');
    expect((await ops.get(wlPage(p, '?fan=nobody%40example.com'))).text).toContain('No fan with the e-mail “nobody@example.com” is in this line.');
    expect((await ops.get(wlPage(p, '?fan=fan-002%40example.com'))).text).toContain('No fan with the e-mail');
  });

  it('answers 404 for an unknown event or show and for another partner’s event, and sends the signed-out to sign in', async () => {
    const { t, p, other, ops } = await setup();
    expect((await ops.get(wlPage(p, '', 'tour', 'show-9'))).status).toBe(404);
    expect((await ops.get(wlPage(p, '', 'nope'))).status).toBe(404);
    expect((await ops.get(wlPage(p, '.csv', 'tour', 'show-9'))).status).toBe(404);
    // Another partner's event under this partner's path, and this partner's from another's people.
    expect((await ops.get(wlPage(p, '', 'other-tour'))).status).toBe(404);
    const stranger = await member(t, ops, other.id, 'cy@other.example', 'partner_admin');
    expect((await stranger.get(wlPage(p))).status).toBe(404);
    expect((await stranger.get(wlPage(p, '.csv'))).status).toBe(404);
    const out = await new TestBrowser(t.app).get(wlPage(p));
    expect(out.status).toBe(303);
    expect(out.location).toContain('/console/sign-in?next=');
  });
});

describe('console waiting list: the settings', () => {
  it('saves the settings through the service and audits the change (waitinglist.settings.set, before → after) in its transaction', async () => {
    const { t, p, ops, stored } = await setup();
    const res = await submit(ops, wlPage(p), wlPage(p, '/settings'), form({ quietEnd: '8:00' }));
    expect(res.status, res.text.slice(0, 500)).toBe(303);
    expect(res.location).toBe(`${wlPage(p)}?saved=1#settings`);
    expect(await stored()).toMatchObject({ enabled: true, offerMinutes: 20, quietHours: { start: '22:00', end: '08:00', timeZone: 'Europe/Madrid' }, priceCap: 'FACE_VALUE' });
    const entries = await audit(t);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'waitinglist.settings.set',
      partnerId: p.id,
      target: 'tour/show-1',
      actorKind: 'console',
      before: { enabled: false, offerMinutes: 15, priceCap: 'RULES', 'quietHours.start': null },
      after: { enabled: true, offerMinutes: 20, priceCap: 'FACE_VALUE', 'quietHours.start': '22:00', 'quietHours.end': '08:00', 'quietHours.timeZone': 'Europe/Madrid' },
    });
    const after = await ops.get(res.location!);
    expect(after.text).toContain('Waiting list settings saved.');
    expect(after.text).toContain('value="22:00"');

    // Quiet hours emptied, turned off: only what changed is recorded.
    expect((await submit(ops, wlPage(p), wlPage(p, '/settings'), form({ enabled: 'off', quietStart: '', quietEnd: '' }))).status).toBe(303);
    expect(await stored()).toMatchObject({ enabled: false, offerMinutes: 20, quietHours: null });
    const second = (await audit(t))[1]!;
    expect(second.before).toEqual({ enabled: true, 'quietHours.start': '22:00', 'quietHours.end': '08:00', 'quietHours.timeZone': 'Europe/Madrid' });
    expect(second.after).toEqual({ enabled: false, 'quietHours.start': null, 'quietHours.end': null, 'quietHours.timeZone': null });
    // An empty offer window is the default.
    expect((await submit(ops, wlPage(p), wlPage(p, '/settings'), form({ offerMinutes: '' }))).status).toBe(303);
    expect((await stored()).offerMinutes).toBe(15);
  });

  it.each([
    ['an offer window under 5 minutes', { offerMinutes: '4' }, ['offerMinutes'], 'Enter a whole number of minutes from 5 to 1440.'],
    ['an offer window that is no number', { offerMinutes: 'abc' }, ['offerMinutes'], 'Enter a whole number of minutes from 5 to 1440.'],
    ['an offer window of a fraction', { offerMinutes: '15.5' }, ['offerMinutes'], 'Enter a whole number of minutes from 5 to 1440.'],
    ['an offer window over a day', { offerMinutes: '1441' }, ['offerMinutes'], 'Enter a whole number of minutes from 5 to 1440.'],
    ['a start that is no time', { quietStart: '25:00' }, ['quietStart'], 'Enter a time of day as HH:MM, such as 22:00.'],
    ['an end that is no time', { quietEnd: 'eight' }, ['quietEnd'], 'Enter a time of day as HH:MM, such as 08:00.'],
    ['one time without the other', { quietEnd: '' }, ['quietEnd'], 'Enter both times, or neither.'],
    ['a window that ends as it starts', { quietEnd: '22:00' }, ['quietEnd'], 'The quiet hours must end at another time than they start.'],
    ['no choice of on or off', { enabled: '' }, ['enabled'], 'Choose on or off.'],
    ['an unknown price cap', { priceCap: 'CHEAP' }, ['priceCap'], 'Choose a price cap.'],
  ])('refuses %s (400, the error on its field, the typed values kept, nothing written)', async (_what, over, fields, message) => {
    const { t, p, ops, stored } = await setup();
    const res = await submit(ops, wlPage(p), wlPage(p, '/settings'), form(over));
    expect(res.status).toBe(400);
    expect(res.text).toContain(message);
    for (const field of fields) expect(res.text).toContain(`href="#f-${field}"`);
    for (const [name, value] of Object.entries(over)) if (name !== 'enabled' && name !== 'priceCap' && value !== '') expect(res.text).toContain(`value="${value}"`);
    expect((await stored()).updatedAt).toBeNull();
    expect(await audit(t)).toEqual([]);
  });

  it('names every error at once, keeps what was typed, and writes nothing', async () => {
    const { t, p, ops, stored } = await setup();
    const res = await submit(ops, wlPage(p), wlPage(p, '/settings'), { enabled: 'maybe', offerMinutes: 'abc', quietStart: '25:00', quietEnd: '', priceCap: 'CHEAP' });
    expect(res.status).toBe(400);
    const summary = res.text.slice(res.text.indexOf('class="error-summary"'), res.text.indexOf('</ul>', res.text.indexOf('class="error-summary"')));
    expect([...summary.matchAll(/href="#f-([A-Za-z]+)"/g)].map((m) => m[1])).toEqual(['enabled', 'offerMinutes', 'quietStart', 'quietEnd', 'priceCap']);
    expect(res.text).toContain('value="abc"');
    expect(res.text).toContain('value="25:00"');
    expect((await stored()).updatedAt).toBeNull();
    expect(await audit(t)).toEqual([]);
  });

  it('says on the quiet hours that a venue without a time zone cannot take them (the service’s refusal), and saves without them', async () => {
    const { t, p, ops } = await setup();
    const page = wlPage(p, '', 'no-zone');
    expect((await ops.get(page)).text).toContain('The venue has no time zone');
    const res = await submit(ops, page, wlPage(p, '/settings', 'no-zone'), form());
    expect(res.status).toBe(400);
    expect(res.text).toContain('href="#f-quietStart"');
    expect(res.text).toContain('The venue has no time zone, so quiet hours cannot be set here');
    expect(await audit(t)).toEqual([]);
    expect((await submit(ops, page, wlPage(p, '/settings', 'no-zone'), form({ quietStart: '', quietEnd: '' }))).status).toBe(303);
    expect((await audit(t)).map((a) => a.target)).toEqual(['no-zone/show-1']);
  });

  it('shows a viewer the settings read-only and refuses their post (403) and a developer’s, as it refuses a post without its CSRF token and an unknown show’s (404)', async () => {
    const { t, p, ops, stored, settings } = await setup();
    await settings({ enabled: true, priceCap: 'FACE_VALUE', quietHours: { start: '23:00', end: '07:30' } });
    const viewer = await member(t, ops, p.id, 'viewer@acme.example', 'viewer');
    const page = await viewer.get(wlPage(p));
    expect(page.status).toBe(200);
    expect(page.text).toContain('You can read this waiting list; your role cannot change it.');
    expect(page.text).toContain('23:00 to 07:30 (Europe/Madrid)');
    expect(page.text).not.toContain('<form method="post" action="/console/partners');
    const action = wlPage(p, '/settings');
    const before = await stored();
    const refused = await viewer.post(action, { ...form({ enabled: 'off' }), _csrf: await csrfFor(t, viewer, action) });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Your role cannot do this here');
    const developer = await member(t, ops, p.id, 'dev@acme.example', 'developer');
    expect((await developer.post(action, { ...form({ enabled: 'off' }), _csrf: await csrfFor(t, developer, action) })).status).toBe(403);
    // Without a token, or with another form's: 403.
    expect((await ops.post(action, form({ enabled: 'off' }))).status).toBe(403);
    expect((await ops.post(action, { ...form({ enabled: 'off' }), _csrf: await csrfFor(t, ops, wlPage(p, '/settings', 'tour', 'show-2')) })).status).toBe(403);
    // An unknown show, with a token good for its path: 404.
    const unknown = wlPage(p, '/settings', 'tour', 'show-9');
    expect((await ops.post(unknown, { ...form(), _csrf: await csrfFor(t, ops, unknown) })).status).toBe(404);
    const elsewhere = wlPage(p, '/settings', 'other-tour');
    expect((await ops.post(elsewhere, { ...form(), _csrf: await csrfFor(t, ops, elsewhere) })).status).toBe(404);
    expect(await stored()).toEqual(before);
    expect((await audit(t)).filter((a) => a.action === 'waitinglist.settings.set')).toEqual([]);
    // A partner admin may.
    const admin = await member(t, ops, p.id, 'admin@acme.example', 'partner_admin');
    expect((await submit(admin, wlPage(p), action, form({ enabled: 'off' }))).status).toBe(303);
    expect((await stored()).enabled).toBe(false);
  });
});

describe('console waiting list: the CSV', () => {
  it('downloads the show’s whole history as the operator’s export does (same columns, same file), e-mails with commas and quotes escaped, for whoever reads the partner', async () => {
    const { t, p, other, ops, settings, join, wl } = await setup();
    await settings();
    const odd = '"o\'neil, jr"@example.com';
    const a = await join(odd, { quantity: 2 });
    await join('=cmd@example.com', { ticketOptionId: 'opt-vip' });
    await t.db.transact(async (tx) => await wl.leave(tx, p.id, a.id));

    const res = await ops.get(wlPage(p, '.csv'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="waitinglist-${p.id}-tour-show-1.csv"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const lines = res.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe(HISTORY_EXPORT_COLUMNS.join(','));
    expect(lines.at(-1)).toBe('');
    const rows = lines.slice(1, -1);
    expect(rows).toHaveLength(3);
    // The quotes doubled, the cell quoted (it holds a comma); the would-be formula neutralised.
    expect(rows[0]).toMatch(new RegExp(`^1,[^,]+,joined,${a.id},1,,"""o'neil, jr""@example.com","""o'neil, jr""@example.com",,,2,false,,$`));
    expect(rows[1]).toMatch(/^2,[^,]+,joined,wle_\w+,2,,'=cmd@example.com,'=cmd@example.com,,opt-vip,1,false,,$/);
    expect(rows[2]).toMatch(new RegExp(`^3,[^,]+,left,${a.id},1,,.*,left$`));

    // The operator API answers the same file, byte for byte.
    const api = await t.request('GET', `/admin/v1/partners/${p.id}/waitinglist?${new URLSearchParams({ ...SHOW, format: 'csv' })}`, { operator: true });
    expect(api.status).toBe(200);
    expect(api.body).toBe(res.text);

    // Every role that reads the partner downloads it; another partner's people and the signed-out do not.
    const viewer = await member(t, ops, p.id, 'viewer@acme.example', 'viewer');
    expect((await viewer.get(wlPage(p, '.csv'))).status).toBe(200);
    const stranger = await member(t, ops, other.id, 'cy@other.example', 'partner_admin');
    expect((await stranger.get(wlPage(p, '.csv'))).status).toBe(404);
    expect((await new TestBrowser(t.app).get(wlPage(p, '.csv'))).status).toBe(303);
    // A show never set has only the header.
    const empty = await ops.get(wlPage(p, '.csv', 'tour', 'show-2'));
    expect(empty.text.replace(/^\uFEFF/, '')).toBe(`${HISTORY_EXPORT_COLUMNS.join(',')}\r\n`);
  });
});
