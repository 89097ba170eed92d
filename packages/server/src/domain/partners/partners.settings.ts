import { z } from '@hono/zod-openapi';
import { whenPresent } from '../../lib/validation.js';
import { normaliseOrigin, ORIGIN_PATTERN } from '../../lib/origins.js';
import { contrastRatio } from '@resale/shared/contrast';
import { ROTATION_DEFAULT, ROTATION_MAX, ROTATION_MIN, VENUE_SCANS } from '@resale/shared/admission-code';
// The actions a partner may subscribe to are the defined webhook kinds. webhooks.kinds.ts imports
// nothing of partners, and must not: the webhooks service imports partners (a cycle would close).
import { WEBHOOK_ACTIONS } from '../webhooks/webhooks.kinds.js';

/**
 * Partner settings: what the operator configures per partner. Unknown settings are
 * rejected. `platformSecret` is write-only: it is sealed apart from the settings and
 * reads back as `platformSecretSet`.
 */

const url = () =>
  z.url({ protocol: /^https?$/, error: whenPresent('must be an http(s) URL') }).max(2048).nullable().openapi({ example: 'https://partner.example/api/resale/owned' });

export const feesSchema = z
  .strictObject({
    buyerPercent: z.number().min(0).max(50).default(10).openapi({ description: 'Fee the buyer pays on top of the listing price, in percent.', example: 10 }),
    buyerFixedMinor: z.number().int().min(0).max(100_000).default(0).openapi({ description: 'Fixed buyer fee per ticket, in minor units of the listing currency.', example: 0 }),
    sellerPercent: z.number().min(0).max(50).default(5).openapi({ description: 'Fee kept from the seller, in percent of the listing price.', example: 5 }),
    sellerFixedMinor: z.number().int().min(0).max(100_000).default(0).openapi({ description: 'Fixed seller fee per ticket, in minor units.', example: 0 }),
  })
  .openapi('Fees');

const HEX = /^#[0-9a-fA-F]{6}$/;
const hex = () => z.string().regex(HEX, 'must be a hex colour such as #0b4fb3').openapi({ example: '#0b4fb3' });
const localized = (max: number) => z.strictObject({ en: z.string().trim().min(1).max(max), es: z.string().trim().min(1).max(max) }).openapi({ example: { en: 'Can’t go?', es: '¿No puedes ir?' } });

/** The sell banner of the sell access layer (shown on the partner's My tickets page). */
export const sellBannerSchema = z
  .strictObject({
    visible: z.boolean(),
    title: localized(120),
    description: localized(400),
    ctaText: localized(60),
    image: z.url({ protocol: /^https$/, error: whenPresent('must be an https URL') }).max(2048).optional(),
    colors: z.strictObject({ background: hex(), text: hex() }),
  })
  .openapi('SellBannerSettings');

const httpsImage = () => z.url({ protocol: /^https$/, error: whenPresent('must be an https URL') }).max(2048).openapi({ example: 'https://partner.example/img/resale.jpg' });
const colorPair = () => z.strictObject({ background: hex(), text: hex() }).openapi({ example: { background: '#0b4fb3', text: '#ffffff' } });
const ref = () => z.string().trim().min(1).max(200);

/**
 * The buy access layer (GET /v1/wrapper/accesslayer?type=buy and its bulk form): which
 * components a partner gets on its event pages and how they look. A component set to null
 * (or left out) is not returned; `visible: false` returns it with `visible: false` (the
 * partner keeps the slot but must not render it). Texts are localised (`en`, `es`),
 * colours are hex, images https. `disabledTicketOptions` removes ticket options from the
 * answer altogether (categories, map, counts, best listing), for one show or for every show
 * of an event when `showId` is left out.
 */
export const buyAccessLayerSchema = z
  .strictObject({
    buyButton: z
      .strictObject({
        visible: z.boolean(),
        ctaText: localized(60).openapi({ example: { en: 'Buy resale tickets', es: 'Comprar entradas de reventa' } }),
        colors: colorPair(),
        ctaColors: colorPair().optional().openapi({ description: 'Colours of the call to action; they take priority over `colors`.' }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The buy button (type button).' }),
    buyBanner: z
      .strictObject({
        visible: z.boolean(),
        title: localized(120),
        description: localized(400),
        ctaText: localized(60),
        image: httpsImage().optional(),
        colors: colorPair(),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The buy banner (type banner).' }),
    buyModal: z
      .strictObject({
        visible: z.boolean(),
        title: localized(120),
        description: localized(400),
        ctaText: localized(60),
        image: httpsImage(),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The buy modal (type modal); the partner supplies its overlay and close behaviour.' }),
    categoriesList: z
      .strictObject({
        visible: z.boolean(),
        ctaText: localized(60).openapi({ example: { en: 'See tickets', es: 'Ver entradas' } }),
        colors: colorPair().optional(),
        ctaColors: colorPair().optional(),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The list of categories (type list): one per ticket option of the show.' }),
    integratedMap: z
      .strictObject({
        allowOrphanTicketSelection: z.boolean().openapi({ description: 'Whether a seated selection may leave a single seat free.' }),
      })
      .nullable()
      .optional()
      .openapi({ description: 'The map (type map); returned only for events with seating whose offers carry an area.' }),
    disabledTicketOptions: z
      .array(z.strictObject({ eventId: ref(), showId: ref().optional(), ticketOptionId: ref() }))
      .max(1_000)
      .default([])
      .openapi({ description: 'Ticket options left out of the buy access layer; without showId, in every show of the event.', example: [{ eventId: 'tour-2026', ticketOptionId: 'opt-vip' }] }),
  })
  .openapi('BuyAccessLayerSettings');
export type BuyAccessLayerSettings = z.output<typeof buyAccessLayerSchema>;

/**
 * Limits on live holds (PENDING buy intentions), so nobody can hoard a market: a hold takes its
 * listings off sale for `buyIntentionTtlSeconds`. Over a limit: 429 with Retry-After (when the
 * earliest counted hold ends) and a message that says which limit.
 */
export const holdLimitsSchema = z
  .strictObject({
    perBuyer: z.number().int().min(1).max(100).openapi({ description: 'Live checkouts one buyer may have at once, across every show.', example: 3 }),
    ticketsPerBuyerPerShow: z.number().int().min(1).max(1_000).openapi({ description: 'Tickets one buyer may hold at once in one show.', example: 10 }),
    perClientAddress: z.number().int().min(1).max(100_000).openapi({
      description:
        'Live checkouts reserved from one client address on the hosted pages (any buyer). Raise it when many fans share an address (carrier-grade NAT, a venue’s Wi-Fi).',
      example: 20,
    }),
  })
  .openapi('HoldLimits');
export type HoldLimits = z.output<typeof holdLimitsSchema>;
export const DEFAULT_HOLD_LIMITS: HoldLimits = { perBuyer: 3, ticketsPerBuyerPerShow: 10, perClientAddress: 20 };

/** The least contrast of the brand colour against white: it is link text and the background of white button text. */
export const BRAND_MIN_CONTRAST = 4.5;

/**
 * How the hosted pages (market, checkout, sell, ticket view, sign-in) present the partner: its
 * name or logo in the header, its colour on links and buttons, its help and terms in the footer.
 * The colour must reach 4.5:1 against white (WCAG 2.2, 1.4.3), because it is both link text on
 * white and the background of white button text; a colour that fails is refused with its ratio.
 */
export const brandingSchema = z
  .strictObject({
    displayName: z.string().trim().min(1).max(80).openapi({ description: 'The name fans know the partner by; the header shows it (or the logo, with it as the text alternative).', example: 'Partner Tickets' }),
    logoUrl: httpsImage().optional().openapi({ description: 'The partner’s logo (https), shown at most 40 px tall in the header.', example: 'https://partner.example/logo.svg' }),
    color: hex()
      .refine((c) => !HEX.test(c) || contrastRatio(c, '#ffffff') >= BRAND_MIN_CONTRAST, {
        // A malformed colour is the pattern's to report (checks go on after a failed one).
        error: (issue) => `must reach ${BRAND_MIN_CONTRAST}:1 against white (links and button backgrounds); ${String(issue.input)} reaches ${contrastRatio(String(issue.input), '#ffffff').toFixed(2)}:1`,
      })
      .optional()
      .openapi({ description: 'Brand colour of links and buttons; at least 4.5:1 against white.', example: '#0b4fb3' }),
    supportUrl: z.url({ protocol: /^https?$/, error: whenPresent('must be an http(s) URL') }).max(2048).optional().openapi({ description: 'Where fans get help; linked in every page’s footer.', example: 'https://partner.example/help' }),
    termsUrl: z.url({ protocol: /^https?$/, error: whenPresent('must be an http(s) URL') }).max(2048).optional().openapi({ description: 'The partner’s resale terms; linked in every page’s footer and next to the checkout’s pay button.', example: 'https://partner.example/terms' }),
  })
  .openapi('Branding');
export type Branding = z.output<typeof brandingSchema>;

/**
 * Which code the venue's scanners read on ticketShield shows, and how often the rotating one
 * changes. `partner`: the partner's own QR (`ticketAccess.locator`), shown in the secure view
 * once unlocked. `rotating`: the service's rotating code bound to the holder's phone
 * (domain/admission); the partner's QR is then never shown. A show may override both
 * (`PUT /admin/v1/partners/{partnerId}/ticketShield`).
 */
export const admissionCodesSchema = z
  .strictObject({
    venueScans: z.enum(VENUE_SCANS).openapi({ description: "Which code the venue scans on ticketShield shows: the partner's own QR (`partner`) or the rotating, holder-bound code (`rotating`).", example: 'rotating' }),
    rotationSeconds: z.number().int().min(ROTATION_MIN).max(ROTATION_MAX).openapi({ description: `Seconds each rotating code is shown before the next (${ROTATION_MIN}–${ROTATION_MAX}).`, example: ROTATION_DEFAULT }),
  })
  .openapi('AdmissionCodesSettings');
export type AdmissionCodesSettings = z.output<typeof admissionCodesSchema>;

/** The partner's QR, and 15-second steps when a partner or show turns rotating codes on. */
export const DEFAULT_ADMISSION_CODES: AdmissionCodesSettings = { venueScans: 'partner', rotationSeconds: ROTATION_DEFAULT };

const settingsShape = {
  ownershipUrl: url().openapi({ description: "The platform's ticket ownership endpoint (GET ?user=)." }),
  loginUrl: url().openapi({ description: "The platform's sign-in page for Login Force; receives returnTo." }),
  siteUrl: url()
    .optional()
    .openapi({
      description:
        "The partner's own site (its home or events page): the hosted pages' way back (the header's brand and its Back link) when the fan came without a checked returnTo. Null: no way back then.",
      example: 'https://tickets.partner.example/',
    }),
  webhookUrl: url().openapi({ description: 'Where webhooks are delivered. While it is null, messages wait (pending, not attempted) and go out, in order, once one is set.' }),
  eventsFeedUrl: url().openapi({ description: 'Pull sync: the JSON array of active events.' }),
  cancelledFeedUrl: url().openapi({ description: 'Pull sync: the JSON array of cancellations.' }),
  feedPollSeconds: z.number().int().min(5).max(86_400).openapi({ description: 'How often the feeds are polled.', example: 300 }),
  qrLockHoursBeforeShow: z.number().min(0).max(720).openapi({ description: 'QR codes unlock this many hours before the show (ticketShield).', example: 3 }),
  buyIntentionTtlSeconds: z.number().int().min(60).max(3_600).openapi({ description: 'Lifetime of a checkout reservation.', example: 600 }),
  oneTimeTokenTtlSeconds: z.number().int().min(30).max(3_600).openapi({ description: 'Lifetime of a one-time token.', example: 300 }),
  payoutDelayDays: z.number().int().min(0).max(90).openapi({ description: "Seller payouts are distributed this many days after the show's date.", example: 7 }),
  fees: feesSchema,
  defaultLang: z.enum(['en', 'es']).openapi({ description: 'Language of pages and texts when a request names none.', example: 'en' }),
  webhookEvents: z
    .array(z.enum(WEBHOOK_ACTIONS))
    .nullable()
    .openapi({ description: 'Webhook actions the partner receives; null receives every kind.', example: ['ticket.update', 'ticketShield.updated'] }),
  sellBanner: sellBannerSchema.nullable().openapi({ description: 'The sell banner component; null shows none.' }),
  buyAccessLayer: buyAccessLayerSchema.nullable().openapi({ description: 'Components of the buy access layer; null gives the default set (a visible buy button and the categories list).' }),
  allowedOrigins: z
    .array(
      z
        .string()
        .max(200)
        .transform(normaliseOrigin)
        .pipe(z.string().regex(ORIGIN_PATTERN, 'must be an origin: http(s)://host[:port], no path')),
    )
    .max(50)
    .openapi({
      description:
        'Origins of the partner’s web pages that may call the public-key endpoints from a browser (the widgets): CORS is answered for them only. Private-key endpoints never answer CORS.',
      example: ['https://tickets.partner.example'],
    }),
  rateLimitPerMinute: z.number().int().min(0).max(1_000_000).nullable().openapi({
    description: "Requests per minute for the partner's whole API; null uses the server default, 0 disables.",
    example: null,
  }),
  holdLimits: holdLimitsSchema.openapi({ description: 'Limits on live checkout holds per buyer, per buyer and show, and per client address.' }),
  branding: brandingSchema.nullable().openapi({ description: 'How the hosted pages present the partner (name or logo, colour, help and terms links); null shows the partner’s name in the service’s colours.' }),
  admissionCodes: admissionCodesSchema.openapi({ description: 'Which code the venue scans on ticketShield shows, and the rotating code’s step; a show may override it.' }),
};

/** The stored settings, every field present. */
export const settingsSchema = z.strictObject(settingsShape).openapi('PartnerSettings');
export type PartnerSettings = z.output<typeof settingsSchema>;

export const DEFAULT_SETTINGS: PartnerSettings = {
  ownershipUrl: null,
  loginUrl: null,
  siteUrl: null,
  webhookUrl: null,
  eventsFeedUrl: null,
  cancelledFeedUrl: null,
  feedPollSeconds: 300,
  qrLockHoursBeforeShow: 3,
  buyIntentionTtlSeconds: 600,
  oneTimeTokenTtlSeconds: 300,
  payoutDelayDays: 7,
  fees: { buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 5, sellerFixedMinor: 0 },
  defaultLang: 'en',
  webhookEvents: null,
  sellBanner: null,
  buyAccessLayer: null,
  allowedOrigins: [],
  rateLimitPerMinute: null,
  holdLimits: DEFAULT_HOLD_LIMITS,
  branding: null,
  admissionCodes: DEFAULT_ADMISSION_CODES,
};

/** What an operator sends: any subset, plus the write-only `platformSecret` (null clears it). */
export const settingsPatchSchema = z
  .strictObject({
    ...settingsShape,
    fees: feesSchema.partial(),
    holdLimits: holdLimitsSchema.partial(),
    admissionCodes: admissionCodesSchema.partial(),
    platformSecret: z.string().min(16, 'must be at least 16 characters').max(500).nullable().openapi({
      description: 'Secret header value the service sends to the platform on every request. Write-only.',
    }),
  })
  .partial()
  .openapi('PartnerSettingsPatch');
export type PartnerSettingsPatch = z.output<typeof settingsPatchSchema>;

/** Applies a patch to stored settings. */
export function mergeSettings(current: PartnerSettings, patch: PartnerSettingsPatch): PartnerSettings {
  const { platformSecret: _secret, fees, holdLimits, admissionCodes, ...rest } = patch;
  const next: PartnerSettings = { ...current };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  if (fees) next.fees = { ...current.fees, ...defined(fees) };
  // Stored settings from before holdLimits existed lack it: the defaults fill in.
  if (holdLimits) next.holdLimits = { ...DEFAULT_HOLD_LIMITS, ...current.holdLimits, ...defined(holdLimits) };
  if (admissionCodes) next.admissionCodes = { ...DEFAULT_ADMISSION_CODES, ...current.admissionCodes, ...defined(admissionCodes) };
  return next;
}
