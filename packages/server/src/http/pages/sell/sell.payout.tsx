/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import type { Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { cspWith, noticePage } from '../layout.js';

import type { SessionData } from '../../../domain/auth/auth.service.js';
import { safeRedirect, type SessionEnv } from '../auth/auth.session.js';
import type { ConnectAccountView } from '../../../domain/payouts/payouts.connect.js';
import { payoutCountry, payoutCountryOptions, type PayoutCountry } from '../../../domain/payouts/payouts.countries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { sm } from './sell.messages.js';
import { servicePaths, serviceUrl } from '../../../lib/urls.js';

type C = Context<SessionEnv>;

/**
 * The sell pages' policy: the pages' script, and, with a payout provider, its onboarding
 * origin in `form-action` (browsers apply it to the redirect that answers the form).
 */
export function sellCsp(deps: Pick<AppDeps, 'payouts'>): string {
  return cspWith({ scripts: true, formAction: deps.payouts.connect?.provider.onboardingOrigins ?? [] });
}

/**
 * Where a seller may be sent back to after the provider's onboarding: a page of this partner's
 * sell flow on this service (a path, never another origin); anything else goes to the payout page.
 */
export function sellBack(partner: PartnerRow, back: string | undefined, lang: Lang): string {
  const fallback = servicePaths.sellPayout(partner.id, { lang });
  // Printable ASCII only (no space, no control character: nothing that could break the Location header), no `//` or `\`.
  if (!back || back.length > 500 || !/^[\x21-\x7e]+$/.test(back) || !back.startsWith(servicePaths.sellPrefix(partner.id)) || back.includes('//') || back.includes('\\')) return fallback;
  return back;
}

/**
 * Sends a stepped-up seller to the payout provider's onboarding (Stripe Connect), with the
 * way back to `back` (checked by {@link sellBack}), their account opened first in `country`
 * when they have none; a missing or unknown country is the page again with `countryError`
 * (the caller's page, 400); the provider's refusal is a 503 page that changes nothing.
 */
export async function toOnboarding(deps: AppDeps, c: C, partner: PartnerRow, session: SessionData, back: string, lang: Lang, country: string | null, countryError: (message: string) => Promise<Response>): Promise<Response> {
  const connect = deps.payouts.connect!;
  const q = { lang, back: sellBack(partner, back, lang) };
  const stripe = (step: 'return' | 'refresh') => serviceUrl(deps.config.publicBaseUrl, servicePaths.sellPayoutStripe(partner.id, step, q));
  let url: string;
  try {
    url = await connect.onboardingLink(session, { returnUrl: stripe('return'), refreshUrl: stripe('refresh') }, lang, country);
  } catch (err) {
    if (err instanceof ApiError && err.entries[0]?.path === 'country') return await countryError(sm(lang, country ? 'countryInvalid' : 'countryRequired'));
    deps.logger.warn({ err, partnerId: partner.id }, 'the payout provider did not open onboarding');
    return noticePage(c, { lang, status: 503, title: sm(lang, 'stripeUnavailableTitle'), text: sm(lang, 'stripeUnavailableText'), headers: { 'Retry-After': '30' } });
  }
  return safeRedirect(c, url, 303);
}

/**
 * Signs a stepped-up seller in to the payout provider's dashboard of their account (Stripe
 * Express), where they change their bank account. An account not finished goes back to the
 * payout page (which offers onboarding instead); the provider's refusal is a 503 page.
 */
export async function toDashboard(deps: AppDeps, c: C, partner: PartnerRow, session: SessionData, lang: Lang): Promise<Response> {
  let url: string;
  try {
    url = await deps.payouts.connect!.dashboardLink(session);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) return safeRedirect(c, servicePaths.sellPayout(partner.id, { lang }), 303);
    deps.logger.warn({ err, partnerId: partner.id }, 'the payout provider did not open the seller’s dashboard');
    return noticePage(c, { lang, status: 503, title: sm(lang, 'stripeUnavailableTitle'), text: sm(lang, 'stripeUnavailableText'), headers: { 'Retry-After': '30' } });
  }
  return safeRedirect(c, url, 303);
}

/**
 * The seller's connected account on the sell pages: where payouts go (with, where `manage`,
 * the way to change it on the provider's dashboard), or (where `button`) the way to set it up.
 */
export function StripePayout(props: {
  lang: Lang;
  partner: PartnerRow;
  view: ConnectAccountView | null;
  error?: string | undefined;
  button: boolean;
  manage?: boolean;
  /** The country to preselect while no account exists (the seller's earlier choice, or the venue's). */
  country?: string | null | undefined;
  countryError?: string | undefined;
}) {
  const { lang, view } = props;
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
      <p class="hint">{sm(lang, 'payoutIntroStripe', { days: props.partner.settings.payoutDelayDays })}</p>
      {view ? <p>{sm(lang, 'stripePending')}</p> : null}
      {!view && props.button ? <CountryField lang={lang} selected={payoutCountry(props.country)} error={props.countryError} /> : null}
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
function CountryField(props: { lang: Lang; selected: PayoutCountry | null; error?: string | undefined }) {
  const { lang } = props;
  return (
    <>
      <label for="payout-country">{sm(lang, 'country')}</label>
      <select id="payout-country" name="country" autocomplete="country" aria-describedby={props.error ? 'payout-country-hint payout-country-error' : 'payout-country-hint'} aria-invalid={props.error ? 'true' : undefined}>
        <option value="">{sm(lang, 'countryChoose')}</option>
        {payoutCountryOptions(lang).map((o) => (
          <option value={o.code} selected={o.code === props.selected}>
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
