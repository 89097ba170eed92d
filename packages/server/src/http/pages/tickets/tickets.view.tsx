/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { TicketView } from '../../../domain/tickets/tickets.view.js';
import { cspWith, Layout } from '../layout.js';
import { tm } from './tickets.messages.js';
import { ticketName } from '../../../lib/seats.js';

/**
 * The secure ticket view's markup, stateless: the handlers (tickets.pages.tsx) pass the
 * ticket's view (tickets.load.ts), the language and the PDF's link.
 */

/** What the ticket view adds to the shared stylesheet. */
export const VIEW_CSS = `.ticket-place{font-size:1.25rem;font-weight:700;margin:0 0 .75rem}
@media print{header.site .back,footer.site,.actions,.skip{display:none}.card{break-inside:avoid;border:1px solid #000}body{background:#fff}}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}dt{color:#4a4a55}dd{margin:0;font-weight:600}
.card+.card{margin-top:1rem}.qr svg,.qr img{width:100%;max-width:18rem;height:auto;display:block;margin:0 auto}
.notice{background:#fff7e0;border-left:4px solid #8a5a00;padding:.75rem 1rem}.willcall{font-size:1.4rem;letter-spacing:.05em}`;
/** The partner's QR image (URL access) may be on any https host. */
export const VIEW_CSP = cspWith({ styles: [VIEW_CSS], imgSrc: ['https:'] });

/** The shell of the ticket view's pages: the shared layout with the view's stylesheet. */
function Page(props: { lang: Lang; title: string; children?: Child }) {
  return (
    <Layout lang={props.lang} title={props.title} head={<style>{raw(VIEW_CSS)}</style>}>
      {props.children}
    </Layout>
  );
}

const formatWhen = (ms: number, lang: Lang, timeZone: string | undefined) => formatInstant(ms, lang, timeZone);

/** Why the page shows no QR (locked until a moment, listed, sold, used, invalid, box office only), or null. */
function accessNotice(v: TicketView, lang: Lang): string | null {
  const absence = v.access.qrAbsence;
  return absence === 'locked'
    ? tm(lang, 'locked', { when: formatWhen(v.access.unlockAt, lang, v.timeZone) })
    : absence === 'listed'
      ? tm(lang, 'listed')
      : absence === 'transferred'
        ? tm(lang, 'transferred')
        : absence === 'used'
          ? tm(lang, 'used')
          : absence === 'invalid'
            ? tm(lang, 'invalid')
            : absence === 'will_call_only'
              ? v.willCall?.number === null
                ? tm(lang, 'willCallOnlyDetails')
                : tm(lang, 'willCallOnly')
              : null;
}

/**
 * The ticket: its event and show, its category and place, its state, and its access: the QR
 * (or why not yet), the code, the box office's pick-up, the PDF's link (`pdfHref`) if any, and
 * "Add to calendar" (`calendarHref`, the show as an .ics file).
 */
export function TicketPage({ v, lang, pdfHref, calendarHref }: { v: TicketView; lang: Lang; pdfHref: string | null; calendarHref: string }) {
  const message = accessNotice(v, lang);
  return (
    <Page lang={lang} title={`${v.eventTitle} · ${tm(lang, 'title')}`}>
      <h1>{v.eventTitle}</h1>
      <p>
        {v.showTitle} · <time datetime={new Date(v.startsAt).toISOString()}>{formatWhen(v.startsAt, lang, v.timeZone)}</time>
        {v.venue ? ` · ${v.venue}` : ''}
      </p>
      <section class="card" aria-labelledby="ticket-h">
        <h2 id="ticket-h">{tm(lang, 'title')}</h2>
        {/* The ticket as a fan knows it: its category and place, said once (never the platform's internal id). */}
        <p class="ticket-place">{ticketName(v.optionTitle, v.seating, lang)}</p>
        <dl>
          {v.ownerEmail ? (
            <>
              <dt>{tm(lang, 'holder')}</dt>
              <dd>{v.ownerEmail}</dd>
            </>
          ) : null}
          <dt>{tm(lang, 'status')}</dt>
          <dd>{tm(lang, `state_${v.state}`)}</dd>
        </dl>
      </section>
      <section class="card" aria-labelledby="access-h">
        <h2 id="access-h">{tm(lang, 'access')}</h2>
        {message ? (
          <p class="notice" role="status">
            {message}
          </p>
        ) : null}
        {v.qr?.kind === 'svg' ? (
          <div class="qr" role="img" aria-label={tm(lang, 'qrLabel', { id: v.ticketId })}>
            {raw(v.qr.svg)}
          </div>
        ) : null}
        {v.qr?.kind === 'image' ? (
          <div class="qr">
            <img src={v.qr.url} alt={tm(lang, 'qrLabel', { id: v.ticketId })} referrerpolicy="no-referrer" />
          </div>
        ) : null}
        {v.code ? (
          <p>
            {tm(lang, 'code')}: <strong>{v.code}</strong>
          </p>
        ) : null}
        {v.willCall ? (
          <>
            {v.willCall.number !== null ? (
              <p>
                {tm(lang, 'willCall')}: <strong class="willcall">{v.willCall.number}</strong>
              </p>
            ) : null}
            {v.willCall.pickUp ? (
              <>
                <h3>{tm(lang, 'pickUp')}</h3>
                <p>{tm(lang, 'pickUpText')}</p>
                <dl>
                  <dt>{tm(lang, 'pickUpTicket')}</dt>
                  <dd>
                    <strong class="willcall">{v.willCall.pickUp.ticketId}</strong>
                  </dd>
                  {v.willCall.pickUp.holder ? (
                    <>
                      <dt>{tm(lang, 'pickUpHolder')}</dt>
                      <dd>{v.willCall.pickUp.holder}</dd>
                    </>
                  ) : null}
                </dl>
              </>
            ) : null}
            {v.willCall.instructions ? <p>{v.willCall.instructions}</p> : null}
          </>
        ) : null}
        <p class="actions">
          {pdfHref ? <a href={pdfHref}>{tm(lang, 'pdf')}</a> : null}
          <a href={calendarHref}>{tm(lang, 'calendar')}</a>
        </p>
      </section>
    </Page>
  );
}

/** The 404 of a view link that does not work (wrong, or the ticket changed hands). */
export function Gone({ lang }: { lang: Lang }) {
  return (
    <Page lang={lang} title={tm(lang, 'gone')}>
      <h1>{tm(lang, 'gone')}</h1>
      <p>{tm(lang, 'goneText')}</p>
    </Page>
  );
}
