/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { inOrder } from '../../../lib/in-order.js';
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { formatInstant } from '@resale/shared/format';
import { t } from '../../../lib/i18n.js';
import { Layout, noticePage, renderPage } from '../layout.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfField, currentServiceUrl, requireUser, safeRedirect, signInUrl, type SessionEnv } from '../auth/auth.session.js';
import { stepUpUrl } from '../auth/auth.step-up.js';
import { showsWithEvents, ticketOptionsByPks } from '../../../domain/events/events.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { PayoutAccounts } from '../../../domain/payouts/payouts.accounts.js';
import { sellerPayoutReady } from '../../../domain/payouts/payouts.queries.js';
import { payoutCountry } from '../../../domain/payouts/payouts.countries.js';
import { sellBack, sellCsp, StripePayout, toDashboard, toOnboarding } from './sell.payout.js';
import { ownedTicketsByRefs } from '../../../domain/tickets/tickets.queries.js';
import { parseTypedPrice, verifyOwnership } from '../../../flows/sell.js';
import { sm } from './sell.messages.js';
import { servicePaths } from '../../../lib/urls.js';

type C = Context<SessionEnv>;

/** A ticket of the seller in the hub pages, with what can be done with it. */
interface HubTicket {
  ticketId: string;
  orderId: string | null;
  showPk: string;
  showTitle: string;
  eventTitle: string;
  startsAt: number;
  /** The venue's time zone (the show's, else the event's); null when unknown. */
  timeZone: string | null;
  optionTitle: string;
  groupKey: string;
  sellable: boolean;
  listingId: string | null;
}

/**
 * Smart publish (`/sell/:partnerId/start`) and the pages it routes to, the order flow
 * (`/sell/:partnerId/order/:orderId`) and payout details (`/sell/:partnerId/payout`).
 */
export function sellHubRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const accounts = new PayoutAccounts(deps);
  // Mounted by sellPageRoutes: the registry's session and CSRF middleware of /sell/:partnerId/* cover these paths.

  /** Signs in, verifies ownership live (synchronising what we did not know), and lists the seller's tickets. */
  async function sellerTickets(c: C, partner: PartnerRow, lang: Lang): Promise<{ userPk: string; list: HubTicket[] } | Response> {
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    const user = await deps.db.read(async (tx) => await deps.users.get(tx, partner.id, session.userPk));
    const v = await verifyOwnership(deps, partner, user);
    if (v.kind === 'no_account') return safeRedirect(c, signInUrl(partner, deps.config.publicBaseUrl, currentServiceUrl(c, deps.config.publicBaseUrl), lang));
    if (v.kind === 'unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    const now = deps.clock.now();
    const list = await deps.db.read(async (tx) => {
      const owned = await ownedTicketsByRefs(tx, partner.id, user.id, [...v.ticketIds], ['VALID', 'LISTED']);
      // Their shows, events and options in one read each; upcoming shows only, earliest first.
      const shows = await showsWithEvents(tx, owned.map((t) => t.showPk));
      const options = await ticketOptionsByPks(tx, owned.map((t) => t.ticketOptionPk));
      const rows = owned
        .flatMap((t) => {
          const s = shows.get(t.showPk);
          const o = options.get(t.ticketOptionPk);
          return s && o && s.show.startsAt > now ? [{ t, showTitle: s.show.title, startsAt: s.show.startsAt, timeZone: (s.show.location ?? s.event.location).timeZone ?? null, eventTitle: s.event.title, optionTitle: o.title }] : [];
        })
        .sort((a, b) => a.startsAt - b.startsAt || (a.t.ticketId < b.t.ticketId ? -1 : a.t.ticketId > b.t.ticketId ? 1 : 0));
      return await inOrder(rows, async (r): Promise<HubTicket> => {
        const live = r.t.state === 'LISTED' ? await deps.listings.liveListingOf(tx, r.t.id) : undefined;
        return {
          ticketId: r.t.ticketId,
          orderId: r.t.orderId,
          showPk: r.t.showPk,
          showTitle: r.showTitle,
          eventTitle: r.eventTitle,
          startsAt: r.startsAt,
          timeZone: r.timeZone,
          optionTitle: r.optionTitle,
          groupKey: `${r.t.ticketOptionPk}|${r.t.priceTypePk ?? ''}`,
          sellable: r.t.state === 'VALID' && (await deps.listings.notSellable(tx, r.t)) === null,
          listingId: live && live.sellerPk === user.id ? live.id : null,
        };
      });
    });
    return { userPk: user.id, list };
  }

  function TicketList({ partner, list, lang }: { partner: PartnerRow; list: HubTicket[]; lang: Lang }) {
    return (
      <ul>
        {list.map((x) => (
          <li>
            {x.optionTitle} · {x.ticketId}{' '}
            {x.listingId ? (
              <a href={servicePaths.sellListing(partner.id, x.listingId, { lang })}>{sm(lang, 'manage')}</a>
            ) : x.sellable ? (
              <a href={servicePaths.sellTicket(partner.id, x.ticketId, { lang })}>{sm(lang, 'sell')}</a>
            ) : null}
          </li>
        ))}
      </ul>
    );
  }

  app.get(
    '/sell/:partnerId/start',
    partnerPage(deps, async (c: C, partner, lang) => {
      const r = await sellerTickets(c, partner, lang);
      if (r instanceof Response) return r;
      const useful = r.list.filter((x) => x.sellable || x.listingId);
      const sellable = useful.filter((x) => x.sellable);
      if (useful.length === 0) return renderPage(c, <Layout lang={lang} title={sm(lang, 'emptyTitle')}><h1>{sm(lang, 'emptyTitle')}</h1><p>{sm(lang, 'emptyText')}</p></Layout>);
      if (sellable.length === 0) {
        return renderPage(c, <Layout lang={lang} title={sm(lang, 'yourListings')}><h1>{sm(lang, 'yourListings')}</h1><TicketList partner={partner} list={useful} lang={lang} /></Layout>);
      }
      if (useful.length === 1) return safeRedirect(c, servicePaths.sellTicket(partner.id, sellable[0]!.ticketId, { lang }));
      const byShow = [...new Map(useful.map((x) => [x.showPk, x])).values()];
      if (byShow.length === 1) return safeRedirect(c, servicePaths.sellShow(partner.id, byShow[0]!.showPk, { lang }));
      return renderPage(
        c,
        <Layout lang={lang} title={sm(lang, 'showsTitle')}>
          <h1>{sm(lang, 'showsTitle')}</h1>
          <ul>
            {byShow.map((s) => (
              <li>
                <a href={servicePaths.sellShow(partner.id, s.showPk, { lang })}>
                  {s.eventTitle} · {s.showTitle}
                </a>{' '}
                · {formatInstant(s.startsAt, lang, s.timeZone, 'long')}
              </li>
            ))}
          </ul>
        </Layout>,
      );
    }),
  );

  app.get(
    '/sell/:partnerId/show/:showPk',
    partnerPage(deps, async (c: C, partner, lang) => {
      const r = await sellerTickets(c, partner, lang);
      if (r instanceof Response) return r;
      const list = r.list.filter((x) => x.showPk === c.req.param('showPk'));
      if (list.length === 0) return notFoundPage(c, lang);
      const title = sm(lang, 'hubTitle', { show: `${list[0]!.eventTitle} · ${list[0]!.showTitle}` });
      return renderPage(c, <Layout lang={lang} title={title}><h1>{title}</h1><TicketList partner={partner} list={list} lang={lang} /></Layout>);
    }),
  );

  async function orderPage(c: C, partner: PartnerRow, lang: Lang, error?: string) {
    const r = await sellerTickets(c, partner, lang);
    if (r instanceof Response) return r;
    const orderId = c.req.param('orderId') ?? '';
    const list = r.list.filter((x) => x.orderId === orderId);
    if (list.length === 0) return notFoundPage(c, lang);
    const action = servicePaths.sellOrder(partner.id, orderId);
    const sellable = list.filter((x) => x.sellable);
    const currency = sellable.length > 0 ? await deps.db.read(async (tx) => (await deps.listings.quote(tx, await deps.tickets.get(tx, partner.id, sellable[0]!.ticketId), null)).currency) : null;
    const title = sm(lang, 'sellOrderTitle', { orderId });
    const unpaid = currency !== null && !(await deps.db.read(async (tx) => await sellerPayoutReady(tx, r.userPk, !!deps.payouts.connect)));
    return renderPage(
      c,
      <Layout lang={lang} title={title}>
        <h1>{title}</h1>
        <p>
          <strong>{list[0]!.eventTitle}</strong> · {list[0]!.showTitle}
        </p>
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <TicketList partner={partner} list={list} lang={lang} />
        {unpaid ? (
          <div class="notice warn">
            <p>{sm(lang, deps.payouts.connect ? 'stripeRequired' : 'payoutRequired')}</p>
            <p>
              <a href={servicePaths.sellPayout(partner.id, { lang })}>{sm(lang, 'payoutStepUpLink')}</a>
            </p>
          </div>
        ) : null}
        {currency !== null ? (
          <form method="post" action={action} class="card" novalidate>
            {csrfField(c, action)}
            <label for="price">{sm(lang, 'price', { currency })}</label>
            <input type="text" id="price" name="price" inputmode="decimal" required />
            <button type="submit">{sm(lang, 'publish')}</button>
          </form>
        ) : null}
      </Layout>,
      { status: error ? 400 : 200 },
    );
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
      const r = await sellerTickets(c, partner, lang);
      if (r instanceof Response) return r;
      const orderId = c.req.param('orderId') ?? '';
      const sellable = r.list.filter((x) => x.orderId === orderId && x.sellable);
      if (sellable.length === 0) return orderPage(c, partner, lang);
      const form = await c.req.parseBody();
      const groups = new Map<string, HubTicket[]>();
      for (const x of sellable) groups.set(x.groupKey, [...(groups.get(x.groupKey) ?? []), x]);
      try {
        await deps.db.transact(async (tx) => {
          const first = await deps.tickets.get(tx, partner.id, sellable[0]!.ticketId);
          const priceMinor = parseTypedPrice(typeof form.price === 'string' ? form.price : '', (await deps.listings.quote(tx, first, null)).currency);
          const unpaid = !(await sellerPayoutReady(tx, r.userPk, !!deps.payouts.connect));
          for (const group of groups.values()) {
            await deps.listings.create(tx, partner.id, { sellerPk: r.userPk, ticketPks: await inOrder(group, async (x) => (await deps.tickets.get(tx, partner.id, x.ticketId)).id), priceMinor });
          }
          // As on the ticket's sell page: the price's errors first, then where the money goes (rolled back).
          if (unpaid) throw new ApiError(400, 'missing_field', sm(lang, deps.payouts.connect ? 'stripeRequired' : 'payoutRequired'), { path: 'iban' });
        });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return orderPage(c, partner, lang, err.message);
      }
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
      const str = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
      // The step-up lapsed while the form was open (or the form was posted without one): nothing is saved (a country chosen comes back preselected).
      const chosen = payoutCountry(str('country'));
      if (!deps.auth.isSteppedUp(session)) return safeRedirect(c, stepUpUrl(partner.id, servicePaths.sellPayout(partner.id, { lang, country: chosen }), lang), 303);
      // With Stripe Connect, where the money goes is the seller's Stripe account: set up on Stripe's pages.
      if (deps.payouts.connect) {
        if (str('intent') === 'dashboard') return await toDashboard(deps, c, partner, session, lang);
        const country = str('country');
        return await toOnboarding(deps, c, partner, session, servicePaths.sellPayout(partner.id, { lang }), lang, country || null, async (message) => await payoutPage(c, partner, lang, session.userPk, { country: message }, country));
      }
      try {
        await deps.db.transact(async (tx) => await accounts.change(tx, session, { holderName: str('holderName'), iban: str('iban') }, lang));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return payoutPage(c, partner, lang, session.userPk, { [err.entries[0]!.path ?? 'iban']: err.message });
      }
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
      await deps.payouts.connect.refresh(session.userPk).catch((err: unknown) => deps.logger.warn({ err }, 'could not read the seller’s Stripe account; its events will tell'));
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

  async function payoutPage(c: C, partner: PartnerRow, lang: Lang, userPk: string, errors: Record<string, string>, country?: string) {
    const action = servicePaths.sellPayout(partner.id);
    if (deps.payouts.connect) {
      const view = await deps.db.read(async (tx) => await deps.payouts.connect!.view(tx, userPk));
      return renderPage(
        c,
        <Layout lang={lang} title={sm(lang, 'payoutTitle')}>
          <h1>{sm(lang, 'payoutTitle')}</h1>
          <form method="post" action={action} class="card" novalidate>
            {csrfField(c, action)}
            <StripePayout lang={lang} partner={partner} view={view} button manage country={country ?? c.req.query('country')} countryError={errors.country} />
          </form>
        </Layout>,
        { csp: sellCsp(deps), status: Object.keys(errors).length ? 400 : 200 },
      );
    }
    const saved = await deps.db.read(async (tx) => await accounts.view(tx, userPk));
    return renderPage(
      c,
      <Layout lang={lang} title={sm(lang, 'payoutTitle')}>
        <h1>{sm(lang, 'payoutTitle')}</h1>
        <p>{sm(lang, 'payoutIntro', { days: partner.settings.payoutDelayDays })}</p>
        {saved ? <p role="status">{sm(lang, 'payoutSaved', { hint: saved.accountHint, name: saved.holderName })}</p> : null}
        <form method="post" action={action} class="card" novalidate>
          {csrfField(c, action)}
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
      </Layout>,
      { status: Object.keys(errors).length ? 400 : 200 },
    );
  }

  return app;
}
