import { describe, expect, it } from 'vitest';
import { MAX_DOORS_PER_SHOW } from '../../../domain/admission/admission.doors.js';
import { admissionDoors } from '../../../domain/admission/admission.table.js';
import type { AuditContext } from '../../../domain/audit/audit.service.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { createDoor } from '../../../flows/console-doors.js';
import { createTestApp, type TestApp, type TestPartner } from '../../../testing/harness.js';
import { eventBody, showBody, withEvent, withRotatingCodes } from '../../../testing/factories.js';
import { TestBrowser, type BrowserResponse } from '../auth/auth.testing.js';
import { csrfFor, signIn, submit, withOperators } from './console.testing.js';

/**
 * The doors panel of a show on the console's event page: a door link made (shown once, and it
 * opens the door API), refused (its name, the doors a show may have, the role, the CSRF token,
 * another partner's or show's), revoked, and the list's statuses as the clock passes the end of
 * the links (12 hours after the show starts). The test clock starts at 2026-03-01T12:00:00Z;
 * show-1 starts 2026-05-01T19:00Z, show-2 2026-06-01T19:00Z.
 */

const OPERATOR = 'ops@resale.test';
const ADMIN = 'ana@acme.example';
/** When a door of show-1 stops working: 12 hours after it starts. */
const SHOW_1_DOORS_END = Date.parse('2026-05-02T07:00:00Z');

/**
 * Partner Acme with event `tour` (show-1, show-2: rotating codes), and partner Other with its
 * own `tour` and `other-tour`; the operator and Acme's partner admin signed in.
 */
async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme');
  const other = await t.partner('Other');
  await withEvent(t, p, eventBody('tour', { shows: [showBody('show-1'), showBody('show-2', { date: '2026-06-01T21:00:00+02:00' })] }));
  await withRotatingCodes(t, p);
  await withEvent(t, other, eventBody('tour', { shows: [showBody('show-1')] }));
  await withEvent(t, other, eventBody('other-tour', { title: 'Secret tour' }));
  const ops = await signIn(t, OPERATOR);
  const admin = await member(t, ops, p.id, ADMIN, 'partner_admin');
  return { t, p, other, ops, admin };
}

const page = (p: TestPartner, path = '') => `/console/partners/${p.id}/events${path}`;
/** Where a show's door form posts (`doorId`: a door's revoke form). */
const doorsAction = (p: TestPartner, showId = 'show-1', doorId?: string, eventId = 'tour') => page(p, `/${eventId}/shows/${showId}/doors${doorId === undefined ? '' : `/${doorId}/revoke`}`);

/** Invites `email` to `partnerId` with `role` through the console, and signs them in. */
async function member(t: TestApp, ops: TestBrowser, partnerId: string, email: string, role: string): Promise<TestBrowser> {
  const res = await submit(ops, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  return await signIn(t, email);
}

/** The door link a page shows (in its read-only field), or null. */
const linkOf = (html: string): string | null => /<input id="door-link" type="text" value="([^"]+)"/.exec(html)?.[1] ?? null;

/** Makes a door of `showId` through the console's form as `browser`; its link and token. */
async function makeDoor(browser: TestBrowser, p: TestPartner, label: string, showId = 'show-1'): Promise<{ res: BrowserResponse; link: string; token: string }> {
  const res = await submit(browser, page(p, `/tour?show=${showId}`), doorsAction(p, showId), { label });
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  const link = linkOf(res.text)!;
  return { res, link, token: link.split('#')[1]! };
}

/** The rows of the doors table on an event page, each as its cells' text (name, made by, made, last seen, status[, change]). */
function doorRows(html: string): string[][] {
  const at = html.indexOf('<section aria-labelledby="doors">');
  if (at < 0) return [];
  const section = html.slice(at, html.indexOf('</section>', at));
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(section)?.[1] ?? '';
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()));
}

/** The door API as the door's page calls it, with its token. */
const openDoor = async (t: TestApp, token: string) => await t.request('GET', '/v1/door', { key: `Bearer ${token}` });

/** The audit log's entries of doors, oldest first. */
const doorAudit = async (t: TestApp) => (await t.db.read(async (tx) => await tx.select().from(auditLog))).filter((e) => e.action.startsWith('door.')).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The doors stored, all partners'. */
const storedDoors = async (t: TestApp) => await t.db.read(async (tx) => await tx.select().from(admissionDoors));

describe('console doors: a door link made', () => {
  it('shows the link once (200, no redirect), which opens the door API; the page reloaded lists the door without it; audited without the token', async () => {
    const { t, p, admin } = await setup();
    const before = await admin.get(page(p, '/tour'));
    expect(before.text).toContain('<h4 id="doors">Doors</h4>');
    expect(before.text).toContain('opens the venue’s scanner page for this show only');
    expect(before.text).toContain('until 12 hours after the show starts');
    expect(before.text).toContain('It checks the rotating codes on the fans’ phones');
    expect(before.text).toContain('No door links yet.');

    const { res, link, token } = await makeDoor(admin, p, '  North   gate 3 ');
    expect(res.location).toBeNull();
    expect(link).toMatch(/^http:\/\/resale\.test\/door#door_[0-9A-Za-z]{43}$/);
    expect(res.text).toContain('Door link made: North gate 3');
    expect(res.text).toContain('This link is shown only this once');
    expect(res.text).toContain('send it only to this door’s staff');
    expect(res.text).toContain('It works until 2 May 2026 at 09:00 CEST, or until it is revoked.');
    expect(res.text).toMatch(/<button type="button" class="secondary" hidden="" data-copy-target="door-link" data-copy-done="Copied">\s*Copy\s*<\/button>/);
    // The Copy button is the pages' script's: this answer, and only this one, lets it in.
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text.split(token)).toHaveLength(2);
    expect(doorRows(res.text)).toEqual([['North gate 3', ADMIN, '1 March 2026 at 13:00 CET', 'never', 'live', 'Revoke']]);

    const opened = await openDoor(t, token);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({ label: 'North gate 3', expiresAt: '2026-05-02T07:00:00.000Z', show: { showId: 'show-1' }, codes: { rotating: true } });

    const again = await admin.get(page(p, '/tour'));
    expect(again.status).toBe(200);
    expect(again.text).not.toContain(token);
    expect(again.text).not.toContain('Door link made');
    expect(linkOf(again.text)).toBeNull();
    expect(again.headers.get('content-security-policy')).not.toContain('script-src');
    // Seen by the door API just now.
    expect(doorRows(again.text)).toEqual([['North gate 3', ADMIN, '1 March 2026 at 13:00 CET', '1 March 2026 at 13:00 CET', 'live', 'Revoke']]);

    const [door] = await storedDoors(t);
    expect(door).toMatchObject({ partnerId: p.id, label: 'North gate 3', createdBy: ADMIN, revokedAt: null });
    expect(JSON.stringify(door)).not.toContain(token);
    const audit = await doorAudit(t);
    expect(audit).toEqual([expect.objectContaining({ action: 'door.create', partnerId: p.id, target: `tour/show-1/${door!.id}`, after: { label: 'North gate 3' }, actorEmail: ADMIN, role: 'partner_admin' })]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it('makes a door of the show named, in Spanish too, the name escaped', async () => {
    const { p, ops } = await setup();
    const made = await submit(ops, page(p, '/tour?show=show-2&lang=es'), doorsAction(p, 'show-2'), { label: '<b>Puerta "A"</b>' });
    expect(made.status).toBe(200);
    expect(made.text).toContain('Enlace de acceso creado: &lt;b&gt;Puerta &quot;A&quot;&lt;/b&gt;');
    expect(made.text).toContain('Este enlace solo se muestra esta vez');
    expect(made.text).toContain('Funciona hasta el 2 de junio de 2026 a las 09:00 CEST, o hasta que se revoque.');
    expect(made.text).not.toContain('<b>Puerta');
    const es = await ops.get(page(p, '/tour?show=show-2&lang=es'));
    expect(es.text).toContain('<h4 id="doors">Accesos</h4>');
    expect(doorRows(es.text)).toEqual([['&lt;b&gt;Puerta &quot;A&quot;&lt;/b&gt;', OPERATOR, '1 de marzo de 2026 a las 13:00 CET', 'nunca', 'activo', 'Revocar']]);
    expect(doorRows((await ops.get(page(p, '/tour?show=show-1'))).text)).toEqual([]);
  });

  it('says plainly when the show has no rotating codes to check: ticket protection off, or the venue scanning the partner’s QR', async () => {
    const { p, other, ops } = await setup();
    const off = await submit(ops, page(p, '/tour'), page(p, '/tour/ticket-shield'), { showId: 'show-2', status: 'off' });
    expect(off.status).toBe(303);
    const shieldOff = await ops.get(page(p, '/tour?show=show-2'));
    expect(shieldOff.text).toContain('ticket protection is off, so the fans show the partner’s own tickets and a door link has nothing to check');
    expect(shieldOff.text).not.toContain('It checks the rotating codes');
    // Other's shows: no ticket protection, and the venue scans the partner's own QR (the default).
    const partnerQr = await ops.get(page(other, '/tour'));
    expect(partnerQr.status).toBe(200);
    expect(partnerQr.text).toContain('This show’s venue scans the partner’s own QR codes, not rotating codes: a door link has nothing to check');
    expect((await ops.get(page(other, '/tour?lang=es'))).text).toContain('lee los códigos QR del propio partner');
  });
});

describe('console doors: refused', () => {
  it('refuses a missing, empty or too long name with the error at the field and the typed value kept; past the doors a show may have, 409; nothing written', async () => {
    const { t, p, admin } = await setup();
    const missing = await submit(admin, page(p, '/tour'), doorsAction(p), {});
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('There is a problem');
    expect(missing.text).toContain('<a href="#f-label">Door name (1 to 60 characters): Name the door (for example “North gate 3”).</a>');
    expect(missing.text).toMatch(/<p class="field-error" id="f-label-error">\s*Name the door/);
    const empty = await submit(admin, page(p, '/tour'), doorsAction(p), { label: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('id="f-label" name="label" type="text" value="   "');
    expect(empty.text).toContain('aria-invalid="true"');
    const long = `<i>${'x'.repeat(58)}`;
    const tooLong = await submit(admin, page(p, '/tour'), doorsAction(p), { label: long });
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('A door’s name is at most 60 characters.');
    expect(tooLong.text).toContain(`value="&lt;i&gt;${'x'.repeat(58)}"`);
    expect(linkOf(tooLong.text)).toBeNull();
    const es = await submit(admin, page(p, '/tour?lang=es'), doorsAction(p), { label: '' });
    expect(es.text).toContain('Nombra el acceso');
    await admin.get(page(p, '/tour?lang=en'));
    // Exactly 60 is fine.
    expect((await submit(admin, page(p, '/tour'), doorsAction(p), { label: 'y'.repeat(60) })).status).toBe(200);
    expect(await storedDoors(t)).toHaveLength(1);
    expect((await doorAudit(t)).map((e) => e.action)).toEqual(['door.create']);

    // A show has at most MAX_DOORS_PER_SHOW live doors (the others made through the flow: faster than the form).
    const ctx: AuditContext = { actor: { kind: 'console', userId: 'cu_x', email: ADMIN, role: 'partner_admin' } };
    for (let i = 1; i < MAX_DOORS_PER_SHOW; i++) await createDoor(t.deps, ctx, p.id, { eventId: 'tour', showId: 'show-1', label: `Gate ${i}` });
    const full = await submit(admin, page(p, '/tour'), doorsAction(p), { label: 'One more' });
    expect(full.status).toBe(409);
    expect(full.text).toContain(`This show already has ${MAX_DOORS_PER_SHOW} live door links: revoke some first.`);
    expect(full.text).toContain('value="One more"');
    expect(await storedDoors(t)).toHaveLength(MAX_DOORS_PER_SHOW);
    // Another show has its own.
    expect((await submit(admin, page(p, '/tour?show=show-2'), doorsAction(p, 'show-2'), { label: 'One more' })).status).toBe(200);
  });

  it('refuses a second live door of the same name (the form sent again by a reload): 409 at the field, the typed name kept, no second door; free again once revoked', async () => {
    const { t, p, admin } = await setup();
    const first = await makeDoor(admin, p, 'North gate 3');
    const firstId = (await storedDoors(t))[0]!.id;
    // The page that showed the link, reloaded: the browser sends the form again.
    const again = await submit(admin, page(p, '/tour'), doorsAction(p), { label: '  north   GATE 3 ' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('A live door of this show is already called “north GATE 3”. If you just made it, its link was shown once');
    expect(again.text).toContain('value="  north   GATE 3 "');
    expect(linkOf(again.text)).toBeNull();
    expect(await storedDoors(t)).toHaveLength(1);
    expect((await doorAudit(t)).map((e) => e.action)).toEqual(['door.create']);
    // Another show may have a door of that name; this show once the first is revoked.
    expect((await submit(admin, page(p, '/tour?show=show-2'), doorsAction(p, 'show-2'), { label: 'North gate 3' })).status).toBe(200);
    expect((await submit(admin, page(p, '/tour'), doorsAction(p, 'show-1', firstId), {})).status).toBe(303);
    const renamed = await makeDoor(admin, p, 'North gate 3');
    expect(renamed.token).not.toBe(first.token);
    expect((await openDoor(t, first.token)).status).toBe(401);
    expect((await openDoor(t, renamed.token)).status).toBe(200);
  });

  it('refuses a viewer and a developer (403, before the form is read), a form without its CSRF token (403), the signed-out (sign-in); nothing written', async () => {
    const { t, p, ops, admin } = await setup();
    const { token } = await makeDoor(admin, p, 'North gate 3');
    const doorId = (await storedDoors(t))[0]!.id;
    const viewer = await member(t, ops, p.id, 'viewer@acme.example', 'viewer');
    const dev = await member(t, ops, p.id, 'dev@acme.example', 'developer');
    // A reader sees the doors, and no form.
    const read = await viewer.get(page(p, '/tour'));
    expect(read.status).toBe(200);
    expect(doorRows(read.text)).toEqual([['North gate 3', ADMIN, '1 March 2026 at 13:00 CET', 'never', 'live']]);
    expect(read.text).not.toContain('Make a door link');
    expect(read.text).not.toContain('/doors"');
    expect(read.text).not.toContain('/revoke"');
    const before = await doorAudit(t);
    for (const action of [doorsAction(p), doorsAction(p, 'show-1', doorId)]) {
      for (const who of [viewer, dev]) {
        const res = await who.post(action, { _csrf: await csrfFor(t, who, action), label: 'Sneaky gate' });
        expect(res.status, action).toBe(403);
        expect(res.text, action).toContain('Your role cannot do this here');
      }
      expect((await admin.post(action, { label: 'No token' })).status, action).toBe(403);
      expect((await admin.post(action, { _csrf: 'forged', label: 'Forged' })).status, action).toBe(403);
      expect((await admin.post(action, { _csrf: await csrfFor(t, admin, doorsAction(p, 'show-2')), label: 'Another form’s token' })).status, action).toBe(403);
      // Signed out, with a valid token of the browser's own (before sign-in): to the sign-in page.
      const out = new TestBrowser(t.app);
      await out.get('/console/sign-in');
      const signedOut = await out.post(action, { _csrf: csrfTokenFor(out.cookies.get('resale_console_csrf')!, action), label: 'Out' });
      expect(signedOut.status, action).toBe(303);
      expect(signedOut.location, action).toBe('/console/sign-in?next=%2Fconsole&ended=1');
    }
    expect(await storedDoors(t)).toEqual([expect.objectContaining({ id: doorId, revokedAt: null })]);
    expect(await doorAudit(t)).toEqual(before);
    expect((await openDoor(t, token)).status).toBe(200);
  });

  it('answers 404 for another partner’s event, show or door, an unknown event, show or door, and another show’s door', async () => {
    const { t, p, other, ops, admin } = await setup();
    await makeDoor(admin, p, 'Show two gate', 'show-2');
    const showTwoDoor = (await storedDoors(t))[0]!;
    const theirs = await createDoor(t.deps, { actor: { kind: 'console', userId: 'cu_y', email: 'cy@other.example', role: 'partner_admin' } }, other.id, { eventId: 'tour', showId: 'show-1', label: 'Their gate' });
    const post = async (action: string, fields: Record<string, string> = {}) => (await admin.post(action, { _csrf: await csrfFor(t, admin, action), ...fields })).status;
    // Making: through another partner's event (Other's `other-tour`), an unknown event, an unknown show.
    expect(await post(doorsAction(p, 'show-1', undefined, 'other-tour'), { label: 'Gate' })).toBe(404);
    expect(await post(doorsAction(p, 'show-1', undefined, 'nope'), { label: 'Gate' })).toBe(404);
    expect(await post(doorsAction(p, 'show-9'), { label: 'Gate' })).toBe(404);
    // An unknown show is 404 before its name is checked.
    expect(await post(doorsAction(p, 'show-9'), { label: '' })).toBe(404);
    // Another partner's pages are 404 to this partner's admin.
    expect(await post(doorsAction(other), { label: 'Gate' })).toBe(404);
    // Revoking: an unknown door, another show's, another partner's (through this partner's show, and through theirs).
    expect(await post(doorsAction(p, 'show-1', 'door_nope'))).toBe(404);
    expect(await post(doorsAction(p, 'show-1', showTwoDoor.id))).toBe(404);
    expect(await post(doorsAction(p, 'show-1', theirs.doorId))).toBe(404);
    expect(await post(doorsAction(other, 'show-1', theirs.doorId))).toBe(404);
    expect(await post(doorsAction(p, 'show-9', showTwoDoor.id))).toBe(404);
    expect((await ops.post(doorsAction(p, 'show-1', undefined, 'other-tour'), { _csrf: await csrfFor(t, ops, doorsAction(p, 'show-1', undefined, 'other-tour')), label: 'Gate' })).status).toBe(404);
    expect((await storedDoors(t)).map((d) => [d.label, d.revokedAt])).toEqual(expect.arrayContaining([['Show two gate', null], ['Their gate', null]]));
    expect(await storedDoors(t)).toHaveLength(2);
    expect((await doorAudit(t)).map((e) => e.action)).toEqual(['door.create', 'door.create']);
  });
});

describe('console doors: revoked and expired', () => {
  it('revokes a door: back to the show with a notice, its link then refused (401), audited once; revoking it again is harmless', async () => {
    const { t, p, admin } = await setup();
    const { token } = await makeDoor(admin, p, 'North gate 3');
    await makeDoor(admin, p, 'South gate');
    const [north, south] = await storedDoors(t).then((rows) => [rows.find((d) => d.label === 'North gate 3')!, rows.find((d) => d.label === 'South gate')!]);
    const action = doorsAction(p, 'show-1', north!.id);
    const revoked = await submit(admin, page(p, '/tour?show=show-1'), action, {});
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe(`${page(p, '/tour')}?show=show-1&saved=door-revoked#doors`);
    const shown = await admin.get(revoked.location!);
    expect(shown.text).toContain('Door link revoked: it stops working at once.');
    expect(doorRows(shown.text)).toEqual([
      ['North gate 3', ADMIN, '1 March 2026 at 13:00 CET', 'never', 'revoked', '–'],
      ['South gate', ADMIN, '1 March 2026 at 13:00 CET', 'never', 'live', 'Revoke'],
    ]);
    // Only a live door has a revoke form.
    expect(shown.text).not.toContain(`action="${action}"`);
    expect(shown.text).toContain(`action="${doorsAction(p, 'show-1', south!.id)}"`);
    expect((await openDoor(t, token)).status).toBe(401);

    // A minute later, the same revoke (a resent form): answered as done, the first revocation kept.
    t.clock.advance(60_000);
    const again = await admin.post(action, { _csrf: await csrfFor(t, admin, action) });
    expect(again.status).toBe(303);
    expect((await storedDoors(t)).find((d) => d.id === north!.id)!.revokedAt).toBe(Date.parse('2026-03-01T12:00:00Z'));
    const audit = await doorAudit(t);
    expect(audit.map((e) => e.action)).toEqual(['door.create', 'door.create', 'door.revoke']);
    expect(audit[2]).toMatchObject({ target: `tour/show-1/${north!.id}`, before: { revokedAt: null }, after: { revokedAt: '2026-03-01T12:00:00.000Z' }, actorEmail: ADMIN });
    expect((await admin.get(`${page(p, '/tour')}?show=show-1&saved=door-revoked&lang=es`)).text).toContain('Enlace de acceso revocado');
  });

  it('lists each door live, revoked, or expired once the clock reaches 12 hours after the show starts (then refused, and no Revoke)', async () => {
    const { t, p, admin } = await setup();
    const { token } = await makeDoor(admin, p, 'Live gate');
    await makeDoor(admin, p, 'Revoked gate');
    await makeDoor(admin, p, 'Later gate', 'show-2');
    const revoked = (await storedDoors(t)).find((d) => d.label === 'Revoked gate')!;
    expect((await submit(admin, page(p, '/tour'), doorsAction(p, 'show-1', revoked.id), {})).status).toBe(303);
    // Two months on, the console's session has ended: each look signs in again.
    const statuses = async (showId = 'show-1', browser = admin) => doorRows((await browser.get(page(p, `/tour?show=${showId}`))).text).map((r) => [r[0], r[4], r[5]]);
    expect(await statuses()).toEqual([
      ['Live gate', 'live', 'Revoke'],
      ['Revoked gate', 'revoked', '–'],
    ]);
    t.clock.set(SHOW_1_DOORS_END - 1);
    const later = await signIn(t, ADMIN);
    expect((await statuses('show-1', later))[0]).toEqual(['Live gate', 'live', 'Revoke']);
    expect((await openDoor(t, token)).status).toBe(200);
    t.clock.set(SHOW_1_DOORS_END);
    expect(await statuses('show-1', later)).toEqual([
      ['Live gate', 'expired', '–'],
      ['Revoked gate', 'revoked', '–'],
    ]);
    expect((await openDoor(t, token)).status).toBe(401);
    // The later show's door still works.
    expect(await statuses('show-2', later)).toEqual([['Later gate', 'live', 'Revoke']]);
    const es = doorRows((await later.get(page(p, '/tour?show=show-1&lang=es'))).text).map((r) => r[4]);
    expect(es).toEqual(['caducado', 'revocado']);
  });
});
