/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { priceBreakdown, type PriceBreakdown } from '@resale/shared/fees';
import { formatDay, formatInstant } from '@resale/shared/format';
import { toIso } from '../../../lib/clock.js';
import { currencyDigits } from '../../../lib/money.js';
import { ticketName } from '../../../lib/seats.js';
import { CsrfInput } from '../auth/auth.session.js';
import { Layout } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import type { FieldErrors, ListingView, RemovalView, SellFormView } from './sell.load.js';
import { limitsText, money, typed } from './sell.format.js';
import { sm } from './sell.messages.js';
import { StripePayout } from './sell.payout.view.js';

/**
 * The views of the ticket's sell page and the seller's listing page: stateless, from the view
 * models of sell.load.ts, the page's language, and the forms' actions and CSRF tokens.
 */

/** A form's action and its CSRF token. */
export interface FormTarget {
  action: string;
  csrf: string;
}

/**
 * The money of one ticket as two sums that add up: the buyer's (your price plus the buyer's
 * fee) and yours (your price minus your service fee). `live` gives it the id and cell names the
 * pages' script fills in as the seller types (`data-payout`, http/pages/page-script.ts); `hidden`
 * keeps it out of sight until a price is known.
 */
function Breakdown({ b, currency, lang, live, hidden }: { b: PriceBreakdown; currency: string; lang: Lang; live?: boolean; hidden?: boolean }) {
  const row = (label: string, cell: keyof PriceBreakdown, minor: number, sign: string, strong = false) => {
    const amount = `${sign}${money(minor, currency, lang)}`;
    const name = cell.replace(/Minor$/, '');
    return (
      <tr class={strong ? 'total' : undefined}>
        <th scope="row">{label}</th>
        <td data-payout-cell={live ? name : undefined} data-payout-sign={live && sign ? sign : undefined}>
          {amount}
        </td>
      </tr>
    );
  };
  return (
    <table aria-label={sm(lang, 'breakdown')} class="money" id={live ? 'payout-table' : undefined} hidden={hidden}>
      <caption>
        {sm(lang, 'breakdown')} ({sm(lang, 'perTicket')})
      </caption>
      <tbody>
        {row(sm(lang, 'yourPrice'), 'priceMinor', b.priceMinor, '')}
        {row(sm(lang, 'buyerFee'), 'buyerFeeMinor', b.buyerFeeMinor, '+ ')}
        {row(sm(lang, 'buyerPays'), 'buyerTotalMinor', b.buyerTotalMinor, '', true)}
      </tbody>
      <tbody>
        {row(sm(lang, 'yourPrice'), 'priceMinor', b.priceMinor, '')}
        {row(sm(lang, 'sellerFee'), 'sellerFeeMinor', b.sellerFeeMinor, '− ')}
        {row(sm(lang, 'youReceive'), 'payoutMinor', b.payoutMinor, '', true)}
      </tbody>
    </table>
  );
}

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p class="error" id={id}>
      {text}
    </p>
  ) : null;
}

function PayoutFields({ lang, payoutDelayDays, errors, values }: { lang: Lang; payoutDelayDays: number; errors: FieldErrors; values: { holderName?: string; iban?: string } }) {
  return (
    <fieldset>
      <legend>
        {sm(lang, 'payoutTitle')} <span class="muted">({sm(lang, 'required')})</span>
      </legend>
      <p class="hint">{sm(lang, 'payoutIntro', { days: payoutDelayDays })}</p>
      <label for="holderName">{sm(lang, 'holderName')}</label>
      <input type="text" id="holderName" name="holderName" autocomplete="name" required value={values.holderName ?? ''} aria-invalid={errors.holderName ? 'true' : undefined} aria-describedby={errors.holderName ? 'holderName-error' : undefined} />
      <FieldError id="holderName-error" text={errors.holderName} />
      <label for="iban">{sm(lang, 'iban')}</label>
      <input type="text" id="iban" name="iban" autocomplete="off" spellcheck={false} required value={values.iban ?? ''} aria-invalid={errors.iban ? 'true' : undefined} aria-describedby={errors.iban ? 'iban-error iban-hint' : 'iban-hint'} />
      <p class="hint" id="iban-hint">
        {sm(lang, 'ibanHint')}
      </p>
      <FieldError id="iban-error" text={errors.iban} />
    </fieldset>
  );
}

/** The sell form of one ticket: its price (with what happens to the money), where we pay the seller, Publish. */
export function SellForm({ lang, view: p, form }: { lang: Lang; view: SellFormView; form: FormTarget }) {
  const heading = sm(lang, 'sellTitle');
  const hint = limitsText(p.limits, p.currency, lang);
  const when = formatInstant(p.facts.startsAt, lang, p.facts.timeZone);
  return (
    <Layout lang={lang} title={heading} head={pageScriptTag()}>
      <h1>{heading}</h1>
      <p>
        <strong>{p.facts.eventTitle}</strong> · {p.facts.showTitle} · <time datetime={toIso(p.facts.startsAt)}>{when}</time>
      </p>
      <p>{p.facts.ticket}</p>
      {p.errors.form ? (
        <p class="error" role="alert">
          {p.errors.form}
        </p>
      ) : null}
      <form method="post" action={form.action} class="card" novalidate>
        <CsrfInput token={form.csrf} />
        {/* Enter in a field submits with the form's first button: while the step-up button is
            shown further down, a hidden first button keeps that Calculate (or Publish at a
            fixed price). */}
        {(p.stripe ? p.stripe.account?.status !== 'ready' : !p.payout && p.needsStepUp) ? (
          <button type="submit" name="intent" value={p.limits.fixedMinor === null ? 'preview' : 'publish'} class="default-action" tabindex={-1} aria-hidden="true"></button>
        ) : null}
        {p.limits.fixedMinor !== null ? (
          <p>{hint}</p>
        ) : (
          <>
            <label for="price">{sm(lang, 'price', { currency: p.currency })}</label>
            <input
              type="text"
              id="price"
              name="price"
              inputmode="decimal"
              value={p.price}
              required
              data-payout="payout-table"
              data-payout-fees={JSON.stringify(p.fees)}
              data-payout-currency={p.currency}
              data-payout-digits={String(currencyDigits(p.currency))}
              data-payout-live="payout-live"
              data-payout-said={sm(lang, 'youReceiveLive')}
              aria-invalid={p.errors.price ? 'true' : undefined}
              aria-describedby={['price-hint', p.errors.price ? 'price-error' : ''].filter(Boolean).join(' ')}
            />
            <p class="hint" id="price-hint">
              {hint}
            </p>
            <FieldError id="price-error" text={p.errors.price} />
          </>
        )}
        {p.limits.fixedMinor !== null ? (
          p.breakdown ? <Breakdown b={p.breakdown} currency={p.currency} lang={lang} /> : null
        ) : (
          <>
            {/* Calculated on the server on Calculate (no script), live as the seller types (script). */}
            <Breakdown b={p.breakdown ?? priceBreakdown(0, p.fees)} currency={p.currency} lang={lang} live hidden={!p.breakdown} />
            <p class="visually-hidden" id="payout-live" aria-live="polite"></p>
          </>
        )}
        {p.askAboveFace ? (
          <div class={p.errors.aboveFace ? 'confirm invalid' : 'confirm'}>
            <FieldError id="aboveFace-error" text={p.errors.aboveFace} />
            <input type="checkbox" id="aboveFace" name="aboveFace" value="1" aria-describedby={p.errors.aboveFace ? 'aboveFace-error' : undefined} aria-invalid={p.errors.aboveFace ? 'true' : undefined} />{' '}
            <label for="aboveFace">{sm(lang, 'aboveFace', { face: money(p.limits.originalMinor!, p.currency, lang) })}</label>
          </div>
        ) : null}
        {p.stripe ? (
          // The step-up, when the session has none, comes on the way to Stripe (intent `stripe`).
          <StripePayout lang={lang} payoutDelayDays={p.payoutDelayDays} stripe={p.stripe} error={p.errors.iban} button countryError={p.errors.country} />
        ) : p.payout ? (
          <p>{sm(lang, 'payoutSaved', { hint: p.payout.accountHint, name: p.payout.holderName })}</p>
        ) : p.needsStepUp ? (
          <fieldset>
            <legend>
              {sm(lang, 'payoutTitle')} <span class="muted">({sm(lang, 'required')})</span>
            </legend>
            <p class="hint">{sm(lang, 'payoutStepUp')}</p>
            <FieldError id="iban-error" text={p.errors.iban} />
            {/* A submit, not a link: the price typed so far travels to the step-up and back. */}
            <p>
              <button type="submit" name="intent" value="stepup" class="secondary">
                {sm(lang, 'payoutStepUpLink')}
              </button>
            </p>
          </fieldset>
        ) : (
          <PayoutFields lang={lang} payoutDelayDays={p.payoutDelayDays} errors={p.errors} values={{ holderName: p.holderName, iban: p.iban }} />
        )}
        <p>
          {p.limits.fixedMinor === null ? (
            <button type="submit" name="intent" value="preview" class="secondary">
              {sm(lang, 'calculate')}
            </button>
          ) : null}{' '}
          <button type="submit" name="intent" value="publish" disabled={p.publishBlocked !== null} aria-describedby={p.publishBlocked ? 'publish-blocked' : undefined}>
            {sm(lang, 'publish')}
          </button>
        </p>
        {p.publishBlocked ? (
          <p class="hint" id="publish-blocked">
            {p.publishBlocked}
          </p>
        ) : null}
      </form>
    </Layout>
  );
}

/** Which notices a listing page shows, from the way it was reached (`?published=1` …). */
export type ListingNotice = 'published' | 'updated' | 'removed';

/**
 * The seller's listing: its status and money, and while on sale the link to share, the price
 * form and the way to remove it (`price`, `remove`: their forms).
 */
export function ListingPage(props: { lang: Lang; view: ListingView; notices: ListingNotice[]; errors: FieldErrors; price: FormTarget; remove: FormTarget }) {
  const { lang, errors } = props;
  const { listing, facts } = props.view;
  return (
    <Layout lang={lang} title={sm(lang, 'listingTitle')} head={pageScriptTag()}>
      <h1>{sm(lang, 'listingTitle')}</h1>
      {props.notices.map((k) => (
        <p role="status" class="notice ok">
          {sm(lang, k)}
        </p>
      ))}
      {errors.form ? (
        <p class="error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <p>
        <strong>{facts.eventTitle}</strong> · {facts.showTitle} · {formatInstant(facts.startsAt, lang, facts.timeZone)}
      </p>
      <p>
        {sm(lang, 'status')}: <strong>{sm(lang, `state_${listing.state}`)}</strong>
      </p>
      <ul>
        {props.view.places.map((t) => (
          <li>{ticketName(facts.optionTitle, t, lang)}</li>
        ))}
      </ul>
      <Breakdown b={props.view.breakdown} currency={listing.currency} lang={lang} />
      {listing.state === 'ACTIVE' ? (
        <>
          <p>
            {sm(lang, 'share')}{' '}
            <a class="long" id="share-url" href={props.view.shareUrl}>
              {props.view.shareUrl}
            </a>{' '}
            {/* Shown by the pages' script where the clipboard can be written. */}
            <button type="button" class="secondary" hidden data-copy-target="share-url" data-copy-done={sm(lang, 'copied')}>
              {sm(lang, 'copyLink')}
            </button>
          </p>
          <form method="post" action={props.price.action} class="card" novalidate>
            <CsrfInput token={props.price.csrf} />
            <label for="price">{sm(lang, 'changePrice')} ({listing.currency})</label>
            <input type="text" id="price" name="price" inputmode="decimal" value={typed(listing.priceMinor, listing.currency)} aria-invalid={errors.price ? 'true' : undefined} aria-describedby={errors.price ? 'price-error' : undefined} />
            <FieldError id="price-error" text={errors.price} />
            <button type="submit">{sm(lang, 'save')}</button>
          </form>
          <form method="post" action={props.remove.action} class="actions">
            <CsrfInput token={props.remove.csrf} />
            <button type="submit" class="danger-outline">
              {sm(lang, 'remove')}
            </button>
          </form>
        </>
      ) : null}
      {listing.state === 'RESERVED' ? <p class="card">{sm(lang, 'reservedNote')}</p> : null}
      {listing.state === 'SOLD' ? (
        <p class="card">
          {sm(lang, 'soldNote', {
            amount: money(listing.payoutMinor * listing.quantity, listing.currency, lang),
            date: formatDay(props.view.payoutDay, lang, facts.timeZone),
          })}
        </p>
      ) : null}
    </Layout>
  );
}

/** "Remove your listing?": the one place that removes, with the way back (`keep`) to keep it on sale. */
export function RemoveConfirmation(props: { lang: Lang; view: RemovalView; form: FormTarget; keep: string }) {
  const { lang, view } = props;
  return (
    <Layout lang={lang} title={sm(lang, 'removeTitle')}>
      <h1>{sm(lang, 'removeTitle')}</h1>
      <p>
        <strong>{view.eventTitle}</strong> · {view.showTitle} · {money(view.priceMinor, view.currency, lang)}
      </p>
      <p>{sm(lang, 'removeText')}</p>
      <form method="post" action={props.form.action} class="actions">
        <CsrfInput token={props.form.csrf} />
        <input type="hidden" name="confirm" value="1" />
        <button type="submit" class="danger">
          {sm(lang, 'removeConfirm')}
        </button>{' '}
        <a class="button secondary" href={props.keep}>
          {sm(lang, 'removeKeep')}
        </a>
      </form>
    </Layout>
  );
}
