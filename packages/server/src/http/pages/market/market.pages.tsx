/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { AppDeps } from '../../../context.js';
import { csrfToken, requireUser, safeRedirect, signInOrigins, type SessionContext, type SessionEnv } from '../auth/auth.session.js';
import { partnerReturnTo, RETURN_TO_TAG_PARAM } from '../../../domain/auth/auth.urls.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { SignedInAs } from '../auth/auth.signed-in.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { pageLang } from '../../../lib/i18n.js';
import { cspWith, noticePage, renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { notFoundPage } from '../partner-page.js';
import { ok } from '../../../lib/envelope.js';
import {
  buyListings,
  checkJoin,
  findPartner,
  joinWaitingListFromMarket,
  joinWishlist,
  leaveWaitingListFromMarket,
  marketPage,
  marketSeatMap,
  notifyContinueUrl,
  ownPendingCheckout,
  pickContinueUrl,
  readBuyForm,
  readJoinForm,
  readMarket,
  readNotify,
  readPick,
  readPickQuery,
  readWaitingList,
  readWaitingListContinue,
  waitingListContinueUrl,
  wishlistOf,
  type BuyForm,
  type JoinErrors,
  type JoinValues,
} from './market.load.js';
import { buyRefusalNotice, MARKET_CSS, MarketPage, pickRefusalNotice, type WaitingListProps } from './market.view.js';
import { servicePaths } from '../../../lib/urls.js';
import type { Lang } from '@resale/shared/lang';

/**
 * The market page's policy. Buy posts, then the checkout may redirect to the partner's sign-in
 * page: its origin joins form-action. With the seat map: the widget bundle and its data from the
 * service itself, the chart image from the partner (https).
 */
function marketCsp(partner: Pick<PartnerRow, 'settings'>, withMap: boolean, withScript: boolean): string {
  const formAction = signInOrigins(partner);
  return withMap ? cspWith({ styles: [MARKET_CSS], widgets: true, imgSrc: ['https:'], formAction }) : cspWith({ styles: [MARKET_CSS], formAction, scripts: withScript });
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

  /** The partner of the path and the page's language, or the not-found page (in the request's language). */
  const partnerOfPath = async (c: SessionContext): Promise<{ partner: PartnerRow; lang: Lang } | Response> => {
    const partner = await findPartner(deps, c.req.param('partnerId') ?? '');
    const lang = pageLang(c, partner?.settings.defaultLang);
    return partner ? { partner, lang } : await notFoundPage(c, lang);
  };

  /**
   * Buy: reserves the listings for the signed-in buyer and goes to checkout. Holds are never
   * anonymous: a buyer who is not signed in is sent to sign in first, holding nothing, and the
   * Buy continues on the way back (`…/buy/continue`), which holds the pick and opens the
   * checkout: nobody can take a market off sale without an account, and nobody presses twice.
   * Live holds are limited per buyer, per buyer and show, and per client address (partner
   * setting `holdLimits`).
   */
  app.post('/market/:partnerId/:eventRef/buy', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const form = readBuyForm(await c.req.parseBody({ all: true }));
    if (!form) return notFoundPage(c, lang);
    const back = partnerReturnTo(deps.box, partner, form.returnTo, form.returnTag);
    brandAsPartner(c, partner, back);
    // Signed out: sign in first, then the Buy continues on the way back (the hold made there).
    const browserSecret = c.get('sessionConfig').anonymousCsrfSecret();
    const session = requireUser(c, partner, { returnTo: pickContinueUrl(deps, partner, c.req.param('eventRef'), form, lang, back, browserSecret) });
    if (session instanceof Response) return session;
    return await buy(c, partner, form, back, session.userPk, lang);
  });

  /**
   * The seat map's Continue (`GET …/buy/pick?listingIds=a,b&showId&lang&returnTo`): a pick made
   * on the map reserves at once and opens the checkout, as the market's Buy does, so a fan goes
   * from the seats to the card form in one page. A GET that holds tickets acts only when a
   * person followed the link from a page the partner owns or from the service's own pages (see
   * `followedFromOwnPage`), and never for a prefetch. Anything else (another site's link, a page that sends no `Referer`) shows the
   * pick on the market with "Reserve and pay", which holds nothing until pressed: a link cannot
   * take tickets off sale in a fan's name.
   */
  app.get('/market/:partnerId/:eventRef/buy/pick', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const eventRef = c.req.param('eventRef');
    const pick = readPickQuery(new URL(c.req.url).searchParams);
    if (!pick) return notFoundPage(c, lang);
    if (!followedFromOwnPage(c, partner)) {
      const carry: Record<string, string> = { listingIds: pick.listingIds.join(',') };
      if (pick.returnTo) carry.returnTo = pick.returnTo;
      if (pick.returnTag) carry[RETURN_TO_TAG_PARAM] = pick.returnTag;
      return safeRedirect(c, servicePaths.market(partner.id, eventRef, { showId: pick.showId, lang, ...carry }), 303);
    }
    const back = partnerReturnTo(deps.box, partner, pick.returnTo, pick.returnTag);
    brandAsPartner(c, partner, back);
    const session = requireUser(c, partner, { returnTo: pickContinueUrl(deps, partner, eventRef, pick, lang, back, c.get('sessionConfig').anonymousCsrfSecret()) });
    if (session instanceof Response) return session;
    // Back (or reloaded) after the hold was made: its checkout, not a second hold.
    const mine = await ownPendingCheckout(deps, partner, pick.listingIds, session.userPk, lang);
    if (mine) return safeRedirect(c, mine, 303);
    return await buy(c, partner, pick, back, session.userPk, lang);
  });

  /**
   * Whether this GET is a person's navigation from the partner's own pages or the service's,
   * and no prefetch: `Sec-Fetch-Site: same-origin` (the service's pages), or a `Referer` whose
   * origin is on the partner's `allowedOrigins` or is the service's (a page cannot forge
   * either; browsers send the Referer's origin across sites by default).
   */
  const followedFromOwnPage = (c: SessionContext, partner: PartnerRow): boolean => {
    const purpose = `${c.req.header('sec-purpose') ?? ''} ${c.req.header('purpose') ?? ''}`;
    if (/prefetch|prerender/i.test(purpose)) return false;
    // The service's own pages send no Referer (their policy is no-referrer): the browser's fetch metadata says same-origin.
    if (c.req.header('sec-fetch-site') === 'same-origin') return true;
    const referer = c.req.header('referer');
    if (!referer) return false;
    let origin: string;
    try {
      origin = new URL(referer).origin;
    } catch {
      return false;
    }
    return origin === new URL(c.req.url).origin || origin === new URL(deps.config.publicBaseUrl).origin || partner.settings.allowedOrigins.includes(origin);
  };

  /**
   * A Buy continued after signing in (`pickContinueUrl`): the pick signed for this browser
   * is reserved at once and the checkout opens, so a fan who had to sign in presses Buy once.
   * A reload goes to the checkout it made; a pick past its 15 minutes, or not signed for this
   * browser, reserves nothing and says so with the way to the market.
   */
  app.get('/market/:partnerId/:eventRef/buy/continue', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const eventRef = c.req.param('eventRef');
    const query = new URL(c.req.url).searchParams;
    const market = servicePaths.market(partner.id, eventRef, { showId: query.get('s') || undefined, lang });
    const pick = readPick(deps, partner.id, eventRef, query, c.get('sessionConfig').anonymousCsrfSecret());
    if (pick === null || pick === 'expired') {
      brandAsPartner(c, partner, null);
      return noticePage(c, pickRefusalNotice(pick === null ? 'foreign' : 'expired', lang, market));
    }
    const back = partnerReturnTo(deps.box, partner, pick.returnTo, pick.returnTag);
    brandAsPartner(c, partner, back);
    // Still signed out (the sign-in was abandoned, or its session did not stick): sign in again, then here.
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    const mine = await ownPendingCheckout(deps, partner, pick.listingIds, session.userPk, lang);
    if (mine) return safeRedirect(c, mine, 303);
    return await buy(c, partner, pick, back, session.userPk, lang);
  });

  /** Reserves `form`'s pick for the signed-in buyer: the checkout, or the notice of why not. */
  const buy = async (c: SessionContext, partner: PartnerRow, form: BuyForm, back: string | null, buyerPk: string, lang: Lang) => {
    const outcome = await buyListings(deps, {
      partner,
      eventRef: c.req.param('eventRef') ?? '',
      showId: form.showId,
      listingIds: form.listingIds,
      buyerPk,
      returnTo: back,
      clientKey: deps.box.sign('hold-client-address', clientLimitKey(c)),
      lang,
    });
    if (outcome.kind === 'checkout') return safeRedirect(c, outcome.to, 303);
    if (outcome.kind === 'notFound') return notFoundPage(c, lang);
    return noticePage(c, buyRefusalNotice(outcome, lang));
  };

  /**
   * "Tell me when tickets appear" on an empty market: the signed-in fan goes on the show's
   * wishlist (a WISHLIST lead, e-mailed once when resale stock appears) and comes back to the
   * market, which says so. A signed-out fan signs in first and it is done on the way back
   * (`…/notify/continue`, signed for this browser), with no second press.
   */
  app.post('/market/:partnerId/:eventRef/notify', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const form = await c.req.parseBody();
    const showId = typeof form.showId === 'string' ? form.showId.slice(0, 200) : '';
    // A show id is printable text: anything else names no show (and PostgreSQL refuses a NUL outright).
    if (!showId || [...showId].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) return notFoundPage(c, lang);
    const eventRef = c.req.param('eventRef');
    const session = requireUser(c, partner, { returnTo: notifyContinueUrl(deps, partner, eventRef, showId, lang, c.get('sessionConfig').anonymousCsrfSecret()) });
    if (session instanceof Response) return session;
    return await notify(c, partner, eventRef, showId, session.userPk, lang);
  });

  app.get('/market/:partnerId/:eventRef/notify/continue', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const eventRef = c.req.param('eventRef');
    const query = new URL(c.req.url).searchParams;
    const asked = readNotify(deps, partner.id, eventRef, query, c.get('sessionConfig').anonymousCsrfSecret());
    if (asked === null || asked === 'expired') {
      brandAsPartner(c, partner, null);
      return noticePage(c, pickRefusalNotice(asked === null ? 'foreign' : 'expired', lang, servicePaths.market(partner.id, eventRef, { showId: query.get('s') || undefined, lang })));
    }
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    return await notify(c, partner, eventRef, asked.showId, session.userPk, lang);
  });

  /** Puts the signed-in fan on the show's wishlist and goes back to its market, saying so (or 404 for an unknown show). */
  const notify = async (c: SessionContext, partner: PartnerRow, eventRef: string, showId: string, userPk: string, lang: Lang) => {
    const joined = await joinWishlist(deps, partner, eventRef, showId, userPk);
    if (!joined) return notFoundPage(c, lang);
    return safeRedirect(c, `${servicePaths.market(partner.id, eventRef, { showId, lang })}#notify`, 303);
  };

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

  /** The session of this partner's signed-in viewer, or null (a session of another partner is not theirs here). */
  const ownSession = (c: SessionContext, partnerId: string | undefined) => {
    const session = c.get('session');
    return session && partnerId && session.partnerId === partnerId ? session : null;
  };

  app.get('/market/:partnerId/:eventRef', async (c) => await showMarket(c, c.req.query('showId')));

  /**
   * The market page of the path's event and `showId`; with `refused`, a join of the waiting
   * list that was refused: its values as typed and every refusal, answered with its status.
   */
  const showMarket = async (c: SessionContext, showId: string | undefined, refused: { values: JoinValues; errors: JoinErrors; status: 400 | 409 } | null = null) => {
    const read = await readMarket(deps, { partnerId: c.req.param('partnerId') ?? '', eventRef: c.req.param('eventRef') ?? '', showId });
    const lang = pageLang(c, read.partner?.settings.defaultLang);
    const page = marketPage(
      deps,
      read,
      lang,
      {
      ticketOptionId: c.req.query('ticketOptionId'),
      listingIds: c.req.query('listingIds'),
      listingId: c.req.query('listingId'),
      ticketId: c.req.query('ticketId'),
      returnTo: c.req.query('returnTo'),
      returnTag: c.req.query(RETURN_TO_TAG_PARAM),
      },
      // The signed-in viewer's own holds show as theirs ("continue to checkout"), not as others'.
      ownSession(c, read.partner?.id)?.userPk ?? null,
    );
    if (page.kind === 'notFound') return notFoundPage(c, lang);
    const { partner } = page;
    let view = page.view;
    // The header carries the way back (and the partner's name, colour, help and terms).
    brandAsPartner(c, partner, view.back);
    c.header('Cache-Control', 'no-store');
    const { pathname, search } = new URL(c.req.url);
    const viewer = ownSession(c, partner.id);
    // The show's waiting list, when enabled: it takes the wishlist's place on an empty market.
    const wlView = read.show && read.found
      ? await readWaitingList(deps, partner, { eventRef: read.found.event.externalReferenceId, showId: read.show.showId, showPk: read.show.id, seated: Boolean(read.found.event.seating?.svgCode || read.found.event.seating?.image), cancelled: view.show.cancelled }, viewer?.userPk ?? null, lang)
      : null;
    // A live offer's hold shows as the offer (Buy, No thanks), not as a checkout of the viewer's.
    const offerRelease = wlView?.mine?.offer?.release;
    if (offerRelease) view = { ...view, ownHolds: view.ownHolds.filter((h) => h.release !== offerRelease) };
    // The Buy forms' token, only when one shows: before sign-in, making one sets the browser's CSRF cookie.
    const csrf = view.hasBuyForm ? csrfToken(c, view.buyAction) : '';
    const releaseCsrf = Object.fromEntries(view.ownHolds.map((h) => [h.release, csrfToken(c, h.release)]));
    // An empty market offers "tell me when tickets appear" (or says the fan is on the list), unless the waiting list is open.
    const empty = view.groups.length === 0 && !view.show.cancelled;
    const notify = empty && !wlView
      ? { csrf: csrfToken(c, view.notifyAction), ...(viewer && read.show ? await wishlistOf(deps, partner, read.show.id, viewer.userPk) : { on: false, email: null }) }
      : null;
    const asked = c.req.query('waitinglist');
    const done: WaitingListProps['done'] = asked === 'joined' || asked === 'left' || asked === 'declined' ? asked : null;
    const waitingList = wlView
      ? {
          view: wlView,
          csrf: { join: empty && !wlView.mine ? csrfToken(c, wlView.joinAction) : '', leave: wlView.mine ? csrfToken(c, wlView.leaveAction) : '' },
          values: refused?.values ?? { quantity: '1', together: false, ticketOptionId: c.req.query('ticketOptionId') && wlView.options.some((o) => o.id === c.req.query('ticketOptionId')) ? c.req.query('ticketOptionId')! : '' },
          errors: refused?.errors ?? {},
          done: refused ? null : done,
        }
      : null;
    // A refused join answers on its form's address: signing out comes back to the market itself.
    const here = refused ? servicePaths.market(partner.id, c.req.param('eventRef') ?? '', { showId: view.show.showId, lang }) : pathname + search;
    const signedInAs = <SignedInAs c={c} deps={deps} partnerId={partner.id} lang={lang} returnTo={here} />;
    return renderPage(
      c,
      <MarketPage view={view} lang={lang} csrf={csrf} releaseCsrf={releaseCsrf} released={c.req.query('released') === '1'} notify={notify} waitingList={waitingList} waitingListClosed={refused !== null && wlView === null} signedInAs={signedInAs} />,
      { csp: marketCsp(partner, view.hasMap, view.ownHolds.length > 0 || Boolean(wlView?.mine?.offer)), ...(refused ? { status: refused.status } : {}) },
    );
  };

  /**
   * "Join the waiting list" on an empty market (when the show's list is enabled): the signed-in
   * fan joins at once (the join flow: a Wishlist lead; an offer at once when fitting tickets are
   * on sale) and comes back to the market, which shows their place. A signed-out fan signs in
   * first and is joined on the way back (`…/waitinglist/continue`, signed for this browser with
   * the form's values), with no second press. A refusal (a bad quantity, already waiting, the
   * list closed) is the market again with every refusal and the values as typed.
   */
  app.post('/market/:partnerId/:eventRef/waitinglist', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const form = readJoinForm(await c.req.parseBody());
    if (!form) return notFoundPage(c, lang);
    const eventRef = c.req.param('eventRef');
    if (!c.get('session') || c.get('session')?.partnerId !== partner.id) {
      // Checked before the sign-in, so a fan does not sign in to be told the form was wrong.
      const wl = await waitingListOfForm(c, partner, eventRef, form.showId, null, lang);
      if (wl === null) return notFoundPage(c, lang);
      const checked = checkJoin(wl, form.values);
      if (Object.keys(checked.errors).length > 0) return await showMarket(c, form.showId, { values: form.values, errors: checked.errors, status: 400 });
    }
    const session = requireUser(c, partner, { returnTo: waitingListContinueUrl(deps, partner, eventRef, form.showId, form.values, lang, c.get('sessionConfig').anonymousCsrfSecret()) });
    if (session instanceof Response) return session;
    return await joinList(c, partner, eventRef, form.showId, form.values, session.userPk, lang);
  });

  app.get('/market/:partnerId/:eventRef/waitinglist/continue', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const eventRef = c.req.param('eventRef');
    const query = new URL(c.req.url).searchParams;
    const asked = readWaitingListContinue(deps, partner.id, eventRef, query, c.get('sessionConfig').anonymousCsrfSecret());
    if (asked === null || asked === 'expired') {
      brandAsPartner(c, partner, null);
      return noticePage(c, pickRefusalNotice(asked === null ? 'foreign' : 'expired', lang, servicePaths.market(partner.id, eventRef, { showId: query.get('s') || undefined, lang })));
    }
    const session = requireUser(c, partner);
    if (session instanceof Response) return session;
    return await joinList(c, partner, eventRef, asked.showId, asked.values, session.userPk, lang);
  });

  /**
   * "Leave the waiting list", and an offer's "No thanks" (`intent=decline`): the signed-in
   * fan's own entry leaves the line; a live offer is declined and its tickets pass to the next
   * fan at once. Back to the market, which says so. Not signed in: sign in, then the market.
   */
  app.post('/market/:partnerId/:eventRef/waitinglist/leave', async (c) => {
    const found = await partnerOfPath(c);
    if (found instanceof Response) return found;
    const { partner, lang } = found;
    const form = await c.req.parseBody();
    const eventRef = c.req.param('eventRef');
    const showId = readJoinForm(form)?.showId;
    const entryId = typeof form.entryId === 'string' ? form.entryId.slice(0, 200) : '';
    if (!showId || !/^[\w-]+$/.test(entryId)) return notFoundPage(c, lang);
    const market = servicePaths.market(partner.id, eventRef, { showId, lang });
    const session = requireUser(c, partner, { returnTo: market });
    if (session instanceof Response) return session;
    const left = await leaveWaitingListFromMarket(deps, partner.id, session.userPk, entryId);
    const said = left === 'left' ? (form.intent === 'decline' ? 'declined' : 'left') : null;
    return safeRedirect(c, `${servicePaths.market(partner.id, eventRef, { showId, lang, ...(said ? { waitinglist: said } : {}) })}#waitinglist`, 303);
  });

  /** The show's waiting list as the page shows it, or null when the event or show is unknown or the list is not enabled. */
  const waitingListOfForm = async (c: SessionContext, partner: PartnerRow, eventRef: string, showId: string, viewerPk: string | null, lang: Lang) => {
    const read = await readMarket(deps, { partnerId: partner.id, eventRef, showId });
    if (!read.found || !read.show || read.show.showId !== showId) return null;
    const seating = read.found.event.seating;
    return await readWaitingList(deps, partner, { eventRef, showId, showPk: read.show.id, seated: Boolean(seating?.svgCode || seating?.image), cancelled: read.show.status === 'CANCELLED' }, viewerPk, lang);
  };

  /** Joins the signed-in fan: back to the market showing their place, or the market with the refusals (404 for an unknown show). */
  const joinList = async (c: SessionContext, partner: PartnerRow, eventRef: string, showId: string, values: JoinValues, userPk: string, lang: Lang) => {
    const wl = await waitingListOfForm(c, partner, eventRef, showId, userPk, lang);
    if (wl === null) {
      // Unknown show: 404. A list not (or no longer) enabled: the market says it is closed.
      const read = await readMarket(deps, { partnerId: partner.id, eventRef, showId });
      if (!read.show || read.show.showId !== showId) return notFoundPage(c, lang);
      return await showMarket(c, showId, { values, errors: { form: 'wlClosed' }, status: 409 });
    }
    const outcome = await joinWaitingListFromMarket(deps, partner, { eventRef, showId, values, wl, userPk });
    if (outcome.kind === 'notFound') return notFoundPage(c, lang);
    if (outcome.kind === 'refused') return await showMarket(c, showId, { values, errors: outcome.errors, status: outcome.status === 409 ? 409 : 400 });
    return safeRedirect(c, `${servicePaths.market(partner.id, eventRef, { showId, lang, waitinglist: 'joined' })}#waitinglist`, 303);
  };
  return app;
}
