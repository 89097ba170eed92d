import QRCode from 'qrcode';
import type { Kernel } from '../../lib/kernel.js';
import type { RulesService } from '../rules/rules.service.js';
import type { Tx } from '../../db/client.js';
import { admissionCodesOf, effectiveConfiguration } from '../events/events.model.js';
import { showWithEvent, ticketOptionByPk } from '../events/events.queries.js';
import type { ImageIn, Location } from '../events/events.schemas.js';
import { partnerOf } from '../partners/partners.queries.js';
import { userOf } from '../users/users.queries.js';
import { accessView, qrUnlockAt, type AccessView } from './tickets.access.js';
import { ticketByPk } from './tickets.queries.js';
import { serviceUrl, servicePaths } from '../../lib/urls.js';


/** What building a ticket's view reads: the database, the clock, the settings, the secret box and the organiser's rules. */
export type TicketViewDeps = Pick<Kernel, 'db' | 'clock' | 'config' | 'box'> & { rules: RulesService };

/**
 * The secure ticket view (ticketShield): its signed URL and the data its page shows.
 *
 * The URL is `/tickets/view/<ticket id>.<signature>`, the signature an HMAC over the ticket
 * id and its current owner: the link is the holder's credential, and it stops working the
 * moment the ticket changes hands (a resale, a new buyer sent by the partner).
 */
const PURPOSE = 'ticket-view';

export function secureViewToken(deps: Pick<Kernel, 'box'>, ticket: { id: string; ownerPk: string }): string {
  return `${ticket.id}.${deps.box.sign(PURPOSE, `${ticket.id}:${ticket.ownerPk}`)}`;
}

export function secureViewUrl(deps: Pick<Kernel, 'box' | 'config'>, ticket: { id: string; ownerPk: string }): string {
  return serviceUrl(deps.config.publicBaseUrl, servicePaths.ticketView(secureViewToken(deps, ticket)));
}

/** The public market page of the event, filtered to a ticket (for sellers to share). */
export function salePublicUrl(deps: Pick<Kernel, 'config'>, t: { partnerId: string; externalReferenceEventId: string; showId: string; ticketId: string }, lang: string): string {
  const q = new URLSearchParams({ showId: t.showId, ticketId: t.ticketId, lang });
  return serviceUrl(deps.config.publicBaseUrl, servicePaths.market(t.partnerId, t.externalReferenceEventId, q));
}

/** Everything the secure view page shows. */
export interface TicketView {
  ticketId: string;
  state: 'VALID' | 'LISTED' | 'SOLD' | 'ADMITTED' | 'DELETED' | 'CANCELLED';
  eventTitle: string;
  showTitle: string;
  startsAt: number;
  timeZone: string | undefined;
  venue: string;
  /**
   * The show's picture for the ticket's banner (events carry their images on their shows): its
   * first `main` image, else its first image, else null; an http(s) URL only.
   */
  imageUrl: string | null;
  optionTitle: string;
  seating: { section: string | null; row: string | null; seat: string | null };
  access: AccessView;
  /** The moment (the service's clock) `access` was decided at: the page counts down to the unlock from it, not from the device's clock. */
  now: number;
  /**
   * The rotating code replaces the partner's QR (ticketShield on, the venue scans rotating
   * codes, the QR unlocked and the ticket VALID): `qr` and `code` are then null, so the
   * partner's locator is never in the page, its PDF or an e-mail; the page's script draws the
   * code on the holder's phone (domain/admission). Null otherwise.
   */
  rotating: { rotationSeconds: number } | null;
  /** Present only when `access.showQr`: never computed for a locked ticket. */
  qr: { kind: 'svg'; svg: string } | { kind: 'image'; url: string } | null;
  code: string | null;
  /**
   * Will-call: the pick-up number, or (MANDATORY without one) null and the pick-up details the
   * box office checks instead: the ticket id and its holder's e-mail.
   */
  willCall: { number: string | null; pickUp: { ticketId: string; holder: string | null } | null; instructions: string | null } | null;
  ownerEmail: string | null;
  defaultLang: string;
  ticketShield: boolean;
}

/** Reads and checks a view token in `tx`; null when it is malformed, unknown, or the owner changed. */
export async function ticketForToken(deps: Pick<Kernel, 'box'>, tx: Tx, token: string) {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return null;
  const id = token.slice(0, dot);
  const row = await ticketByPk(tx, id);
  if (!row || !deps.box.verify(PURPOSE, `${row.id}:${row.ownerPk}`, token.slice(dot + 1))) return null;
  return row;
}

function venueOf(location: Location | null | undefined): string {
  if (!location) return '';
  return [location.venueName, location.city].filter((x) => x).join(', ') || location.raw || '';
}

/**
 * The banner picture of a show's images (see {@link TicketView.imageUrl}). The API accepts
 * http(s) URLs only; checked again here because the page puts it in an `src`, and rows stored
 * by older code or by hand deserve no trust.
 */
export function bannerImage(images: readonly ImageIn[] | null | undefined): string | null {
  const usable = (images ?? []).filter((i) => typeof i.url === 'string' && /^https?:\/\/[^\s]+$/i.test(i.url) && URL.canParse(i.url));
  return (usable.find((i) => i.kind === 'main') ?? usable[0])?.url ?? null;
}

/** The ticket and what the view shows of its event, show, option, partner and owner (each read from its owner module). */
async function viewRows(tx: Tx, ticketPk: string) {
  const ticket = await ticketByPk(tx, ticketPk);
  if (!ticket) throw new Error(`No ticket ${ticketPk}`);
  const showAndEvent = await showWithEvent(tx, ticket.showPk);
  const option = await ticketOptionByPk(tx, ticket.ticketOptionPk);
  if (!showAndEvent || !option) throw new Error(`No show ${ticket.showPk} with ticket option ${ticket.ticketOptionPk}`);
  return { ticket, event: showAndEvent.event, show: showAndEvent.show, option, partner: await partnerOf(tx, ticket.partnerId), owner: await userOf(tx, ticket.ownerPk) };
}

/**
 * Gathers the page data for a ticket, applying the unlock and will-call rules at `now`: its
 * own read, then the QR drawn outside it.
 */
export async function buildTicketView(deps: TicketViewDeps, ticketPk: string): Promise<TicketView> {
  return drawQr(await deps.db.read(async (tx) => await readTicketView(deps, tx, ticketPk)));
}

/**
 * The page data of a ticket read in `tx`, but for the QR of a code, which `drawQr` draws
 * afterwards (outside the read): `qr` is then still null, and `code` set.
 */
export async function readTicketView(deps: TicketViewDeps, tx: Tx, ticketPk: string): Promise<TicketView> {
  const r = await viewRows(tx, ticketPk);
  const configuration = effectiveConfiguration(r.event.configuration, r.show.configuration);
  const rule = (await deps.rules.effective(tx, r.show.id, r.option.id, r.ticket.priceTypePk)).qrUnlock?.rules;
  const unlockAt = qrUnlockAt({ startsAt: r.show.startsAt, qrUnlockRule: rule, configuration, partnerHoursBeforeShow: r.partner.settings.qrLockHoursBeforeShow });
  const willCallNumber = (typeof r.ticket.props?.willCallNumber === 'string' ? r.ticket.props.willCallNumber : null) ?? r.ticket.orderId;
  const now = deps.clock.now();
  const access = accessView({
    now,
    state: r.ticket.state,
    unlockAt,
    startsAt: r.show.startsAt,
    redemption: configuration.redemption,
    hasWillCallNumber: willCallNumber !== null,
  });
  let qr: TicketView['qr'] = null;
  let code: string | null = null;
  const codes = admissionCodesOf(r.show, r.partner.settings);
  const rotating = access.showQr && codes.rotating ? { rotationSeconds: codes.rotationSeconds } : null;
  if (access.showQr && !rotating) {
    const a = r.ticket.ticketAccess;
    if (a.type === 'URL') qr = { kind: 'image', url: a.locator };
    else code = a.locator;
  }
  const location = r.show.location ?? r.event.location;
  return {
    ticketId: r.ticket.ticketId,
    state: r.ticket.state,
    eventTitle: r.event.title,
    showTitle: r.show.title,
    startsAt: r.show.startsAt,
    timeZone: location.timeZone,
    venue: venueOf(location),
    imageUrl: bannerImage(r.show.images),
    optionTitle: r.option.title,
    seating: { section: r.ticket.section, row: r.ticket.row, seat: r.ticket.seat },
    access,
    now,
    rotating,
    qr,
    code,
    willCall: access.showWillCall
      ? {
          number: willCallNumber,
          pickUp: willCallNumber === null ? { ticketId: r.ticket.ticketId, holder: r.owner.email } : null,
          instructions: configuration.redemption?.instructions ?? null,
        }
      : null,
    ownerEmail: r.owner.email,
    defaultLang: r.partner.settings.defaultLang,
    ticketShield: r.show.ticketShield,
  };
}

/**
 * Whether the ticket can be downloaded as a PDF: its static QR shows, or it is collected at the
 * box office. A rotating code has no PDF: a printed code would be a screenshot.
 */
export function hasDownload(view: TicketView): boolean {
  return Boolean((view.access.showQr && !view.rotating) || view.willCall);
}

/** A view of `readTicketView` with the QR of its code drawn (a view showing a code has one). */
export async function drawQr(view: TicketView): Promise<TicketView> {
  return view.code === null ? view : { ...view, qr: await qrSvg(view.code) };
}

/**
 * The code as an SVG QR code; null when it does not fit one (a code stored before the limit of
 * `fitsQrCode`): the view then shows the code as text rather than failing at the door.
 */
async function qrSvg(code: string): Promise<{ kind: 'svg'; svg: string } | null> {
  try {
    return { kind: 'svg', svg: await QRCode.toString(code, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) };
  } catch {
    return null;
  }
}
