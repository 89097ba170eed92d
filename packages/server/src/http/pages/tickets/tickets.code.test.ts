import { describe, expect, it } from 'vitest';
import { stepAt } from '@resale/shared/admission-code';
import { generateDeviceKeys, importTagKey, makeCode } from '@resale/shared/admission-crypto';
import { authService } from '../../../domain/auth/auth.service.js';
import { BINDS_PER_DAY } from '../../../domain/admission/admission.service.js';
import { createTestApp, type TestApp, type TestPartner } from '../../../testing/harness.js';
import { eventBody, showBody, ticketBody, withRotatingCodes } from '../../../testing/factories.js';
import { TestBrowser } from '../auth/auth.testing.js';

/**
 * The secure view's rotating code over HTTP (the page's part; the phone's script is the browser
 * journey's, e2e/src/ticket-code.test.ts): the page never carries the partner's QR, only the
 * holder's signed-in session certifies a phone, the status tells a phone whether it still
 * holds the code, a moved code is e-mailed to the holder, and every bad request is refused
 * with nothing certified.
 *
 * Show at 16:00 UTC, QR unlocked at 13:00 (the partner's default, three hours before); the
 * test clock starts at 12:00.
 */

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function setup(opts: { rotating?: boolean } = {}) {
  const t = createTestApp();
  const p = await t.partner();
  expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { shows: [showBody('show-1', { date: '2026-03-01T16:00:00Z' })] }) })).status).toBe(200);
  const body = [ticketBody('code-1', { ticketAccess: { type: 'OTHER', locator: 'ZX-99-CODE' }, buyer: 'ana@example.com' }), ticketBody('url-1', { buyer: 'ana@example.com' })];
  expect((await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body })).status).toBe(200);
  if (opts.rotating !== false) await withRotatingCodes(t, p);
  t.clock.set('2026-03-01T13:00:00Z');
  const viewPath = async (id = 'code-1') => new URL((await t.request('GET', `/v1/tickets/${id}/url`, { key: p.keys.private })).body.data as string).pathname;
  return { t, p, viewPath };
}

/** A browser signed in (a session of the service) as `email`'s user of partner `p`. */
async function signedIn(t: TestApp, p: TestPartner, email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.app);
  const user = await t.db.transact(async (tx) => await t.deps.users.resolve(tx, p.id, { email }));
  const { token } = await t.db.transact(async (tx) => await authService(t.deps).startSession(tx, p.id, user.id));
  browser.cookies.set('resale_session', token);
  return browser;
}

/** The page's code element's attribute `name`. */
function attr(html: string, name: string): string | null {
  return new RegExp(`<div class="rotating"[^>]*\\s${name}="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;
}

/**
 * Posts the code's form (as the page's script does: urlencoded, the CSRF token in the
 * `X-CSRF-Token` header) with the page's token; `body` a form's fields, or a raw body.
 */
async function postCode(t: TestApp, browser: TestBrowser, path: string, body: Record<string, string> | string, opts: { csrf?: string | null; type?: string } = {}) {
  const page = await browser.get(path);
  const csrf = opts.csrf === undefined ? attr(page.text, 'data-csrf') : opts.csrf;
  const headers: Record<string, string> = { 'content-type': opts.type ?? 'application/x-www-form-urlencoded' };
  if (csrf) headers['x-csrf-token'] = csrf;
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  if (cookie) headers.cookie = cookie;
  const res = await t.app.request(`${path}/code`, { method: 'POST', headers, body: typeof body === 'string' ? body : new URLSearchParams(body).toString() });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  // The envelope's data when it worked; the envelope (its errors, and the domain's reason) when refused.
  return { status: res.status, body: res.status === 200 ? json.data : json, text, headers: res.headers };
}

/** The status of the phone holding `publicKey` (none: a phone with no key). */
async function status(browser: TestBrowser, path: string, publicKey?: Uint8Array) {
  const res = await browser.get(`${path}/code${publicKey ? `?key=${b64(publicKey)}` : ''}`);
  const json = JSON.parse(res.text);
  return { status: res.status, body: res.status === 200 ? json.data : json, headers: res.headers };
}

describe('the secure view’s rotating code', () => {
  it('shows the code’s area, never the partner’s QR, its code or a PDF; a fan not signed in is asked to sign in', async () => {
    const { t, viewPath } = await setup();
    const path = await viewPath();
    const res = await t.app.request(path);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('data-ticket-code');
    expect(html).not.toContain('ZX-99-CODE');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain('ticket.pdf');
    expect(html).toContain('<script type="module" src="/widgets/v1/ticket-code.js"></script>');
    expect(attr(html, 'data-holder')).toBe('no');
    expect(attr(html, 'data-rotation')).toBe('15');
    expect(attr(html, 'data-code-url')).toBe(`${path}/code`);
    expect(html).toContain('It changes every 15 seconds');
    expect(html).toMatch(/<a class="button" href="http:\/\/resale\.test\/auth\/otp\?p=ptr_[^"]+returnTo=http%3A%2F%2Fresale\.test%2Ftickets%2Fview%2F[^"]+">Sign in to show the code<\/a>/);
    expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // The PDF of a rotating code would be a screenshot: none, not even by its URL.
    expect((await t.app.request(`${path}/ticket.pdf`)).status).toBe(404);
    // A URL-access ticket of the same show: its partner's image is not shown either.
    const other = await (await t.app.request(await viewPath('url-1'))).text();
    expect(other).not.toContain('partner.example/qr/url-1');
    expect(other).toContain('data-ticket-code');
  });

  it('certifies the holder’s phone for their signed-in session; its codes admit at the door; the status says whose phone holds it', async () => {
    const { t, p, viewPath } = await setup();
    const path = await viewPath();
    const ana = await signedIn(t, p, 'ana@example.com');
    const page = (await ana.get(path)).text;
    expect(attr(page, 'data-holder')).toBe('yes');
    expect((await status(ana, path)).body).toEqual({ status: 'none', shows: true, rotationSeconds: 15, serverTime: '2026-03-01T13:00:00.000Z' });

    const phone = await generateDeviceKeys();
    const res = await postCode(t, ana, path, { publicKey: b64(phone.publicKey) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ serial: 1, epoch: 1, rotationSeconds: 15, notAfter: '2026-03-02T04:00:00.000Z', serverTime: '2026-03-01T13:00:00.000Z' });
    expect(Buffer.from(res.body.certificate, 'base64url')).toHaveLength(110);
    expect(Buffer.from(res.body.tagKey, 'base64url')).toHaveLength(32);
    // The first phone is no move: nothing is e-mailed.
    expect((await t.deps.messages.list({ to: 'ana@example.com' })).filter((m) => m.template === 'codeMoved')).toHaveLength(0);

    expect((await status(ana, path, phone.publicKey)).body.status).toBe('current');
    // Another phone (any key but the certified one), or a phone with none: the code is elsewhere.
    expect((await status(ana, path, (await generateDeviceKeys()).publicKey)).body.status).toBe('moved');
    expect((await status(new TestBrowser(t.app), path)).body.status).toBe('moved');

    // What the phone draws admits at the door, once.
    const tag = await importTagKey(new Uint8Array(Buffer.from(res.body.tagKey, 'base64url')));
    const text = await makeCode({ device: phone.privateKey, tag }, new Uint8Array(Buffer.from(res.body.certificate, 'base64url')), stepAt(t.clock.now(), 15));
    const scan = await t.request('POST', '/v1/tickets/admission/verify', { key: p.keys.private, body: { text } });
    expect(scan.body.data).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'code-1' } });
    // Admitted: the view shows no code any more, and says so to the phone.
    expect((await status(ana, path, phone.publicKey)).body).toMatchObject({ shows: false });
    expect((await postCode(t, ana, path, { publicKey: b64((await generateDeviceKeys()).publicKey) }, { csrf: attr(page, 'data-csrf') })).body.reason).toBe('ticket_not_valid');
  });

  it('moves the code to a new phone: the old one’s codes are refused, the holder is e-mailed, and five phones a day is the limit', async () => {
    const { t, p, viewPath } = await setup();
    const path = await viewPath();
    const ana = await signedIn(t, p, 'ana@example.com');
    const first = await generateDeviceKeys();
    const one = await postCode(t, ana, path, { publicKey: b64(first.publicKey) });
    const firstCode = await makeCode({ device: first.privateKey, tag: await importTagKey(new Uint8Array(Buffer.from(one.body.tagKey, 'base64url'))) }, new Uint8Array(Buffer.from(one.body.certificate, 'base64url')), stepAt(t.clock.now(), 15));

    t.clock.advance(60_000);
    const second = await generateDeviceKeys();
    const two = await postCode(t, ana, path, { publicKey: b64(second.publicKey) });
    expect(two.body).toMatchObject({ serial: 1, epoch: 2 });
    expect((await status(ana, path, first.publicKey)).body.status).toBe('moved');
    expect((await status(ana, path, second.publicKey)).body.status).toBe('current');
    const mail = (await t.deps.messages.list({ to: 'ana@example.com' })).find((m) => m.template === 'codeMoved');
    expect(mail?.text).toContain('was moved to another phone or browser');
    expect(mail?.text).toContain(`http://resale.test${path}`);
    // The first phone's code (still inside its window) no longer admits.
    const scan = await t.request('POST', '/v1/tickets/admission/verify', { key: p.keys.private, body: { text: firstCode } });
    expect(scan.body.data).toMatchObject({ valid: false, reason: 'revoked' });

    // Five phones a day in all; the sixth waits until the day since the first is over.
    for (let i = 2; i < BINDS_PER_DAY; i++) expect((await postCode(t, ana, path, { publicKey: b64((await generateDeviceKeys()).publicKey) })).status).toBe(200);
    const refused = await postCode(t, ana, path, { publicKey: b64((await generateDeviceKeys()).publicKey) });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ status: 429, data: null, errors: [{ code: 'rate_limited' }], reason: 'too_many_devices' });
    expect(Number(refused.headers.get('retry-after'))).toBe(86_400 - 60);
    t.clock.advance(86_400_000);
    // (A day later the session has ended too: signed in again.)
    expect((await postCode(t, await signedIn(t, p, 'ana@example.com'), path, { publicKey: b64((await generateDeviceKeys()).publicKey) })).status).toBe(200);
  });

  it('refuses anyone but the holder’s session, bad bodies and wrong content types, certifying nothing', async () => {
    const { t, p, viewPath } = await setup();
    const path = await viewPath();
    const key = b64((await generateDeviceKeys()).publicKey);
    // The link alone (a forwarded link, a copied page): asked to sign in.
    const anonymous = new TestBrowser(t.app);
    const asked = await postCode(t, anonymous, path, { publicKey: key });
    expect(asked.status).toBe(401);
    expect(asked.body).toMatchObject({ status: 401, data: null, errors: [{ code: 'unauthorized' }] });
    // Another fan of the partner, and the holder's e-mail at another partner: not the holder.
    expect((await postCode(t, await signedIn(t, p, 'bob@example.com'), path, { publicKey: key })).status).toBe(401);
    expect((await postCode(t, await signedIn(t, await t.partner('Other'), 'ana@example.com'), path, { publicKey: key })).status).toBe(401);

    const ana = await signedIn(t, p, 'ana@example.com');
    // No CSRF token, or another path's: the registry's 403, before the handler.
    expect((await postCode(t, ana, path, { publicKey: key }, { csrf: null })).status).toBe(403);
    expect((await postCode(t, ana, path, { publicKey: key }, { csrf: 'x'.repeat(43) })).status).toBe(403);
    // A page's POST is a form: JSON or text is the pages' 415 (checkRequestBody).
    expect((await postCode(t, ana, path, JSON.stringify({ publicKey: key }), { type: 'application/json' })).status).toBe(415);
    expect((await postCode(t, ana, path, key, { type: 'text/plain' })).status).toBe(415);
    const bads: (Record<string, string> | string)[] = [{}, { publicKey: '' }, { publicKey: key.slice(1) }, { publicKey: `${key}A` }, { publicKey: key.replace(/^./, '+') }, { publicKey: key, extra: '1' }, `publicKey=${key}&publicKey=${key}`, { 'publicKey[a]': key }, { publicKey: 'A'.repeat(5000) }];
    for (const bad of bads) {
      const res = await postCode(t, ana, path, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.errors).toEqual([{ code: 'invalid_format', message: expect.any(String), path: 'publicKey' }]);
    }
    expect((await status(ana, path)).body.status).toBe('none');
    // A status with a key that is not one.
    expect((await ana.get(`${path}/code?key=abc`)).status).toBe(400);
    // A link that never worked.
    expect((await postCode(t, ana, '/tickets/view/tkt_nope.AAAAAAAAAAAAAAAAAAAAAA', { publicKey: key }, { csrf: 'x' })).status).toBe(403);
    expect(await status(ana, '/tickets/view/tkt_nope.AAAAAAAAAAAAAAAAAAAAAA')).toMatchObject({ status: 404, body: { status: 404, errors: [{ code: 'not_found' }] } });
  });

  it('before the unlock, for a listed ticket, and where the venue scans the partner’s QR: no code to certify', async () => {
    const { t, p, viewPath } = await setup();
    const path = await viewPath();
    const ana = await signedIn(t, p, 'ana@example.com');
    const key = () => generateDeviceKeys().then((k) => b64(k.publicKey));
    t.clock.set('2026-03-01T12:00:00Z');
    expect((await ana.get(path)).text).not.toContain('data-ticket-code');
    // The page has no code's form then: the token of the unlocked page's is still this path's.
    t.clock.set('2026-03-01T13:00:00Z');
    const csrf = attr((await ana.get(path)).text, 'data-csrf');
    t.clock.set('2026-03-01T12:00:00Z');
    expect((await postCode(t, ana, path, { publicKey: await key() }, { csrf })).body.reason).toBe('code_locked');
    t.clock.set('2026-03-01T13:00:00Z');

    // The partner's QR again (the operator's switch): the view shows it, and certifies nothing.
    const off = await t.request('PUT', `/admin/v1/partners/${p.id}/ticketShield`, { operator: true, body: { eventId: 'tour', status: true, admissionCodes: { venueScans: 'partner' } } });
    expect(off.body.data[0].admissionCodes).toEqual({ venueScans: 'partner', rotationSeconds: 15, rotating: false });
    const page = (await ana.get(path)).text;
    expect(page).toContain('ZX-99-CODE');
    expect(page).not.toContain('data-ticket-code');
    expect((await postCode(t, ana, path, { publicKey: await key() }, { csrf })).body.reason).toBe('codes_off');
    expect((await status(ana, path)).body).toMatchObject({ status: 'none', shows: false });
  });

  it('a resale moves the code: the seller’s link is gone (its phone deletes the code), the buyer’s view shows one', async () => {
    const { t, p, viewPath } = await setup();
    const path = await viewPath();
    const ana = await signedIn(t, p, 'ana@example.com');
    const phone = await generateDeviceKeys();
    expect((await postCode(t, ana, path, { publicKey: b64(phone.publicKey) })).status).toBe(200);
    expect((await t.request('PUT', '/v1/tickets/code-1', { key: p.keys.private, body: { buyer: 'carla@example.com' } })).status).toBe(200);
    expect((await status(ana, path, phone.publicKey)).status).toBe(404);
    const carlaPath = await viewPath();
    const carla = await signedIn(t, p, 'carla@example.com');
    expect((await status(carla, carlaPath)).body).toMatchObject({ status: 'none', shows: true });
    expect((await postCode(t, carla, carlaPath, { publicKey: b64((await generateDeviceKeys()).publicKey) })).body).toMatchObject({ serial: 1, epoch: 2 });
  });

  it('serves the view’s service worker for the views’ scope', async () => {
    const { t } = await setup({ rotating: false });
    const res = await t.app.request('/tickets/sw.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; connect-src 'self'");
    const script = await res.text();
    expect(script).toContain('var PREFIX = "resale-ticket-views-"');
    // Only views and the code's script are kept, never the code's certificate or status.
    expect(script).toContain('var PAGE = new RegExp("^/tickets/view/[^/]+$")');
    const kept = new RegExp(JSON.parse(/var SCRIPT = new RegExp\(("[^"]+")\);/.exec(script)![1]!) as string);
    expect(['/widgets/v1/ticket-code.js', '/widgets/v1/chunks/a1.js'].filter((p) => !kept.test(p))).toEqual([]);
    expect(['/widgets/v1/door.js', '/widgets/v1/door-qr.js', '/widgets/v1/resale.js', '/widgets/v1/ticket-codeXjs', '/v1/tickets'].filter((p) => kept.test(p))).toEqual([]);
    expect(script).toContain('var DROP_ON_404 = true');
    expect(script).not.toContain('/code');
    // Its folder holds its scope: no wider scope asked for.
    expect(res.headers.get('service-worker-allowed')).toBeNull();
  });
});
