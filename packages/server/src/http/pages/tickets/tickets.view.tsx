/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { TicketView } from '../../../domain/tickets/tickets.view.js';
import { cspWith, Layout } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { pageScriptOf, TICKET_WORKER } from '../offline-worker.js';
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
.rotating{text-align:center}.code-frame{position:relative;max-width:18rem;margin:0 auto}
.code-frame canvas{display:block;width:100%;height:auto;image-rendering:pixelated;background:#fff}
.code-bar{height:6px;margin-top:var(--s2);background:var(--line);border-radius:3px;overflow:hidden}.code-bar span{display:block;height:100%;background:var(--brand,#0b4fb3);transform-origin:left center}
.code-clock{margin:var(--s2) 0 0;font-variant-numeric:tabular-nums;font-weight:700;font-size:1.25rem;letter-spacing:.04em}
.code-help{color:var(--muted);margin:var(--s3) auto 0;max-width:28rem}.rotating .notice{text-align:left}
@media (prefers-reduced-motion:reduce){.code-bar span{transition:none}}
.notice{background:#fff7e0;border-left:4px solid #8a5a00;padding:.75rem 1rem}.willcall{font-size:1.4rem;letter-spacing:.05em}
.unlock[data-countdown-state=ended]{border-left-color:var(--ok)}.unlock[data-countdown-state=ended] .countdown-left,.unlock[data-countdown-state=ended] .countdown-until{display:none}.unlock .countdown-ended{color:inherit;display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s3)}
@media print{header.site .back,footer.site,.actions,.skip{display:none}.card{break-inside:avoid;border:1px solid #000}body{background:#fff}
.ticket-banner,.ticket-access::before,.ticket-access::after,.unlock [data-countdown-reveal],.unlock [data-countdown-on-end],.rotating{display:none!important}.ticket-access{border-top-color:#000}}`;

/**
 * The partner's QR image (URL access) and the show's banner may be on any https host; the
 * pages' script counts down to a locked QR's unlock, and the rotating code's script
 * (/widgets/v1/ticket-code.js) calls the service (its certificate, its status).
 */
export const VIEW_CSP = cspWith({ styles: [VIEW_CSS], imgSrc: ['https:'], scripts: true, fetches: true });

/** Where the rotating code's script is served from (its service worker: offline-worker.ts). */
export const TICKET_CODE_SCRIPT = pageScriptOf(TICKET_WORKER);

/**
 * What the page needs to show a rotating code (TicketView.rotating): the phone's part is the
 * script's (@resale/widgets src/hosted/ticket-code.ts), which reads these from the element's
 * data attributes.
 */
export interface RotatingCodeProps {
  /** The ticket's key in the phone's storage (its internal id: the same across languages and links of one holder). */
  key: string;
  /** `POST` (certify this phone) and `GET` (its status) of the ticket's code: `/tickets/view/<token>/code`. */
  codeHref: string;
  /** The CSRF token of the POST. */
  csrf: string;
  /** The signed-in session is the ticket's holder's: the script may certify this phone. */
  holder: boolean;
  /** Where the holder signs in to come back to this page. */
  signInHref: string;
}

/** The shell of the ticket view's pages: the shared layout with the view's stylesheet, the pages' script when `script`, the rotating code's when `codeScript`. */
function Page(props: { lang: Lang; title: string; script?: boolean; codeScript?: boolean; children?: Child }) {
  return (
    <Layout
      lang={props.lang}
      title={props.title}
      head={
        <>
          <style>{raw(VIEW_CSS)}</style>
          {props.script ? pageScriptTag() : null}
          {props.codeScript ? <script type="module" src={TICKET_CODE_SCRIPT}></script> : null}
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
 * The rotating code's area: the canvas the script draws each step's QR on, a bar that runs
 * down to the next code and the time (a screenshot shows neither moving), what the code is,
 * and the states the script says in the live region (preparing, offline, moved to another
 * phone, no longer yours). Without script: why there is no code. Not signed in as the holder:
 * the way to sign in (the script hides it when this phone already holds the code).
 */
function RotatingCode(props: { v: TicketView; lang: Lang; code: RotatingCodeProps }) {
  const { v, lang, code } = props;
  const n = v.rotating!.rotationSeconds;
  const said = (key: Parameters<typeof tm>[1]) => tm(lang, key);
  return (
    <div
      class="rotating"
      data-ticket-code
      data-key={code.key}
      data-code-url={code.codeHref}
      data-csrf={code.csrf}
      data-holder={code.holder ? 'yes' : 'no'}
      data-rotation={String(n)}
      data-server-now={new Date(v.now).toISOString()}
      data-lang={lang}
      data-worker={TICKET_WORKER.path}
      data-worker-scope={TICKET_WORKER.scope}
      data-said-offline={said('codeOffline')}
      data-said-moved={said('codeMoved')}
      data-said-gone={said('codeGone')}
      data-said-off={said('codeOff')}
      data-said-too-many={said('codeTooMany')}
      data-said-failed={said('codeFailed')}
      data-said-needs-network={said('codeNeedsNetwork')}
      data-said-sign-in={said('codeSignIn')}
    >
      <div class="code-frame">
        <canvas data-code-canvas hidden width="61" height="61" role="img" aria-label={tm(lang, 'rotatingLabel', { id: v.ticketId, n })}></canvas>
        <div class="code-bar" data-code-bar hidden>
          <span></span>
        </div>
        <p class="code-clock" data-code-clock hidden></p>
      </div>
      <p class="code-help">{tm(lang, 'rotatingHelp', { n })}</p>
      <p class="notice" data-code-status role="status">
        {code.holder ? said('codePreparing') : said('codeSignIn')}
      </p>
      <noscript>
        <p class="notice">{said('codeNoScript')}</p>
      </noscript>
      <p class="actions" data-code-sign-in hidden={code.holder}>
        <a class="button" href={code.signInHref}>
          {said('codeSignInButton')}
        </a>
      </p>
      <p class="actions">
        <button type="button" class="button" data-code-move hidden>
          {said('codeMove')}
        </button>
      </p>
    </div>
  );
}

/**
 * The access stub: how the holder gets in. The QR (or why not yet: a locked one counts down to
 * its unlock), the code, the box office's pick-up, the PDF's link (`pdfHref`) if any, and "Add to
 * calendar" (`calendarHref`).
 *
 * The one place the page shows a credential: the partner's static QR, or in its place the
 * rotating, holder-bound code ({@link RotatingCode}) when the show's venue scans those.
 */
function AccessArea(props: { v: TicketView; lang: Lang; pdfHref: string | null; calendarHref: string; selfHref: string; code: RotatingCodeProps | null }) {
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
      {v.rotating && props.code ? <RotatingCode v={v} lang={lang} code={props.code} /> : null}
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
export function TicketPage({ v, lang, pdfHref, calendarHref, selfHref, code }: { v: TicketView; lang: Lang; pdfHref: string | null; calendarHref: string; selfHref: string; code: RotatingCodeProps | null }) {
  const banner = bannerSrc(v.imageUrl);
  return (
    <Page lang={lang} title={`${v.eventTitle} · ${tm(lang, 'title')}`} script={v.access.qrAbsence === 'locked'} codeScript={Boolean(v.rotating && code)}>
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
        <AccessArea v={v} lang={lang} pdfHref={pdfHref} calendarHref={calendarHref} selfHref={selfHref} code={code} />
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
