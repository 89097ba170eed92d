import { z } from '@hono/zod-openapi';
import { isCurrency } from '../../lib/money.js';
import { whenPresent } from '../../lib/validation.js';
import { cleanSvgChart, SVG_CHART_UNUSABLE } from './events.svg.js';

/**
 * Request and response schemas of events, shows, ticket options, price types and
 * combinations. `eventSchemas(true)` is the API's (unknown fields are rejected, so a
 * typo is an error, not silence); `eventSchemas(false)` is the pull feed's (unknown
 * fields are ignored, so one extra field of a partner's feed never drops an event).
 */

const isoInstant = () =>
  z.iso
    .datetime({ offset: true, error: whenPresent('must be an ISO 8601 date-time with an offset, such as 2026-05-01T21:00:00+02:00') })
    .openapi({ example: '2026-05-01T21:00:00+02:00' });

const httpUrl = () =>
  z
    .url({ protocol: /^https?$/, error: whenPresent('must be an http(s) URL') })
    .max(2048)
    .openapi({ example: 'https://partner.example/img/poster.jpg' });

const text = (max = 500) => z.string().max(max);
const idString = () => z.string().trim().min(1, 'must not be empty').max(200);

const currency = () =>
  z
    .string()
    .refine(isCurrency, 'must be an ISO 4217 currency code such as EUR')
    .transform((c) => c.toUpperCase())
    .openapi({ example: 'EUR', description: 'ISO 4217 currency code' });

/** A price as the partner sends it: a number or a numeric string, in major units, fees excluded. */
const priceInput = () =>
  z.union([z.number().nonnegative('must not be negative'), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as 19.99')]).openapi({
    example: 45.5,
    description: 'Base price in major units, fees and charges excluded. A number or a numeric string.',
  });

const tag = () =>
  z
    .string()
    .regex(/^[^:\s][^:]*:.+$/, 'must be a key:value tag')
    .max(200)
    .openapi({ example: 'genre:rock' });

const PAYMENT_METHODS = ['WALLET', 'CARD', 'BANK_TRANSFER'] as const;

/**
 * `seating.svgCode`: sanitised here, while the request (or feed item) is validated, so the work
 * is done before the write transaction; the events service checks again (a hit of the same
 * memo) for callers that bypass the schema.
 */
const svgChart = () =>
  z
    .string()
    .max(1_000_000)
    .transform((code, ctx) => {
      const clean = cleanSvgChart(code);
      if (clean === null) ctx.addIssue({ code: 'custom', message: SVG_CHART_UNUSABLE });
      return clean ?? '';
    });

/** Builds the schema family; see the module comment for `strict`. */
export function eventSchemas(strict: boolean) {
  const obj = (strict ? z.strictObject : z.object) as typeof z.object;
  const named = <T extends z.ZodType>(schema: T, name: string): T => (strict ? schema.openapi(name) : schema);

  const location = named(
    obj({
      city: text(200).nullable().default('').openapi({ example: 'Madrid' }),
      state: text(200).nullable().default('').openapi({ example: 'Madrid' }),
      venueName: text(200).nullable().default('').openapi({ example: 'Arena Norte' }),
      address: text(300).nullable().default('').openapi({ example: 'Calle Mayor 1' }),
      country: text(100).nullable().default('').openapi({ example: 'ES' }),
      postalCode: text(20).nullable().default('').openapi({ example: '28013' }),
      timeZone: z
        .string()
        .refine((tz) => {
          try {
            new Intl.DateTimeFormat('en', { timeZone: tz });
            return true;
          } catch {
            return false;
          }
        }, 'must be an IANA time zone such as Europe/Madrid')
        .optional()
        .openapi({ example: 'Europe/Madrid' }),
      raw: text(500).optional().openapi({ description: 'The full address as one text, instead of the separate fields.' }),
      map: obj({
        thumbnail: httpUrl().optional(),
        providerMapsUrl: httpUrl().optional().openapi({ description: "Link to the venue on a maps provider." }),
      }).optional(),
    }),
    'Location',
  );

  const producer = named(
    obj({
      producerId: idString().openapi({ example: 'prod-77' }),
      name: text(200).optional().openapi({ example: 'Live Nation Norte' }),
      emails: z.array(z.email('must be an e-mail address').max(254)).max(20).optional(),
    }),
    'Producer',
  );

  const configuration = named(
    obj({
      ticketDelivery: obj({
        time: obj({
          when: z.enum(['BEFORE', 'AFTER']).openapi({ description: 'Relative to the start of the show.' }),
          seconds: z.number().int().nonnegative().max(366 * 86400).openapi({ example: 10800 }),
        }),
      })
        .optional()
        .openapi({ description: 'When QR codes and access credentials become available relative to the show.' }),
      crossBorderPayments: obj({
        enabled: z.boolean(),
        paymentMethods: z.array(z.enum(PAYMENT_METHODS)).max(3).openapi({
          description: 'WALLET (the wallet provider), CARD (the card processor), BANK_TRANSFER.',
        }),
      }).optional(),
      redemption: obj({
        policy: z.enum(['MANDATORY', 'OPTIONAL', 'NONE']),
        instructions: text(2000).optional().openapi({ example: 'Box office opens two hours before the show.' }),
        hoursBeforeShow: z.number().nonnegative().max(8760).optional().openapi({ example: 168 }),
      }).optional(),
    }),
    'Configuration',
  );

  const image = named(
    obj({
      url: httpUrl(),
      kind: z.enum(['main', 'secondary', 'nft']).default('main'),
      originalUrl: httpUrl().optional(),
    }),
    'Image',
  );

  const seating = named(
    obj({
      image: httpUrl().optional().openapi({ description: 'Seating chart picture.' }),
      svgCode: svgChart()
        .optional()
        .openapi({
          description:
            'Seating chart as SVG (zones carry `data-area`, seats `data-section`, `data-row`, `data-seat`). Sanitised when received and stored clean: ' +
            'scripts, `<foreignObject>`, `<style>`, `<a>`, event handlers, `style` attributes and references outside the chart (`href` other than `#id`, `url(…)` other than `url(#id)`) are removed; ' +
            'shapes, text, ids, classes and `data-*` attributes stay. A chart with nothing usable left (no `<svg>` root with content) is refused (400 naming seating.svgCode). An empty string means no chart.',
          example: '<svg viewBox="0 0 100 60"><rect data-area="Field" x="0" y="0" width="100" height="40"/><g data-section="A" data-row="1"><circle data-seat="1" cx="10" cy="50" r="3"/></g></svg>',
        }),
    }),
    'Seating',
  );

  const inventory = obj({
    releasedTickets: z.number().int().nonnegative().optional(),
    reservedSpace: z.number().int().nonnegative().optional(),
    soldOut: z.boolean().optional(),
    soldPercentage: z.number().min(0).max(100).optional(),
  });

  const ticketOptionFields = {
    ticketId: idString().openapi({ example: 'opt-field', description: "The partner's id of the access category (ticketOptionId elsewhere)." }),
    title: text(200).openapi({ example: 'General field' }),
    description: text(5000).openapi({ example: 'Standing, field level' }),
    currency: currency(),
    price: priceInput().nullable().optional(),
    stock: z.number().int().nonnegative().optional(),
    webVisibility: z.boolean().default(true),
    webSoldOut: z.boolean().optional(),
    area: text(200).optional().openapi({ example: 'Field', description: 'Zone grouper for filters, navigation and per-zone metrics.' }),
  };
  const ticketOption = named(obj(ticketOptionFields), 'TicketOption');

  const priceTypeFields = {
    priceTypeId: idString().openapi({ example: 'pt-early' }),
    _id: z.unknown().optional().openapi({ description: "The partner's own object id, kept and echoed as sent." }),
    title: text(200).optional().openapi({ example: 'Early bird' }),
    description: text(5000).optional(),
    webVisibility: z.boolean().default(true),
    webSoldOut: z.boolean().optional(),
    stock: z.number().int().nonnegative().optional(),
    invisible: z.boolean().default(false),
    inventory: inventory.optional(),
  };
  const priceType = named(obj(priceTypeFields), 'PriceType');

  const combination = named(
    obj({
      ticketOptionId: idString(),
      priceTypeId: idString(),
      price: priceInput(),
      description: text(1000).optional(),
    }),
    'Combination',
  );

  const dates = obj({
    startsAt: isoInstant().optional(),
    salesStartAt: isoInstant().optional(),
    salesEndAt: isoInstant().optional(),
    publicAt: isoInstant().optional(),
  });

  const showFields = {
    showId: idString().openapi({ example: 'show-2026-05-01' }),
    title: text(300).openapi({ example: 'Madrid, night one' }),
    date: isoInstant().openapi({ description: 'Start of the show.' }),
    primarySalesUrl: httpUrl().optional(),
    status: (strict
      ? z.enum(['LIVE', 'CANCELLED'])
      : z.enum(['ON_SALE', 'CANCELLED', 'RESCHEDULED', 'ANNOUNCED', 'HIDDEN', 'PRIVATE'])
    ).optional(),
    ticketOptions: z.array(ticketOption).max(500),
    priceTypes: z.array(priceType).max(500).optional(),
    combinations: z.array(combination).max(5000).optional().openapi({
      description: 'Explicit ticketOption + priceType pairs; mandatory when priceTypes are sent (they may also be posted as COMBINATION rules).',
    }),
    images: z.array(image).max(50),
    configuration,
    showRescheduled: z.boolean().default(false),
    location: location.optional(),
    resaleEnabled: z.boolean().default(true),
    dates: dates.optional(),
    tags: z.array(tag()).max(100).optional(),
  };
  const show = named(obj(showFields), 'Show');

  /** The spec types `shows` as an object while its examples send an array: we accept both. */
  const showsField = <T extends z.ZodType>(item: T) =>
    z.preprocess((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : v), z.array(item).min(1, 'must hold at least one show').max(500));

  const eventFields = {
    externalReferenceId: idString().openapi({ example: 'tour-2026', description: "The partner's event id, used in every later reference." }),
    title: text(300).openapi({ example: 'The Big Tour 2026' }),
    description: text(20_000).openapi({ description: 'Rich text allowed.' }),
    shows: showsField(show),
    location,
    producers: z.array(producer).max(50).optional(),
    configuration,
    seating: seating.optional(),
  };
  const eventCreate = named(obj(eventFields), 'EventCreate');

  // PUT: only externalReferenceId is required; shows, options and price types merge by id.
  const ticketOptionPatch = named(obj({ ...ticketOptionFields, webVisibility: z.boolean().optional() }).partial().required({ ticketId: true }), 'TicketOptionUpdate');
  const priceTypePatch = named(
    obj({ ...priceTypeFields, webVisibility: z.boolean().optional(), invisible: z.boolean().optional() }).partial().required({ priceTypeId: true }),
    'PriceTypeUpdate',
  );
  const showPatch = named(
    obj({
      ...showFields,
      ticketOptions: z.array(ticketOptionPatch).max(500),
      priceTypes: z.array(priceTypePatch).max(500),
      showRescheduled: z.boolean(),
      resaleEnabled: z.boolean(),
    })
      .partial()
      .required({ showId: true }),
    'ShowUpdate',
  );
  const eventUpdate = named(
    obj({ ...eventFields, shows: showsField(showPatch) })
      .partial()
      .required({ externalReferenceId: true }),
    'EventUpdate',
  );

  return { location, producer, configuration, image, seating, ticketOption, priceType, combination, show, eventCreate, eventUpdate, showPatch, dates, inventory };
}

export const apiSchemas = eventSchemas(true);
export const feedSchemas = eventSchemas(false);

export type Location = z.output<typeof apiSchemas.location>;
export type Producer = z.output<typeof apiSchemas.producer>;
export type Configuration = z.output<typeof apiSchemas.configuration>;
export type ImageIn = z.output<typeof apiSchemas.image>;
export type Seating = z.output<typeof apiSchemas.seating>;
export type ShowDates = z.output<typeof apiSchemas.dates>;
export type InventoryIn = z.output<typeof apiSchemas.inventory>;
export type EventCreateInput = z.output<typeof apiSchemas.eventCreate>;
export type EventUpdateInput = z.output<typeof apiSchemas.eventUpdate>;

// ------------------------------------------------------------------ responses

const TicketOptionOut = z
  .object({
    ticketId: z.string().openapi({ example: 'opt-field' }),
    title: z.string(),
    description: z.string(),
    currency: z.string().openapi({ example: 'EUR' }),
    price: z.number().nullable().openapi({ example: 45.5, description: 'Base price in major units, fees excluded; null when none was sent.' }),
    stock: z.number().int().optional(),
    webVisibility: z.boolean(),
    webSoldOut: z.boolean().optional(),
    area: z.string().optional(),
  })
  .openapi('TicketOptionRecord');

const PriceTypeOut = z
  .object({
    priceTypeId: z.string(),
    _id: z.unknown().optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    webVisibility: z.boolean(),
    webSoldOut: z.boolean().optional(),
    stock: z.number().int().optional(),
    invisible: z.boolean(),
    inventory: apiSchemas.inventory.optional(),
  })
  .openapi('PriceTypeRecord');

const CombinationOut = z
  .object({
    ticketOptionId: z.string(),
    priceTypeId: z.string(),
    price: z.number().openapi({ example: 39.0, description: 'Wins over the ticket option’s price.' }),
    description: z.string().optional(),
  })
  .openapi('CombinationRecord');

const LocationOut = z
  .object({
    city: z.string().nullable(),
    state: z.string().nullable(),
    venueName: z.string().nullable(),
    address: z.string().nullable(),
    country: z.string().nullable(),
    postalCode: z.string().nullable(),
    timeZone: z.string().optional(),
    raw: z.string().optional(),
    map: z.object({ thumbnail: z.string().optional(), providerMapsUrl: z.string().optional() }).optional(),
  })
  .openapi('LocationRecord');

const ShowOut = z
  .object({
    showId: z.string(),
    title: z.string(),
    date: z.string().openapi({ example: '2026-05-01T19:00:00.000Z', description: 'Start of the show, in UTC.' }),
    status: z.enum(['LIVE', 'CANCELLED', 'ON_SALE', 'ANNOUNCED', 'RESCHEDULED', 'HIDDEN', 'PRIVATE']),
    primarySalesUrl: z.string().optional(),
    ticketOptions: z.array(TicketOptionOut),
    priceTypes: z.array(PriceTypeOut),
    combinations: z.array(CombinationOut),
    images: z.array(z.object({ url: z.string(), kind: z.enum(['main', 'secondary', 'nft']), originalUrl: z.string().optional() })),
    configuration: apiSchemas.configuration,
    showRescheduled: z.boolean(),
    resaleEnabled: z.boolean(),
    location: LocationOut.optional(),
    dates: apiSchemas.dates.optional(),
    tags: z.array(z.string()),
    cancelledAt: z.string().nullable().openapi({ description: 'When the show was cancelled; null while it is not.' }),
  })
  .openapi('ShowRecord');

export const EventOut = z
  .object({
    id: z.string().openapi({ example: 'evt_01jd8x3k4f5g6h7j8k9m0n1p2q', description: 'The service’s id of the event.' }),
    externalReferenceId: z.string().openapi({ example: 'tour-2026' }),
    title: z.string(),
    description: z.string(),
    location: LocationOut,
    producers: z.array(apiSchemas.producer),
    configuration: apiSchemas.configuration,
    seating: apiSchemas.seating.optional(),
    shows: z.array(ShowOut),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('EventRecord');

export type EventOutput = z.output<typeof EventOut>;
