import { LANGS, type Lang } from '@resale/shared/lang';
import { z } from 'zod';
import { currencyDigits } from '../../lib/money.js';
import { formatInstant, localeOf } from '@resale/shared/format';
import { placeText } from '../../lib/seats.js';

/**
 * The message templates: plain, localised (`en`, `es`), one typed set of variables each.
 *
 * A template writes its copy as a list of blocks (paragraphs, a code, a link) once per
 * language; the text and HTML parts are both derived from those blocks, and the HTML
 * renderer escapes every block, so an interpolated value can never become markup.
 * Dates and amounts are formatted with `Intl` for the message's language.
 */


/** Delivery channels. */
export type Channel = 'email' | 'sms';

/**
 * An amount: either already formatted by the caller (`"€45.00"`), or integer minor units
 * plus ISO 4217 currency, formatted here with `Intl` for the message's language.
 */
export type MoneyVar = string | { minor: number; currency: string };

/** Variables of every template. Dates are ISO 8601 (`2026-05-01T21:00:00+02:00`, or `2026-06-01` for a day). */
export interface TemplateVars {
  /** The QR of a ticket is available (the caller attaches the ticket PDF). */
  ticketUnlocked: {
    eventTitle: string;
    showTitle: string;
    /** Start of the show, ISO 8601 with offset; shown in that offset's wall time unless `timeZone` is given. */
    showDate: string;
    /** http(s) URL of the secure ticket view. */
    ticketUrl: string;
    /** IANA time zone of the venue (`Europe/Madrid`), optional. */
    timeZone?: string;
    /**
     * Seconds per step when the venue scans the rotating, holder-bound code (no PDF then): the
     * e-mail says to open the ticket on the phone, since a screenshot or a printout will not do.
     */
    rotationSeconds?: number;
  };
  /**
   * A ticket's rotating code was moved to another phone or browser (the holder certified a new
   * one): the earlier one shows no valid code any more. Sent so a holder whose link and sign-in
   * were used by someone else finds out at once.
   */
  codeMoved: {
    eventTitle: string;
    showTitle: string;
    showDate: string;
    /** When the code moved, ISO 8601 with offset. */
    movedAt: string;
    /** http(s) URL of the secure ticket view. */
    ticketUrl: string;
    timeZone?: string;
  };
  /** A seller's listing was sold. */
  listingSold: { eventTitle: string; showTitle: string; amount: MoneyVar; payoutDate: string };
  /** A seller's listing was removed by the organiser. */
  delistNotice: { eventTitle: string; showTitle: string; reason?: string | null };
  /** A one-time sign-in code (e-mail or SMS). */
  oneTimePassword: { code: string; minutes: number };
  /** A one-time code that confirms a change of payout details (step-up): says so, so a person tricked into asking for it can tell. */
  stepUpCode: { code: string; minutes: number };
  /** A code of the console (operators and partners' people): to sign in, or to confirm a sensitive action (`confirm`). */
  consoleCode: { code: string; minutes: number; purpose: 'sign_in' | 'confirm' };
  /** A partner's person was given access to the console. */
  consoleInvitation: { partnerName: string; role: string; consoleUrl: string };
  /** A payout to a seller was scheduled. */
  payoutScheduled: { amount: MoneyVar; payoutDate: string };
  /** A seller's payout details were set or changed (after a step-up): the account's last four and holder. */
  payoutDetailsChanged: { accountHint: string; holderName: string };
  /** A resale buyer is refunded because the show was cancelled. */
  refund: { eventTitle: string; amount: MoneyVar };
  /** A resale buyer's purchase went through. */
  purchaseConfirmed: {
    eventTitle: string;
    showTitle: string;
    showDate: string;
    /** Venue and city, when known. */
    venue?: string | null;
    /** What the buyer paid in all, fees included. */
    amount: MoneyVar;
    /** The order's reference (the buy intention's id): what the buyer quotes to support, and the partner's `resaleId`. */
    orderReference: string;
    /** Each ticket bought: its ticket option, its seat when seated, and the http(s) URL of its secure view. */
    tickets: { option: string; section?: string | null; row?: string | null; seat?: string | null; url: string }[];
    /** http(s) URL of the receipt page (for the signed-in buyer). */
    receiptUrl?: string;
    timeZone?: string;
  };
  /** Resale tickets appeared for a show a wishlist lead subscribed to (sent once per lead). */
  wishlistAvailable: {
    eventTitle: string;
    showTitle: string;
    showDate: string;
    /** http(s) URL of the show's market page. */
    marketUrl: string;
    /** The ticket option the lead asked for, when it named one. */
    ticketOptionTitle?: string | null;
    timeZone?: string;
  };
  /**
   * Tickets a fan waited for are held for them (the waiting list's offer) until `expiresAt`:
   * the button goes to the checkout of the held tickets.
   */
  waitingListOffer: {
    eventTitle: string;
    showTitle: string;
    showDate: string;
    /** The held tickets: each one's ticket option and its seat when seated. */
    tickets: { option: string; section?: string | null; row?: string | null; seat?: string | null }[];
    /** What the fan pays in all, fees included. */
    amount: MoneyVar;
    /** When the hold ends, ISO 8601 with offset. */
    expiresAt: string;
    /** The hold's length, in minutes, as the organiser set it. */
    minutes: number;
    /** http(s) URL of the checkout holding the tickets (signing the fan in once, where it can). */
    checkoutUrl: string;
    timeZone?: string;
  };
}

export type TemplateName = keyof TemplateVars;

/** The text, the subject and (for e-mail) the HTML of a rendered template. */
export interface RenderedMessage {
  subject: string;
  text: string;
  /** null for SMS. */
  html: string | null;
}

// ---------------------------------------------------------------------------------------
// Runtime validation of the variables: a caller's bug (a missing title, a javascript: URL)
// fails loudly at enqueue time instead of mailing "undefined" to a customer.

const title = z.string().trim().min(1).max(300);
const isoInstant = z.iso.datetime({ offset: true });
const isoDay = z.union([z.iso.date(), isoInstant]);
const money = z.union([
  z.string().trim().min(1).max(50),
  z.object({ minor: z.number().int().min(0), currency: z.string().regex(/^[A-Za-z]{3}$/) }),
]);
// Generous: what the ticket and event APIs accept (a section of 100, a venue and city of 200 each) must never fail a purchase's e-mail.
const seatPart = z.string().trim().max(200).nullish();
const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone');

const SCHEMAS: { [K in TemplateName]: z.ZodType<TemplateVars[K], any> } = {
  ticketUnlocked: z.object({
    eventTitle: title,
    showTitle: title,
    showDate: isoInstant,
    ticketUrl: z.url({ protocol: /^https?$/ }),
    timeZone: timeZone.optional(),
    rotationSeconds: z.number().int().min(5).max(60).optional(),
  }),
  codeMoved: z.object({ eventTitle: title, showTitle: title, showDate: isoInstant, movedAt: isoInstant, ticketUrl: z.url({ protocol: /^https?$/ }), timeZone: timeZone.optional() }),
  listingSold: z.object({ eventTitle: title, showTitle: title, amount: money, payoutDate: isoDay }),
  delistNotice: z.object({ eventTitle: title, showTitle: title, reason: z.string().trim().max(500).nullish() }),
  oneTimePassword: z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits'), minutes: z.number().int().min(1).max(1440) }),
  stepUpCode: z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits'), minutes: z.number().int().min(1).max(1440) }),
  consoleCode: z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits'), minutes: z.number().int().min(1).max(1440), purpose: z.enum(['sign_in', 'confirm']) }),
  consoleInvitation: z.object({ partnerName: title, role: z.string().trim().min(1).max(100), consoleUrl: z.url({ protocol: /^https?$/ }) }),
  payoutScheduled: z.object({ amount: money, payoutDate: isoDay }),
  payoutDetailsChanged: z.object({ accountHint: z.string().regex(/^[A-Z0-9]{4}$/), holderName: title }),
  refund: z.object({ eventTitle: title, amount: money }),
  purchaseConfirmed: z.object({
    eventTitle: title,
    showTitle: title,
    showDate: isoInstant,
    venue: z.string().trim().max(1000).nullish(),
    amount: money,
    orderReference: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    tickets: z
      .array(z.object({ option: title, section: seatPart, row: seatPart, seat: seatPart, url: z.url({ protocol: /^https?$/ }) }))
      .min(1)
      // Up to MAX_INTENTION_ITEMS listings, each possibly a whole order's pack.
      .max(2000),
    receiptUrl: z.url({ protocol: /^https?$/ }).optional(),
    timeZone: timeZone.optional(),
  }),
  waitingListOffer: z.object({
    eventTitle: title,
    showTitle: title,
    showDate: isoInstant,
    tickets: z.array(z.object({ option: title, section: seatPart, row: seatPart, seat: seatPart })).min(1).max(2000),
    amount: money,
    expiresAt: isoInstant,
    minutes: z.number().int().min(1).max(1440),
    checkoutUrl: z.url({ protocol: /^https?$/ }),
    timeZone: timeZone.optional(),
  }),
  wishlistAvailable: z.object({
    eventTitle: title,
    showTitle: title,
    showDate: isoInstant,
    marketUrl: z.url({ protocol: /^https?$/ }),
    ticketOptionTitle: title.nullish(),
    timeZone: timeZone.optional(),
  }),
};

/** Every template name. */
export const TEMPLATE_NAMES = Object.keys(SCHEMAS) as TemplateName[];

// ---------------------------------------------------------------------------------------
// Formatting with Intl.

/** Formats values for one language. */
export interface Formatter {
  lang: Lang;
  money(value: MoneyVar): string;
  /** A day (`1 May 2026`). */
  date(iso: string): string;
  /** A day and time (`Friday, 1 May 2026 at 21:00 CEST`), in `timeZone`, else in the offset written in `iso`. */
  dateTime(iso: string, timeZone?: string): string;
  /** `10 minutes` / `10 minutos`. */
  minutes(n: number): string;
  /** `1 ticket`, `2 tickets` / `1 entrada`, `2 entradas` (plural by `Intl.PluralRules`). */
  tickets(n: number): string;
  /** A ticket's place: `Section A · Row 1 · Seat 4`, or its ticket option when it has no seat. */
  place(t: { option: string; section?: string | null | undefined; row?: string | null | undefined; seat?: string | null | undefined }): string;
}

/** The word for tickets by plural category (`Intl.PluralRules`), per language; `other` when a category has no own form. */
const TICKET_WORDS: Record<Lang, Partial<Record<Intl.LDMLPluralRule, string>> & { other: string }> = {
  en: { one: 'ticket', other: 'tickets' },
  es: { one: 'entrada', other: 'entradas' },
};


const OFFSET = /(?:Z|([+-])(\d{2}):?(\d{2}))$/i;

/**
 * The instant shifted by the offset written in the string, so formatting it in UTC shows
 * the wall time of that offset (the venue's zone is not known here, only the offset the string was written with).
 */
function wallTime(iso: string): { at: Date; utc: boolean } {
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return { at: new Date(`${iso}T00:00:00Z`), utc: false };
  const t = Date.parse(iso);
  const m = OFFSET.exec(iso);
  if (!m || !m[1]) return { at: new Date(t), utc: true };
  const minutes = (Number(m[2]) * 60 + Number(m[3])) * (m[1] === '-' ? -1 : 1);
  return { at: new Date(t + minutes * 60_000), utc: false };
}

/** A formatter for `lang`. */
export function formatter(lang: Lang): Formatter {
  return {
    lang,
    money(value) {
      if (typeof value === 'string') return value.trim();
      const code = value.currency.toUpperCase();
      return new Intl.NumberFormat(lang, { style: 'currency', currency: code }).format(value.minor / 10 ** currencyDigits(code));
    },
    date(iso) {
      return new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'long', timeZone: 'UTC' }).format(wallTime(iso).at);
    },
    dateTime(iso, tz) {
      // In the venue's zone, written as the hosted pages write it (@resale/shared/format): the e-mail and the receipt agree.
      if (tz) return formatInstant(Date.parse(iso), lang, tz);
      const { at, utc } = wallTime(iso);
      const text = new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' }).format(at);
      return utc ? `${text} UTC` : text;
    },
    minutes(n) {
      return new Intl.NumberFormat(lang, { style: 'unit', unit: 'minute', unitDisplay: 'long' }).format(n);
    },
    tickets(n) {
      const words = TICKET_WORDS[lang];
      return `${new Intl.NumberFormat(lang).format(n)} ${words[new Intl.PluralRules(lang).select(n)] ?? words.other}`;
    },
    place(t) {
      // Written as on every page (lib/seats.ts), so the e-mail names the seat the receipt does.
      return placeText(t, lang) || t.option;
    },
  };
}

// ---------------------------------------------------------------------------------------
// The copy.

/** A paragraph, a prominent code with its label, or a link with its label. */
type Block = string | { code: string; label: string } | { href: string; label: string };

interface Copy {
  subject: string;
  blocks: Block[];
  /** The SMS text: short, plain, self-contained. */
  sms: string;
}

type Written<K extends TemplateName> = Record<Lang, (v: TemplateVars[K], f: Formatter) => Copy>;

const FOOTER: Record<Lang, string> = {
  en: 'This message was sent automatically by the official resale market. Please do not reply to it.',
  es: 'Este mensaje lo ha enviado automáticamente el mercado oficial de reventa. Por favor, no respondas.',
};

const COPY: { [K in TemplateName]: Written<K> } = {
  codeMoved: {
    en: (v, f) => ({
      subject: `Your ticket for ${v.eventTitle} moved to another phone`,
      blocks: [
        `The code of your ticket for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) was moved to another phone or browser at ${f.dateTime(v.movedAt, v.timeZone)}. The one that showed it before no longer shows a valid code.`,
        { href: v.ticketUrl, label: 'View your ticket' },
        'If this was not you, someone has your ticket link and signed in as you: open your ticket on your own phone to bring the code back, change the password of your e-mail, and contact the ticketing site.',
      ],
      sms: `The code of your ticket for ${v.eventTitle} moved to another phone at ${f.dateTime(v.movedAt, v.timeZone)}. Not you? Open your ticket: ${v.ticketUrl}`,
    }),
    es: (v, f) => ({
      subject: `Tu entrada para ${v.eventTitle} se ha pasado a otro móvil`,
      blocks: [
        `El código de tu entrada para ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) se ha pasado a otro móvil o navegador el ${f.dateTime(v.movedAt, v.timeZone)}. El que lo mostraba antes ya no muestra un código válido.`,
        { href: v.ticketUrl, label: 'Ver tu entrada' },
        'Si no has sido tú, alguien tiene el enlace de tu entrada y ha iniciado sesión como tú: abre tu entrada en tu propio móvil para recuperar el código, cambia la contraseña de tu correo y contacta con la web de venta.',
      ],
      sms: `El código de tu entrada para ${v.eventTitle} se ha pasado a otro móvil el ${f.dateTime(v.movedAt, v.timeZone)}. ¿No has sido tú? Abre tu entrada: ${v.ticketUrl}`,
    }),
  },
  waitingListOffer: {
    en: (v, f) => ({
      subject: `Tickets for ${v.eventTitle} are held for you`,
      blocks: [
        `You are next on the waiting list for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}): we are holding ${f.tickets(v.tickets.length)} for you, ${f.money(v.amount)} in all, fees included.`,
        ...v.tickets.map((t) => f.place(t)),
        `They are held for you until ${f.dateTime(v.expiresAt, v.timeZone)} (${f.minutes(v.minutes)}). After that they go to the next fan in line.`,
        { href: v.checkoutUrl, label: 'Buy your tickets' },
        'Not interested any more? Do nothing: the hold ends by itself and the tickets go to the next fan.',
      ],
      // Short (one SMS): the show's date is in the checkout.
      sms: `${v.eventTitle}: ${f.tickets(v.tickets.length)} held for you until ${f.dateTime(v.expiresAt, v.timeZone)}, ${f.money(v.amount)}: ${v.checkoutUrl}`,
    }),
    es: (v, f) => ({
      subject: `Te guardamos entradas para ${v.eventTitle}`,
      blocks: [
        `Eres el siguiente en la lista de espera de ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}): te guardamos ${f.tickets(v.tickets.length)}, ${f.money(v.amount)} en total, gastos incluidos.`,
        ...v.tickets.map((t) => f.place(t)),
        `Te las guardamos hasta ${f.dateTime(v.expiresAt, v.timeZone)} (${f.minutes(v.minutes)}). Después pasan al siguiente de la lista.`,
        { href: v.checkoutUrl, label: 'Comprar tus entradas' },
        '¿Ya no te interesan? No hagas nada: la reserva termina sola y las entradas pasan al siguiente.',
      ],
      sms: `${v.eventTitle}: te guardamos ${f.tickets(v.tickets.length)} hasta ${f.dateTime(v.expiresAt, v.timeZone)}, ${f.money(v.amount)}: ${v.checkoutUrl}`,
    }),
  },
  wishlistAvailable: {
    en: (v, f) => ({
      subject: `Resale tickets are available for ${v.eventTitle}`,
      blocks: [
        `Tickets${v.ticketOptionTitle ? ` (${v.ticketOptionTitle})` : ''} for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) are now on sale on the official resale market.`,
        { href: v.marketUrl, label: 'See the tickets' },
        'Resale tickets go fast, and this is the only message we send you about this show.',
      ],
      sms: `Resale tickets for ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}) are available: ${v.marketUrl}`,
    }),
    es: (v, f) => ({
      subject: `Hay entradas de reventa para ${v.eventTitle}`,
      blocks: [
        `Ya hay entradas${v.ticketOptionTitle ? ` (${v.ticketOptionTitle})` : ''} para ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) a la venta en el mercado oficial de reventa.`,
        { href: v.marketUrl, label: 'Ver las entradas' },
        'Las entradas de reventa vuelan, y este es el único mensaje que te enviamos sobre este espectáculo.',
      ],
      sms: `Hay entradas de reventa para ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}): ${v.marketUrl}`,
    }),
  },
  purchaseConfirmed: {
    en: (v, f) => ({
      subject: `Your tickets for ${v.eventTitle}`,
      blocks: [
        `Thank you. You bought ${f.tickets(v.tickets.length)} for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}${v.venue ? `, ${v.venue}` : ''}) on the official resale market, for ${f.money(v.amount)} in all.`,
        `Order reference: ${v.orderReference}`,
        ...v.tickets.map((t, i) => ({ href: t.url, label: v.tickets.length > 1 ? `Ticket ${i + 1} of ${v.tickets.length}: ${f.place(t)}` : `Your ticket: ${f.place(t)}` })),
        ...(v.receiptUrl ? [{ href: v.receiptUrl, label: 'Your receipt' }] : []),
        'Each ticket link is personal: it opens your secure ticket. The ticketing site also moves the tickets to your account.',
      ],
      sms: `You bought ${f.tickets(v.tickets.length)} for ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}) for ${f.money(v.amount)}. Order ${v.orderReference}.`,
    }),
    es: (v, f) => ({
      subject: `Tus entradas para ${v.eventTitle}`,
      blocks: [
        `Gracias. Has comprado ${f.tickets(v.tickets.length)} para ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}${v.venue ? `, ${v.venue}` : ''}) en el mercado oficial de reventa, por ${f.money(v.amount)} en total.`,
        `Referencia del pedido: ${v.orderReference}`,
        ...v.tickets.map((t, i) => ({ href: t.url, label: v.tickets.length > 1 ? `Entrada ${i + 1} de ${v.tickets.length}: ${f.place(t)}` : `Tu entrada: ${f.place(t)}` })),
        ...(v.receiptUrl ? [{ href: v.receiptUrl, label: 'Tu recibo' }] : []),
        'Cada enlace de entrada es personal: abre tu entrada segura. La web de venta también pasa las entradas a tu cuenta.',
      ],
      sms: `Has comprado ${f.tickets(v.tickets.length)} para ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}) por ${f.money(v.amount)}. Pedido ${v.orderReference}.`,
    }),
  },
  ticketUnlocked: {
    en: (v, f) => ({
      subject: `Your ticket for ${v.eventTitle} is ready`,
      blocks: [
        ...(v.rotationSeconds === undefined
          ? [
              `Your ticket for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) is now available, with its QR code.`,
              { href: v.ticketUrl, label: 'View your ticket' },
              'If a PDF is attached to this e-mail, you can print it or show it on your phone at the entrance.',
            ]
          : [
              `Your ticket for ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) is now available, with its entry code.`,
              { href: v.ticketUrl, label: 'View your ticket' },
              `At the entrance, open your ticket on your phone, signed in: its code changes every ${v.rotationSeconds} seconds and only works on the phone that shows it, so a screenshot or a printout will not get you in. Open it once before the day: it then works without signal.`,
            ]),
      ],
      sms: `Your ticket for ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}) is ready: ${v.ticketUrl}`,
    }),
    es: (v, f) => ({
      subject: `Tu entrada para ${v.eventTitle} está lista`,
      blocks: [
        ...(v.rotationSeconds === undefined
          ? [
              `Tu entrada para ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) ya está disponible, con su código QR.`,
              { href: v.ticketUrl, label: 'Ver tu entrada' },
              'Si este correo lleva un PDF adjunto, puedes imprimirlo o mostrarlo en tu móvil en la entrada.',
            ]
          : [
              `Tu entrada para ${v.eventTitle} – ${v.showTitle} (${f.dateTime(v.showDate, v.timeZone)}) ya está disponible, con su código de acceso.`,
              { href: v.ticketUrl, label: 'Ver tu entrada' },
              `En la entrada, abre tu entrada en tu móvil, con tu sesión iniciada: su código cambia cada ${v.rotationSeconds} segundos y solo vale en el móvil que lo muestra, así que una captura de pantalla o una copia impresa no te darán acceso. Ábrela una vez antes del día: después funciona sin cobertura.`,
            ]),
      ],
      sms: `Tu entrada para ${v.eventTitle} (${f.dateTime(v.showDate, v.timeZone)}) está lista: ${v.ticketUrl}`,
    }),
  },
  listingSold: {
    en: (v, f) => ({
      subject: `You sold your tickets for ${v.eventTitle}`,
      blocks: [
        `Good news: your tickets for ${v.eventTitle} – ${v.showTitle} were sold on the official resale market.`,
        `You will receive ${f.money(v.amount)}. The payout is scheduled for ${f.date(v.payoutDate)}.`,
        'The sold tickets are no longer valid for you; please do not try to use them.',
      ],
      sms: `Your tickets for ${v.eventTitle} were sold. You will receive ${f.money(v.amount)} on ${f.date(v.payoutDate)}.`,
    }),
    es: (v, f) => ({
      subject: `Has vendido tus entradas para ${v.eventTitle}`,
      blocks: [
        `Buenas noticias: tus entradas para ${v.eventTitle} – ${v.showTitle} se han vendido en el mercado oficial de reventa.`,
        `Recibirás ${f.money(v.amount)}. El pago está previsto para el ${f.date(v.payoutDate)}.`,
        'Las entradas vendidas ya no son válidas para ti; por favor, no intentes usarlas.',
      ],
      sms: `Tus entradas para ${v.eventTitle} se han vendido. Recibirás ${f.money(v.amount)} el ${f.date(v.payoutDate)}.`,
    }),
  },
  delistNotice: {
    en: (v) => ({
      subject: `Your listing for ${v.eventTitle} was removed`,
      blocks: [
        `The organiser removed your resale listing for ${v.eventTitle} – ${v.showTitle}.`,
        ...(v.reason ? [`Reason: ${v.reason}`] : []),
        'Your tickets were not sold: they are yours again and remain valid.',
      ],
      sms: `The organiser removed your resale listing for ${v.eventTitle}. Your tickets are yours again and remain valid.`,
    }),
    es: (v) => ({
      subject: `Se ha retirado tu anuncio para ${v.eventTitle}`,
      blocks: [
        `El organizador ha retirado tu anuncio de reventa para ${v.eventTitle} – ${v.showTitle}.`,
        ...(v.reason ? [`Motivo: ${v.reason}`] : []),
        'Tus entradas no se han vendido: vuelven a ser tuyas y siguen siendo válidas.',
      ],
      sms: `El organizador ha retirado tu anuncio de reventa para ${v.eventTitle}. Tus entradas vuelven a ser tuyas y siguen siendo válidas.`,
    }),
  },
  oneTimePassword: {
    en: (v, f) => ({
      subject: 'Your sign-in code',
      blocks: [
        { code: v.code, label: 'Your sign-in code' },
        `It expires in ${f.minutes(v.minutes)}. If you did not ask for it, ignore this message.`,
        'Never share this code: we will never ask you for it.',
      ],
      sms: `${v.code} is your resale sign-in code. It expires in ${f.minutes(v.minutes)}. Do not share it.`,
    }),
    es: (v, f) => ({
      subject: 'Tu código de acceso',
      blocks: [
        { code: v.code, label: 'Tu código de acceso' },
        `Caduca en ${f.minutes(v.minutes)}. Si no lo has pedido, ignora este mensaje.`,
        'No compartas este código: nunca te lo pediremos.',
      ],
      sms: `${v.code} es tu código de acceso a la reventa. Caduca en ${f.minutes(v.minutes)}. No lo compartas.`,
    }),
  },
  stepUpCode: {
    en: (v, f) => ({
      subject: 'Your code to change your payout details',
      blocks: [
        { code: v.code, label: 'Your code to change where your resale payouts go' },
        `It expires in ${f.minutes(v.minutes)}. Enter it only if you are changing your payout details yourself, right now.`,
        'If you did not ask for it, someone may be trying to redirect your money: do not share it, and contact the ticketing site.',
      ],
      sms: `${v.code} is your code to CHANGE YOUR PAYOUT DETAILS. It expires in ${f.minutes(v.minutes)}. Not you? Do not share it.`,
    }),
    es: (v, f) => ({
      subject: 'Tu código para cambiar tus datos de cobro',
      blocks: [
        { code: v.code, label: 'Tu código para cambiar a dónde van tus cobros de la reventa' },
        `Caduca en ${f.minutes(v.minutes)}. Introdúcelo solo si eres tú quien está cambiando ahora tus datos de cobro.`,
        'Si no lo has pedido, alguien podría estar intentando desviar tu dinero: no lo compartas y contacta con la web de venta de entradas.',
      ],
      sms: `${v.code} es tu código para CAMBIAR TUS DATOS DE COBRO. Caduca en ${f.minutes(v.minutes)}. ¿No eres tú? No lo compartas.`,
    }),
  },
  consoleCode: {
    en: (v, f) => ({
      subject: v.purpose === 'sign_in' ? 'Your code to sign in to the resale console' : 'Your code to confirm an action in the resale console',
      blocks: [
        { code: v.code, label: v.purpose === 'sign_in' ? 'Your console sign-in code' : 'Your confirmation code' },
        `It expires in ${f.minutes(v.minutes)}. ${v.purpose === 'sign_in' ? 'If you did not ask for it, ignore this message: nobody can sign in without it.' : 'Enter it only if you are the one showing a secret, rotating a key, changing where money goes or refunding, right now.'}`,
        'Never share this code: we will never ask you for it.',
      ],
      sms: `${v.code} is your resale console code. It expires in ${f.minutes(v.minutes)}. Do not share it.`,
    }),
    es: (v, f) => ({
      subject: v.purpose === 'sign_in' ? 'Tu código para entrar en la consola de reventa' : 'Tu código para confirmar una acción en la consola de reventa',
      blocks: [
        { code: v.code, label: v.purpose === 'sign_in' ? 'Tu código de acceso a la consola' : 'Tu código de confirmación' },
        `Caduca en ${f.minutes(v.minutes)}. ${v.purpose === 'sign_in' ? 'Si no lo has pedido, ignora este mensaje: nadie puede entrar sin él.' : 'Introdúcelo solo si eres tú quien está mostrando un secreto, rotando una clave, cambiando a dónde va el dinero o reembolsando, ahora mismo.'}`,
        'No compartas este código: nunca te lo pediremos.',
      ],
      sms: `${v.code} es tu código de la consola de reventa. Caduca en ${f.minutes(v.minutes)}. No lo compartas.`,
    }),
  },
  consoleInvitation: {
    en: (v) => ({
      subject: `You have access to ${v.partnerName} in the resale console`,
      blocks: [
        `You have been given access to ${v.partnerName} in the resale console, as ${v.role}.`,
        { href: v.consoleUrl, label: 'Open the console' },
        'Sign in with this e-mail address: we send you a code each time, no password needed.',
      ],
      sms: `You have access to ${v.partnerName} in the resale console: ${v.consoleUrl}`,
    }),
    es: (v) => ({
      subject: `Tienes acceso a ${v.partnerName} en la consola de reventa`,
      blocks: [
        `Te han dado acceso a ${v.partnerName} en la consola de reventa, como ${v.role}.`,
        { href: v.consoleUrl, label: 'Abrir la consola' },
        'Entra con esta dirección de e-mail: te enviamos un código cada vez, sin contraseña.',
      ],
      sms: `Tienes acceso a ${v.partnerName} en la consola de reventa: ${v.consoleUrl}`,
    }),
  },
  payoutScheduled: {
    en: (v, f) => ({
      subject: `Your payout of ${f.money(v.amount)} is scheduled`,
      blocks: [
        `We scheduled a payout of ${f.money(v.amount)} for your resale sales. You will receive it on ${f.date(v.payoutDate)}.`,
        'If your payout details are missing or out of date, please update them before that date.',
      ],
      sms: `Your resale payout of ${f.money(v.amount)} is scheduled for ${f.date(v.payoutDate)}.`,
    }),
    es: (v, f) => ({
      subject: `Tu pago de ${f.money(v.amount)} está programado`,
      blocks: [
        `Hemos programado un pago de ${f.money(v.amount)} por tus ventas en la reventa. Lo recibirás el ${f.date(v.payoutDate)}.`,
        'Si tus datos de cobro faltan o no están al día, actualízalos antes de esa fecha.',
      ],
      sms: `Tu pago de ${f.money(v.amount)} por la reventa está programado para el ${f.date(v.payoutDate)}.`,
    }),
  },
  payoutDetailsChanged: {
    en: (v) => ({
      subject: 'Your payout details were changed',
      blocks: [
        `Your resale payouts now go to the account ending in ${v.accountHint} (${v.holderName}).`,
        'If you did not make this change, contact the ticketing site at once: someone may have access to your account.',
      ],
      sms: `Your resale payouts now go to the account ending in ${v.accountHint}. Not you? Contact the ticketing site at once.`,
    }),
    es: (v) => ({
      subject: 'Tus datos de cobro han cambiado',
      blocks: [
        `Tus cobros de la reventa van ahora a la cuenta que termina en ${v.accountHint} (${v.holderName}).`,
        'Si no has hecho este cambio, contacta ya con la web de venta de entradas: alguien podría tener acceso a tu cuenta.',
      ],
      sms: `Tus cobros de la reventa van ahora a la cuenta que termina en ${v.accountHint}. ¿No has sido tú? Contacta ya con la web de venta.`,
    }),
  },
  refund: {
    en: (v, f) => ({
      subject: `Refund for ${v.eventTitle}`,
      blocks: [
        `${v.eventTitle} was cancelled. We are refunding you ${f.money(v.amount)} for the tickets you bought on the resale market.`,
        'The refund goes back to the payment method you used; your bank may take a few days to show it.',
        'The tickets are no longer valid.',
      ],
      sms: `${v.eventTitle} was cancelled. We are refunding you ${f.money(v.amount)} for your resale tickets.`,
    }),
    es: (v, f) => ({
      subject: `Reembolso por ${v.eventTitle}`,
      blocks: [
        `${v.eventTitle} se ha cancelado. Te reembolsamos ${f.money(v.amount)} por las entradas que compraste en el mercado de reventa.`,
        'El reembolso vuelve al medio de pago que usaste; tu banco puede tardar unos días en mostrarlo.',
        'Las entradas ya no son válidas.',
      ],
      sms: `${v.eventTitle} se ha cancelado. Te reembolsamos ${f.money(v.amount)} por tus entradas de reventa.`,
    }),
  },
};

// ---------------------------------------------------------------------------------------
// Rendering.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and (double-quoted) attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

/** A header-safe one-line subject (no CR/LF, so nothing can be smuggled into headers). */
function oneLine(s: string): string {
  return s.replace(/[\r\n\t]+/g, ' ').trim();
}

function toText(copy: Copy, lang: Lang): string {
  const parts = copy.blocks.map((b) => (typeof b === 'string' ? b : 'code' in b ? `${b.label}: ${b.code}` : `${b.label}: ${b.href}`));
  return [...parts, '--', FOOTER[lang]].join('\n\n') + '\n';
}

// Plain, accessible HTML: one column, system fonts, real text (no images), enough contrast,
// inline styles only (mail clients drop <style> and never load remote resources here).
function toHtml(copy: Copy, lang: Lang): string {
  const e = escapeHtml;
  const body = copy.blocks
    .map((b) => {
      if (typeof b === 'string') return `<p style="margin:0 0 16px">${e(b)}</p>`;
      if ('code' in b) {
        return (
          `<p style="margin:0 0 4px">${e(b.label)}:</p>` +
          `<p style="margin:0 0 16px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:28px;font-weight:bold;letter-spacing:4px">${e(b.code)}</p>`
        );
      }
      return (
        `<p style="margin:0 0 8px"><a href="${e(b.href)}" style="display:inline-block;padding:10px 16px;background:#1a4fd6;color:#ffffff;text-decoration:none;border-radius:4px">${e(b.label)}</a></p>` +
        `<p style="margin:0 0 16px;font-size:13px;color:#444444;word-break:break-all">${e(b.href)}</p>`
      );
    })
    .join('\n');
  return [
    '<!DOCTYPE html>',
    `<html lang="${lang}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(copy.subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#ffffff;color:#1a1a1a;font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif;font-size:16px;line-height:1.5">',
    '<div role="article" style="max-width:560px;margin:0 auto">',
    `<h1 style="font-size:22px;margin:0 0 16px">${e(copy.subject)}</h1>`,
    body,
    `<hr style="border:none;border-top:1px solid #cccccc;margin:24px 0 12px"><p style="margin:0;font-size:13px;color:#444444">${e(FOOTER[lang])}</p>`,
    '</div></body></html>',
  ].join('\n');
}

/**
 * Renders a template: subject, text and HTML for e-mail; subject and a short text for SMS
 * (the subject then only labels the message in the mailbox).
 *
 * @throws Error when the variables do not match the template (a programming error, not a user's)
 * @example
 * renderMessage('oneTimePassword', 'es', { code: '123456', minutes: 10 }, 'sms').text
 * // '123456 es tu código de acceso a la reventa. Caduca en 10 minutos. No lo compartas.'
 */
export function renderMessage<K extends TemplateName>(template: K, lang: Lang, vars: TemplateVars[K], channel: Channel = 'email'): RenderedMessage {
  const schema = SCHEMAS[template] as z.ZodType<TemplateVars[K]> | undefined;
  const written = COPY[template] as Written<K> | undefined;
  if (!schema || !written) throw new Error(`Unknown message template '${String(template)}'`);
  const write = written[lang];
  if (!write) throw new Error(`Template '${template}' has no language '${String(lang)}'`);
  const parsed = schema.safeParse(vars);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(vars)'}: ${i.message}`).join('; ');
    throw new Error(`Invalid variables for template '${template}': ${issues}`);
  }
  const copy = write(parsed.data, formatter(lang));
  const subject = oneLine(copy.subject);
  if (channel === 'sms') return { subject, text: oneLine(copy.sms), html: null };
  return { subject, text: toText(copy, lang), html: toHtml({ ...copy, subject }, lang) };
}

/**
 * The template language for a requested one (`es-AR` -> `es`); `en` when unknown or absent.
 *
 * @example pickLang('es-ES') // 'es'
 */
export function pickLang(requested: string | null | undefined): Lang {
  const base = (requested ?? '').trim().slice(0, 2).toLowerCase();
  return (LANGS as readonly string[]).includes(base) ? (base as Lang) : 'en';
}
