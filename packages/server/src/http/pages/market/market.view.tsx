/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant, formatTime } from '@resale/shared/format';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { RETURN_TO_TAG_PARAM } from '../../../domain/auth/auth.urls.js';
import { currencyDigits } from '../../../lib/money.js';
import { placeText } from '../../../lib/seats.js';
import type { Offer } from '../../../flows/market.queries.js';
import { CsrfInput } from '../auth/auth.session.js';
import { pageScriptTag } from '../page-script.js';
import { servicePaths } from '../../../lib/urls.js';
import { cm } from '../checkout/checkout.messages.js';
import { Layout, type NoticeProps } from '../layout.js';
import type { BuyFormFields, BuyRefusal, JoinErrors, JoinValues, MarketView, WaitingListView } from './market.load.js';
import { mm, orphanSeatMessages } from './market.messages.js';

/**
 * The market page's markup, stateless: the handler (market.pages.tsx) passes the view model
 * (market.load.ts), the language, the Buy forms' CSRF token, and the "signed in as" line.
 */

/** What the market page adds to the shared stylesheet (its CSP allows it by hash). */
export const MARKET_CSS = `.offers{list-style:none;padding:0}.offers li{margin:0 0 .75rem}.offers li.shared{outline:3px solid #0b4fb3}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}.price{font-size:1.2rem;font-weight:700}
.own-hold{background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s3) var(--s4);margin:0 0 var(--s4)}.own-hold h2{margin-top:0}.own-hold .countdown{margin-bottom:0}.own-hold .actions form{margin:0}
.others-hold{color:var(--muted)}.empty-market{background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s3) var(--s4);margin:0 0 var(--s4)}.empty-market h3{margin-top:0}
.wl-count{font-weight:600}.wl-form label{margin-top:var(--s3)}.wl-form input[type=number]{max-width:8rem}.wl-form .confirm label{display:inline;font-weight:400}.in-line h2,.wl-offer h2{margin-top:0}.in-line .actions form,.wl-offer .actions form{margin:0}`;

/** The waiting list as the page shows it (when the show's list is enabled), with its forms' tokens and a refused join's values and errors. */
export interface WaitingListProps {
  view: WaitingListView;
  csrf: { join: string; leave: string };
  values: JoinValues;
  errors: JoinErrors;
  /** What was just done, said once: joined, left, or an offer declined. */
  done: 'joined' | 'left' | 'declined' | null;
}

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** A Buy form: its CSRF field, then what it carries. */
function BuyForm(props: { action: string; csrf: string; children?: Child }) {
  return (
    <form method="post" action={props.action}>
      <CsrfInput token={props.csrf} />
      {props.children ?? null}
    </form>
  );
}

/** What every Buy form carries besides its listings: the show (to come back to it after sign-in) and the way back. */
function BuyFields({ fields }: { fields: BuyFormFields }) {
  return (
    <>
      <input type="hidden" name="showId" value={fields.showId} />
      {fields.returnTo !== null ? <input type="hidden" name="returnTo" value={fields.returnTo} /> : null}
      {fields.returnTag !== null ? <input type="hidden" name={RETURN_TO_TAG_PARAM} value={fields.returnTag} /> : null}
    </>
  );
}

/** A listing that cannot be bought on its own: why, and the neighbour to buy with it (or the map). */
function StrandedBuy(props: { offer: Offer; companion: Offer | null; view: MarketView; csrf: string; lang: Lang }) {
  const { offer, companion, view, lang } = props;
  const place = companion ? companion.seats.map((s) => placeText(s, lang)).filter(Boolean).join(', ') : '';
  const total = companion ? money(offer.buyerTotalMinor * offer.quantity + companion.buyerTotalMinor * companion.quantity, offer.currency, lang) : '';
  return (
    <>
      <p class="hint">{mm(lang, 'strandsAlone')}</p>
      {companion ? (
        <BuyForm action={view.buyAction} csrf={props.csrf}>
          <input type="hidden" name="listingId" value={offer.listingId} />
          <input type="hidden" name="listingId" value={companion.listingId} />
          <BuyFields fields={view.buyFields} />
          <p>{mm(lang, 'together', { total })}</p>
          <button type="submit">{mm(lang, 'buyWith', { place })}</button>
        </BuyForm>
      ) : view.hasMap ? (
        <p>
          <a href="#seat-map">{mm(lang, 'pickOnMap')}</a>
        </p>
      ) : null}
    </>
  );
}

/**
 * The public market page of an event: the show, the seat map's pick, the seat map, the offers
 * grouped by ticket option and area (a shared listing marked), and the other dates.
 * `signedInAs`: the "signed in as … Sign out" line (nothing when signed out).
 */
export function MarketPage(props: { view: MarketView; lang: Lang; csrf: string; releaseCsrf: Record<string, string>; released?: boolean; notify: { csrf: string; on: boolean; email: string | null } | null; waitingList?: WaitingListProps | null; waitingListClosed?: boolean; signedInAs: Child }) {
  const { view: v, lang, csrf } = props;
  const wl = props.waitingList ?? null;
  const offer = wl?.view.mine?.offer ?? null;
  // The join form shows on an empty market to a fan not in line; a refusal of the whole form (already waiting…) shows anyway.
  const showJoin = wl !== null && !wl.view.mine && v.groups.length === 0 && !v.show.cancelled;
  const formRefusal = wl && !showJoin && wl.errors.form ? mm(lang, wl.errors.form, { max: wl.view.max }) : props.waitingListClosed ? mm(lang, 'wlClosed') : null;
  return (
    <Layout
      lang={lang}
      title={v.eventTitle}
      wide={v.hasMap}
      head={
        <>
          <style>{raw(MARKET_CSS)}</style>
          {v.hasMap ? <script type="module" src={servicePaths.widgetsEntry()}></script> : null}
          {v.ownHolds.length > 0 || offer ? pageScriptTag() : null}
        </>
      }
    >
      {props.signedInAs}
      <h1>{v.eventTitle}</h1>
      <p>
        {v.show.title} · <time datetime={new Date(v.show.startsAt).toISOString()}>{formatInstant(v.show.startsAt, lang, v.timeZone)}</time>
        {v.venueName ? ` · ${v.venueName}` : ''}
      </p>
      {v.show.cancelled ? <p role="status">{mm(lang, 'cancelled')}</p> : null}
      {v.primary ? <p role="status">{mm(lang, v.primary === 'soldOut' ? 'primarySoldOut' : 'primaryAlmostSoldOut')}</p> : null}
      {props.released ? (
        <p class="notice" role="status">
          {mm(lang, 'released')}
        </p>
      ) : null}
      {wl?.done ? (
        <p class="notice" role="status">
          {mm(lang, wl.done === 'joined' ? 'wlJoined' : wl.done === 'left' ? 'wlLeft' : 'wlDeclined')}
        </p>
      ) : null}
      {wl?.view.mine ? <InLine lang={lang} wl={wl} now={v.now} timeZone={v.timeZone} showId={v.show.showId} /> : null}
      {v.ownHolds.map((h, i) => (
        <OwnHold lang={lang} hold={h} index={i} now={v.now} timeZone={v.timeZone} csrf={props.releaseCsrf[h.release] ?? ''} />
      ))}
      {v.picked.length > 0 ? (
        <section aria-labelledby="selection">
          <h2 id="selection">{mm(lang, 'selection')}</h2>
          {v.selection.length < v.picked.length ? <p role="alert">{mm(lang, 'selectionGone')}</p> : null}
          {v.selection.length > 0 ? (
            <BuyForm action={v.buyAction} csrf={csrf}>
              <ul>
                {v.selection.map((o) => (
                  <li>
                    {o.optionTitle} · {o.seats.map((s) => placeText(s, lang)).filter(Boolean).join(', ') || mm(lang, 'tickets', { n: o.quantity })} ·{' '}
                    {money(o.buyerTotalMinor * o.quantity, o.currency, lang)}
                    <input type="hidden" name="listingId" value={o.listingId} />
                  </li>
                ))}
              </ul>
              <p>
                {mm(lang, 'selectionTotal')}: <span class="price">{money(v.selectionTotal, v.selection[0]!.currency, lang)}</span>
              </p>
              <BuyFields fields={v.buyFields} />
              <button type="submit">{mm(lang, 'reserve')}</button>
            </BuyForm>
          ) : null}
        </section>
      ) : null}
      {v.hasMap ? (
        <section aria-labelledby="seat-map">
          <h2 id="seat-map">{mm(lang, 'map')}</h2>
          <resale-seat-map lang={lang} src={v.seatMapSrc} selected={v.picked.length > 0 ? v.picked.join(',') : undefined}></resale-seat-map>
        </section>
      ) : null}
      <h2>{mm(lang, 'forSale')}</h2>
      {v.groups.length === 0 && !v.show.cancelled ? <p>{mm(lang, 'none')}</p> : null}
      {formRefusal ? (
        <p class="notice error" role="alert">
          {formRefusal}
        </p>
      ) : null}
      {wl && wl.view.waiting > 0 ? (
        <p class="wl-count" role="status">
          {mm(lang, wl.view.waiting === 1 ? 'wlWaitingOne' : 'wlWaitingOther', { n: wl.view.waiting })}
        </p>
      ) : null}
      {props.notify ? <EmptyMarket lang={lang} view={v} notify={props.notify} /> : null}
      {showJoin ? <JoinWaitingList lang={lang} view={v} wl={wl} /> : null}
      {v.othersHold && !v.show.cancelled ? (
        <p class="others-hold" role="status">
          {mm(lang, v.othersHold.tickets === 1 ? 'othersHoldOne' : 'othersHoldOther', { n: v.othersHold.tickets, time: formatTime(v.othersHold.backAt, lang, v.timeZone) })}
        </p>
      ) : null}
      {v.heldForLine && !v.show.cancelled ? (
        <p class="others-hold held-for-line" role="status">
          {mm(lang, v.heldForLine.tickets === 1 ? 'heldForLineOne' : 'heldForLineOther', { n: v.heldForLine.tickets, time: formatTime(v.heldForLine.until, lang, v.timeZone) })}
        </p>
      ) : null}
      {v.groups.map(({ title, offers }) => (
        <section aria-label={title}>
          <h3>{title}</h3>
          <ul class="offers">
            {offers.map(({ offer: o, shared, stranded }) => (
              <li class={shared ? 'card shared' : 'card'} aria-current={shared ? 'true' : undefined}>
                {shared ? <p>{mm(lang, 'shared')}</p> : null}
                <p>
                  <span class="price">{money(o.buyerTotalMinor, o.currency, lang)}</span> {mm(lang, 'perTicket')}
                </p>
                {o.quantity > 1 ? <p>{mm(lang, 'tickets', { n: o.quantity })}</p> : null}
                {o.seats.some((s) => s.section || s.row || s.seat) ? (
                  <ul>
                    {o.seats.map((s) => (
                      <li>{placeText(s, lang)}</li>
                    ))}
                  </ul>
                ) : null}
                {stranded ? (
                  <StrandedBuy offer={o} companion={stranded.companion} view={v} csrf={csrf} lang={lang} />
                ) : (
                  <BuyForm action={v.buyAction} csrf={csrf}>
                    <input type="hidden" name="listingId" value={o.listingId} />
                    <BuyFields fields={v.buyFields} />
                    <button type="submit" aria-label={`${cm(lang, 'buy')} · ${o.optionTitle} · ${money(o.buyerTotalMinor, o.currency, lang)}`}>
                      {cm(lang, 'buy')}
                    </button>
                  </BuyForm>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
      {v.otherShows.length > 0 ? (
        <nav aria-label={mm(lang, 'shows')}>
          <h2>{mm(lang, 'shows')}</h2>
          <ul>
            {v.otherShows.map((s) => (
              <li>
                <a href={s.href}>
                  {s.title} · {formatInstant(s.startsAt, lang, s.timeZone, 'long')}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </Layout>
  );
}

/** The link of a refusal back to the market. */
const backToMarket = (href: string, lang: Lang) => ({ href, label: cm(lang, 'backToMarket') });

/**
 * The notice of a refused Buy (for `noticePage`): too many holds (429, `Retry-After`, the
 * pending checkout), an orphan seat or a bad pick (400), the buyer's own listing or tickets taken
 * meanwhile (409), with the way back to the market where there is one.
 */
export function buyRefusalNotice(refusal: BuyRefusal, lang: Lang): NoticeProps & { status: number; headers?: Record<string, string> } {
  switch (refusal.kind) {
    case 'holdLimit': {
      const text =
        refusal.limit === 'perClientAddress'
          ? cm(lang, 'holdsPerAddress', { minutes: Math.max(1, Math.ceil(refusal.retryAfterSeconds / 60)) })
          : cm(lang, refusal.limit === 'perBuyer' ? 'holdsPerBuyer' : 'heldTicketsPerShow', { n: refusal.max });
      return {
        lang,
        status: 429,
        headers: { 'Retry-After': String(refusal.retryAfterSeconds) },
        title: cm(lang, 'holdLimitTitle'),
        text,
        ...(refusal.pendingCheckout ? { link: { href: refusal.pendingCheckout, label: cm(lang, 'continueCheckout') } } : {}),
      };
    }
    case 'orphanSeat':
      return { lang, status: 400, title: orphanSeatMessages(lang, 'title'), text: orphanSeatMessages(lang, 'text'), link: backToMarket(refusal.market, lang) };
    case 'invalid':
      return { lang, status: 400, title: cm(lang, 'takenTitle'), text: refusal.message };
    case 'ownListing':
      return { lang, status: 409, title: cm(lang, 'ownListingTitle'), text: cm(lang, 'ownListingPickText'), link: backToMarket(refusal.market, lang) };
    case 'taken':
      return { lang, status: 409, title: cm(lang, 'takenTitle'), text: cm(lang, 'takenText'), link: backToMarket(refusal.market, lang) };
  }
}

/**
 * What an empty market offers instead of ending the journey: to be told by e-mail when tickets
 * appear (or that the fan is on the list already), and the show's primary sale when the
 * partner gave one.
 */
function EmptyMarket(props: { lang: Lang; view: MarketView; notify: { csrf: string; on: boolean; email: string | null } }) {
  const { lang, view: v, notify } = props;
  return (
    <section class="empty-market" id="notify" aria-labelledby="notify-title">
      <h3 id="notify-title">{mm(lang, 'notifyTitle')}</h3>
      {notify.on ? (
        <p role="status">{notify.email ? mm(lang, 'notifyOnAt', { email: notify.email }) : mm(lang, 'notifyOn')}</p>
      ) : (
        <form method="post" action={v.notifyAction}>
          <CsrfInput token={notify.csrf} />
          <input type="hidden" name="showId" value={v.show.showId} />
          <p>{mm(lang, 'notifyText')}</p>
          <button type="submit">{mm(lang, 'notifyButton')}</button>
        </form>
      )}
      <PrimarySaleLink url={v.primarySalesUrl} lang={lang} />
    </section>
  );
}

/** Tickets held until `expiresAt`: what is held (`text`) and the time left, counted down by the page script. */
function HoldCountdown({ lang, expiresAt, now, text }: { lang: Lang; expiresAt: number; now: number; text: string }) {
  return (
    <div class="countdown" data-countdown={new Date(expiresAt).toISOString()} data-countdown-now={new Date(now).toISOString()} data-countdown-one={cm(lang, 'countdownOne')} data-countdown-other={cm(lang, 'countdownOther')} data-countdown-ended={cm(lang, 'countdownEnded')}>
      <p>{text}</p>
      <p class="countdown-left" data-countdown-reveal hidden>
        <span class="countdown-clock" role="timer" data-countdown-clock></span> <span>{cm(lang, 'timeLeft')}</span>
      </p>
      <p class="visually-hidden" aria-live="polite" data-countdown-live></p>
    </div>
  );
}

/** The link to the partner's own (primary) sale of the show, under an empty market, when it has one. */
function PrimarySaleLink({ url, lang }: { url: string | null | undefined; lang: Lang }) {
  return url ? (
    <p>
      <a href={url} rel="noopener">
        {mm(lang, 'primarySale')}
      </a>
    </p>
  ) : null;
}

/**
 * The viewer's own live checkout of this show: how many tickets, until when (with the pages'
 * countdown), the way back to pay, and a release that gives them back to the market at once.
 * Without it a fan who left the checkout would find the market "sold out" by their own hold.
 */
function OwnHold(props: { lang: Lang; hold: MarketView['ownHolds'][number]; index: number; now: number; timeZone: string | undefined; csrf: string }) {
  const { lang, hold } = props;
  const until = formatTime(hold.expiresAt, lang, props.timeZone);
  return (
    <section class="own-hold" aria-labelledby={`own-hold-${props.index}`}>
      <h2 id={`own-hold-${props.index}`}>{mm(lang, 'ownHoldTitle')}</h2>
      <HoldCountdown lang={lang} expiresAt={hold.expiresAt} now={props.now} text={mm(lang, hold.tickets === 1 ? 'ownHoldOne' : 'ownHoldOther', { n: hold.tickets, time: until })} />
      <div class="actions">
        <a class="button" href={hold.checkout}>
          {mm(lang, 'continueCheckout')}
        </a>
        <form method="post" action={hold.release}>
          <CsrfInput token={props.csrf} />
          <button type="submit" class="secondary">
            {mm(lang, 'release')}
          </button>
        </form>
      </div>
    </section>
  );
}

/** Why a Buy continued after sign-in reserved nothing: its pick expired (410), or it was not signed for this browser (400); with the way to the market. */
export function pickRefusalNotice(why: 'expired' | 'foreign', lang: Lang, market: string): NoticeProps & { status: number } {
  return why === 'expired'
    ? { lang, status: 410, title: mm(lang, 'pickExpiredTitle'), text: mm(lang, 'pickExpiredText'), link: backToMarket(market, lang) }
    : { lang, status: 400, title: mm(lang, 'pickForeignTitle'), text: mm(lang, 'pickForeignText'), link: backToMarket(market, lang) };
}

/** A join refusal's text: the quantity's names the most per fan. */
function joinErrorText(lang: Lang, key: NonNullable<JoinErrors[keyof JoinErrors]>, max: number): string {
  return mm(lang, key, { max });
}

/**
 * "Join the waiting list" on an empty market, when the show's list is enabled: how many
 * tickets (1 to the most per fan), seats together (a seated event only), a category (optional),
 * every refusal at once with the values as typed; and the primary sale when the partner gave one.
 */
function JoinWaitingList(props: { lang: Lang; view: MarketView; wl: WaitingListProps }) {
  const { lang, view: v, wl } = props;
  const { errors, values } = wl;
  const max = wl.view.max;
  const fields = (['quantity', 'ticketOptionId', 'together'] as const).filter((f) => errors[f]);
  const refused = fields.length > 0 || errors.form;
  return (
    <section class="empty-market" id="waitinglist" aria-labelledby="wl-title">
      <h3 id="wl-title">{mm(lang, 'wlTitle')}</h3>
      {refused ? (
        <div class="notice error" role="alert">
          <p>
            <strong>{mm(lang, 'wlErrorsTitle')}</strong>
          </p>
          <ul>
            {errors.form ? <li>{joinErrorText(lang, errors.form, max)}</li> : null}
            {fields.map((f) => (
              <li>
                <a href={`#wl-${f}`}>{joinErrorText(lang, errors[f]!, max)}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <p>{mm(lang, 'wlText')}</p>
      <form method="post" action={`${wl.view.joinAction}?lang=${lang}`} class="wl-form" novalidate>
        <CsrfInput token={wl.csrf.join} />
        <input type="hidden" name="showId" value={v.show.showId} />
        <label for="wl-quantity">{mm(lang, 'wlQuantity')}</label>
        <input
          type="number"
          id="wl-quantity"
          name="quantity"
          inputmode="numeric"
          min="1"
          max={String(max)}
          required
          value={values.quantity}
          aria-invalid={errors.quantity ? 'true' : undefined}
          aria-describedby={errors.quantity ? 'wl-quantity-hint wl-quantity-error' : 'wl-quantity-hint'}
        />
        <p class="hint" id="wl-quantity-hint">
          {mm(lang, 'wlQuantityHint', { max })}
        </p>
        {errors.quantity ? (
          <p class="error" id="wl-quantity-error">
            {joinErrorText(lang, errors.quantity, max)}
          </p>
        ) : null}
        {wl.view.options.length > 1 || values.ticketOptionId !== '' ? (
          <>
            <label for="wl-ticketOptionId">{mm(lang, 'wlOption')}</label>
            <select id="wl-ticketOptionId" name="ticketOptionId" aria-invalid={errors.ticketOptionId ? 'true' : undefined} aria-describedby={errors.ticketOptionId ? 'wl-ticketOptionId-error' : undefined}>
              <option value="" selected={values.ticketOptionId === ''}>
                {mm(lang, 'wlAnyOption')}
              </option>
              {wl.view.options.map((o) => (
                <option value={o.id} selected={values.ticketOptionId === o.id}>
                  {o.title}
                </option>
              ))}
            </select>
            {errors.ticketOptionId ? (
              <p class="error" id="wl-ticketOptionId-error">
                {joinErrorText(lang, errors.ticketOptionId, max)}
              </p>
            ) : null}
          </>
        ) : null}
        {wl.view.seated || values.together ? (
          <div class={errors.together ? 'confirm invalid' : 'confirm'}>
            {errors.together ? (
              <p class="error" id="wl-together-error">
                {joinErrorText(lang, errors.together, max)}
              </p>
            ) : null}
            <input type="checkbox" id="wl-together" name="together" value="1" checked={values.together} aria-invalid={errors.together ? 'true' : undefined} aria-describedby={errors.together ? 'wl-together-error' : undefined} />{' '}
            <label for="wl-together">{mm(lang, 'wlTogether')}</label>
          </div>
        ) : null}
        <button type="submit">{mm(lang, 'wlJoin')}</button>
      </form>
      <PrimarySaleLink url={v.primarySalesUrl} lang={lang} />
    </section>
  );
}

/**
 * The signed-in fan's place on the waiting list: "You are #12 in line for 2 tickets" and the
 * way out; or, with a live offer, the tickets held for them with the time left (the pages'
 * countdown), Buy (the offer's checkout) and No thanks (leaving declines the offer: the tickets
 * pass to the next fan).
 */
function InLine(props: { lang: Lang; wl: WaitingListProps; now: number; timeZone: string | undefined; showId: string }) {
  const { lang, wl } = props;
  const mine = wl.view.mine!;
  const leave = (label: string, intent: string) => (
    <form method="post" action={`${wl.view.leaveAction}?lang=${lang}`}>
      <CsrfInput token={wl.csrf.leave} />
      <input type="hidden" name="showId" value={props.showId} />
      <input type="hidden" name="entryId" value={mine.entryId} />
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" class="secondary">
        {label}
      </button>
    </form>
  );
  if (mine.offer) {
    const o = mine.offer;
    return (
      <section class="own-hold wl-offer" id="waitinglist" aria-labelledby="wl-offer-title">
        <h2 id="wl-offer-title">{mm(lang, 'wlOfferTitle')}</h2>
        <HoldCountdown lang={lang} expiresAt={o.expiresAt} now={props.now} text={mm(lang, o.tickets === 1 ? 'wlOfferOne' : 'wlOfferOther', { n: o.tickets, time: formatTime(o.expiresAt, lang, props.timeZone) })} />
        <div class="actions">
          <a class="button" href={o.checkout}>
            {cm(lang, 'buy')}
          </a>
          {leave(mm(lang, 'wlDecline'), 'decline')}
        </div>
      </section>
    );
  }
  return (
    <section class="own-hold in-line" id="waitinglist" aria-labelledby="wl-in-line">
      <h2 id="wl-in-line">{mm(lang, 'wlInLine')}</h2>
      {mine.position !== null ? <p class="price">{mm(lang, mine.quantity === 1 ? 'wlPositionOne' : 'wlPositionOther', { position: mine.position, n: mine.quantity })}</p> : null}
      <p>{mm(lang, 'wlInLineText')}</p>
      <div class="actions">{leave(mm(lang, 'wlLeave'), 'leave')}</div>
    </section>
  );
}
