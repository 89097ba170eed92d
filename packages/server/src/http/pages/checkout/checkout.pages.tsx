/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { inOrder } from '../../../lib/in-order.js';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { AppDeps } from '../../../context.js';
import type { Tx } from '../../../db/client.js';
import { toIso } from '../../../lib/clock.js';
import { ApiError } from '../../../lib/errors.js';
import { currencyDigits } from '../../../lib/money.js';
import { brandAsPartner } from '../brand.js';
import { formatInstant } from '@resale/shared/format';
import { t } from '../../../lib/i18n.js';
import { cspWith, Layout, noticePage, pageBrandOf, renderPage } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { placeText } from '../../../lib/seats.js';
import { servicePaths, serviceUrl } from '../../../lib/urls.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfField, requireUser, safeRedirect, type SessionEnv } from '../auth/auth.session.js';
import { combinationOf, showWithEvent, ticketOptionByPk } from '../../../domain/events/events.queries.js';
import { intentionById, type IntentionRow } from '../../../domain/intentions/intentions.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import type { TicketRow } from '../../../domain/tickets/tickets.queries.js';
import { secureViewToken } from '../../../domain/tickets/tickets.view.js';
import { userByPk } from '../../../domain/users/users.queries.js';
import { answerVerification, checkout, MAX_DECLINED_ATTEMPTS, verifySellers, type CheckoutOutcome } from '../../../flows/checkout.js';
import { openHostedPayment, type HostedPayStep } from '../../../flows/hosted-payment.js';
import type { HostedProvider } from '../../../domain/payments/payments.provider.js';
import { CARD_FIELDS, readCard, type CardField, type TypedCard } from '../../../domain/payments/checkout.card.js';
import { cm, paidWith } from './checkout.messages.js';
import type { PaymentRow } from '../../../domain/payments/payments.service.js';

type C = Context<SessionEnv>;

/** The checkout's pages run the pages' script (the hold's countdown, focus on errors). */
const CHECKOUT_CSP = cspWith({ scripts: true });

/** How often the page that waits for the provider's confirmation looks again. */
const CONFIRMING_REFRESH_SECONDS = 3;

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** A ticket's place in words (`Section A · Row 1 · Seat 4`), or its ticket option when it has no seat. */
function placeOf(ticket: Pick<TicketRow, 'section' | 'row' | 'seat'>, optionTitle: string, lang: Lang): string {
  return placeText(ticket, lang) || optionTitle;
}

/**
 * The buyer's words for a provider's decline code (never the code itself): the sandbox's codes,
 * and Stripe's decline codes and error codes of the same meaning.
 */
function declineReason(code: string) {
  switch (code) {
    case 'card_declined':
    case 'generic_decline':
    case 'do_not_honor':
    case 'insufficient_funds':
      return 'declined_card_declined' as const;
    case 'authentication_failed':
    case 'payment_intent_authentication_failure':
    case 'authentication_required':
      return 'declined_authentication_failed' as const;
    case 'incorrect_number':
    case 'invalid_number':
      return 'declined_incorrect_number' as const;
    case 'expired_card':
      return 'declined_expired_card' as const;
    default:
      return 'declined_other' as const;
  }
}

/** Everything a checkout's summary and receipt show, read once. */
interface Order {
  eventTitle: string;
  showTitle: string;
  startsAt: number;
  timeZone: string | undefined;
  venue: string;
  items: { quantity: number; currency: string; priceMinor: number; buyerFeeMinor: number; optionTitle: string; faceMinor: number | null; tickets: TicketRow[] }[];
}

async function readOrder(deps: AppDeps, tx: Tx, intention: IntentionRow): Promise<Order> {
  const { show, event } = (await showWithEvent(tx, intention.showPk))!;
  const location = show.location ?? event.location;
  const items = await inOrder(intention.listingIds, async (id) => {
    const listing = await deps.listings.get(tx, intention.partnerId, id);
    const tickets = await deps.listings.ticketsOf(tx, id);
    const option = (await ticketOptionByPk(tx, listing.ticketOptionPk))!;
    // The face value as the organiser priced it: the combination's price wins over the option's (the spec's rule).
    const combo = await combinationOf(tx, listing.ticketOptionPk, listing.priceTypePk);
    return { quantity: listing.quantity, currency: listing.currency, priceMinor: listing.priceMinor, buyerFeeMinor: listing.buyerFeeMinor, optionTitle: option.title, faceMinor: combo?.priceMinor ?? option.priceMinor ?? tickets[0]?.priceMinor ?? null, tickets };
  });
  return {
    eventTitle: event.title,
    showTitle: show.title,
    startsAt: show.startsAt,
    timeZone: location.timeZone,
    venue: [location.venueName, location.city].filter(Boolean).join(', ') || location.raw || '',
    items,
  };
}

/**
 * The order summary: event, show, date in the show's time zone, venue, each ticket's place
 * (with a link to its secure view on the receipt), the face value, and a money table that adds
 * up to the total.
 */
function OrderSummary(props: { lang: Lang; order: Order; totalMinor: number; currency: string; title: string; ticketHref?: (ticket: TicketRow) => string | null }) {
  const { lang, order } = props;
  const m = (minor: number) => money(minor, props.currency, lang);
  return (
    <section class="summary" aria-labelledby="summary-title">
      <h2 id="summary-title">{props.title}</h2>
      <p class="summary-event">
        <strong>{order.eventTitle}</strong>
        <br />
        {order.showTitle}
      </p>
      <p class="muted">
        {formatInstant(order.startsAt, lang, order.timeZone)}
        {order.venue ? (
          <>
            <br />
            {order.venue}
          </>
        ) : null}
      </p>
      <h3>{props.ticketHref ? cm(lang, 'yourTickets') : cm(lang, 'ticketsTitle')}</h3>
      <ul class="summary-tickets">
        {order.items.flatMap((item) =>
          item.tickets.map((ticket) => {
            const href = props.ticketHref?.(ticket);
            return (
              <li>
                <span class="place">{placeOf(ticket, item.optionTitle, lang)}</span>
                <span class="muted">
                  {[ticket.section || ticket.row || ticket.seat ? item.optionTitle : null, item.faceMinor !== null ? cm(lang, 'faceValue', { price: money(item.faceMinor, item.currency, lang) }) : null].filter(Boolean).join(' · ')}
                </span>
                {href ? (
                  <a class="button secondary" href={href}>
                    {cm(lang, 'viewTicket')}
                    <span class="visually-hidden">: {placeOf(ticket, item.optionTitle, lang)}</span>
                  </a>
                ) : props.ticketHref ? (
                  <span class="muted">{cm(lang, 'ticketMovedOn')}</span>
                ) : null}
              </li>
            );
          }),
        )}
      </ul>
      <table class="money">
        <caption>{props.ticketHref ? cm(lang, 'amountPaid') : cm(lang, 'breakdown')}</caption>
        <tbody>
          {order.items.map((item) => (
            <>
              <tr>
                <th scope="row">{cm(lang, 'priceLine', { n: item.quantity, price: m(item.priceMinor) })}</th>
                <td>{m(item.quantity * item.priceMinor)}</td>
              </tr>
              <tr>
                <th scope="row">{cm(lang, 'feesLine', { n: item.quantity, fee: m(item.buyerFeeMinor) })}</th>
                <td>{m(item.quantity * item.buyerFeeMinor)}</td>
              </tr>
            </>
          ))}
          <tr class="total">
            <th scope="row">{cm(lang, 'total')}</th>
            <td>{m(props.totalMinor)}</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}

/**
 * The hold: its end in the show's time zone (all a page without script shows), and with the
 * pages' script a live `m:ss` countdown whose `aria-live` region speaks sparingly (see
 * http/pages/page-script.ts, `data-countdown`).
 */
function HoldCountdown(props: { lang: Lang; expiresAt: number; now: number; timeZone: string | undefined }) {
  const { lang } = props;
  return (
    <div
      class="countdown"
      data-countdown={toIso(props.expiresAt)}
      data-countdown-now={toIso(props.now)}
      data-countdown-one={cm(lang, 'countdownOne')}
      data-countdown-other={cm(lang, 'countdownOther')}
      data-countdown-ended={cm(lang, 'countdownEnded')}
    >
      <p class="countdown-left" data-countdown-reveal hidden>
        <span class="countdown-clock" role="timer" data-countdown-clock></span> <span>{cm(lang, 'timeLeft')}</span>
      </p>
      <p class="countdown-until">{cm(lang, 'reservedUntil', { time: formatInstant(props.expiresAt, lang, props.timeZone) })}</p>
      <p class="countdown-ended" data-countdown-on-end hidden>
        <strong>{cm(lang, 'countdownEnded')}</strong> {cm(lang, 'countdownReload')}
      </p>
      <p class="visually-hidden" aria-live="polite" data-countdown-live></p>
    </div>
  );
}

/** What the checkout form shows besides itself: field errors with what was typed, or a declined payment to try again after. */
interface FormState {
  errors?: Partial<Record<CardField, string>>;
  typed?: TypedCard;
  declined?: { payment: PaymentRow; attemptsLeft: number };
  status?: number;
}

/**
 * The hosted checkout (`/checkout/:partnerId/:intentionId`): the buyer signs in (Login
 * Force, or a one-time password for partners without login), every seller's ticket is
 * checked live with the platform (a ticket that moved cancels the reservation), then the
 * card is charged through the payment provider. A declined card keeps the reservation: the
 * buyer is back on the checkout with the reason in words, to try another card while the hold
 * lasts. Also the provider's extra-verification step and the receipt. Forms work without
 * script and carry CSRF tokens.
 */
export function checkoutPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  const marketLink = async (partner: PartnerRow, intention: IntentionRow, lang: Lang) => {
    const { show, event } = (await deps.db.read(async (tx) => await showWithEvent(tx, intention.showPk)))!;
    return { href: servicePaths.market(partner.id, event.externalReferenceId, { showId: show.showId, lang }), label: cm(lang, 'backToMarket') };
  };

  /** The intention of the signed-in buyer (claiming an unclaimed one), or the page that says why not. */
  async function load(c: C, partner: PartnerRow, lang: Lang): Promise<{ intention: IntentionRow; userPk: string } | Response> {
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    let claimed: Awaited<ReturnType<AppDeps['intentions']['claim']>>;
    try {
      claimed = await deps.db.transact(async (tx) => await deps.intentions.claim(tx, partner.id, c.req.param('intentionId') ?? '', session.userPk));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_found') return notFoundPage(c, lang);
      throw err;
    }
    if (!claimed.ok && claimed.reason === 'own_listing') return noticePage(c, { lang, status: 409, title: cm(lang, 'ownListingTitle'), text: cm(lang, 'ownListingText'), link: await marketLink(partner, claimed.row, lang) });
    if (!claimed.ok) return noticePage(c, { lang, status: 403, title: cm(lang, 'notYoursTitle'), text: cm(lang, 'notYoursText') });
    // The header's way back is the partner page the buyer came from.
    brandAsPartner(c, partner, claimed.row.returnTo);
    return { intention: claimed.row, userPk: session.userPk };
  }

  const checkoutPath = (partner: PartnerRow, intention: IntentionRow, lang: Lang) => servicePaths.checkout(partner.id, intention.id, { lang });

  /**
   * The signed-in buyer's checkout while it is PENDING; else the receipt (paid: `status` is the
   * redirect's, 303 after a POST) or the page that says it ended.
   */
  async function pendingCheckout(c: C, partner: PartnerRow, lang: Lang, status: 302 | 303 = 302): Promise<{ intention: IntentionRow; userPk: string } | Response> {
    const loaded = await load(c, partner, lang);
    if (loaded instanceof Response) return loaded;
    const { intention } = loaded;
    if (intention.state === 'PAID') return safeRedirect(c, servicePaths.checkoutDone(partner.id, intention.id, { lang }), status);
    if (intention.state !== 'PENDING') return outcomePage(c, partner, intention, lang, { kind: 'ended', state: intention.state });
    return loaded;
  }

  /** The page of a checkout step's outcome (flows/checkout.ts decides; this only says it). */
  async function outcomePage(c: C, partner: PartnerRow, intention: IntentionRow, lang: Lang, outcome: CheckoutOutcome): Promise<Response> {
    if (outcome.kind === 'platform_unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    if (outcome.kind === 'provider_unavailable') return noticePage(c, { lang, status: 503, title: cm(lang, 'providerUnavailableTitle'), text: cm(lang, 'providerUnavailableText'), headers: { 'Retry-After': '30' }, link: { href: checkoutPath(partner, intention, lang), label: cm(lang, 'checkAgain') } });
    if (outcome.kind === 'ticket_moved') return noticePage(c, { lang, status: 409, title: cm(lang, 'movedTitle'), text: cm(lang, 'movedText'), link: await marketLink(partner, intention, lang) });
    if (outcome.kind === 'risk_high') return noticePage(c, { lang, status: 402, title: cm(lang, 'riskTitle'), text: cm(lang, 'riskText'), link: await marketLink(partner, intention, lang) });
    if (outcome.kind === 'paid') return safeRedirect(c, servicePaths.checkoutDone(partner.id, intention.id, { lang }), 303);
    if (outcome.kind === 'verify') return safeRedirect(c, servicePaths.checkoutVerify(partner.id, outcome.paymentId, { lang }), 303);
    // Declined, the reservation kept: back to the checkout (a GET, so a reload charges nothing) that says why.
    if (outcome.kind === 'declined' && outcome.attemptsLeft > 0) return safeRedirect(c, `${checkoutPath(partner, intention, lang)}&declined=${encodeURIComponent(outcome.paymentId)}#declined`, 303);
    if (outcome.kind === 'declined') return noticePage(c, { lang, status: 402, title: cm(lang, 'tooManyTitle'), text: cm(lang, 'tooManyText'), link: await marketLink(partner, intention, lang) });
    // Why it ended, when the buyer did not end it: the organiser's delist, the seller's (or
    // channel's) withdrawal, or their own listing.
    // `get` expires a PENDING intention past its time on the way: a write, so a transaction.
    const reason = (await deps.db.transact(async (tx) => await deps.intentions.get(tx, partner.id, intention.id))).endReason;
    const [title, text] =
      reason === 'delisted' ? (['delistedTitle', 'delistedText'] as const) : reason === 'withdrawn' ? (['withdrawnTitle', 'withdrawnText'] as const) : reason === 'own_listing' ? (['ownListingTitle', 'ownListingText'] as const) : (['endedTitle', 'endedText'] as const);
    return noticePage(c, { lang, status: 409, title: cm(lang, title), text: cm(lang, text), link: await marketLink(partner, intention, lang) });
  }

  async function checkoutPage(c: C, partner: PartnerRow, intention: IntentionRow, lang: Lang, state: FormState = {}) {
    const { order, buyer } = await deps.db.read(async (tx) => ({ order: await readOrder(deps, tx, intention), buyer: intention.buyerPk ? await userByPk(tx, intention.buyerPk) : undefined }));
    const action = servicePaths.checkout(partner.id, intention.id);
    const errors = state.errors ?? {};
    const listed = CARD_FIELDS.filter((f) => errors[f]);
    // The name on the card defaults to the buyer's, when the partner told it.
    const typed: TypedCard = state.typed ?? { cardNumber: '', expiry: '', cardName: [buyer?.firstName, buyer?.lastName].filter(Boolean).join(' ') };
    const field = (name: CardField, label: string, auto: string, mode: 'numeric' | 'text', value?: string) => (
      <div class="field">
        <label for={name}>{label}</label>
        {errors[name] ? (
          <p class="field-error" id={`${name}-error`}>
            {errors[name]}
          </p>
        ) : null}
        <input
          type="text"
          id={name}
          name={name}
          inputmode={mode}
          autocomplete={auto}
          spellcheck={false}
          value={value || undefined}
          aria-invalid={errors[name] ? 'true' : undefined}
          aria-describedby={errors[name] ? `${name}-error` : undefined}
        />
      </div>
    );
    const declined = state.declined;
    return renderPage(
      c,
      <Layout lang={lang} title={cm(lang, 'title')} head={pageScriptTag()} wide>
        <h1>{cm(lang, 'title')}</h1>
        {declined ? (
          <div class="notice declined" id="declined" role="alert" tabindex={-1} data-autofocus>
            <h2>{cm(lang, declined.payment.failureCode === 'authentication_failed' ? 'notConfirmedTitle' : 'declinedTitle')}</h2>
            <p>
              {cm(lang, 'declinedRetry', { why: cm(lang, declineReason(declined.payment.failureCode ?? '')) })}
              {declined.attemptsLeft <= 2 ? ` ${cm(lang, declined.attemptsLeft === 1 ? 'attemptsLeftOne' : 'attemptsLeftOther', { n: declined.attemptsLeft })}` : ''}
            </p>
          </div>
        ) : null}
        {listed.length > 0 ? (
          <div class="error-summary" role="alert" tabindex={-1} aria-labelledby="error-summary-title" data-autofocus>
            <h2 id="error-summary-title">{cm(lang, 'errorSummaryTitle')}</h2>
            <ul>
              {listed.map((f) => (
                <li>
                  <a href={`#${f}`}>{errors[f]}</a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
        <HoldCountdown lang={lang} expiresAt={intention.expiresAt} now={deps.clock.now()} timeZone={order.timeZone} />
        <div class="checkout">
          <OrderSummary lang={lang} order={order} totalMinor={intention.totalMinor} currency={intention.currency} title={cm(lang, 'summaryTitle')} />
          <form method="post" action={action} class="card pay" novalidate aria-labelledby="pay-title">
            {csrfField(c, action)}
            <h2 id="pay-title">{cm(lang, 'payTitle')}</h2>
            {field('cardNumber', cm(lang, 'cardNumber'), 'cc-number', 'numeric', typed.cardNumber)}
            <div class="field-row">
              {field('expiry', cm(lang, 'expiry'), 'cc-exp', 'numeric', typed.expiry)}
              {field('cvc', cm(lang, 'cvc'), 'cc-csc', 'numeric')}
            </div>
            {field('cardName', cm(lang, 'cardName'), 'cc-name', 'text', typed.cardName)}
            {deps.payments.provider.name === 'sandbox' ? <p class="hint">{cm(lang, 'sandbox')}</p> : null}
            <button type="submit" class="pay-button">
              {cm(lang, 'pay', { amount: money(intention.totalMinor, intention.currency, lang) })}
            </button>
          </form>
        </div>
      </Layout>,
      { status: state.status ?? 200, csp: CHECKOUT_CSP },
    );
  }

  /**
   * The checkout with a hosted provider (Stripe): the order and the hold as with the card form,
   * and the provider's own payment form (the Payment Element) mounted by the pages' script
   * (`data-hosted-payment`), which confirms with the provider and lets it bring the buyer back
   * to `…/return`. The card never reaches the service; the outcome comes from the provider's
   * events. The policy allows the provider's script, frames and API and nothing more.
   */
  async function hostedPage(c: C, partner: PartnerRow, intention: IntentionRow, lang: Lang, provider: HostedProvider, step: HostedPayStep) {
    const order = await deps.db.read(async (tx) => await readOrder(deps, tx, intention));
    const failed = step.payment.failureCode && step.payment.declines > 0 ? step.payment.failureCode : null;
    const returnUrl = serviceUrl(deps.config.publicBaseUrl, servicePaths.checkoutReturn(partner.id, intention.id, { lang }));
    return renderPage(
      c,
      <Layout lang={lang} title={cm(lang, 'title')} head={<>{html`<script src="${provider.scriptUrl}"></script>`}{pageScriptTag()}</>} wide>
        <h1>{cm(lang, 'title')}</h1>
        {failed ? (
          <div class="notice declined" id="declined" role="alert" tabindex={-1} data-autofocus>
            <h2>{cm(lang, declineReason(failed) === 'declined_authentication_failed' ? 'notConfirmedTitle' : 'declinedTitle')}</h2>
            <p>{cm(lang, 'declinedRetry', { why: cm(lang, declineReason(failed)) })}</p>
          </div>
        ) : null}
        <HoldCountdown lang={lang} expiresAt={intention.expiresAt} now={deps.clock.now()} timeZone={order.timeZone} />
        <div class="checkout">
          <OrderSummary lang={lang} order={order} totalMinor={intention.totalMinor} currency={intention.currency} title={cm(lang, 'summaryTitle')} />
          <form class="card pay" aria-labelledby="pay-title" data-hosted-payment={provider.name} data-key={provider.publishableKey} data-client-secret={step.clientSecret} data-return-url={returnUrl} data-locale={lang} data-load-failed={cm(lang, 'payHostedLoadFailed')}>
            <h2 id="pay-title">{cm(lang, 'payHostedTitle')}</h2>
            <noscript>
              <p class="notice">{cm(lang, 'payHostedNoScript')}</p>
            </noscript>
            <div data-hosted-element></div>
            <p class="field-error" data-hosted-error role="alert" hidden></p>
            <button type="submit" class="pay-button" data-hosted-submit hidden>
              {cm(lang, 'pay', { amount: money(intention.totalMinor, intention.currency, lang) })}
            </button>
          </form>
        </div>
      </Layout>,
      { csp: cspWith({ provider: provider.csp }) },
    );
  }

  /** The declined payment `?declined=` names, when it is this checkout's: what the page says above the form. */
  async function declinedOf(c: C, partner: PartnerRow, intention: IntentionRow): Promise<FormState['declined']> {
    const id = c.req.query('declined');
    if (!id) return undefined;
    return await deps.db.read(async (tx) => {
      const payment = await deps.payments.find(tx, partner.id, id);
      if (!payment || payment.intentionId !== intention.id || payment.state !== 'declined') return undefined;
      return { payment, attemptsLeft: Math.max(0, MAX_DECLINED_ATTEMPTS - (await deps.payments.declinedCount(tx, intention.id))) };
    });
  }

  app.get(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await pendingCheckout(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      const hosted = deps.payments.hosted;
      if (hosted) {
        const step = await openHostedPayment(deps, hosted, { partner, intention, buyerPk: loaded.userPk });
        return step.kind === 'pay' ? hostedPage(c, partner, intention, lang, hosted, step) : outcomePage(c, partner, intention, lang, step);
      }
      const refused = await verifySellers(deps, partner, intention);
      if (refused) return outcomePage(c, partner, intention, lang, refused);
      const declined = await declinedOf(c, partner, intention);
      return checkoutPage(c, partner, intention, lang, declined ? { declined } : {});
    }),
  );

  app.post(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await pendingCheckout(c, partner, lang, 303);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      // A hosted provider's form never posts here: whatever did is sent to the checkout (nothing is read from it).
      if (deps.payments.hosted) return safeRedirect(c, checkoutPath(partner, intention, lang), 303);
      const { card, typed, errors } = readCard(await c.req.parseBody(), deps.clock.now());
      if (!card) return checkoutPage(c, partner, intention, lang, { errors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, cm(lang, v)])), typed, status: 400 });
      return outcomePage(c, partner, intention, lang, await checkout(deps, { partner, intention, buyerPk: loaded.userPk, card }));
    }),
  );

  /** The payment of the signed-in buyer (and its checkout), or null. */
  function pendingPayment(c: C, partner: PartnerRow, userPk: string) {
    return deps.db.read(async (tx) => {
      const p = await deps.payments.find(tx, partner.id, c.req.param('paymentId') ?? '');
      const i = p ? await intentionById(tx, p.intentionId) : undefined;
      return p && i && i.buyerPk === userPk ? { p, i } : null;
    });
  }

  app.get(
    '/checkout/:partnerId/verify/:paymentId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const row = await pendingPayment(c, partner, session.userPk);
      if (!row) return notFoundPage(c, lang);
      // Answered already (another tab, a reload after the answer): say how it went.
      if (row.p.state !== 'requires_action') return outcomePage(c, partner, row.i, lang, await answerVerification(deps, row.p, false));
      brandAsPartner(c, partner, row.i.returnTo);
      const timeZone = (await deps.db.read(async (tx) => await readOrder(deps, tx, row.i))).timeZone;
      const action = c.req.path;
      return renderPage(
        c,
        <Layout lang={lang} title={cm(lang, 'verifyTitle')} head={pageScriptTag()}>
          <h1>{cm(lang, 'verifyTitle')}</h1>
          <p>{cm(lang, 'verifyText', { amount: money(row.p.amountMinor, row.p.currency, lang) })}</p>
          <HoldCountdown lang={lang} expiresAt={row.i.expiresAt} now={deps.clock.now()} timeZone={timeZone} />
          <form method="post" action={action}>
            {csrfField(c, action)}
            <p class="actions">
              <button type="submit" name="answer" value="approve">
                {cm(lang, 'approve')}
              </button>
              <button type="submit" name="answer" value="reject" class="secondary">
                {cm(lang, 'reject')}
              </button>
            </p>
          </form>
        </Layout>,
        { csp: CHECKOUT_CSP },
      );
    }),
  );

  app.post(
    '/checkout/:partnerId/verify/:paymentId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const row = await pendingPayment(c, partner, session.userPk);
      if (!row) return notFoundPage(c, lang);
      const form = await c.req.parseBody();
      return outcomePage(c, partner, row.i, lang, await answerVerification(deps, row.p, form.answer === 'approve'));
    }),
  );

  /**
   * Where the hosted provider brings the buyer back after confirming (with its own query, which
   * is not read: the redirect only shows the state the provider's events left). Paid: the
   * receipt. Declined: the checkout, which says so. Still waiting for the provider's event: a
   * page that looks again every few seconds (a meta refresh: no script needed).
   */
  app.get(
    '/checkout/:partnerId/:intentionId/return',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await pendingCheckout(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      const payment = await deps.db.read(async (tx) => await deps.payments.hostedOf(tx, intention.id));
      if (!payment || payment.state === 'open' || payment.state === 'cancelled') return safeRedirect(c, checkoutPath(partner, intention, lang));
      const here = servicePaths.checkoutReturn(partner.id, intention.id, { lang });
      return renderPage(
        c,
        <Layout lang={lang} title={cm(lang, 'confirmingTitle')} head={html`<meta http-equiv="refresh" content="${CONFIRMING_REFRESH_SECONDS};url=${here}">`}>
          <h1>{cm(lang, 'confirmingTitle')}</h1>
          <p role="status">{cm(lang, 'confirmingText')}</p>
          <p class="actions">
            <a class="button secondary" href={here}>
              {cm(lang, 'checkAgain')}
            </a>
          </p>
        </Layout>,
      );
    }),
  );

  /**
   * The receipt: what was bought (event, show, date and venue in the show's time zone, each
   * ticket's place with the way to its secure view), what was paid (price and fees, the card's
   * last four), when, and the order's reference; and the way back to the partner. Its URL is
   * the buyer's to come back to: it answers only the signed-in buyer.
   */
  app.get(
    '/checkout/:partnerId/:intentionId/done',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await load(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      // Not paid yet: the checkout is where it goes on.
      if (intention.state === 'PENDING') return safeRedirect(c, checkoutPath(partner, intention, lang));
      if (intention.state !== 'PAID') return outcomePage(c, partner, intention, lang, { kind: 'ended', state: intention.state });
      const { order, payment } = await deps.db.read(async (tx) => ({ order: await readOrder(deps, tx, intention), payment: await deps.payments.paymentOfPaid(tx, intention.id) }));
      // Named as the header's way back names it: the same place, the same words.
      const brandName = pageBrandOf(c)?.name;
      const back = intention.returnTo ? { href: intention.returnTo, label: brandName ? t(lang, 'backTo', { name: brandName }) : cm(lang, 'backToSite') } : await marketLink(partner, intention, lang);
      // The secure view is signed for the ticket's owner: linked while the buyer still holds it.
      const ticketHref = (ticket: TicketRow) => (ticket.ownerPk === intention.buyerPk ? servicePaths.ticketView(secureViewToken(deps, ticket)) : null);
      const refunded = payment?.state === 'refund_pending' || payment?.state === 'refunded';
      const method = paidWith(payment, lang);
      return renderPage(
        c,
        <Layout lang={lang} title={cm(lang, 'doneTitle')} wide>
          <h1>{cm(lang, 'doneTitle')}</h1>
          <p>{cm(lang, 'doneText')}</p>
          <div class="checkout">
            <section class="card receipt" aria-labelledby="receipt-title">
              <h2 id="receipt-title">{cm(lang, 'orderReference')}</h2>
              <p class="reference">
                <code>{intention.id}</code>
              </p>
              <dl>
                <dt>{cm(lang, 'paidOn')}</dt>
                <dd>{formatInstant(intention.paidAt ?? intention.updatedAt, lang, order.timeZone)}</dd>
                {method ? (
                  <>
                    <dt>{cm(lang, 'paidWith')}</dt>
                    <dd>{method}</dd>
                  </>
                ) : null}
                <dt>{cm(lang, 'amountPaid')}</dt>
                <dd>
                  <strong>{money(intention.totalMinor, intention.currency, lang)}</strong>
                  {refunded ? ` · ${cm(lang, 'refunded')}` : ''}
                </dd>
              </dl>
              <p class="actions">
                <a class="button" href={back.href}>
                  {back.label}
                </a>
              </p>
              <p class="hint">{cm(lang, 'receiptKeep')}</p>
            </section>
            <OrderSummary lang={lang} order={order} totalMinor={intention.totalMinor} currency={intention.currency} title={cm(lang, 'summaryTitle')} ticketHref={ticketHref} />
          </div>
        </Layout>,
      );
    }),
  );

  return app;
}
