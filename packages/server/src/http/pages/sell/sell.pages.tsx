/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono, type Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { t } from '../../../lib/i18n.js';
import { cspWith, noticePage, renderPage } from '../layout.js';
import { notFoundPage, partnerPage } from '../partner-page.js';
import { csrfToken, currentServiceUrl, requireUser, safeRedirect, signInUrl, type SessionEnv } from '../auth/auth.session.js';
import type { SessionData } from '../../../domain/auth/auth.service.js';
import type { ListingRow } from '../../../domain/listings/listings.queries.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { sellCsp, toOnboarding } from './sell.payout.js';
import { stepUpUrl } from '../auth/auth.step-up.js';
import { sellHubRoutes } from './sell.hub.js';
import { changeListing, loadListing, loadRemoval, loadSellForm, ownListing, publishTicket, ticketEntry, typedPreview, type FieldErrors, type Refusal, type SellFormState } from './sell.load.js';
import { ListingPage, RemoveConfirmation, SellForm, type ListingNotice } from './sell.view.js';
import { sm } from './sell.messages.js';
import { servicePaths } from '../../../lib/urls.js';

type C = Context<SessionEnv>;

/** The sell pages' policy: the shared one plus the pages' script (live calculation, copy link). */
const SELL_CSP = cspWith({ scripts: true });

/** The notices a listing page may show, each from its query flag (`?published=1` …). */
const LISTING_NOTICES: ListingNotice[] = ['published', 'updated', 'removed'];

/** A posted form's text field; empty when absent (or a file). */
const field = (form: Record<string, unknown>, k: string): string => (typeof form[k] === 'string' ? (form[k] as string) : '');

/**
 * The hosted sell flow: `/sell/:partnerId/ticket/:ticketId` (verify, price, payout details,
 * publish), `/sell/:partnerId/listings/:listingId` (status, share link, change price,
 * remove) and `/sell/:partnerId/payout`. Server-rendered forms that work without script;
 * every POST is CSRF-checked, re-verifies ownership with the platform when it lists, and is
 * validated again on the server.
 */
export function sellPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  app.route('/', sellHubRoutes(deps));

  /** The page that says why the live ownership check stops the seller. */
  function refused(c: C, partner: PartnerRow, lang: Lang, r: Refusal): Promise<Response> | Response {
    if (r.kind === 'signIn') return safeRedirect(c, signInUrl(partner, deps.config.publicBaseUrl, currentServiceUrl(c, deps.config.publicBaseUrl), lang));
    if (r.kind === 'unavailable') return noticePage(c, { lang, status: 503, title: t(lang, 'unavailableTitle'), text: t(lang, 'unavailableText'), headers: { 'Retry-After': '60' } });
    return noticePage(c, { lang, status: 403, title: sm(lang, 'notYoursTitle'), text: sm(lang, 'notYoursText') });
  }

  async function sellForm(c: C, partner: PartnerRow, session: SessionData, ticketId: string, lang: Lang, state: SellFormState) {
    const view = await loadSellForm(deps, partner, session, ticketId, lang, { ...state, country: state.country ?? c.req.query('country') });
    const action = servicePaths.sellTicket(partner.id, ticketId);
    return renderPage(c, <SellForm lang={lang} view={view} form={{ action, csrf: csrfToken(c, action) }} />, { status: Object.keys(view.errors).length ? 400 : 200, csp: sellCsp(deps) });
  }

  app.get(
    '/sell/:partnerId/ticket/:ticketId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const ticketId = c.req.param('ticketId') ?? '';
      const entry = await ticketEntry(deps, partner, session.userPk, ticketId);
      if (entry.kind === 'listing') return safeRedirect(c, servicePaths.sellListing(partner.id, entry.listingId, { lang }));
      if (entry.kind === 'notSellable') return noticePage(c, { lang, status: 409, title: sm(lang, 'notSellableTitle'), text: sm(lang, `reason_${entry.reason}`) });
      if (entry.kind !== 'form') return refused(c, partner, lang, entry);
      // Back from a step-up, the price the seller had typed (it is validated again on publish).
      const price = c.req.query('price')?.slice(0, 20);
      if (price === undefined) return sellForm(c, partner, session, ticketId, lang, {});
      // Calculated again, so the money (and the confirmation above face value) shows as before the step-up.
      return sellForm(c, partner, session, ticketId, lang, { price, preview: await typedPreview(deps, partner.id, ticketId, price) });
    }),
  );

  app.post(
    '/sell/:partnerId/ticket/:ticketId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const ticketId = c.req.param('ticketId') ?? '';
      const body = await c.req.parseBody();
      const form = { intent: field(body, 'intent'), price: field(body, 'price'), holderName: field(body, 'holderName'), iban: field(body, 'iban'), country: field(body, 'country'), aboveFace: field(body, 'aboveFace') };
      const outcome = await publishTicket(deps, partner, session, ticketId, c.req.path, form, lang);
      switch (outcome.kind) {
        case 'published':
          return safeRedirect(c, servicePaths.sellListing(partner.id, outcome.listingId, { lang, published: '1' }), 303);
        case 'form':
          return sellForm(c, partner, session, ticketId, lang, outcome.state);
        case 'stepUp':
          return safeRedirect(c, stepUpUrl(partner.id, outcome.back, lang), 303);
        case 'onboarding':
          return await toOnboarding(deps, c, partner, session, outcome.back, lang, outcome.country, async (message) => await sellForm(c, partner, session, ticketId, lang, { ...outcome.state, errors: { country: message } }));
        default:
          return refused(c, partner, lang, outcome);
      }
    }),
  );

  async function listingPage(c: C, partner: PartnerRow, listing: ListingRow, lang: Lang, errors: FieldErrors = {}) {
    const view = await loadListing(deps, partner, listing);
    const price = servicePaths.sellListingAction(partner.id, listing.id, 'price');
    const remove = servicePaths.sellListingAction(partner.id, listing.id, 'remove');
    return renderPage(
      c,
      <ListingPage
        lang={lang}
        view={view}
        notices={LISTING_NOTICES.filter((k) => c.req.query(k) === '1')}
        errors={errors}
        price={{ action: price, csrf: csrfToken(c, price) }}
        remove={{ action: servicePaths.sellListingAction(partner.id, listing.id, 'remove', { lang }), csrf: csrfToken(c, remove) }}
      />,
      { status: Object.keys(errors).length ? 400 : 200, csp: SELL_CSP },
    );
  }

  /** "Remove your listing?": the one place that removes, with the way back to keep it on sale. */
  async function removeConfirmation(c: C, partner: PartnerRow, listing: ListingRow, lang: Lang) {
    const view = await loadRemoval(deps, listing);
    const action = servicePaths.sellListingAction(partner.id, listing.id, 'remove');
    return renderPage(c, <RemoveConfirmation lang={lang} view={view} form={{ action: servicePaths.sellListingAction(partner.id, listing.id, 'remove', { lang }), csrf: csrfToken(c, action) }} keep={servicePaths.sellListing(partner.id, listing.id, { lang })} />);
  }

  app.get(
    '/sell/:partnerId/listings/:listingId',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const listing = await ownListing(deps, partner.id, session.userPk, c.req.param('listingId') ?? '');
      return listing ? listingPage(c, partner, listing, lang) : notFoundPage(c, lang);
    }),
  );

  app.post(
    '/sell/:partnerId/listings/:listingId/:action{price|remove}',
    partnerPage(deps, async (c: C, partner, lang) => {
      const session = requireUser(c, partner);
      if (session instanceof Response) return session;
      const listing = await ownListing(deps, partner.id, session.userPk, c.req.param('listingId') ?? '');
      if (!listing) return notFoundPage(c, lang);
      const body = await c.req.parseBody();
      const change = await changeListing(deps, partner.id, session.userPk, listing, c.req.param('action') === 'price' ? 'price' : 'remove', { price: field(body, 'price'), confirm: field(body, 'confirm') }, lang);
      switch (change.kind) {
        case 'updated':
          return safeRedirect(c, servicePaths.sellListing(partner.id, listing.id, { lang, updated: '1' }), 303);
        case 'confirmRemove':
          return removeConfirmation(c, partner, listing, lang);
        case 'removed':
          return safeRedirect(c, servicePaths.sellListing(partner.id, listing.id, { lang, removed: '1' }), 303);
        case 'failed':
          return listingPage(c, partner, change.listing, lang, change.errors);
      }
    }),
  );

  return app;
}
