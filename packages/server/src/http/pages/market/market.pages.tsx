/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import { raw } from 'hono/html';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { csrfField, requireUser, safeRedirect, signInOrigins, type SessionEnv } from '../auth/auth.session.js';
import { partnerReturnTo, RETURN_TO_TAG_PARAM } from '../../../domain/auth/auth.urls.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { HoldLimitError } from '../../../domain/intentions/intentions.service.js';
import { SignedInAs } from '../auth/auth.signed-in.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { cm } from '../checkout/checkout.messages.js';
import { currencyDigits } from '../../../lib/money.js';
import { formatInstant } from '@resale/shared/format';
import { defineMessages, pageLang, t } from '../../../lib/i18n.js';
import { cspWith, Layout, noticePage, renderPage } from '../layout.js';
import { brandAsPartner } from '../brand.js';
import { placeText } from '../../../lib/seats.js';
import { servicePaths } from '../../../lib/urls.js';
import { ok } from '../../../lib/envelope.js';
import { isPrimaryScarce, primarySale } from '../../../domain/marketdata/marketdata.service.js';
import { marketEvent, offers, type Offer } from '../../../flows/market.queries.js';
import { OrphanSeatError, orphanSeatMessages, seatMapData, strandedAlone } from '../../../flows/market.seatmap.js';
import { reserveListings } from '../../../flows/reserve-listings.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';

const mm = defineMessages(
  {
    forSale: 'Tickets for sale',
    none: 'No tickets are for sale for this show right now.',
    shows: 'Other dates',
    perTicket: 'per ticket, fees included',
    tickets: '{n} tickets, sold together',
    shared: 'The ticket you were sent',
    cancelled: 'This show has been cancelled.',
    all: 'All categories',
    map: 'Seat map',
    selection: 'Your selection',
    selectionGone: 'Some of the tickets you picked are no longer for sale.',
    selectionTotal: 'Total, fees included',
    reserve: 'Reserve and pay',
    primarySoldOut: 'Sold out in the primary sale — resale is the official way to get tickets.',
    primaryAlmostSoldOut: 'Almost sold out in the primary sale — resale is the official way to get tickets.',
    strandsAlone: 'Bought on its own, this seat would leave a single empty seat beside it that nobody could buy.',
    buyWith: 'Buy with {place}',
    together: 'Together: {total}',
    pickOnMap: 'Choose it with the seats beside it on the seat map.',
  },
  {
    forSale: 'Entradas a la venta',
    none: 'Ahora mismo no hay entradas a la venta para este espectáculo.',
    shows: 'Otras fechas',
    perTicket: 'por entrada, gastos incluidos',
    tickets: '{n} entradas, se venden juntas',
    shared: 'La entrada que te han enviado',
    cancelled: 'Este espectáculo se ha cancelado.',
    all: 'Todas las categorías',
    map: 'Mapa de asientos',
    selection: 'Tu selección',
    selectionGone: 'Algunas de las entradas que elegiste ya no están a la venta.',
    selectionTotal: 'Total, gastos incluidos',
    reserve: 'Reservar y pagar',
    primarySoldOut: 'Agotado en la venta oficial: la reventa es la forma oficial de conseguir entradas.',
    primaryAlmostSoldOut: 'Casi agotado en la venta oficial: la reventa es la forma oficial de conseguir entradas.',
    strandsAlone: 'Comprada sola, esta entrada dejaría a su lado un asiento libre suelto que nadie podría comprar.',
    buyWith: 'Comprar con {place}',
    together: 'Juntas: {total}',
    pickOnMap: 'Elígela con los asientos de al lado en el mapa de asientos.',
  },
);

const MARKET_CSS = `.offers{list-style:none;padding:0}.offers li{margin:0 0 .75rem}.offers li.shared{outline:3px solid #0b4fb3}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}.price{font-size:1.2rem;font-weight:700}`;
/**
 * The market page's policy. Buy posts, then the checkout may redirect to the partner's sign-in
 * page: its origin joins form-action. With the seat map: the widget bundle and its data from the
 * service itself, the chart image from the partner (https).
 */
function marketCsp(partner: Pick<PartnerRow, 'settings'>, withMap: boolean): string {
  const formAction = signInOrigins(partner);
  return withMap ? cspWith({ styles: [MARKET_CSS], widgets: true, imgSrc: ['https:'], formAction }) : cspWith({ styles: [MARKET_CSS], formAction });
}
/** Most listings one checkout takes from the seat map (a pick of many singles). */
const MAX_SELECTION = 20;

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

/**
 * The public market page of an event (`/market/:partnerId/:eventRef?showId&ticketOptionId&listingId&ticketId&lang`):
 * the show's offers grouped by ticket option and area, cheapest first, prices with the
 * buyer fee; a shared listing or ticket is marked. No sign-in to look.
 */
export function marketPageRoutes(deps: AppDeps) {
  const app = new Hono<SessionEnv>();
  const partnerOrNull = async (id: string): Promise<PartnerRow | null> => (await deps.db.read(async (tx) => await partnerById(tx, id))) ?? null;

  /**
   * Buy: reserves the listings for the signed-in buyer and goes to checkout. Holds are never
   * anonymous: a buyer who is not signed in is sent to sign in first and comes back to this
   * market page with the pick as its selection, where "Reserve and pay" holds it (one more
   * press, but nobody can take a market off sale without an account). Live holds are limited
   * per buyer, per buyer and show, and per client address (partner setting `holdLimits`).
   */
  app.post('/market/:partnerId/:eventRef/buy', async (c) => {
    const partner = await partnerOrNull(c.req.param('partnerId'));
    const lang = pageLang(c, partner?.settings.defaultLang);
    if (!partner) return noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
    const form = await c.req.parseBody({ all: true });
    const one = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : undefined);
    // One listing from a Buy button, or several picked on the seat map (one option, one checkout).
    const listingIds = [form.listingId ?? []].flat().filter((v): v is string => typeof v === 'string').slice(0, MAX_SELECTION);
    // No listing's id holds a NUL (and PostgreSQL refuses one in any text it is sent: a 500).
    if (listingIds.length === 0 || listingIds.some((id) => id.includes('\u0000'))) return noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
    const back = partnerReturnTo(deps.box, partner, one('returnTo'), one(RETURN_TO_TAG_PARAM));
    brandAsPartner(c, partner, back);
    // Signed out: sign in first, then back to this market with the pick as the selection.
    const selection = new URLSearchParams({ listingIds: listingIds.join(','), lang });
    const showId = one('showId');
    if (showId) selection.set('showId', showId);
    if (back) {
      selection.set('returnTo', one('returnTo')!);
      const tag = one(RETURN_TO_TAG_PARAM);
      if (tag) selection.set(RETURN_TO_TAG_PARAM, tag);
    }
    const session = requireUser(c, partner, { returnTo: servicePaths.market(partner.id, c.req.param('eventRef'), selection) });
    if (session instanceof Response) return session;
    try {
      const intention = await deps.db.transact(async (tx) =>
        await reserveListings(deps, tx, { partner, listingIds, buyerPk: session.userPk, returnTo: back, clientKey: deps.box.sign('hold-client-address', clientLimitKey(c)) }),
      );
      return safeRedirect(c, servicePaths.checkout(partner.id, intention.id, { lang }), 303);
    } catch (err) {
      if (err instanceof HoldLimitError) {
        const text =
          err.limit === 'perClientAddress'
            ? cm(lang, 'holdsPerAddress', { minutes: Math.max(1, Math.ceil(err.retryAfterSeconds / 60)) })
            : cm(lang, err.limit === 'perBuyer' ? 'holdsPerBuyer' : 'heldTicketsPerShow', { n: err.max });
        return noticePage(c, {
          lang,
          status: 429,
          headers: { 'Retry-After': String(err.retryAfterSeconds) },
          title: cm(lang, 'holdLimitTitle'),
          text,
          ...(err.pendingIntentionId ? { link: { href: servicePaths.checkout(partner.id, err.pendingIntentionId, { lang }), label: cm(lang, 'continueCheckout') } } : {}),
        });
      }
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'not_found') return noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
      const market = { href: servicePaths.market(partner.id, c.req.param('eventRef'), { showId: showId || undefined, lang }), label: cm(lang, 'backToMarket') };
      // A pick that would leave a single seat empty in a row (the seat map's rule): say so, with the way back.
      if (err instanceof OrphanSeatError) return noticePage(c, { lang, status: 400, title: orphanSeatMessages(lang, 'title'), text: orphanSeatMessages(lang, 'text'), link: market });
      // A pick across ticket options (one checkout holds one option), or an empty or repeated pick: say so.
      if (err.reason === 'mixed_items' || err.code === 'missing_field' || err.code === 'invalid_value') return noticePage(c, { lang, status: 400, title: cm(lang, 'takenTitle'), text: err.message });
      if (err.reason === 'own_listing') return noticePage(c, { lang, status: 409, title: cm(lang, 'ownListingTitle'), text: cm(lang, 'ownListingPickText'), link: market });
      return noticePage(c, { lang, status: 409, title: cm(lang, 'takenTitle'), text: cm(lang, 'takenText'), link: market });
    }
  });

  /** The seat map's data for the page's `<resale-seat-map src>`: public, as the page is. */
  app.get('/market/:partnerId/:eventRef/seatmap.json', async (c) => {
    const showId = c.req.query('showId') ?? '';
    const data = await deps.db.read(async (tx) => {
      const partner = await partnerById(tx, c.req.param('partnerId'));
      if (!partner) throw ApiError.notFound('event', c.req.param('eventRef'));
      // The page's way back travels with the map's Continue (checked again when the page shows it).
      const carry: Record<string, string> = {};
      for (const k of ['returnTo', RETURN_TO_TAG_PARAM]) {
        const v = c.req.query(k);
        if (v && v.length <= 2048) carry[k] = v;
      }
      return await seatMapData(tx, partner, { eventId: c.req.param('eventRef'), showId }, { publicBaseUrl: deps.config.publicBaseUrl, lang: pageLang(c, partner.settings.defaultLang), carry });
    });
    c.header('Cache-Control', 'no-store');
    return c.json(ok(data), 200);
  });

  app.get('/market/:partnerId/:eventRef', async (c) => {
    // Everything the page shows, read at once (one turn of the queue).
    const read = await deps.db.read(async (tx) => {
      const partner = (await partnerById(tx, c.req.param('partnerId'))) ?? null;
      const found = partner ? await marketEvent(tx, partner.id, c.req.param('eventRef')) : null;
      const visible = found?.shows.filter((s) => s.status !== 'HIDDEN') ?? [];
      const show = visible.find((s) => s.showId === c.req.query('showId')) ?? visible[0];
      const live = show !== undefined && show.status !== 'CANCELLED';
      return { partner, found, visible, show, everything: live ? await offers(tx, show.id) : [], primary: live ? await primarySale(tx, show.id) : null };
    });
    const { partner, found, visible, everything, primary } = read;
    const lang = pageLang(c, partner?.settings.defaultLang);
    const notFound = () => noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
    if (partner === null) return notFound();
    if (!found || visible.length === 0 || !read.show) return notFound();
    const show = read.show;
    const optionFilter = c.req.query('ticketOptionId');
    const all = everything.filter((o) => !optionFilter || o.ticketOptionId === optionFilter);
    // Listings picked on the seat map (`listingIds=a,b`): reserved together with one form.
    const picked = (c.req.query('listingIds') ?? '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, MAX_SELECTION);
    const selection = everything.filter((o) => picked.includes(o.listingId));
    const selectionTotal = selection.reduce((sum, o) => sum + o.buyerTotalMinor * o.quantity, 0);
    const seating = found.event.seating;
    const hasMap = Boolean(seating?.svgCode || seating?.image) && everything.length > 0;
    const sharedListing = c.req.query('listingId');
    const sharedTicket = c.req.query('ticketId');
    const isShared = (o: Offer) => o.listingId === sharedListing || o.seats.some((s) => s.ticketId === sharedTicket);
    // Listings whose own Buy the orphan-seat rule would refuse: offered with a neighbour instead.
    const stranded = strandedAlone(partner, seating?.svgCode, everything);
    const groups = new Map<string, Offer[]>();
    for (const o of all) {
      // The area and the option, once when they are named alike ("Stalls", not "Stalls · Stalls").
      const key = o.area && o.area !== o.optionTitle ? `${o.area} · ${o.optionTitle}` : o.optionTitle;
      groups.set(key, [...(groups.get(key) ?? []), o]);
    }
    // `primary`: the partner's primary-sale report (market data), to say when resale is the way in.
    const location = show.location ?? found.event.location;
    const eventRef = found.event.externalReferenceId;
    const buy = servicePaths.marketBuy(partner.id, eventRef);
    // The way back to the partner's site: only a checked return address is shown or carried on.
    const returnTo = c.req.query('returnTo');
    const returnTag = c.req.query(RETURN_TO_TAG_PARAM);
    const back = partnerReturnTo(deps.box, partner, returnTo, returnTag);
    // The header carries the way back (and the partner's name, colour, help and terms).
    brandAsPartner(c, partner, back);
    /** What every Buy form carries besides its listings: the show (to come back to it after sign-in) and the way back. */
    const BuyFields = () => (
      <>
        <input type="hidden" name="showId" value={show.showId} />
        {back ? <input type="hidden" name="returnTo" value={returnTo} /> : null}
        {back && returnTag ? <input type="hidden" name={RETURN_TO_TAG_PARAM} value={returnTag} /> : null}
      </>
    );
    /** A listing that cannot be bought on its own: why, and the neighbour to buy with it (or the map). */
    const StrandedBuy = (props: { offer: Offer; companion: Offer | null }) => {
      const { offer, companion } = props;
      const place = companion ? companion.seats.map((s) => placeText(s, lang)).filter(Boolean).join(', ') : '';
      const total = companion ? money(offer.buyerTotalMinor * offer.quantity + companion.buyerTotalMinor * companion.quantity, offer.currency, lang) : '';
      return (
        <>
          <p class="hint">{mm(lang, 'strandsAlone')}</p>
          {companion ? (
            <form method="post" action={buy}>
              {csrfField(c, buy)}
              <input type="hidden" name="listingId" value={offer.listingId} />
              <input type="hidden" name="listingId" value={companion.listingId} />
              <BuyFields />
              <p>{mm(lang, 'together', { total })}</p>
              <button type="submit">{mm(lang, 'buyWith', { place })}</button>
            </form>
          ) : hasMap ? (
            <p>
              <a href="#seat-map">{mm(lang, 'pickOnMap')}</a>
            </p>
          ) : null}
        </>
      );
    };
    c.header('Cache-Control', 'no-store');
    const { pathname, search } = new URL(c.req.url);
    const here = pathname + search;
    return renderPage(
      c,
      <Layout
        lang={lang}
        title={found.event.title}
        wide={hasMap}
        head={
          <>
            <style>{raw(MARKET_CSS)}</style>
            {hasMap ? <script type="module" src="/widgets/v1/resale.js"></script> : null}
          </>
        }
      >
        <SignedInAs c={c} deps={deps} partnerId={partner.id} lang={lang} returnTo={here} />
        <h1>{found.event.title}</h1>
        <p>
          {show.title} · <time datetime={new Date(show.startsAt).toISOString()}>{formatInstant(show.startsAt, lang, location.timeZone)}</time>
          {location.venueName ? ` · ${location.venueName}` : ''}
        </p>
        {show.status === 'CANCELLED' ? <p role="status">{mm(lang, 'cancelled')}</p> : null}
        {isPrimaryScarce(primary) ? <p role="status">{mm(lang, primary?.soldOut ? 'primarySoldOut' : 'primaryAlmostSoldOut')}</p> : null}
        {picked.length > 0 ? (
          <section aria-labelledby="selection">
            <h2 id="selection">{mm(lang, 'selection')}</h2>
            {selection.length < picked.length ? <p role="alert">{mm(lang, 'selectionGone')}</p> : null}
            {selection.length > 0 ? (
              <form method="post" action={buy}>
                {csrfField(c, buy)}
                <ul>
                  {selection.map((o) => (
                    <li>
                      {o.optionTitle} · {o.seats.map((s) => placeText(s, lang)).filter(Boolean).join(', ') || mm(lang, 'tickets', { n: o.quantity })} ·{' '}
                      {money(o.buyerTotalMinor * o.quantity, o.currency, lang)}
                      <input type="hidden" name="listingId" value={o.listingId} />
                    </li>
                  ))}
                </ul>
                <p>
                  {mm(lang, 'selectionTotal')}: <span class="price">{money(selectionTotal, selection[0]!.currency, lang)}</span>
                </p>
                <BuyFields />
                <button type="submit">{mm(lang, 'reserve')}</button>
              </form>
            ) : null}
          </section>
        ) : null}
        {hasMap ? (
          <section aria-labelledby="seat-map">
            <h2 id="seat-map">{mm(lang, 'map')}</h2>
            <resale-seat-map lang={lang} src={servicePaths.marketSeatMap(partner.id, eventRef, { showId: show.showId, lang, ...(back && returnTo ? { returnTo, ...(returnTag ? { [RETURN_TO_TAG_PARAM]: returnTag } : {}) } : {}) })} selected={picked.length > 0 ? picked.join(',') : undefined}></resale-seat-map>
          </section>
        ) : null}
        <h2>{mm(lang, 'forSale')}</h2>
        {all.length === 0 && show.status !== 'CANCELLED' ? <p>{mm(lang, 'none')}</p> : null}
        {[...groups.entries()].map(([title, list]) => (
          <section aria-label={title}>
            <h3>{title}</h3>
            <ul class="offers">
              {list.map((o) => (
                <li class={isShared(o) ? 'card shared' : 'card'} aria-current={isShared(o) ? 'true' : undefined}>
                  {isShared(o) ? <p>{mm(lang, 'shared')}</p> : null}
                  <p>
                    <span class="price">{money(o.buyerTotalMinor, o.currency, lang)}</span> {mm(lang, 'perTicket')}
                  </p>
                  {o.quantity > 1 ? <p>{mm(lang, 'tickets', { n: o.quantity })}</p> : null}
                  {stranded.has(o.listingId) ? (
                    <StrandedBuy offer={o} companion={stranded.get(o.listingId)!} />
                  ) : (
                    <form method="post" action={buy}>
                      {csrfField(c, buy)}
                      <input type="hidden" name="listingId" value={o.listingId} />
                      <BuyFields />
                      <button type="submit" aria-label={`${cm(lang, 'buy')} · ${o.optionTitle} · ${money(o.buyerTotalMinor, o.currency, lang)}`}>
                        {cm(lang, 'buy')}
                      </button>
                    </form>
                  )}
                  {o.seats.some((s) => s.section || s.row || s.seat) ? (
                    <ul>
                      {o.seats.map((s) => (
                        <li>{placeText(s, lang)}</li>
                      ))}
                    </ul>
                  ) : null}
                </li>
              ))}
            </ul>
          </section>
        ))}
        {visible.length > 1 ? (
          <nav aria-label={mm(lang, 'shows')}>
            <h2>{mm(lang, 'shows')}</h2>
            <ul>
              {visible
                .filter((s) => s.id !== show.id)
                .map((s) => (
                  <li>
                    <a href={servicePaths.market(partner.id, eventRef, { showId: s.showId, lang })}>
                      {s.title} · {formatInstant(s.startsAt, lang, (s.location ?? found.event.location).timeZone, 'long')}
                    </a>
                  </li>
                ))}
            </ul>
          </nav>
        ) : null}
      </Layout>,
      { csp: marketCsp(partner, hasMap) },
    );
  });
  return app;
}
