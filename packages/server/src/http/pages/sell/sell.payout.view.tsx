/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { CsrfInput } from '../auth/auth.session.js';
import { Layout } from '../layout.js';
import type { PayoutView } from './sell.hub.load.js';
import type { StripeView } from './sell.load.js';
import { sm } from './sell.messages.js';

/**
 * The seller's connected account on the sell pages: where payouts go (with, where `manage`,
 * the way to change it on the provider's dashboard), or (where `button`) the way to set it up.
 */
export function StripePayout(props: {
  lang: Lang;
  /** The partner's payout delay after the show, in days. */
  payoutDelayDays: number;
  /** The account, and the countries to open one in (the seller's earlier choice, or the venue's, preselected). */
  stripe: StripeView;
  error?: string | undefined;
  button: boolean;
  manage?: boolean;
  countryError?: string | undefined;
}) {
  const { lang } = props;
  const view = props.stripe.account;
  if (view?.status === 'ready') {
    return (
      <>
        <p role="status">{sm(lang, 'stripeReady', { hint: view.accountHint })}</p>
        {props.manage ? (
          <>
            <p class="hint" id="stripe-manage-hint">
              {sm(lang, 'stripeManageHint')}
            </p>
            <p>
              <button type="submit" name="intent" value="dashboard" class="secondary" aria-describedby="stripe-manage-hint">
                {sm(lang, 'stripeManage')}
              </button>
            </p>
          </>
        ) : null}
      </>
    );
  }
  return (
    <fieldset>
      <legend>
        {sm(lang, 'payoutTitle')} <span class="muted">({sm(lang, 'required')})</span>
      </legend>
      <p class="hint">{sm(lang, 'payoutIntroStripe', { days: props.payoutDelayDays })}</p>
      {view ? <p>{sm(lang, 'stripePending')}</p> : null}
      {!view && props.button ? <CountryField lang={lang} countries={props.stripe.countries} error={props.countryError} /> : null}
      {props.error ? (
        <p class="error" id="iban-error">
          {props.error}
        </p>
      ) : null}
      {props.button ? (
        <p>
          <button type="submit" name="intent" value="stripe" class="secondary">
            {sm(lang, view ? 'stripeContinue' : 'stripeSetUp')}
          </button>
        </p>
      ) : null}
    </fieldset>
  );
}

/** Where the seller lives: their Stripe account is opened there (fixed once opened). */
function CountryField(props: { lang: Lang; countries: StripeView['countries']; error?: string | undefined }) {
  const { lang } = props;
  return (
    <>
      <label for="payout-country">{sm(lang, 'country')}</label>
      <select id="payout-country" name="country" autocomplete="country" aria-describedby={props.error ? 'payout-country-hint payout-country-error' : 'payout-country-hint'} aria-invalid={props.error ? 'true' : undefined}>
        <option value="">{sm(lang, 'countryChoose')}</option>
        {props.countries.options.map((o) => (
          <option value={o.code} selected={o.code === props.countries.selected}>
            {o.name}
          </option>
        ))}
      </select>
      <p class="hint" id="payout-country-hint">
        {sm(lang, 'countryHint')}
      </p>
      {props.error ? (
        <p class="error" id="payout-country-error">
          {props.error}
        </p>
      ) : null}
    </>
  );
}

/**
 * The payout page: the seller's Stripe account (with a payout provider), or the account we pay
 * them into by bank transfer and the form that changes it. `errors` by field (`country` with
 * Stripe; `holderName`, `iban` without).
 */
export function PayoutPage(props: { lang: Lang; view: PayoutView; payoutDelayDays: number; action: string; csrf: string; errors: Record<string, string> }) {
  const { lang, view, errors } = props;
  if (view.kind === 'stripe') {
    return (
      <Layout lang={lang} title={sm(lang, 'payoutTitle')}>
        <h1>{sm(lang, 'payoutTitle')}</h1>
        <form method="post" action={props.action} class="card" novalidate>
          <CsrfInput token={props.csrf} />
          <StripePayout lang={lang} payoutDelayDays={props.payoutDelayDays} stripe={view.stripe} button manage countryError={errors.country} />
        </form>
      </Layout>
    );
  }
  const saved = view.saved;
  return (
    <Layout lang={lang} title={sm(lang, 'payoutTitle')}>
      <h1>{sm(lang, 'payoutTitle')}</h1>
      <p>{sm(lang, 'payoutIntro', { days: props.payoutDelayDays })}</p>
      {saved ? <p role="status">{sm(lang, 'payoutSaved', { hint: saved.accountHint, name: saved.holderName })}</p> : null}
      <form method="post" action={props.action} class="card" novalidate>
        <CsrfInput token={props.csrf} />
        <label for="holderName">{sm(lang, 'holderName')}</label>
        <input type="text" id="holderName" name="holderName" autocomplete="name" aria-invalid={errors.holderName ? 'true' : undefined} />
        {errors.holderName ? <p class="error">{errors.holderName}</p> : null}
        <label for="iban">{sm(lang, 'iban')}</label>
        <input type="text" id="iban" name="iban" autocomplete="off" aria-invalid={errors.iban ? 'true' : undefined} aria-describedby="iban-hint" />
        <p class="hint" id="iban-hint">
          {sm(lang, 'ibanHint')}
        </p>
        {errors.iban ? <p class="error">{errors.iban}</p> : null}
        <button type="submit">{sm(lang, 'save')}</button>
      </form>
    </Layout>
  );
}
