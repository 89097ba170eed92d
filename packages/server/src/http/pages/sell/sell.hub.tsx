/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { t } from '../../../lib/i18n.js';
import { noticePage, renderPage } from '../layout.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfToken, currentServiceUrl, requireUser, safeRedirect, signInUrl, type SessionEnv } from '../auth/auth.session.js';
import { stepUpUrl } from '../auth/auth.step-up.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { payoutCountry } from '../../../domain/payouts/payouts.countries.js';
import { loadOrder, loadPayout, publishOrder, refreshStripeAccount, savePayoutAccount, sellableOfOrder, sellerTickets, showOf, smartPublish, type HubTicket } from './sell.hub.load.js';
import { ChooseShowPage, NothingToSellPage, OrderPage, ShowPage, YourListingsPage } from './sell.hub.view.js';
import { sellBack, sellCsp, toDashboard, toOnboarding } from './sell.payout.js';
import { PayoutPage } from './sell.payout.view.js';
import { servicePaths } from '../../../lib/urls.js';

type C = Context<SessionEnv>;

/** A posted form's text field; empty when absent (or a file). */
const field = (form: Record<string, unknown>, k: string): string => (typeof form[k] === 'string' ? (form[k] as string) : '');

/**
 * Smart publish (`/sell/:partnerId/start`) and the pages it routes to, the order flow
 * (`/sell/:partnerId/order/:orderId`) and payout details (`/sell/:partnerId/payout`).
 */
export function sellHubRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  // Mounted by sellPageRoutes: the registry's session and CSRF middleware of /sell/:partnerId/* cover these paths.

  /** Signs in, verifies ownership live (synchronising what we did not know), and lists the seller's tickets. */
  async function seller(c: C, partner: PartnerRow, lang: Lang): Promise<{ userPk: string; list: HubTicket[] } | Response> {
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    const r = await sellerTickets(deps, partner, session.userPk);
    if (r.kind === 'signIn') return safeRedirect(c, signInUrl(partner, deps.config.publicBaseUrl, currentServiceUrl(c, deps.config.publicBaseUrl), lang));
    if (r.kind === 'unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    return r;
  }

  app.get(
    '/sell/:partnerId/start',
    partnerPage(deps, async (c: C, partner, lang) => {
      const r = await seller(c, partner, lang);
      if (r instanceof Response) return r;
      const next = smartPublish(partner.id, r.list, lang);
      if (next.kind === 'empty') return renderPage(c, <NothingToSellPage lang={lang} />);
      if (next.kind === 'listings') return renderPage(c, <YourListingsPage lang={lang} items={next.items} />);
      if (next.kind === 'redirect') return safeRedirect(c, next.to);
      return renderPage(c, <ChooseShowPage lang={lang} shows={next.shows} />);
    }),
  );

  app.get(
    '/sell/:partnerId/show/:showPk',
    partnerPage(deps, async (c: C, partner, lang) => {
      const r = await seller(c, partner, lang);
      if (r instanceof Response) return r;
      const view = showOf(partner.id, r.list, c.req.param('showPk'), lang);
      if (!view) return notFoundPage(c, lang);
      return renderPage(c, <ShowPage lang={lang} view={view} />);
    }),
  );

  async function orderPage(c: C, partner: PartnerRow, lang: Lang, error?: string) {
    const r = await seller(c, partner, lang);
    if (r instanceof Response) return r;
    const orderId = c.req.param('orderId') ?? '';
    const view = await loadOrder(deps, partner.id, r.userPk, r.list, orderId, lang);
    if (!view) return notFoundPage(c, lang);
    const action = servicePaths.sellOrder(partner.id, orderId);
    return renderPage(c, <OrderPage lang={lang} view={view} action={action} csrf={csrfToken(c, action)} error={error} />, { status: error ? 400 : 200 });
  }

  app.get(
    '/sell/:partnerId/order/:orderId',
    partnerPage(deps, async (c: C, partner, lang) => {
      return orderPage(c, partner, lang);
    }),
  );

  /** Lists the order's sellable tickets in one transaction: one pack per ticket option and price type. */
  app.post(
    '/sell/:partnerId/order/:orderId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const r = await seller(c, partner, lang);
      if (r instanceof Response) return r;
      const orderId = c.req.param('orderId') ?? '';
      const sellable = sellableOfOrder(r.list, orderId);
      if (sellable.length === 0) return orderPage(c, partner, lang);
      const form = await c.req.parseBody();
      const outcome = await publishOrder(deps, partner.id, r.userPk, sellable, field(form, 'price'), lang);
      if (outcome.kind === 'failed') return orderPage(c, partner, lang, outcome.message);
      return safeRedirect(c, servicePaths.sellOrder(partner.id, orderId, { lang }), 303);
    }),
  );

  app.get(
    '/sell/:partnerId/payout',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      // Changing where money goes needs a fresh one-time code, even inside a session.
      if (!deps.auth.isSteppedUp(session)) return safeRedirect(c, stepUpUrl(partner.id, servicePaths.sellPayout(partner.id, { lang }), lang));
      return payoutPage(c, partner, lang, session.userPk, {});
    }),
  );

  app.post(
    '/sell/:partnerId/payout',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const form = await c.req.parseBody();
      const str = (k: string) => field(form, k);
      // The step-up lapsed while the form was open (or the form was posted without one): nothing is saved (a country chosen comes back preselected).
      const chosen = payoutCountry(str('country'));
      if (!deps.auth.isSteppedUp(session)) return safeRedirect(c, stepUpUrl(partner.id, servicePaths.sellPayout(partner.id, { lang, country: chosen }), lang), 303);
      // With Stripe Connect, where the money goes is the seller's Stripe account: set up on Stripe's pages.
      if (deps.payouts.connect) {
        if (str('intent') === 'dashboard') return await toDashboard(deps, c, partner, session, lang);
        const country = str('country');
        return await toOnboarding(deps, c, partner, session, servicePaths.sellPayout(partner.id, { lang }), lang, country || null, async (message) => await payoutPage(c, partner, lang, session.userPk, { country: message }, country));
      }
      const saved = await savePayoutAccount(deps, session, { holderName: str('holderName'), iban: str('iban') }, lang);
      if (saved.kind === 'invalid') return payoutPage(c, partner, lang, session.userPk, saved.errors);
      return safeRedirect(c, servicePaths.sellPayout(partner.id, { lang, saved: '1' }), 303);
    }),
  );

  /**
   * Back from Stripe's onboarding (or its link expired: `refresh`): the account's state read
   * from Stripe and kept (its `account.updated` events keep it too), then the page the seller
   * left, checked to be one of this partner's sell pages.
   */
  app.get(
    '/sell/:partnerId/payout/stripe/return',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      if (!deps.payouts.connect) return notFoundPage(c, lang);
      await refreshStripeAccount(deps, session.userPk);
      return safeRedirect(c, sellBack(partner, c.req.query('back'), lang));
    }),
  );

  app.get(
    '/sell/:partnerId/payout/stripe/refresh',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      if (!deps.payouts.connect) return notFoundPage(c, lang);
      const back = sellBack(partner, c.req.query('back'), lang);
      if (!deps.auth.isSteppedUp(session)) return safeRedirect(c, stepUpUrl(partner.id, back, lang));
      // The account exists by now (the link that expired was opened for it): no country to ask.
      return await toOnboarding(deps, c, partner, session, back, lang, null, async () => safeRedirect(c, servicePaths.sellPayout(partner.id, { lang })));
    }),
  );

  /** The payout page (`errors` by field: 400), a Stripe account not opened yet preselecting `country`, else the query's. */
  async function payoutPage(c: C, partner: PartnerRow, lang: Lang, userPk: string, errors: Record<string, string>, country?: string) {
    const action = servicePaths.sellPayout(partner.id);
    const view = await loadPayout(deps, userPk, lang, country ?? c.req.query('country'));
    const page = <PayoutPage lang={lang} view={view} payoutDelayDays={partner.settings.payoutDelayDays} action={action} csrf={csrfToken(c, action)} errors={errors} />;
    const status = Object.keys(errors).length ? 400 : 200;
    // Stripe's onboarding origin in the policy's form-action: its form's answer redirects there.
    if (view.kind === 'stripe') return renderPage(c, page, { csp: sellCsp(deps), status });
    return renderPage(c, page, { status });
  }

  return app;
}
