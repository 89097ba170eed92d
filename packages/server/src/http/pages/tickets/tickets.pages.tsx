/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { AppDeps, AppEnv } from '../../../context.js';
import { pageLang } from '../../../lib/i18n.js';
import { renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { hasDownload, loadTicket, ticketDownload } from './tickets.load.js';
import { ticketCalendar } from '../../../domain/tickets/tickets.calendar.js';
import { secureViewUrl } from '../../../domain/tickets/tickets.view.js';
import { Gone, TicketPage, VIEW_CSP } from './tickets.view.js';

/** Pages that carry a ticket: the shared headers with the view's policy, and never indexed. */
function render(c: Context, node: Child, status = 200) {
  c.header('X-Robots-Tag', 'noindex, nofollow');
  return renderPage(c, node, { csp: VIEW_CSP, status });
}

/**
 * The secure ticket view (`/tickets/view/:token`) and its PDF. Server-rendered; the only
 * script is the pages' own, for a locked QR's countdown (the page works without it). The QR (an
 * SVG drawn from the ticket's code, or the partner's QR image for URL access) is put in the HTML
 * only after the unlock moment; before it the page says when, and counts down to it.
 *
 * No partner in the path (the token names the ticket): the page is in `?lang=`, else the
 * partner's language (English for a link that does not work), and branded as the ticket's
 * partner. What it loads and shows is tickets.load.ts, tickets.view.tsx and tickets.messages.ts.
 */
export function ticketPageRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  app.get('/tickets/view/:token', async (c) => {
    const found = await loadTicket(deps, c.req.param('token'));
    if (found.kind === 'gone') return render(c, <Gone lang={pageLang(c, 'en')} />, 404);
    const { view } = found;
    const lang = pageLang(c, view.defaultLang);
    if (found.partner) brandAsPartner(c, found.partner);
    const pdfHref = hasDownload(view) ? `${c.req.path}/ticket.pdf?lang=${lang}` : null;
    const calendarHref = `${c.req.path}/event.ics?lang=${lang}`;
    const selfHref = `${c.req.path}?lang=${lang}`;
    return render(c, <TicketPage v={view} lang={lang} pdfHref={pdfHref} calendarHref={calendarHref} selfHref={selfHref} />);
  });

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
