/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppDeps } from '../../../context.js';
import { pageLang } from '../../../lib/i18n.js';
import { renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { loadTicket, ticketDownload } from './tickets.load.js';
import { ticketCalendar } from '../../../domain/tickets/tickets.calendar.js';
import { hasDownload, secureViewUrl } from '../../../domain/tickets/tickets.view.js';
import { Gone, TicketPage, VIEW_CSP } from './tickets.view.js';
import { serveOfflineWorker, TICKET_WORKER } from '../offline-worker.js';
import { z } from 'zod';
import { ticketForToken } from '../../../domain/tickets/tickets.view.js';
import { certifyPhone, phoneStatus } from '../../../flows/ticket-code.js';
import { csrfToken, signInUrl, type SessionContext, type SessionEnv } from '../auth/auth.session.js';
import { serviceUrl } from '../../../lib/urls.js';
import { toIso } from '../../../lib/clock.js';
import { ApiError, type ErrorEntry } from '../../../lib/errors.js';
import { fail, ok } from '../../../lib/envelope.js';

/** The form of the code's POST: the phone's public key, and the page's CSRF token (checked by the registry). */
const CodeBody = z.strictObject({ publicKey: z.string().max(100), _csrf: z.string().optional() });

/** 32 bytes from unpadded base64url (43 characters); undefined for anything else. */
function publicKeyOf(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.length === 32 ? new Uint8Array(bytes) : undefined;
}

/** Whether the request's session is the ticket's holder's (of its partner). */
function isHolder(c: Context, ticket: { partnerId: string; ownerPk: string }): boolean {
  const session = (c as SessionContext).get('session');
  return Boolean(session && session.partnerId === ticket.partnerId && session.userPk === ticket.ownerPk);
}

/** A JSON answer of the code's endpoints, in the API's envelope: never stored (it carries a key), never indexed. */
function codeAnswer(c: Context, data: object) {
  c.header('Cache-Control', 'no-store');
  c.header('X-Robots-Tag', 'noindex, nofollow');
  return c.json(ok(data), 200);
}

/** A refusal of the code's endpoints, in the API's envelope (`reason`: the domain's, for the page's script). */
function codeRefusal(c: Context, status: 400 | 401 | 404 | 409 | 429, entry: ErrorEntry, reason?: string | null) {
  c.header('Cache-Control', 'no-store');
  c.header('X-Robots-Tag', 'noindex, nofollow');
  return c.json({ ...fail(status, [entry]), ...(reason ? { reason } : {}) }, status);
}

/** The refusal of a link that does not work (any more): the page's script then deletes the code from the phone. */
const GONE: ErrorEntry = { code: 'not_found', message: 'This ticket link does not work (the ticket changed hands, or the link is wrong)' };

/** Pages that carry a ticket: the shared headers with the view's policy, and never indexed. */
function render(c: Context, node: Child, status = 200) {
  c.header('X-Robots-Tag', 'noindex, nofollow');
  return renderPage(c, node, { csp: VIEW_CSP, status });
}

/**
 * The secure ticket view (`/tickets/view/:token`), its PDF and calendar file, and its rotating
 * code's endpoints. Server-rendered; scripts only where a behaviour needs one: the pages' own
 * for a locked QR's countdown (the page works without it), and for shows whose venue scans
 * rotating codes the code's script (`/widgets/v1/ticket-code.js`), which draws the code on the
 * holder's phone, with its service worker (`/tickets/sw.js`). The QR (an SVG drawn from the
 * ticket's code, or the partner's QR image for URL access) is put in the HTML only after the
 * unlock moment, and never when the code rotates; before it the page says when, and counts
 * down to it.
 *
 * No partner in the path (the token names the ticket): the page is in `?lang=`, else the
 * partner's language (English for a link that does not work), and branded as the ticket's
 * partner. The session (the page registry's `holder`) is whichever partner's: only the
 * ticket's holder's certifies a phone. What it loads and shows is tickets.load.ts,
 * tickets.view.tsx and tickets.messages.ts; the code's use cases are flows/ticket-code.ts.
 */
export function ticketPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  app.get('/tickets/view/:token', async (c) => {
    const found = await loadTicket(deps, c.req.param('token'));
    if (found.kind === 'gone') return render(c, <Gone lang={pageLang(c, 'en')} />, 404);
    const { view } = found;
    const lang = pageLang(c, view.defaultLang);
    if (found.partner) brandAsPartner(c, found.partner);
    const pdfHref = hasDownload(view) ? `${c.req.path}/ticket.pdf?lang=${lang}` : null;
    const calendarHref = `${c.req.path}/event.ics?lang=${lang}`;
    const selfHref = `${c.req.path}?lang=${lang}`;
    const codeHref = `${c.req.path}/code`;
    const code =
      view.rotating && found.partner
        ? {
            key: found.ticket.id,
            codeHref,
            csrf: csrfToken(c, codeHref),
            holder: isHolder(c, { partnerId: found.partner.id, ownerPk: found.ticket.ownerPk }),
            signInHref: signInUrl(found.partner, deps.config.publicBaseUrl, serviceUrl(deps.config.publicBaseUrl, selfHref), lang),
          }
        : null;
    return render(c, <TicketPage v={view} lang={lang} pdfHref={pdfHref} calendarHref={calendarHref} selfHref={selfHref} code={code} />);
  });

  /**
   * The rotating code's status for the phone holding `key` (its public key, base64url; none
   * yet: left out): `current`, `moved` (another phone holds the code) or `none` (no phone
   * does), whether the view shows a code now, and the service's time (the phone's clock may be
   * off), in the API's envelope. A link that no longer works (the ticket changed hands): 404,
   * and the page deletes the code from the phone.
   */
  app.get('/tickets/view/:token/code', async (c) => {
    const ticket = await deps.db.read(async (tx) => await ticketForToken(deps, tx, c.req.param('token')));
    if (!ticket) return codeRefusal(c, 404, GONE);
    const key = c.req.query('key');
    const publicKey = key === undefined ? null : publicKeyOf(key);
    if (publicKey === undefined) return codeRefusal(c, 400, { code: 'invalid_format', message: 'key must be an Ed25519 public key (32 bytes, base64url)', path: 'key', in: 'query' });
    const r = await phoneStatus(deps, ticket, publicKey);
    return codeAnswer(c, { ...r, serverTime: toIso(deps.clock.now()) });
  });

  /**
   * Certifies this phone for the ticket's rotating code: `{publicKey}` (the phone's Ed25519
   * public key, base64url) → its certificate and tag key (base64url), serial, epoch, step,
   * `notAfter` and the service's time, in the API's envelope (a refusal's domain reason beside
   * its errors). Only for the holder's signed-in session (401 otherwise): the link alone is not enough, or a forwarded link would move the
   * code. A form POST (`publicKey`, and the page's CSRF token as `_csrf` or `X-CSRF-Token`,
   * checked by the page registry) answered in JSON, as the console's passkeys are.
   */
  app.post('/tickets/view/:token/code', async (c) => {
    const ticket = await deps.db.read(async (tx) => await ticketForToken(deps, tx, c.req.param('token')));
    if (!ticket) return codeRefusal(c, 404, GONE);
    const partner = await deps.partners.get(ticket.partnerId);
    const lang = pageLang(c, partner.settings.defaultLang);
    // The page shows the way to sign in (its link comes back here).
    if (!isHolder(c, ticket)) return codeRefusal(c, 401, { code: 'unauthorized', message: 'Sign in as the ticket’s holder to show its code on this phone' });
    // A form (the pages' only body type, checked before this handler: checkRequestBody), answered in JSON.
    const parsed = CodeBody.safeParse(await c.req.parseBody({ all: true }));
    const publicKey = parsed.success ? publicKeyOf(parsed.data.publicKey) : undefined;
    if (!parsed.success || !publicKey) return codeRefusal(c, 400, { code: 'invalid_format', message: 'publicKey must be an Ed25519 public key (32 bytes, base64url), and nothing else', path: 'publicKey' });
    try {
      const b = await certifyPhone(deps, ticket, publicKey, lang);
      const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
      return codeAnswer(c, { certificate: b64(b.certificate), tagKey: b64(b.tagKey), serial: b.serial, epoch: b.epoch, rotationSeconds: b.rotationSeconds, notAfter: toIso(b.notAfter), serverTime: toIso(deps.clock.now()) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 404) return codeRefusal(c, 404, GONE);
      for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
      return codeRefusal(c, err.status as 409 | 429, err.entries[0]!, err.reason);
    }
  });

  /**
   * The view's service worker (offline-worker.ts): a reload without network shows the last copy
   * of the page and its code's script. Its scope is the views (`/tickets/view/`).
   */
  app.get(TICKET_WORKER.path, (c) => serveOfflineWorker(c, TICKET_WORKER));

  /** "Add to calendar": the show as an .ics file (no secret in it: the QR and the code stay on the page). */
  app.get('/tickets/view/:token/event.ics', async (c) => {
    const found = await loadTicket(deps, c.req.param('token'));
    if (found.kind === 'gone') return render(c, <Gone lang={pageLang(c, 'en')} />, 404);
    const lang = pageLang(c, found.view.defaultLang);
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Robots-Tag', 'noindex, nofollow');
    c.header('Content-Type', 'text/calendar; charset=utf-8');
    c.header('Content-Disposition', 'attachment; filename="event.ics"');
    return c.body(ticketCalendar(found.view, secureViewUrl(deps, found.ticket), lang));
  });

  app.get('/tickets/view/:token/ticket.pdf', async (c) => {
    const found = await loadTicket(deps, c.req.param('token'));
    if (found.kind === 'gone') return render(c, <Gone lang={pageLang(c, 'en')} />, 404);
    const lang = pageLang(c, found.view.defaultLang);
    if (!hasDownload(found.view)) return render(c, <Gone lang={lang} />, 404);
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    const { pdf, fileName } = await ticketDownload(deps, found, lang);
    c.header('Content-Type', 'application/pdf');
    c.header('Content-Disposition', `attachment; filename="${fileName}"`);
    return c.body(pdf);
  });

  return app;
}
