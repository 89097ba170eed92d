/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { html } from 'hono/html';
import type { CardField } from '../../../domain/payments/checkout.card.js';
import { placeText, type Place } from '../../../lib/seats.js';
import { CsrfInput } from '../auth/auth.session.js';
import { Layout } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import type { CardCheckoutView, ConfirmingView, DeclinedView, HoldView, HostedCheckoutView, OrderView, ReceiptView, TrustView, VerifyView } from './checkout.load.js';
import { cardBrand } from '@resale/shared/cards';
import { cm } from './checkout.messages.js';

/**
 * The hosted checkout's pages as markup (checkout.load.ts loads what they show; checkout.pages.tsx
 * answers with them): stateless, from the view model, the language and the strings the routes
 * computed (URLs, CSRF tokens).
 */

/** How often the page that waits for the provider's confirmation looks again. */
const CONFIRMING_REFRESH_SECONDS = 3;

/** A ticket's place in words (`Section A · Row 1 · Seat 4`), or its ticket option when it has no seat. */
function placeOf(ticket: Place, optionTitle: string, lang: Lang): string {
  return placeText(ticket, lang) || optionTitle;
}

/**
 * The order summary: event, show, date in the show's time zone, venue, each ticket's place
 * (with a link to its secure view on the `receipt`), the face value, and a money table that adds
 * up to the total.
 */
function OrderSummary(props: { lang: Lang; order: OrderView; title: string; receipt?: boolean }) {
  const { lang, order } = props;
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
      <h3>{props.receipt ? cm(lang, 'yourTickets') : cm(lang, 'ticketsTitle')}</h3>
      <ul class="summary-tickets">
        {order.items.flatMap((item) =>
          item.tickets.map((ticket) => {
            const href = props.receipt ? ticket.href : undefined;
            return (
              <li>
                <span class="place">{placeOf(ticket, item.optionTitle, lang)}</span>
                <span class="muted">{[ticket.section || ticket.row || ticket.seat ? item.optionTitle : null, item.face !== null ? cm(lang, 'faceValue', { price: item.face }) : null].filter(Boolean).join(' · ')}</span>
                {href ? (
                  <a class="button secondary" href={href}>
                    {cm(lang, 'viewTicket')}
                    <span class="visually-hidden">: {placeOf(ticket, item.optionTitle, lang)}</span>
                  </a>
                ) : props.receipt ? (
                  <span class="muted">{cm(lang, 'ticketMovedOn')}</span>
                ) : null}
              </li>
            );
          }),
        )}
      </ul>
      <table class="money">
        <caption>{props.receipt ? cm(lang, 'amountPaid') : cm(lang, 'breakdown')}</caption>
        <tbody>
          {order.items.map((item) => (
            <>
              <tr>
                <th scope="row">{cm(lang, 'priceLine', { n: item.quantity, price: item.price })}</th>
                <td>{item.priceTotal}</td>
              </tr>
              <tr>
                <th scope="row">{cm(lang, 'feesLine', { n: item.quantity, fee: item.fee })}</th>
                <td>{item.feeTotal}</td>
              </tr>
            </>
          ))}
          <tr class="total">
            <th scope="row">{cm(lang, 'total')}</th>
            <td>{order.total}</td>
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
function HoldCountdown(props: { lang: Lang; hold: HoldView }) {
  const { lang, hold } = props;
  return (
    <div class="countdown" data-countdown={hold.expiresIso} data-countdown-now={hold.nowIso} data-countdown-one={cm(lang, 'countdownOne')} data-countdown-other={cm(lang, 'countdownOther')} data-countdown-ended={cm(lang, 'countdownEnded')}>
      <p class="countdown-left" data-countdown-reveal hidden>
        <span class="countdown-clock" role="timer" data-countdown-clock></span> <span>{cm(lang, 'timeLeft')}</span>
      </p>
      <p class="countdown-until">{cm(lang, 'reservedUntil', { time: formatInstant(hold.expiresAt, lang, hold.timeZone) })}</p>
      <p class="countdown-ended" data-countdown-on-end hidden>
        <strong>{cm(lang, 'countdownEnded')}</strong> {cm(lang, 'countdownReload')}
      </p>
      <p class="visually-hidden" aria-live="polite" data-countdown-live></p>
    </div>
  );
}

/** The declined payment the checkout is back after: why, in words, and (when few are left) the attempts left. */
function DeclinedNotice(props: { lang: Lang; declined: DeclinedView }) {
  const { lang, declined } = props;
  return (
    <div class="notice declined" id="declined" role="alert" tabindex={-1} data-autofocus>
      <h2>{cm(lang, declined.notConfirmed ? 'notConfirmedTitle' : 'declinedTitle')}</h2>
      <p>
        {cm(lang, 'declinedRetry', { why: cm(lang, declined.reason) })}
        {declined.attemptsLeft !== null && declined.attemptsLeft <= 2 ? ` ${cm(lang, declined.attemptsLeft === 1 ? 'attemptsLeftOne' : 'attemptsLeftOther', { n: declined.attemptsLeft })}` : ''}
      </p>
    </div>
  );
}

/** Who takes the payment and where the receipt goes, under the pay button. */
function TrustNote(props: { lang: Lang; trust: TrustView }) {
  const { lang, trust } = props;
  return (
    <div class="trust">
      <p>{trust.provider ? cm(lang, 'securedBy', { provider: trust.provider }) : cm(lang, 'securedSandbox')}</p>
      {trust.receiptTo ? <p>{cm(lang, 'receiptTo', { email: trust.receiptTo })}</p> : null}
    </div>
  );
}

/** A field of the card form, with its error and what was typed (the number names its card network as it is typed). */
function CardInput(props: { name: CardField; label: string; auto: string; mode: 'numeric' | 'text'; error: string | undefined; value?: string | undefined; placeholder?: string; brand?: string | null }) {
  const { name, error } = props;
  return (
    <div class="field">
      <label for={name}>{props.label}</label>
      {error ? (
        <p class="field-error" id={`${name}-error`}>
          {error}
        </p>
      ) : null}
      <input
        type="text"
        id={name}
        name={name}
        inputmode={props.mode}
        autocomplete={props.auto}
        spellcheck={false}
        value={props.value || undefined}
        placeholder={props.placeholder}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={[error ? `${name}-error` : null, props.brand !== undefined ? `${name}-brand` : null].filter(Boolean).join(' ') || undefined}
        data-card-brand={props.brand !== undefined ? `${name}-brand` : undefined}
      />
      {props.brand !== undefined ? (
        <p class="hint card-brand" id={`${name}-brand`} aria-live="polite">
          {props.brand ?? ''}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The checkout with the service's own card form (the sandbox): a declined payment or the
 * fields' errors first (focused by the pages' script), the hold, the order and the form.
 */
export function CardCheckoutPage(props: { lang: Lang; view: CardCheckoutView; csrf: string }) {
  const { lang, view } = props;
  const { errors, typed, declined } = view;
  return (
    <Layout lang={lang} title={cm(lang, 'title')} head={pageScriptTag()} wide>
      <h1>{cm(lang, 'title')}</h1>
      {declined ? <DeclinedNotice lang={lang} declined={declined} /> : null}
      {view.errorFields.length > 0 ? (
        <div class="error-summary" role="alert" tabindex={-1} aria-labelledby="error-summary-title" data-autofocus>
          <h2 id="error-summary-title">{cm(lang, 'errorSummaryTitle')}</h2>
          <ul>
            {view.errorFields.map((f) => (
              <li>
                <a href={`#${f}`}>{errors[f]}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <HoldCountdown lang={lang} hold={view.hold} />
      <div class="checkout">
        <OrderSummary lang={lang} order={view.order} title={cm(lang, 'summaryTitle')} />
        <form method="post" action={view.action} class="card pay" novalidate aria-labelledby="pay-title">
          <CsrfInput token={props.csrf} />
          <h2 id="pay-title">{cm(lang, 'payTitle')}</h2>
          <CardInput name="cardNumber" label={cm(lang, 'cardNumber')} auto="cc-number" mode="numeric" error={errors.cardNumber} value={typed.cardNumber} placeholder="1234 1234 1234 1234" brand={cardBrand(typed.cardNumber)} />
          <div class="field-row">
            <CardInput name="expiry" label={cm(lang, 'expiry')} auto="cc-exp" mode="numeric" error={errors.expiry} value={typed.expiry} placeholder={cm(lang, 'expiryPlaceholder')} />
            <CardInput name="cvc" label={cm(lang, 'cvc')} auto="cc-csc" mode="numeric" error={errors.cvc} placeholder="123" />
          </div>
          <CardInput name="cardName" label={cm(lang, 'cardName')} auto="cc-name" mode="text" error={errors.cardName} value={typed.cardName} />
          {view.sandbox ? <p class="hint">{cm(lang, 'sandbox')}</p> : null}
          <button type="submit" class="pay-button">
            {cm(lang, 'pay', { amount: view.order.total })}
          </button>
          <TrustNote lang={lang} trust={view.trust} />
        </form>
      </div>
    </Layout>
  );
}

/**
 * The checkout with a hosted provider (Stripe): the order and the hold as with the card form,
 * and the provider's own payment form (the Payment Element) mounted by the pages' script
 * (`data-hosted-payment`), which confirms with the provider and lets it bring the buyer back
 * to `…/return`. The card never reaches the service.
 */
export function HostedCheckoutPage(props: { lang: Lang; view: HostedCheckoutView }) {
  const { lang, view } = props;
  const { provider } = view;
  return (
    <Layout
      lang={lang}
      title={cm(lang, 'title')}
      head={
        <>
          {html`<script src="${provider.scriptUrl}"></script>`}
          {pageScriptTag()}
        </>
      }
      wide
    >
      <h1>{cm(lang, 'title')}</h1>
      {view.declined ? <DeclinedNotice lang={lang} declined={view.declined} /> : null}
      <HoldCountdown lang={lang} hold={view.hold} />
      <div class="checkout">
        <OrderSummary lang={lang} order={view.order} title={cm(lang, 'summaryTitle')} />
        <form class="card pay" aria-labelledby="pay-title" data-hosted-payment={provider.name} data-key={provider.publishableKey} data-client-secret={view.clientSecret} data-return-url={view.returnUrl} data-locale={lang} data-load-failed={cm(lang, 'payHostedLoadFailed')}>
          <h2 id="pay-title">{cm(lang, 'payHostedTitle')}</h2>
          <noscript>
            <p class="notice">{cm(lang, 'payHostedNoScript')}</p>
          </noscript>
          <div data-hosted-element></div>
          <p class="field-error" data-hosted-error role="alert" hidden></p>
          <button type="submit" class="pay-button" data-hosted-submit hidden>
            {cm(lang, 'pay', { amount: view.order.total })}
          </button>
          <TrustNote lang={lang} trust={view.trust} />
        </form>
      </div>
    </Layout>
  );
}

/** The provider's extra-verification step: approve or reject the payment, while the hold lasts. `action` is the form's path. */
export function VerifyPage(props: { lang: Lang; view: VerifyView; action: string; csrf: string }) {
  const { lang, view } = props;
  return (
    <Layout lang={lang} title={cm(lang, 'verifyTitle')} head={pageScriptTag()}>
      <h1>{cm(lang, 'verifyTitle')}</h1>
      <p>{cm(lang, 'verifyText', { amount: view.amount })}</p>
      <HoldCountdown lang={lang} hold={view.hold} />
      <form method="post" action={props.action}>
        <CsrfInput token={props.csrf} />
        <p class="actions">
          <button type="submit" name="answer" value="approve">
            {cm(lang, 'approve')}
          </button>
          <button type="submit" name="answer" value="reject" class="secondary">
            {cm(lang, 'reject')}
          </button>
        </p>
      </form>
    </Layout>
  );
}

/** The page that waits for the provider's confirmation: it looks again every few seconds (a meta refresh: no script needed). */
export function ConfirmingPage(props: { lang: Lang; view: ConfirmingView }) {
  const { lang } = props;
  const { here } = props.view;
  return (
    <Layout lang={lang} title={cm(lang, 'confirmingTitle')} head={html`<meta http-equiv="refresh" content="${CONFIRMING_REFRESH_SECONDS};url=${here}">`}>
      <h1>{cm(lang, 'confirmingTitle')}</h1>
      <p role="status">{cm(lang, 'confirmingText')}</p>
      <p class="actions">
        <a class="button secondary" href={here}>
          {cm(lang, 'checkAgain')}
        </a>
      </p>
    </Layout>
  );
}

/**
 * The receipt: what was bought (event, show, date and venue in the show's time zone, each
 * ticket's place with the way to its secure view), what was paid (price and fees, how), when,
 * and the order's reference; and the way back to the partner.
 */
export function ReceiptPage(props: { lang: Lang; view: ReceiptView }) {
  const { lang, view } = props;
  return (
    <Layout lang={lang} title={cm(lang, 'doneTitle')} wide>
      <h1>{cm(lang, 'doneTitle')}</h1>
      <p>{cm(lang, 'doneText')}</p>
      <div class="checkout">
        <section class="card receipt" aria-labelledby="receipt-title">
          <h2 id="receipt-title">{cm(lang, 'orderReference')}</h2>
          <p class="reference">
            <code>{view.reference}</code>
          </p>
          <dl>
            <dt>{cm(lang, 'paidOn')}</dt>
            <dd>{formatInstant(view.paidAt, lang, view.order.timeZone)}</dd>
            {view.method ? (
              <>
                <dt>{cm(lang, 'paidWith')}</dt>
                <dd>{view.method}</dd>
              </>
            ) : null}
            <dt>{cm(lang, 'amountPaid')}</dt>
            <dd>
              <strong>{view.order.total}</strong>
              {view.refunded ? ` · ${cm(lang, 'refunded')}` : ''}
            </dd>
          </dl>
          <p class="actions">
            <a class="button" href={view.back.href}>
              {view.back.label}
            </a>
          </p>
          <p class="hint">{cm(lang, 'receiptKeep')}</p>
        </section>
        <OrderSummary lang={lang} order={view.order} title={cm(lang, 'summaryTitle')} receipt />
      </div>
    </Layout>
  );
}
