/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import type { IntentionRow } from '../../../domain/intentions/intentions.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { servicePaths } from '../../../lib/urls.js';
import { brandAsPartner } from '../brand.js';
import { cspWith, noticePage, pageBrandOf, renderPage } from '../layout.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfToken, requireUser, safeRedirect, type SessionEnv } from '../auth/auth.session.js';
import { answerVerify, buyersPayment, claimCheckout, loadCheckout, loadReceipt, loadReturn, loadVerify, payByCard, releaseCheckout, unlessPending, type Answer, type CheckoutPage } from './checkout.load.js';
import { CardCheckoutPage, ConfirmingPage, HostedCheckoutPage, ReceiptPage, VerifyPage } from './checkout.view.js';

type C = Context<SessionEnv>;

/** The checkout's pages run the pages' script (the hold's countdown, focus on errors). */
const CHECKOUT_CSP = cspWith({ scripts: true });

/** Answers what a page came to when it is no page of its own: the 404, a notice, a redirect. */
function answer(c: C, lang: Lang, out: Answer): Response | Promise<Response> {
  if (out.kind === 'notFound') return notFoundPage(c, lang);
  if (out.kind === 'redirect') return safeRedirect(c, out.to, out.status);
  return noticePage(c, { lang, ...out.notice });
}

/**
 * Answers the checkout: the card form (under the pages' script's policy), the hosted
 * provider's form (under a policy that allows the provider's script, frames and API and
 * nothing more), or what it came to.
 */
function checkoutAnswer(c: C, lang: Lang, out: CheckoutPage): Response | Promise<Response> {
  if (out.kind === 'card') return renderPage(c, <CardCheckoutPage lang={lang} view={out.view} csrf={csrfToken(c, out.view.action)} />, { status: out.status, csp: CHECKOUT_CSP });
  if (out.kind === 'hosted') return renderPage(c, <HostedCheckoutPage lang={lang} view={out.view} />, { csp: cspWith({ provider: out.providerCsp }) });
  return answer(c, lang, out);
}

/**
 * The hosted checkout (`/checkout/:partnerId/:intentionId`): the buyer signs in (Login
 * Force, or a one-time password for partners without login), every seller's ticket is
 * checked live with the platform (a ticket that moved cancels the reservation), then the
 * card is charged through the payment provider. A declined card keeps the reservation: the
 * buyer is back on the checkout with the reason in words, to try another card while the hold
 * lasts. Also the provider's extra-verification step and the receipt. Forms work without
 * script and carry CSRF tokens.
 *
 * The routes only read the request and answer: checkout.load.ts loads and acts,
 * checkout.view.tsx is the markup.
 */
export function checkoutPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  /** The intention of the signed-in buyer (claiming an unclaimed one), or the page that says why not. */
  async function claimed(c: C, partner: PartnerRow, lang: Lang): Promise<{ intention: IntentionRow; userPk: string } | Response> {
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    const out = await claimCheckout(deps, partner, lang, c.req.param('intentionId') ?? '', session.userPk);
    if (out.kind !== 'claimed') return answer(c, lang, out);
    // The header's way back is the partner page the buyer came from.
    brandAsPartner(c, partner, out.intention.returnTo);
    return { intention: out.intention, userPk: session.userPk };
  }

  /**
   * The signed-in buyer's checkout while it is PENDING; else the receipt (paid: `status` is the
   * redirect's, 303 after a POST) or the page that says it ended.
   */
  async function pendingCheckout(c: C, partner: PartnerRow, lang: Lang, status: 302 | 303 = 302): Promise<{ intention: IntentionRow; userPk: string } | Response> {
    const loaded = await claimed(c, partner, lang);
    if (loaded instanceof Response) return loaded;
    const ended = await unlessPending(deps, partner, lang, loaded.intention, status);
    return ended ? answer(c, lang, ended) : loaded;
  }

  app.get(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await pendingCheckout(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      return checkoutAnswer(c, lang, await loadCheckout(deps, { partner, lang, ...loaded, declinedId: c.req.query('declined') }));
    }),
  );

  app.post(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await pendingCheckout(c, partner, lang, 303);
      if (loaded instanceof Response) return loaded;
      // A hosted provider's form never posts here: whatever did is sent to the checkout (nothing is read from it).
      if (deps.payments.hosted) return safeRedirect(c, servicePaths.checkout(partner.id, loaded.intention.id, { lang }), 303);
      return checkoutAnswer(c, lang, await payByCard(deps, { partner, lang, ...loaded, form: await c.req.parseBody() }));
    }),
  );

  /** Release: the buyer's own checkout gives its tickets back to the market (from the market's "You have tickets reserved"). */
  app.post(
    '/checkout/:partnerId/:intentionId/release',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await claimed(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      return safeRedirect(c, await releaseCheckout(deps, partner, lang, loaded.intention), 303);
    }),
  );

  app.get(
    '/checkout/:partnerId/verify/:paymentId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const row = await buyersPayment(deps, partner, c.req.param('paymentId') ?? '', session.userPk);
      if (!row) return notFoundPage(c, lang);
      const out = await loadVerify(deps, partner, lang, row);
      if (out.kind !== 'page') return answer(c, lang, out);
      brandAsPartner(c, partner, row.intention.returnTo);
      const action = c.req.path;
      return renderPage(c, <VerifyPage lang={lang} view={out.view} action={action} csrf={csrfToken(c, action)} />, { csp: CHECKOUT_CSP });
    }),
  );

  app.post(
    '/checkout/:partnerId/verify/:paymentId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const row = await buyersPayment(deps, partner, c.req.param('paymentId') ?? '', session.userPk);
      if (!row) return notFoundPage(c, lang);
      const form = await c.req.parseBody();
      return answer(c, lang, await answerVerify(deps, partner, lang, row, form.answer === 'approve'));
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
      const out = await loadReturn(deps, partner, lang, loaded.intention);
      return out.kind === 'page' ? renderPage(c, <ConfirmingPage lang={lang} view={out.view} />) : answer(c, lang, out);
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
      const loaded = await claimed(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      // The way back is named as the header's way back names it.
      const out = await loadReceipt(deps, { partner, lang, intention: loaded.intention, brandName: pageBrandOf(c)?.name });
      return out.kind === 'page' ? renderPage(c, <ReceiptPage lang={lang} view={out.view} />) : answer(c, lang, out);
    }),
  );

  return app;
}
