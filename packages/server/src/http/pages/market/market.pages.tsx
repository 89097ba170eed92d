/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { AppDeps } from '../../../context.js';
import { csrfToken, requireUser, safeRedirect, signInOrigins, type SessionEnv } from '../auth/auth.session.js';
import { partnerReturnTo, RETURN_TO_TAG_PARAM } from '../../../domain/auth/auth.urls.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { SignedInAs } from '../auth/auth.signed-in.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { pageLang } from '../../../lib/i18n.js';
import { cspWith, noticePage, renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { notFoundPage } from '../partner-page.js';
import { ok } from '../../../lib/envelope.js';
import { buyListings, findPartner, marketAfterSignIn, marketPage, marketSeatMap, readBuyForm, readMarket } from './market.load.js';
import { buyRefusalNotice, MARKET_CSS, MarketPage } from './market.view.js';

/**
 * The market page's policy. Buy posts, then the checkout may redirect to the partner's sign-in
 * page: its origin joins form-action. With the seat map: the widget bundle and its data from the
 * service itself, the chart image from the partner (https).
 */
function marketCsp(partner: Pick<PartnerRow, 'settings'>, withMap: boolean): string {
  const formAction = signInOrigins(partner);
  return withMap ? cspWith({ styles: [MARKET_CSS], widgets: true, imgSrc: ['https:'], formAction }) : cspWith({ styles: [MARKET_CSS], formAction });
}

/**
 * The public market page of an event (`/market/:partnerId/:eventRef?showId&ticketOptionId&listingId&ticketId&lang`):
 * the show's offers grouped by ticket option and area, cheapest first, prices with the
 * buyer fee; a shared listing or ticket is marked. No sign-in to look.
 *
 * The routes read the request and answer; what they load and show is market.load.ts,
 * market.view.tsx and market.messages.ts. Not `partnerPage`: the market brands its pages only
 * once the partner's way back is checked, and its 404s before that are the service's own.
 */
export function marketPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();

  /**
   * Buy: reserves the listings for the signed-in buyer and goes to checkout. Holds are never
   * anonymous: a buyer who is not signed in is sent to sign in first and comes back to this
   * market page with the pick as its selection, where "Reserve and pay" holds it (one more
   * press, but nobody can take a market off sale without an account). Live holds are limited
   * per buyer, per buyer and show, and per client address (partner setting `holdLimits`).
   */
  app.post('/market/:partnerId/:eventRef/buy', async (c) => {
    const partner = await findPartner(deps, c.req.param('partnerId'));
    const lang = pageLang(c, partner?.settings.defaultLang);
    if (!partner) return notFoundPage(c, lang);
    const form = readBuyForm(await c.req.parseBody({ all: true }));
    if (!form) return notFoundPage(c, lang);
    const back = partnerReturnTo(deps.box, partner, form.returnTo, form.returnTag);
    brandAsPartner(c, partner, back);
    // Signed out: sign in first, then back to this market with the pick as the selection.
    const session = requireUser(c, partner, { returnTo: marketAfterSignIn(partner, c.req.param('eventRef'), form, lang, back) });
    if (session instanceof Response) return session;
    const outcome = await buyListings(deps, {
      partner,
      eventRef: c.req.param('eventRef'),
      showId: form.showId,
      listingIds: form.listingIds,
      buyerPk: session.userPk,
      returnTo: back,
      clientKey: deps.box.sign('hold-client-address', clientLimitKey(c)),
      lang,
    });
    if (outcome.kind === 'checkout') return safeRedirect(c, outcome.to, 303);
    if (outcome.kind === 'notFound') return notFoundPage(c, lang);
    return noticePage(c, buyRefusalNotice(outcome, lang));
  });

  /** The seat map's data for the page's `<resale-seat-map src>`: public, as the page is. */
  app.get('/market/:partnerId/:eventRef/seatmap.json', async (c) => {
    const showId = c.req.query('showId') ?? '';
    // The page's way back travels with the map's Continue (checked again when the page shows it).
    const carry: Record<string, string> = {};
    for (const k of ['returnTo', RETURN_TO_TAG_PARAM]) {
      const v = c.req.query(k);
      if (v && v.length <= 2048) carry[k] = v;
    }
    const data = await marketSeatMap(deps, { partnerId: c.req.param('partnerId'), eventRef: c.req.param('eventRef'), showId }, carry, (partner) => pageLang(c, partner.settings.defaultLang));
    c.header('Cache-Control', 'no-store');
    return c.json(ok(data), 200);
  });

  app.get('/market/:partnerId/:eventRef', async (c) => {
    const read = await readMarket(deps, { partnerId: c.req.param('partnerId'), eventRef: c.req.param('eventRef'), showId: c.req.query('showId') });
    const lang = pageLang(c, read.partner?.settings.defaultLang);
    const page = marketPage(deps, read, lang, {
      ticketOptionId: c.req.query('ticketOptionId'),
      listingIds: c.req.query('listingIds'),
      listingId: c.req.query('listingId'),
      ticketId: c.req.query('ticketId'),
      returnTo: c.req.query('returnTo'),
      returnTag: c.req.query(RETURN_TO_TAG_PARAM),
    });
    if (page.kind === 'notFound') return notFoundPage(c, lang);
    const { partner, view } = page;
    // The header carries the way back (and the partner's name, colour, help and terms).
    brandAsPartner(c, partner, view.back);
    c.header('Cache-Control', 'no-store');
    const { pathname, search } = new URL(c.req.url);
    // The Buy forms' token, only when one shows: before sign-in, making one sets the browser's CSRF cookie.
    const csrf = view.hasBuyForm ? csrfToken(c, view.buyAction) : '';
    const signedInAs = <SignedInAs c={c} deps={deps} partnerId={partner.id} lang={lang} returnTo={pathname + search} />;
    return renderPage(c, <MarketPage view={view} lang={lang} csrf={csrf} signedInAs={signedInAs} />, { csp: marketCsp(partner, view.hasMap) });
  });
  return app;
}
