import { inOrder } from '../../lib/in-order.js';
/** @jsxImportSource hono/jsx */
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { currencyDigits } from '../../lib/money.js';
import { formatInstant } from '../../pages/format.js';
import { t, type Lang } from '../../pages/i18n.js';
import { Layout, noticePage, renderPage } from '../../pages/layout.js';
import { notFoundPage, partnerPage } from '../../pages/partner-page.js';
import { csrfField, csrfRejected, requireUser, safeRedirect, sessionFromRequest, verifyCsrf, type SessionEnv } from '../auth/auth.session.js';
import { showWithEvent } from '../events/events.queries.js';
import { intentionById, type IntentionRow } from '../intentions/intentions.queries.js';
import type { PartnerRow } from '../partners/partners.service.js';
import { answerVerification, checkout, verifySellers, type CheckoutOutcome } from '../../flows/checkout.js';
import { cm } from './checkout.messages.js';
import type { CardInput } from './payments.provider.js';

type C = Context<SessionEnv>;

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/** Reads the card fields; null values mean the field is wrong. The card is never stored. */
function readCard(form: Record<string, unknown>): { card: CardInput | null; errors: Record<string, 'badCard' | 'badExpiry' | 'badCvc'> } {
  const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
  const errors: Record<string, 'badCard' | 'badExpiry' | 'badCvc'> = {};
  const number = str('cardNumber').replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) errors.cardNumber = 'badCard';
  const exp = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(str('expiry').trim());
  const month = exp ? Number(exp[1]) : 0;
  if (!exp || month < 1 || month > 12) errors.expiry = 'badExpiry';
  const cvc = str('cvc').trim();
  if (!/^\d{3,4}$/.test(cvc)) errors.cvc = 'badCvc';
  if (Object.keys(errors).length) return { card: null, errors };
  const year = Number(exp![2]);
  return { card: { number, expMonth: month, expYear: year < 100 ? 2000 + year : year, cvc }, errors };
}

/**
 * The hosted checkout (`/checkout/:partnerId/:intentionId`): the buyer signs in (Login
 * Force, or a one-time password for partners without login), every seller's ticket is
 * checked live with the platform (a ticket that moved cancels the reservation), then the
 * card is charged through the payment provider. Also the provider's extra-verification step
 * and the confirmation. Forms work without script and carry CSRF tokens.
 */
export function checkoutPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.use('/checkout/:partnerId/*', sessionFromRequest(deps, { partnerId: (c) => c.req.param('partnerId') ?? '' }));

  const marketLink = async (partner: PartnerRow, intention: IntentionRow, lang: Lang) => {
    const { show, event } = (await deps.db.read(async (tx) => await showWithEvent(tx, intention.showPk)))!;
    return { href: `/market/${partner.id}/${encodeURIComponent(event.externalReferenceId)}?showId=${encodeURIComponent(show.showId)}&lang=${lang}`, label: cm(lang, 'backToMarket') };
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
    const intention = claimed.row;
    return { intention, userPk: session.userPk };
  }

  /** The page of a checkout step's outcome (flows/checkout.ts decides; this only says it). */
  async function outcomePage(c: C, partner: PartnerRow, intention: IntentionRow, lang: Lang, outcome: CheckoutOutcome): Promise<Response> {
    if (outcome.kind === 'platform_unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    if (outcome.kind === 'ticket_moved') return noticePage(c, { lang, status: 409, title: cm(lang, 'movedTitle'), text: cm(lang, 'movedText'), link: await marketLink(partner, intention, lang) });
    if (outcome.kind === 'risk_high') return noticePage(c, { lang, status: 402, title: cm(lang, 'riskTitle'), text: cm(lang, 'riskText'), link: await marketLink(partner, intention, lang) });
    if (outcome.kind === 'paid') return safeRedirect(c, `/checkout/${partner.id}/${intention.id}/done?lang=${lang}`, 303);
    if (outcome.kind === 'verify') return safeRedirect(c, `/checkout/${partner.id}/verify/${outcome.paymentId}?lang=${lang}`, 303);
    if (outcome.kind === 'declined') return noticePage(c, { lang, status: 402, title: cm(lang, 'declinedTitle'), text: cm(lang, 'declinedText', { why: cm(lang, declineReason(outcome.code)) }), link: await marketLink(partner, intention, lang) });
    // Why it ended, when the buyer did not end it: the organiser's delist, the seller's (or
    // channel's) withdrawal, or their own listing.
    // `get` expires a PENDING intention past its time on the way: a write, so a transaction.
    const reason = (await deps.db.transact(async (tx) => await deps.intentions.get(tx, partner.id, intention.id))).endReason;
    const [title, text] =
      reason === 'delisted' ? (['delistedTitle', 'delistedText'] as const) : reason === 'withdrawn' ? (['withdrawnTitle', 'withdrawnText'] as const) : reason === 'own_listing' ? (['ownListingTitle', 'ownListingText'] as const) : (['endedTitle', 'endedText'] as const);
    return noticePage(c, { lang, status: 409, title: cm(lang, title), text: cm(lang, text), link: await marketLink(partner, intention, lang) });
  }

  async function checkoutPage(c: C, partner: PartnerRow, intention: IntentionRow, lang: Lang, errors: Record<string, string> = {}) {
    const { show, event, items } = await deps.db.read(async (tx) => ({
      ...(await showWithEvent(tx, intention.showPk))!,
      items: await inOrder(intention.listingIds, async (id) => {
        const listing = await deps.listings.get(tx, partner.id, id);
        return { ...listing, tickets: await deps.listings.ticketsOf(tx, id) };
      }),
    }));
    const ev = { title: event.title, showTitle: show.title, startsAt: show.startsAt };
    const timeZone = (show.location ?? event.location).timeZone;
    const action = `/checkout/${partner.id}/${intention.id}`;
    const field = (name: string, label: string, auto: string, mode: 'numeric' | 'text' = 'numeric') => (
      <>
        <label for={name}>{label}</label>
        <input type="text" id={name} name={name} inputmode={mode} autocomplete={auto} aria-invalid={errors[name] ? 'true' : undefined} aria-describedby={errors[name] ? `${name}-error` : undefined} />
        {errors[name] ? (
          <p class="error" id={`${name}-error`}>
            {errors[name]}
          </p>
        ) : null}
      </>
    );
    return renderPage(
      c,
      <Layout lang={lang} title={cm(lang, 'title')}>
        <h1>{cm(lang, 'title')}</h1>
        <p>
          <strong>{ev.title}</strong> · {ev.showTitle} · {formatInstant(ev.startsAt, lang, timeZone)}
        </p>
        <ul>
          {items.map((l) => (
            <li>
              {l.tickets.map((x) => [x.section, x.row, x.seat].filter(Boolean).join(' · ') || x.ticketId).join(', ')} —{' '}
              {cm(lang, 'perTicket', { price: money(l.priceMinor, l.currency, lang), fee: money(l.buyerFeeMinor, l.currency, lang) })}
            </li>
          ))}
        </ul>
        <p>
          {cm(lang, 'total')}: <strong>{money(intention.totalMinor, intention.currency, lang)}</strong>
        </p>
        <p role="status">{cm(lang, 'reservedUntil', { time: formatInstant(intention.expiresAt, lang, timeZone) })}</p>
        <form method="post" action={action} class="card" novalidate>
          {csrfField(c, action)}
          <h2>{cm(lang, 'payTitle')}</h2>
          {field('cardNumber', cm(lang, 'cardNumber'), 'cc-number')}
          {field('expiry', cm(lang, 'expiry'), 'cc-exp', 'text')}
          {field('cvc', cm(lang, 'cvc'), 'cc-csc')}
          {deps.payments.provider.name === 'sandbox' ? <p class="hint">{cm(lang, 'sandbox')}</p> : null}
          <button type="submit">{cm(lang, 'pay', { amount: money(intention.totalMinor, intention.currency, lang) })}</button>
        </form>
      </Layout>,
      { status: Object.keys(errors).length ? 400 : 200 },
    );
  }

  app.get(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await load(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      if (intention.state === 'PAID') return safeRedirect(c, `/checkout/${partner.id}/${intention.id}/done?lang=${lang}`);
      if (intention.state !== 'PENDING') return outcomePage(c, partner, intention, lang, { kind: 'ended', state: intention.state });
      const refused = await verifySellers(deps, partner, intention);
      return refused ? outcomePage(c, partner, intention, lang, refused) : checkoutPage(c, partner, intention, lang);
    }),
  );

  app.post(
    '/checkout/:partnerId/:intentionId',
    partnerPage(deps, async (c: C, partner, lang) => {
      if (!(await verifyCsrf(c, c.req.path))) return csrfRejected(c, lang);
      const loaded = await load(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      if (intention.state !== 'PENDING') return outcomePage(c, partner, intention, lang, { kind: 'ended', state: intention.state });
      const { card, errors } = readCard(await c.req.parseBody());
      if (!card) return checkoutPage(c, partner, intention, lang, Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, cm(lang, v)])));
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
      if (row.p.state !== 'requires_action') return outcomePage(c, partner, row.i, lang, row.i.state === 'PAID' ? { kind: 'paid', intentionId: row.i.id } : { kind: 'ended', state: row.p.state });
      const action = c.req.path;
      return renderPage(
        c,
        <Layout lang={lang} title={cm(lang, 'verifyTitle')}>
          <h1>{cm(lang, 'verifyTitle')}</h1>
          <p>{cm(lang, 'verifyText', { amount: money(row.p.amountMinor, row.p.currency, lang) })}</p>
          <form method="post" action={action}>
            {csrfField(c, action)}
            <button type="submit" name="answer" value="approve">
              {cm(lang, 'approve')}
            </button>{' '}
            <button type="submit" name="answer" value="reject" class="secondary">
              {cm(lang, 'reject')}
            </button>
          </form>
        </Layout>,
      );
    }),
  );

  app.post(
    '/checkout/:partnerId/verify/:paymentId',
    partnerPage(deps, async (c: C, partner, lang) => {
      if (!(await verifyCsrf(c, c.req.path))) return csrfRejected(c, lang);
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const row = await pendingPayment(c, partner, session.userPk);
      if (!row) return notFoundPage(c, lang);
      const form = await c.req.parseBody();
      return outcomePage(c, partner, row.i, lang, await answerVerification(deps, row.p, form.answer === 'approve'));
    }),
  );

  app.get(
    '/checkout/:partnerId/:intentionId/done',
    partnerPage(deps, async (c: C, partner, lang) => {
      const loaded = await load(c, partner, lang);
      if (loaded instanceof Response) return loaded;
      const { intention } = loaded;
      if (intention.state !== 'PAID') return outcomePage(c, partner, intention, lang, { kind: 'ended', state: intention.state });
      const back = intention.returnTo ? { href: intention.returnTo, label: cm(lang, 'backToSite') } : await marketLink(partner, intention, lang);
      return noticePage(c, { lang, status: 200, title: cm(lang, 'doneTitle'), text: cm(lang, 'doneText'), link: back });
    }),
  );

  return app;
}

/** The buyer's words for a provider's decline code (never the code itself). */
function declineReason(code: string): 'declined_card_declined' | 'declined_authentication_failed' | 'declined_other' {
  if (code === 'card_declined' || code === 'authentication_failed') return `declined_${code}`;
  return 'declined_other';
}
