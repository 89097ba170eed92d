/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { toIso } from '../../../lib/clock.js';
import { ApiError } from '../../../lib/errors.js';
import { priceBreakdown, type FeeSchedule, type PriceBreakdown } from '@resale/shared/fees';
import { currencyDigits } from '../../../lib/money.js';
import { formatDay, formatInstant } from '@resale/shared/format';
import { ticketName } from '../../../lib/seats.js';
import { t } from '../../../lib/i18n.js';
import { cspWith, Layout, noticePage, renderPage } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfField, currentServiceUrl, requireUser, safeRedirect, signInUrl, type SessionEnv } from '../auth/auth.session.js';
import { listingById, type ListingRow } from '../../../domain/listings/listings.queries.js';
import type { PriceLimits } from '../../../domain/listings/listings.pricing.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { PayoutAccounts, type PayoutAccountView } from '../../../domain/payouts/payouts.accounts.js';
import type { ConnectAccountView } from '../../../domain/payouts/payouts.connect.js';
import { sellerPayoutReady } from '../../../domain/payouts/payouts.queries.js';
import { payoutCountry } from '../../../domain/payouts/payouts.countries.js';
import { sellCsp, StripePayout, toOnboarding } from './sell.payout.js';
import { stepUpUrl } from '../auth/auth.step-up.js';
import { eventOfTicket } from '../../../flows/sell.queries.js';
import { parseTypedPrice, verifyOwnership } from '../../../flows/sell.js';
import { sellHubRoutes } from './sell.hub.js';
import { sm } from './sell.messages.js';
import { servicePaths } from '../../../lib/urls.js';

type C = Context<SessionEnv>;
type FieldErrors = Partial<Record<'price' | 'holderName' | 'iban' | 'form' | 'aboveFace' | 'country', string>>;

/** The sell pages' policy: the shared one plus the pages' script (live calculation, copy link). */
const SELL_CSP = cspWith({ scripts: true });

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

function typed(minor: number | null, currency: string): string {
  return minor === null ? '' : (minor / 10 ** currencyDigits(currency)).toFixed(currencyDigits(currency));
}

/**
 * The money of one ticket as two sums that add up: the buyer's (your price plus the buyer's
 * fee) and yours (your price minus your service fee).
 */
/**
 * The money of one ticket as two sums that add up. `live` gives it the id and cell names the
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

/** What the seller may ask, said before they type: the face value and the organiser's range (or that there is none). */
function limitsText(l: PriceLimits, currency: string, lang: Lang): string {
  const f = (m: number) => money(m, currency, lang);
  if (l.fixedMinor !== null) return sm(lang, 'priceFixed', { price: f(l.fixedMinor) });
  const face = l.originalMinor !== null ? `${sm(lang, 'faceValue', { price: f(l.originalMinor) })} ` : '';
  if (l.minMinor !== null && l.maxMinor !== null) return face + sm(lang, 'priceRange', { min: f(l.minMinor), max: f(l.maxMinor) });
  if (l.minMinor !== null) return face + sm(lang, 'priceMin', { min: f(l.minMinor) });
  if (l.maxMinor !== null) return face + sm(lang, 'priceMax', { max: f(l.maxMinor) });
  return face + sm(lang, 'priceNoLimit');
}

/** Whether a price asks more than the ticket's face value (publishing it then needs the seller's confirmation). */
function aboveFace(priceMinor: number | null, limits: PriceLimits): boolean {
  if (priceMinor === null || limits.fixedMinor !== null || limits.originalMinor === null || limits.originalMinor <= 0) return false;
  // A price outside the organiser's range is refused anyway: no confirmation to ask for.
  if ((limits.maxMinor !== null && priceMinor > limits.maxMinor) || (limits.minMinor !== null && priceMinor < limits.minMinor)) return false;
  return priceMinor > limits.originalMinor;
}

/** How far above face value, in words: "8×" from twice up, "12 % above" below. */
function howFarAbove(priceMinor: number, faceMinor: number, lang: Lang): string {
  const ratio = priceMinor / faceMinor;
  if (ratio >= 2) return sm(lang, 'timesFace', { times: new Intl.NumberFormat(lang, { maximumFractionDigits: 1 }).format(ratio) });
  return sm(lang, 'percentAboveFace', { percent: new Intl.NumberFormat(lang, { maximumFractionDigits: 0 }).format(Math.max(1, Math.round((ratio - 1) * 100))) });
}

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p class="error" id={id}>
      {text}
    </p>
  ) : null;
}

function PayoutFields({ c, lang, partner, errors, values }: { c: C; lang: Lang; partner: PartnerRow; errors: FieldErrors; values: { holderName?: string } }) {
  void c;
  return (
    <fieldset>
      <legend>
        {sm(lang, 'payoutTitle')} <span class="muted">({sm(lang, 'required')})</span>
      </legend>
      <p class="hint">{sm(lang, 'payoutIntro', { days: partner.settings.payoutDelayDays })}</p>
      <label for="holderName">{sm(lang, 'holderName')}</label>
      <input type="text" id="holderName" name="holderName" autocomplete="name" required value={values.holderName ?? ''} aria-invalid={errors.holderName ? 'true' : undefined} aria-describedby={errors.holderName ? 'holderName-error' : undefined} />
      <FieldError id="holderName-error" text={errors.holderName} />
      <label for="iban">{sm(lang, 'iban')}</label>
      <input type="text" id="iban" name="iban" autocomplete="off" spellcheck={false} required aria-invalid={errors.iban ? 'true' : undefined} aria-describedby={errors.iban ? 'iban-error iban-hint' : 'iban-hint'} />
      <p class="hint" id="iban-hint">
        {sm(lang, 'ibanHint')}
      </p>
      <FieldError id="iban-error" text={errors.iban} />
    </fieldset>
  );
}

interface SellFormProps {
  c: C;
  lang: Lang;
  partner: PartnerRow;
  action: string;
  heading: string;
  facts: { eventTitle: string; showTitle: string; startsAt: number; timeZone: string | null; optionTitle: string; seat: string | null };
  currency: string;
  limits: PriceLimits;
  price: string;
  /** The price typed, when it parsed: above face value, the form asks for a confirmation. */
  priceMinor: number | null;
  breakdown: PriceBreakdown | null;
  /** The fees that apply, for the live calculation as the seller types. */
  fees: FeeSchedule;
  payout: PayoutAccountView | null;
  /** With a payout provider (Stripe Connect): the seller's connected account, instead of IBAN fields. */
  stripe?: { view: ConnectAccountView | null; country: string | null } | undefined;
  /** Whether the session must confirm it's you (step-up) before payout fields are shown. */
  needsStepUp: boolean;
  errors: FieldErrors;
  holderName?: string;
}

function SellForm(p: SellFormProps) {
  const { lang } = p;
  const hint = limitsText(p.limits, p.currency, lang);
  const when = formatInstant(p.facts.startsAt, lang, p.facts.timeZone);
  return (
    <Layout lang={lang} title={p.heading} head={pageScriptTag()}>
      <h1>{p.heading}</h1>
      <p>
        <strong>{p.facts.eventTitle}</strong> · {p.facts.showTitle} · <time datetime={toIso(p.facts.startsAt)}>{when}</time>
      </p>
      <p>
        {sm(lang, 'category')}: {p.facts.optionTitle}
        {p.facts.seat ? ` · ${sm(lang, 'seat')}: ${p.facts.seat}` : ''}
      </p>
      {p.errors.form ? (
        <p class="error" role="alert">
          {p.errors.form}
        </p>
      ) : null}
      <form method="post" action={p.action} class="card" novalidate>
        {csrfField(p.c, p.action)}
        {/* Enter in a field submits with the form's first button: while the step-up button is
            shown further down, a hidden first button keeps that Calculate (or Publish at a
            fixed price). */}
        {(p.stripe ? p.stripe.view?.status !== 'ready' : !p.payout && p.needsStepUp) ? (
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
        {aboveFace(p.priceMinor, p.limits) ? (
          <div class={p.errors.aboveFace ? 'confirm invalid' : 'confirm'}>
            <FieldError id="aboveFace-error" text={p.errors.aboveFace} />
            <input type="checkbox" id="aboveFace" name="aboveFace" value="1" aria-describedby={p.errors.aboveFace ? 'aboveFace-error' : undefined} aria-invalid={p.errors.aboveFace ? 'true' : undefined} />{' '}
            <label for="aboveFace">{sm(lang, 'aboveFace', { face: money(p.limits.originalMinor!, p.currency, lang) })}</label>
          </div>
        ) : null}
        {p.stripe ? (
          // The step-up, when the session has none, comes on the way to Stripe (intent `stripe`).
          <StripePayout lang={lang} partner={p.partner} view={p.stripe.view} error={p.errors.iban} button country={p.stripe.country} countryError={p.errors.country} />
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
          <PayoutFields c={p.c} lang={lang} partner={p.partner} errors={p.errors} values={{ holderName: p.holderName ?? '' }} />
        )}
        <p>
          {p.limits.fixedMinor === null ? (
            <button type="submit" name="intent" value="preview" class="secondary">
              {sm(lang, 'calculate')}
            </button>
          ) : null}{' '}
          <button type="submit" name="intent" value="publish">
            {sm(lang, 'publish')}
          </button>
        </p>
      </form>
    </Layout>
  );
}

/**
 * The hosted sell flow: `/sell/:partnerId/ticket/:ticketId` (verify, price, payout details,
 * publish), `/sell/:partnerId/listings/:listingId` (status, share link, change price,
 * remove) and `/sell/:partnerId/payout`. Server-rendered forms that work without script;
 * every POST is CSRF-checked, re-verifies ownership with the platform when it lists, and is
 * validated again on the server.
 */
export function sellPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const accounts = new PayoutAccounts(deps);
  app.route('/', sellHubRoutes(deps));

  /** Verifies the user still owns `ticketId` (live), or answers the page that says why not. */
  async function owned(c: C, partner: PartnerRow, userPk: string, ticketId: string, lang: Lang): Promise<Response | null> {
    const user = await deps.db.read(async (tx) => await deps.users.get(tx, partner.id, userPk));
    const v = await verifyOwnership(deps, partner, user, [ticketId]);
    if (v.kind === 'no_account') return safeRedirect(c, signInUrl(partner, deps.config.publicBaseUrl, currentServiceUrl(c, deps.config.publicBaseUrl), lang));
    if (v.kind === 'unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    if (!v.ticketIds.has(ticketId)) return noticePage(c, { lang, status: 403, title: sm(lang, 'notYoursTitle'), text: sm(lang, 'notYoursText') });
    return null;
  }

  async function sellForm(c: C, partner: PartnerRow, userPk: string, ticketId: string, lang: Lang, state: { price?: string; errors?: FieldErrors; preview?: number | null; holderName?: string; country?: string }) {
    const { ticket, facts, quote, payout, stripe } = await deps.db.read(async (tx) => {
      const ticket = await deps.tickets.get(tx, partner.id, ticketId);
      return {
        ticket,
        facts: await eventOfTicket(tx, ticket),
        quote: await deps.listings.quote(tx, ticket, state.preview ?? null),
        payout: await accounts.view(tx, userPk),
        stripe: deps.payouts.connect ? { view: await deps.payouts.connect.view(tx, userPk) } : undefined,
      };
    });
    // The country preselected for a Stripe account not opened yet: the seller's earlier choice (kept through the step-up), else the venue's.
    const stripeView = stripe ? { ...stripe, country: state.country ?? c.req.query('country') ?? facts.country } : undefined;
    const breakdown = quote.limits.fixedMinor !== null || state.preview != null ? quote.breakdown : null;
    const action = servicePaths.sellTicket(partner.id, ticketId);
    const session = c.get('session');
    const steppedUp = session !== null && deps.auth.isSteppedUp(session);
    return renderPage(
      c,
      <SellForm
        c={c}
        lang={lang}
        partner={partner}
        action={action}
        heading={sm(lang, 'sellTitle')}
        facts={{ ...facts, seat: [ticket.section, ticket.row, ticket.seat].filter(Boolean).join(' · ') || null }}
        currency={quote.currency}
        limits={quote.limits}
        price={state.price ?? typed(quote.limits.originalMinor, quote.currency)}
        priceMinor={state.preview ?? null}
        breakdown={breakdown}
        fees={quote.fees}
        payout={payout}
        stripe={stripeView}
        needsStepUp={!steppedUp}
        errors={state.errors ?? {}}
        holderName={state.holderName ?? ''}
      />,
      { status: state.errors && Object.keys(state.errors).length ? 400 : 200, csp: sellCsp(deps) },
    );
  }

  app.get(
    '/sell/:partnerId/ticket/:ticketId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const ticketId = c.req.param('ticketId') ?? '';
      const refused = await owned(c, partner, session.userPk, ticketId, lang);
      if (refused) return refused;
      const { live, reason } = await deps.db.read(async (tx) => {
        const ticket = await deps.tickets.get(tx, partner.id, ticketId);
        return { live: await deps.listings.liveListingOf(tx, ticket.id), reason: await deps.listings.notSellable(tx, ticket) };
      });
      if (live && live.sellerPk === session.userPk) return safeRedirect(c, servicePaths.sellListing(partner.id, live.id, { lang }));
      if (reason) return noticePage(c, { lang, status: 409, title: sm(lang, 'notSellableTitle'), text: sm(lang, `reason_${reason}`) });
      // Back from a step-up, the price the seller had typed (it is validated again on publish).
      const price = c.req.query('price')?.slice(0, 20);
      if (price === undefined) return sellForm(c, partner, session.userPk, ticketId, lang, {});
      // Calculated again, so the money (and the confirmation above face value) shows as before the step-up.
      const { currency } = await deps.db.read(async (tx) => await deps.listings.quote(tx, await deps.tickets.get(tx, partner.id, ticketId), null));
      let preview: number | null = null;
      try {
        preview = parseTypedPrice(price, currency);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
      }
      return sellForm(c, partner, session.userPk, ticketId, lang, { price, preview });
    }),
  );

  app.post(
    '/sell/:partnerId/ticket/:ticketId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const ticketId = c.req.param('ticketId') ?? '';
      const form = await c.req.parseBody();
      const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
      const refused = await owned(c, partner, session.userPk, ticketId, lang);
      if (refused) return refused;
      const { ticket, currency, limits } = await deps.db.read(async (tx) => {
        const ticket = await deps.tickets.get(tx, partner.id, ticketId);
        const quote = await deps.listings.quote(tx, ticket, null);
        return { ticket, currency: quote.currency, limits: quote.limits };
      });
      const errors: FieldErrors = {};
      let priceMinor: number | null = null;
      try {
        priceMinor = parseTypedPrice(str('price'), currency);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.price = err.message;
      }
      const state = { price: str('price'), holderName: str('holderName'), country: str('country') };
      if (str('intent') === 'stepup' || (str('intent') === 'stripe' && deps.payouts.connect)) {
        const chosen = payoutCountry(state.country);
        const back = `${c.req.path}?${new URLSearchParams({ lang, ...(state.price ? { price: state.price.slice(0, 20) } : {}), ...(chosen ? { country: chosen } : {}) })}`;
        // To Stripe's onboarding with the price typed so far (it comes back to this page); a step-up first.
        if (str('intent') === 'stripe' && deps.auth.isSteppedUp(session)) {
          return await toOnboarding(deps, c, partner, session, back, lang, str('country') || null, async (message) => await sellForm(c, partner, session.userPk, ticketId, lang, { ...state, errors: { country: message }, preview: priceMinor }));
        }
        return safeRedirect(c, stepUpUrl(partner.id, back, lang), 303);
      }
      if (str('intent') !== 'publish' || errors.price) return sellForm(c, partner, session.userPk, ticketId, lang, { ...state, errors, preview: priceMinor });
      // Above face value: published only once the seller ticked that they mean it.
      if (aboveFace(priceMinor, limits) && str('aboveFace') !== '1') {
        errors.aboveFace = sm(lang, 'aboveFaceRequired', { howFar: howFarAbove(priceMinor!, limits.originalMinor!, lang), face: money(limits.originalMinor!, currency, lang) });
        return sellForm(c, partner, session.userPk, ticketId, lang, { ...state, errors, preview: priceMinor });
      }
      try {
        const listing = await deps.db.transact(async (tx) => {
          if (!deps.payouts.connect && (str('iban') || str('holderName'))) {
            // Payout details need a fresh step-up (see auth.step-up.tsx); without one nothing is published either.
            if (!deps.auth.isSteppedUp(session)) {
              errors.iban = sm(lang, 'payoutStepUpFirst');
              throw new ApiError(403, 'step_up_required', errors.iban);
            }
            try {
              await accounts.change(tx, session, { holderName: str('holderName'), iban: str('iban') }, lang);
            } catch (err) {
              if (err instanceof ApiError) errors[err.entries[0]!.path as 'iban' | 'holderName'] = err.message;
              throw err;
            }
          }
          const unpaid = !(await sellerPayoutReady(tx, session.userPk, !!deps.payouts.connect));
          // The price's own errors first (create checks the rules), then the payout account.
          const created = await deps.listings.create(tx, partner.id, { sellerPk: session.userPk, ticketPks: [ticket.id], priceMinor });
          if (unpaid) {
            // Nobody may buy a listing whose seller we cannot pay: where the money goes comes
            // first (the transaction rolls the listing back).
            errors.iban = sm(lang, deps.payouts.connect ? 'stripeRequired' : deps.auth.isSteppedUp(session) ? 'payoutRequired' : 'payoutRequiredStepUp');
            throw new ApiError(400, 'missing_field', errors.iban, { path: 'iban' });
          }
          return created;
        });
        return safeRedirect(c, servicePaths.sellListing(partner.id, listing.id, { lang, published: '1' }), 303);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (!errors.iban && !errors.holderName) {
          if (err.entries[0]?.path === 'price') errors.price = err.message;
          else errors.form = err.message;
        }
        return sellForm(c, partner, session.userPk, ticketId, lang, { ...state, errors, preview: priceMinor });
      }
    }),
  );

  async function listingPage(c: C, partner: PartnerRow, listing: ListingRow, lang: Lang, errors: FieldErrors = {}) {
    const { api, facts, tickets } = await deps.db.read(async (tx) => {
      const tickets = await deps.listings.ticketsOf(tx, listing.id);
      return { api: await deps.listings.toApi(tx, listing), facts: await eventOfTicket(tx, tickets[0]!), tickets };
    });
    const b = priceBreakdown(listing.priceMinor, { buyerPercent: 0, buyerFixedMinor: listing.buyerFeeMinor, sellerPercent: 0, sellerFixedMinor: listing.sellerFeeMinor });
    const price = servicePaths.sellListingAction(partner.id, listing.id, 'price');
    const remove = servicePaths.sellListingAction(partner.id, listing.id, 'remove');
    const flag = (k: string) => c.req.query(k) === '1';
    const payoutDay = new Date(facts.startsAt + partner.settings.payoutDelayDays * 86_400_000);
    return renderPage(
      c,
      <Layout lang={lang} title={sm(lang, 'listingTitle')} head={pageScriptTag()}>
        <h1>{sm(lang, 'listingTitle')}</h1>
        {['published', 'updated', 'removed'].filter(flag).map((k) => (
          <p role="status" class="notice ok">
            {sm(lang, k as 'published')}
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
          {tickets.map((t) => (
            <li>{ticketName(facts.optionTitle, t, lang)}</li>
          ))}
        </ul>
        <Breakdown b={b} currency={listing.currency} lang={lang} />
        {listing.state === 'ACTIVE' ? (
          <>
            <p>
              {sm(lang, 'share')}{' '}
              <a class="long" id="share-url" href={api.shareUrl}>
                {api.shareUrl}
              </a>{' '}
              {/* Shown by the pages' script where the clipboard can be written. */}
              <button type="button" class="secondary" hidden data-copy-target="share-url" data-copy-done={sm(lang, 'copied')}>
                {sm(lang, 'copyLink')}
              </button>
            </p>
            <form method="post" action={price} class="card" novalidate>
              {csrfField(c, price)}
              <label for="price">{sm(lang, 'changePrice')} ({listing.currency})</label>
              <input type="text" id="price" name="price" inputmode="decimal" value={typed(listing.priceMinor, listing.currency)} aria-invalid={errors.price ? 'true' : undefined} aria-describedby={errors.price ? 'price-error' : undefined} />
              <FieldError id="price-error" text={errors.price} />
              <button type="submit">{sm(lang, 'save')}</button>
            </form>
            <form method="post" action={servicePaths.sellListingAction(partner.id, listing.id, 'remove', { lang })} class="actions">
              {csrfField(c, remove)}
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
              date: formatDay(payoutDay.getTime(), lang, facts.timeZone),
            })}
          </p>
        ) : null}
      </Layout>,
      { status: Object.keys(errors).length ? 400 : 200, csp: SELL_CSP },
    );
  }

  /** "Remove your listing?": the one place that removes, with the way back to keep it on sale. */
  async function removeConfirmation(c: C, partner: PartnerRow, listing: ListingRow, lang: Lang) {
    const facts = await deps.db.read(async (tx) => await eventOfTicket(tx, (await deps.listings.ticketsOf(tx, listing.id))[0]!));
    const action = servicePaths.sellListingAction(partner.id, listing.id, 'remove');
    return renderPage(
      c,
      <Layout lang={lang} title={sm(lang, 'removeTitle')}>
        <h1>{sm(lang, 'removeTitle')}</h1>
        <p>
          <strong>{facts.eventTitle}</strong> · {facts.showTitle} · {money(listing.priceMinor, listing.currency, lang)}
        </p>
        <p>{sm(lang, 'removeText')}</p>
        <form method="post" action={servicePaths.sellListingAction(partner.id, listing.id, 'remove', { lang })} class="actions">
          {csrfField(c, action)}
          <input type="hidden" name="confirm" value="1" />
          <button type="submit" class="danger">
            {sm(lang, 'removeConfirm')}
          </button>{' '}
          <a class="button secondary" href={servicePaths.sellListing(partner.id, listing.id, { lang })}>
            {sm(lang, 'removeKeep')}
          </a>
        </form>
      </Layout>,
    );
  }

  /** The seller's own listing, or null (another seller's reads as not found). */
  async function ownListing(c: C, partner: PartnerRow, userPk: string): Promise<ListingRow | null> {
    const l = await deps.db.read(async (tx) => await listingById(tx, c.req.param('listingId') ?? ''));
    return l && l.partnerId === partner.id && l.sellerPk === userPk ? l : null;
  }

  app.get(
    '/sell/:partnerId/listings/:listingId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const listing = await ownListing(c, partner, session.userPk);
      return listing ? listingPage(c, partner, listing, lang) : notFoundPage(c, lang);
    }),
  );

  app.post(
    '/sell/:partnerId/listings/:listingId/:action{price|remove}',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const listing = await ownListing(c, partner, session.userPk);
      if (!listing) return notFoundPage(c, lang);
      const form = await c.req.parseBody();
      try {
        if (c.req.param('action') === 'price') {
          const priceMinor = parseTypedPrice(typeof form.price === 'string' ? form.price : '', listing.currency);
          if (priceMinor === null) throw ApiError.field('missing_field', 'price', t(lang, 'errorText'));
          await deps.db.transact(async (tx) => await deps.listings.updatePrice(tx, partner.id, listing.id, session.userPk, priceMinor));
          return safeRedirect(c, servicePaths.sellListing(partner.id, listing.id, { lang, updated: '1' }), 303);
        }
        // Removing is asked twice: the listing page's button leads here, and only this page's
        // confirmation (confirm=1) removes. Without script, as every form of the flow.
        if (form.confirm !== '1') return removeConfirmation(c, partner, listing, lang);
        await deps.db.transact(async (tx) => await deps.listings.terminateByTicket(tx, partner.id, (await deps.listings.ticketsOf(tx, listing.id))[0]!.ticketId, session.userPk));
        return safeRedirect(c, servicePaths.sellListing(partner.id, listing.id, { lang, removed: '1' }), 303);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        const fresh = await deps.db.read(async (tx) => await deps.listings.get(tx, partner.id, listing.id));
        return listingPage(c, partner, fresh, lang, err.entries[0]?.path === 'price' ? { price: err.message } : { form: err.message });
      }
    }),
  );

  return app;
}
