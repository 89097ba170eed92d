/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { AppDeps, AppEnv } from '../../../context.js';
import { formatInstant } from '@resale/shared/format';
import { cspWith, Layout, renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { ticketPdf } from '../../../domain/tickets/tickets.pdf.js';
import { drawQr, readTicketView, secureViewUrl, ticketForToken, type TicketView } from '../../../domain/tickets/tickets.view.js';


const TEXT = {
  en: {
    title: 'Your ticket',
    ticket: 'Ticket',
    category: 'Category',
    section: 'Section',
    row: 'Row',
    seat: 'Seat',
    status: 'Status',
    access: 'Access',
    states: { VALID: 'Valid', LISTED: 'For sale', SOLD: 'Sold', ADMITTED: 'Used', DELETED: 'Cancelled', CANCELLED: 'Cancelled' },
    locked: (when: string) => `Your QR code unlocks on ${when}. We will e-mail you when it is ready.`,
    listed: 'This ticket is for sale. Its QR code is hidden while it is listed.',
    transferred: 'This ticket was sold and now belongs to its buyer.',
    used: 'This ticket has been used.',
    invalid: 'This ticket is no longer valid.',
    willCallOnly: 'Collect your tickets at the box office with the number below.',
    willCall: 'Will-call number',
    pickUp: 'Box office pick-up',
    pickUpText: 'Give the box office this ticket number; they check it against the ticket holder’s identity.',
    pickUpTicket: 'Ticket',
    pickUpHolder: 'Holder',
    willCallOnlyDetails: 'Collect your tickets at the box office with the details below.',
    qrLabel: (id: string) => `QR code of ticket ${id}`,
    code: 'Code',
    pdf: 'Download the ticket (PDF)',
    gone: 'This ticket link does not work',
    goneText: 'The link is wrong, or the ticket has changed hands. Open your tickets from the ticketing site to get a fresh link.',
  },
  es: {
    title: 'Tu entrada',
    ticket: 'Entrada',
    category: 'Categoría',
    section: 'Sector',
    row: 'Fila',
    seat: 'Asiento',
    status: 'Estado',
    access: 'Acceso',
    states: { VALID: 'Válida', LISTED: 'En venta', SOLD: 'Vendida', ADMITTED: 'Usada', DELETED: 'Anulada', CANCELLED: 'Anulada' },
    locked: (when: string) => `Tu código QR se desbloquea el ${when}. Te avisaremos por e-mail cuando esté listo.`,
    listed: 'Esta entrada está a la venta. Su código QR está oculto mientras siga publicada.',
    transferred: 'Esta entrada se vendió y ahora pertenece a quien la compró.',
    used: 'Esta entrada ya se ha usado.',
    invalid: 'Esta entrada ya no es válida.',
    willCallOnly: 'Recoge tus entradas en taquilla con el número de abajo.',
    willCall: 'Número de recogida',
    pickUp: 'Recogida en taquilla',
    pickUpText: 'Da este número de entrada en taquilla; comprobarán la identidad de quien la tiene.',
    pickUpTicket: 'Entrada',
    pickUpHolder: 'Titular',
    willCallOnlyDetails: 'Recoge tus entradas en taquilla con los datos de abajo.',
    qrLabel: (id: string) => `Código QR de la entrada ${id}`,
    code: 'Código',
    pdf: 'Descargar la entrada (PDF)',
    gone: 'Este enlace de entrada no funciona',
    goneText: 'El enlace no es correcto o la entrada ha cambiado de titular. Abre tus entradas desde la web de venta para obtener un enlace nuevo.',
  },
} as const;

/** What the ticket view adds to the shared stylesheet. */
const VIEW_CSS = `dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}dt{color:#4a4a55}dd{margin:0;font-weight:600}
.card+.card{margin-top:1rem}.qr svg,.qr img{width:100%;max-width:18rem;height:auto;display:block;margin:0 auto}
.notice{background:#fff7e0;border-left:4px solid #8a5a00;padding:.75rem 1rem}.willcall{font-size:1.4rem;letter-spacing:.05em}`;
/** The partner's QR image (URL access) may be on any https host. */
const VIEW_CSP = cspWith({ styles: [VIEW_CSS], imgSrc: ['https:'] });

function langOf(c: Context, fallback: string): Lang {
  const q = c.req.query('lang');
  if (q === 'en' || q === 'es') return q;
  return fallback === 'es' ? 'es' : 'en';
}

function Page(props: { lang: Lang; title: string; children: unknown }) {
  return (
    <Layout lang={props.lang} title={props.title} head={<style>{raw(VIEW_CSS)}</style>}>
      {props.children as never}
    </Layout>
  );
}

/** Pages that carry a ticket: the shared headers with the view's policy, and never indexed. */
function render(c: Context, node: Child, status = 200) {
  c.header('X-Robots-Tag', 'noindex, nofollow');
  return renderPage(c, node, { csp: VIEW_CSP, status });
}

const formatWhen = (ms: number, lang: Lang, timeZone: string | undefined) => formatInstant(ms, lang, timeZone);

function TicketPage({ v, lang, pdfHref }: { v: TicketView; lang: Lang; pdfHref: string | null }) {
  const T = TEXT[lang];
  const absence = v.access.qrAbsence;
  const message =
    absence === 'locked'
      ? T.locked(formatWhen(v.access.unlockAt, lang, v.timeZone))
      : absence === 'listed'
        ? T.listed
        : absence === 'transferred'
          ? T.transferred
          : absence === 'used'
            ? T.used
            : absence === 'invalid'
              ? T.invalid
              : absence === 'will_call_only'
                ? v.willCall?.number === null
                  ? T.willCallOnlyDetails
                  : T.willCallOnly
                : null;
  return (
    <Page lang={lang} title={`${v.eventTitle} · ${T.title}`}>
      <h1>{v.eventTitle}</h1>
      <p>
        {v.showTitle} · <time datetime={new Date(v.startsAt).toISOString()}>{formatWhen(v.startsAt, lang, v.timeZone)}</time>
        {v.venue ? ` · ${v.venue}` : ''}
      </p>
      <section class="card" aria-labelledby="ticket-h">
        <h2 id="ticket-h">{T.title}</h2>
        <dl>
          <dt>{T.category}</dt>
          <dd>{v.optionTitle}</dd>
          {v.seating.section ? (
            <>
              <dt>{T.section}</dt>
              <dd>{v.seating.section}</dd>
            </>
          ) : null}
          {v.seating.row ? (
            <>
              <dt>{T.row}</dt>
              <dd>{v.seating.row}</dd>
            </>
          ) : null}
          {v.seating.seat ? (
            <>
              <dt>{T.seat}</dt>
              <dd>{v.seating.seat}</dd>
            </>
          ) : null}
          <dt>{T.ticket}</dt>
          <dd>{v.ticketId}</dd>
          <dt>{T.status}</dt>
          <dd>{T.states[v.state]}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="access-h">
        <h2 id="access-h">{T.access}</h2>
        {message ? (
          <p class="notice" role="status">
            {message}
          </p>
        ) : null}
        {v.qr?.kind === 'svg' ? (
          <div class="qr" role="img" aria-label={T.qrLabel(v.ticketId)}>
            {raw(v.qr.svg)}
          </div>
        ) : null}
        {v.qr?.kind === 'image' ? (
          <div class="qr">
            <img src={v.qr.url} alt={T.qrLabel(v.ticketId)} referrerpolicy="no-referrer" />
          </div>
        ) : null}
        {v.code ? (
          <p>
            {T.code}: <strong>{v.code}</strong>
          </p>
        ) : null}
        {v.willCall ? (
          <>
            {v.willCall.number !== null ? (
              <p>
                {T.willCall}: <strong class="willcall">{v.willCall.number}</strong>
              </p>
            ) : null}
            {v.willCall.pickUp ? (
              <>
                <h3>{T.pickUp}</h3>
                <p>{T.pickUpText}</p>
                <dl>
                  <dt>{T.pickUpTicket}</dt>
                  <dd>
                    <strong class="willcall">{v.willCall.pickUp.ticketId}</strong>
                  </dd>
                  {v.willCall.pickUp.holder ? (
                    <>
                      <dt>{T.pickUpHolder}</dt>
                      <dd>{v.willCall.pickUp.holder}</dd>
                    </>
                  ) : null}
                </dl>
              </>
            ) : null}
            {v.willCall.instructions ? <p>{v.willCall.instructions}</p> : null}
          </>
        ) : null}
        {pdfHref ? (
          <p>
            <a href={pdfHref}>{T.pdf}</a>
          </p>
        ) : null}
      </section>
    </Page>
  );
}

function Gone({ lang }: { lang: Lang }) {
  const T = TEXT[lang];
  return (
    <Page lang={lang} title={T.gone}>
      <h1>{T.gone}</h1>
      <p>{T.goneText}</p>
    </Page>
  );
}

/**
 * The secure ticket view (`/tickets/view/:token`) and its PDF. Server-rendered, no script.
 * The QR (an SVG drawn from the ticket's code, or the partner's QR image for URL access) is
 * put in the HTML only after the unlock moment; before it the page says when.
 */
export function ticketPageRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  /** The ticket of the path's token and its view (QR drawn), or null. */
  const viewOfToken = async (token: string) => {
    const found = await deps.db.read(async (tx) => {
      const ticket = await ticketForToken(deps, tx, token);
      return ticket ? { ticket, view: await readTicketView(deps, tx, ticket.id), partner: await partnerById(tx, ticket.partnerId) } : null;
    });
    return found && { ticket: found.ticket, partner: found.partner, v: await drawQr(found.view) };
  };

  app.get('/tickets/view/:token', async (c) => {
    const found = await viewOfToken(c.req.param('token'));
    if (!found) return render(c, <Gone lang={langOf(c, 'en')} />, 404);
    const { v } = found;
    const lang = langOf(c, v.defaultLang);
    if (found.partner) brandAsPartner(c, found.partner);
    const pdfHref = v.access.showQr || v.willCall ? `${c.req.path}/ticket.pdf?lang=${lang}` : null;
    return render(c, <TicketPage v={v} lang={lang} pdfHref={pdfHref} />);
  });

  app.get('/tickets/view/:token/ticket.pdf', async (c) => {
    const found = await viewOfToken(c.req.param('token'));
    if (!found) return render(c, <Gone lang={langOf(c, 'en')} />, 404);
    const { ticket, v } = found;
    const lang = langOf(c, v.defaultLang);
    if (!v.access.showQr && !v.willCall) return render(c, <Gone lang={lang} />, 404);
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    const pdf = await ticketPdf(v, secureViewUrl(deps, ticket), lang);
    c.header('Content-Type', 'application/pdf');
    c.header('Content-Disposition', `attachment; filename="ticket-${v.ticketId.replace(/[^\w.-]/g, '_')}.pdf"`);
    return c.body(new Uint8Array(pdf));
  });

  return app;
}
