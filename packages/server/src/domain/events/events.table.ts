import { VENUE_SCANS } from '@resale/shared/admission-code';
import { dbTable, index, integer, text, uniqueIndex } from '../../db/schema-builders.js';
import { timestamps, partnerColumn } from '../../db/columns.js';
import type {
  Configuration,
  ImageIn,
  InventoryIn,
  Location,
  Producer,
  Seating,
  ShowDates,
} from './events.schemas.js';

/** An event (a tour), identified by the partner's `externalReferenceId` within the partner. */
export const events = dbTable(
  'events',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    externalReferenceId: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    location: text({ mode: 'json' }).$type<Location>().notNull(),
    producers: text({ mode: 'json' }).$type<Producer[]>().notNull(),
    configuration: text({ mode: 'json' }).$type<Configuration>().notNull(),
    seating: text({ mode: 'json' }).$type<Seating>(),
    /** How the event reached us: `api`, `feed` or `import`. */
    source: text({ enum: ['api', 'feed', 'import'] }).notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('events_partner_ref_uq').on(t.partnerId, t.externalReferenceId)],
);

/** Show statuses: the API's LIVE/CANCELLED and the pull feed's states, in one column. */
export const SHOW_STATUSES = ['LIVE', 'CANCELLED', 'ON_SALE', 'ANNOUNCED', 'RESCHEDULED', 'HIDDEN', 'PRIVATE'] as const;
export type ShowStatus = (typeof SHOW_STATUSES)[number];

/** A performance of an event. */
export const shows = dbTable(
  'shows',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    eventPk: text()
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    showId: text().notNull(),
    title: text().notNull(),
    /** Start of the show, UTC epoch ms. */
    startsAt: integer().notNull(),
    status: text({ enum: SHOW_STATUSES }).notNull(),
    primarySalesUrl: text(),
    images: text({ mode: 'json' }).$type<ImageIn[]>().notNull(),
    configuration: text({ mode: 'json' }).$type<Configuration>().notNull(),
    location: text({ mode: 'json' }).$type<Location>(),
    showRescheduled: integer({ mode: 'boolean' }).notNull(),
    resaleEnabled: integer({ mode: 'boolean' }).notNull(),
    dates: text({ mode: 'json' }).$type<ShowDates>(),
    /** `dates.salesStartAt` as epoch ms, so ANNOUNCED shows can be promoted by a query. */
    salesStartAt: integer(),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    cancelledAt: integer(),
    /** ticketShield: tickets are shown only through the secure ticket view. Switched by the operator. */
    ticketShield: integer({ mode: 'boolean' }).notNull().default(false),
    /** The show's override of the partner's `admissionCodes.venueScans` (`partner` or `rotating`); null follows the partner. Switched by the operator with ticketShield. */
    venueScans: text({ enum: VENUE_SCANS }),
    /** The show's override of the partner's `admissionCodes.rotationSeconds`; null follows the partner. */
    rotationSeconds: integer(),
    /** When the `event.unlock` webhook went out for this show; null until then. */
    unlockAnnouncedAt: integer(),
    position: integer().notNull(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('shows_event_show_uq').on(t.eventPk, t.showId),
    index('shows_announced_idx').on(t.status, t.salesStartAt),
  ],
);

/** An access category of a show (the spec's ticketOption; its partner id is `ticketId`). */
export const ticketOptions = dbTable(
  'ticket_options',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    ticketId: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    currency: text().notNull(),
    /** Base price in minor units, fees excluded; null when the partner sent none. */
    priceMinor: integer(),
    stock: integer(),
    webVisibility: integer({ mode: 'boolean' }).notNull(),
    webSoldOut: integer({ mode: 'boolean' }),
    area: text(),
    position: integer().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('ticket_options_show_ticket_uq').on(t.showPk, t.ticketId)],
);

/** How a price was originally set (early bird, presale …). */
export const priceTypes = dbTable(
  'price_types',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    priceTypeId: text().notNull(),
    /** The partner's opaque `_id`, kept and echoed as sent. */
    externalObjectId: text({ mode: 'json' }).$type<unknown>(),
    title: text(),
    description: text(),
    webVisibility: integer({ mode: 'boolean' }).notNull(),
    webSoldOut: integer({ mode: 'boolean' }),
    stock: integer(),
    invisible: integer({ mode: 'boolean' }).notNull(),
    inventory: text({ mode: 'json' }).$type<InventoryIn>(),
    position: integer().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex('price_types_show_price_type_uq').on(t.showPk, t.priceTypeId)],
);

/** A ticketOption + priceType pair that really exists (price detail model). */
export const combinations = dbTable(
  'combinations',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    ticketOptionPk: text()
      .notNull()
      .references(() => ticketOptions.id, { onDelete: 'cascade' }),
    priceTypePk: text()
      .notNull()
      .references(() => priceTypes.id, { onDelete: 'cascade' }),
    /** Minor units in the ticket option's currency; wins over the option's price. */
    priceMinor: integer().notNull(),
    description: text(),
    ...timestamps,
  },
  (t) => [uniqueIndex('combinations_pair_uq').on(t.ticketOptionPk, t.priceTypePk)],
);
