/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { TicketView } from '../../../domain/tickets/tickets.view.js';
import { cspWith, Layout } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { tm } from './tickets.messages.js';
import { ticketName } from '../../../lib/seats.js';

/**
 * The secure ticket view's markup, stateless: the handlers (tickets.pages.tsx) pass the
 * ticket's view (tickets.load.ts), the language and the PDF's link.
 */

/**
 * What the ticket view adds to the shared stylesheet. The ticket is one card, read top to
 * bottom as a paper ticket: the show's picture, the event, when and where, the place, the
 * holder and the state, then (past a perforation) the access stub with the QR.
 *
 * In print the banner goes (a photo in ink, and it pushes the QR towards a second sheet; the
 * door scans the code, not the picture), and so do the perforation's notches and the live
 * countdown (on paper only the unlock moment means anything).
 */
export const VIEW_CSS = `.ticket{padding:0}
.ticket-banner{display:block;width:100%;height:auto;aspect-ratio:5/2;object-fit:cover;border-radius:11px 11px 0 0;background:var(--line)}
.ticket-main,.ticket-access{padding:var(--s4)}
.ticket-kicker{margin:0 0 var(--s1);font-size:var(--t-sm);font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:var(--muted)}
.ticket h1{margin:0 0 var(--s2);overflow-wrap:anywhere}.ticket-when{font-weight:600;margin:0}.ticket-venue{color:var(--muted);margin:0}
.ticket-place{font-size:1.25rem;font-weight:700;margin:var(--s4) 0 var(--s3)}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0}dt{color:#4a4a55}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.ticket-access{position:relative;border-top:2px dashed var(--line)}.ticket-access h2{margin-top:0}
.ticket-access::before,.ticket-access::after{content:"";position:absolute;top:-12px;box-sizing:border-box;width:22px;height:22px;border-radius:50%;background:var(--canvas);border:1px solid var(--line)}
.ticket-access::before{left:-12px;clip-path:inset(0 0 0 50%)}.ticket-access::after{right:-12px;clip-path:inset(0 50% 0 0)}
.qr svg,.qr img{width:100%;max-width:18rem;height:auto;display:block;margin:0 auto}
.notice{background:#fff7e0;border-left:4px solid #8a5a00;padding:.75rem 1rem}.willcall{font-size:1.4rem;letter-spacing:.05em}
.unlock[data-countdown-state=ended]{border-left-color:var(--ok)}.unlock[data-countdown-state=ended] .countdown-left,.unlock[data-countdown-state=ended] .countdown-until{display:none}.unlock .countdown-ended{color:inherit;display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s3)}
@media print{header.site .back,footer.site,.actions,.skip{display:none}.card{break-inside:avoid;border:1px solid #000}body{background:#fff}
.ticket-banner,.ticket-access::before,.ticket-access::after,.unlock [data-countdown-reveal],.unlock [data-countdown-on-end]{display:none!important}.ticket-access{border-top-color:#000}}`;

/**
 * The partner's QR image (URL access) and the show's banner may be on any https host; the
 * pages' script counts down to a locked QR's unlock.
 */
export const VIEW_CSP = cspWith({ styles: [VIEW_CSS], imgSrc: ['https:'], scripts: true });

/** The shell of the ticket view's pages: the shared layout with the view's stylesheet, and the pages' script when `script`. */
function Page(props: { lang: Lang; title: string; script?: boolean; children?: Child }) {
  return (
    <Layout
      lang={props.lang}
      title={props.title}
      head={
        <>
          <style>{raw(VIEW_CSS)}</style>
          {props.script ? pageScriptTag() : null}
        </>
      }
    >
      {props.children}
    </Layout>
  );
}

const formatWhen = (ms: number, lang: Lang, timeZone: string | undefined) => formatInstant(ms, lang, timeZone);

/**
 * The banner may be shown only when the page's policy lets it load (`img-src https:`): an http
 * picture would be blocked (and mixed content on the https service anyway), leaving an empty,
 * sized box. So an http one is left out rather than the policy widened.
 */
const bannerSrc = (url: string | null): string | null => (url && /^https:\/\//i.test(url) ? url : null);

/** Why the page shows no QR (listed, sold, used, invalid, box office only), or null; the locked QR has its {@link UnlockCountdown}. */
function accessNotice(v: TicketView, lang: Lang): string | null {
  const absence = v.access.qrAbsence;
  return absence === 'listed'
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
 * A locked QR: when it unlocks in the venue's zone (all a page without script shows), and with
 * the pages' script a live countdown in its long format (the unlock may be days away) that
 * starts from the server's clock, announces only its last minutes, and at the end offers
 * `selfHref` (this page again, which then carries the QR). See http/pages/page-script.ts,
 * `data-countdown`.
 */
function UnlockCountdown(props: { v: TicketView; lang: Lang; selfHref: string }) {
  const { v, lang } = props;
  return (
    <div
      class="countdown unlock"
      data-countdown={new Date(v.access.unlockAt).toISOString()}
      data-countdown-now={new Date(v.now).toISOString()}
      data-countdown-format="long"
      data-countdown-day-one={tm(lang, 'dayOne')}
      data-countdown-day-other={tm(lang, 'dayOther')}
      data-countdown-one={tm(lang, 'unlockOne')}
      data-countdown-other={tm(lang, 'unlockOther')}
      data-countdown-ended={tm(lang, 'unlockEnded')}
    >
      <p class="countdown-left" data-countdown-reveal hidden>
        <span class="countdown-clock" role="timer" data-countdown-clock></span> <span>{tm(lang, 'unlockLeft')}</span>
      </p>
      <p class="countdown-until">{tm(lang, 'locked', { when: formatWhen(v.access.unlockAt, lang, v.timeZone) })}</p>
      <p class="countdown-ended" data-countdown-on-end hidden>
        <strong>{tm(lang, 'unlockEnded')}</strong>{' '}
        <a class="button" href={props.selfHref}>
          {tm(lang, 'showTicket')}
        </a>
      </p>
      <p class="visually-hidden" aria-live="polite" data-countdown-live></p>
    </div>
  );
}

/**
 * The access stub: how the holder gets in. The QR (or why not yet: a locked one counts down to
 * its unlock), the code, the box office's pick-up, the PDF's link (`pdfHref`) if any, and "Add to
 * calendar" (`calendarHref`).
 *
 * The one place the page shows a credential, kept apart on purpose: a future rotating,
 * holder-bound code (a QR redrawn every few seconds from a secret the page holds) drops in here,
 * replacing the static QR, without touching the rest of the ticket.
 */
function AccessArea(props: { v: TicketView; lang: Lang; pdfHref: string | null; calendarHref: string; selfHref: string }) {
  const { v, lang } = props;
  const message = accessNotice(v, lang);
  return (
    <section class="ticket-access" aria-labelledby="access-h">
      <h2 id="access-h">{tm(lang, 'access')}</h2>
      {v.access.qrAbsence === 'locked' ? <UnlockCountdown v={v} lang={lang} selfHref={props.selfHref} /> : null}
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
        {props.pdfHref ? <a href={props.pdfHref}>{tm(lang, 'pdf')}</a> : null}
        <a href={props.calendarHref}>{tm(lang, 'calendar')}</a>
      </p>
    </section>
  );
}

/**
 * The ticket, one card read as a paper ticket: the show's picture (decorative: the words beside
 * it say everything), the event, its show and start in the venue's zone, the venue, the category
 * and place, the holder and the state; then its {@link AccessArea}. `selfHref` is this page (the
 * locked QR's countdown offers it at the unlock).
 */
export function TicketPage({ v, lang, pdfHref, calendarHref, selfHref }: { v: TicketView; lang: Lang; pdfHref: string | null; calendarHref: string; selfHref: string }) {
  const banner = bannerSrc(v.imageUrl);
  return (
    <Page lang={lang} title={`${v.eventTitle} · ${tm(lang, 'title')}`} script={v.access.qrAbsence === 'locked'}>
      <article class="card ticket" aria-labelledby="ticket-h">
        {/* Sized by its attributes and aspect-ratio (no shift as it loads); eager: it is above the fold. */}
        {banner ? <img class="ticket-banner" src={banner} alt="" width="1000" height="400" loading="eager" decoding="async" referrerpolicy="no-referrer" /> : null}
        <div class="ticket-main">
          <p class="ticket-kicker">{tm(lang, 'title')}</p>
          <h1 id="ticket-h">{v.eventTitle}</h1>
          <p class="ticket-when">
            {v.showTitle} · <time datetime={new Date(v.startsAt).toISOString()}>{formatWhen(v.startsAt, lang, v.timeZone)}</time>
          </p>
          {v.venue ? <p class="ticket-venue">{v.venue}</p> : null}
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
        </div>
        <AccessArea v={v} lang={lang} pdfHref={pdfHref} calendarHref={calendarHref} selfHref={selfHref} />
      </article>
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
