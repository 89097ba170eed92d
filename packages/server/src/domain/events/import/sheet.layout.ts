/**
 * The documented layout of a manual-load sheet (CSV or the first worksheet of an .xlsx):
 * one row per ticket option per show, or, in the price-detail model, one row per
 * combination (ticket option + price type) per show. Columns are found by their header
 * name, case-insensitive, in any order; the columns below are the whole vocabulary, so a
 * header that is not one of them is reported rather than silently dropped (as the API
 * rejects unknown fields). Each column names the field of the `PUT /v1/events` body it
 * fills, so a sheet says exactly what the API would be told. docs/import.md is the
 * operator's copy of this table.
 */

/** Which part of the event body a column fills. */
export type ColumnLevel = 'event' | 'show' | 'ticketOption' | 'priceType' | 'combination';

/**
 * How a cell is read. `text` keeps the text as written (numbers become their decimal
 * text, so an id typed as 1001 in Excel stays '1001'); `code` is text in upper case
 * (enums); `decimal` keeps prices exact (a number, or the text as written); `integer`
 * and `number` are numbers; `boolean` takes true/false/yes/no/1/0; `date` takes a real
 * Excel date or text (ISO 8601 with offset, or a local `YYYY-MM-DD HH:MM` read in the
 * event's `timezone`).
 */
export type ColumnKind = 'text' | 'code' | 'decimal' | 'integer' | 'number' | 'boolean' | 'date';

export interface Column {
  /** The header, as documented (matched case-insensitively). */
  name: string;
  level: ColumnLevel;
  /** Where the value goes in the level's object of the API body (`location.city`). */
  path: readonly string[];
  kind: ColumnKind;
  /** A key column: it says which event, show, ticket option or price type the row is about. */
  key?: true;
  /** Required in the header of every file (the keys). */
  requiredHeader?: true;
  description: string;
  example: string;
}

const col = (name: string, level: ColumnLevel, path: string, kind: ColumnKind, description: string, example: string, extra: Partial<Column> = {}): Column => ({
  name,
  level,
  path: path.split('.'),
  kind,
  description,
  example,
  ...extra,
});

/** Every column of the layout, in the documented order. */
export const COLUMNS: readonly Column[] = [
  col('eventId', 'event', 'externalReferenceId', 'text', "The partner's event id (externalReferenceId); rows with the same eventId form one event.", 'tour-2026', { key: true, requiredHeader: true }),
  col('eventTitle', 'event', 'title', 'text', 'Title of the event. Required for a new event.', 'The Big Tour 2026'),
  col('eventDescription', 'event', 'description', 'text', 'Description (rich text allowed). Empty for a new event when blank.', 'Rock, pop and more'),
  col('venueName', 'event', 'location.venueName', 'text', 'Venue of the event.', 'Arena Norte'),
  col('venueAddress', 'event', 'location.address', 'text', 'Street address of the venue.', 'Calle Mayor 1'),
  col('city', 'event', 'location.city', 'text', 'City.', 'Madrid'),
  col('state', 'event', 'location.state', 'text', 'State or region.', 'Madrid'),
  col('postalCode', 'event', 'location.postalCode', 'text', 'Postal code.', '28013'),
  col('country', 'event', 'location.country', 'text', 'Country.', 'ES'),
  col('timezone', 'event', 'location.timeZone', 'text', 'IANA time zone of the venue; also how dates written without an offset (and real Excel dates) are read.', 'Europe/Madrid'),
  col('ticketDeliveryWhen', 'event', 'configuration.ticketDelivery.time.when', 'code', 'BEFORE or AFTER the start of the show: when QR codes become available. Needs ticketDeliverySeconds.', 'BEFORE'),
  col('ticketDeliverySeconds', 'event', 'configuration.ticketDelivery.time.seconds', 'integer', 'Seconds before or after the start of the show.', '10800'),
  col('redemptionPolicy', 'event', 'configuration.redemption.policy', 'code', 'Will-call policy: NONE, OPTIONAL or MANDATORY.', 'NONE'),
  col('redemptionInstructions', 'event', 'configuration.redemption.instructions', 'text', 'Pick-up instructions.', 'Box office opens two hours before the show.'),
  col('redemptionHoursBeforeShow', 'event', 'configuration.redemption.hoursBeforeShow', 'number', 'Hours before the show the will-call number must be available.', '168'),

  col('showId', 'show', 'showId', 'text', "The partner's show id; rows with the same eventId and showId form one show.", 'tour-2026-madrid-1', { key: true, requiredHeader: true }),
  col('showTitle', 'show', 'title', 'text', 'Title of the show. The event title for a new show when blank.', 'Madrid, night one'),
  col('showDate', 'show', 'date', 'date', 'Start of the show. Required for a new show.', '2026-05-01T21:00:00+02:00'),
  col('showStatus', 'show', 'status', 'code', 'LIVE or CANCELLED. CANCELLED cancels the show, as the API does (buyers refunded, payouts stopped).', 'LIVE'),
  col('primarySalesUrl', 'show', 'primarySalesUrl', 'text', 'Primary-sale page of the show.', 'https://partner.example/tour-2026/madrid-1'),
  col('imageUrl', 'show', 'images', 'text', 'Main image of the show (http or https URL).', 'https://partner.example/img/tour.jpg'),
  col('resaleEnabled', 'show', 'resaleEnabled', 'boolean', 'false closes resale of the show completely.', 'true'),

  col('ticketOptionId', 'ticketOption', 'ticketId', 'text', "The partner's ticket option id (ticketId).", 'opt-field', { key: true, requiredHeader: true }),
  col('ticketOptionName', 'ticketOption', 'title', 'text', 'Name of the ticket option. Required for a new ticket option.', 'General field'),
  col('ticketOptionDescription', 'ticketOption', 'description', 'text', 'Description of the ticket option. Empty for a new option when blank.', 'Standing, field level'),
  col('price', 'ticketOption', 'price', 'decimal', 'Base price in major units, fees excluded.', '45.50'),
  col('currency', 'ticketOption', 'currency', 'text', 'ISO 4217 currency of the prices of the option. Required for a new ticket option.', 'EUR'),
  col('area', 'ticketOption', 'area', 'text', 'Zone grouper for filters and per-zone metrics.', 'Field'),
  col('stock', 'ticketOption', 'stock', 'integer', 'Tickets of the option.', '500'),

  col('priceTypeId', 'priceType', 'priceTypeId', 'text', "The partner's price type id. A row with one is a combination of its ticket option and this price type.", 'pt-early', { key: true }),
  col('priceTypeName', 'priceType', 'title', 'text', 'Name of the price type.', 'Early bird'),
  col('combinationPrice', 'combination', 'price', 'decimal', 'Price of the combination, fees excluded; wins over the option price. Required with priceTypeId.', '39.00'),
];

const BY_NAME = new Map(COLUMNS.map((c) => [c.name.toLowerCase(), c]));

/** The column a header names (case-insensitive, surrounding spaces ignored), if any. */
export function columnOf(header: string): Column | undefined {
  return BY_NAME.get(header.trim().toLowerCase());
}

/** Where each level's object sits in the API body; `*` stands for an index. */
export const LEVEL_PREFIX: Record<ColumnLevel, string> = {
  event: '',
  show: 'shows.*.',
  ticketOption: 'shows.*.ticketOptions.*.',
  priceType: 'shows.*.priceTypes.*.',
  combination: 'shows.*.combinations.*.',
};

/**
 * The column behind a field of the API body, by its path with indices as `*`
 * (`shows.*.ticketOptions.*.title` → ticketOptionName). Lets an error of the schema or
 * the service, which names body paths, be told to the operator as a column.
 */
export const COLUMN_BY_PATTERN: ReadonlyMap<string, string> = new Map<string, string>([
  ...COLUMNS.map((c) => [LEVEL_PREFIX[c.level] + c.path.join('.'), c.name] as [string, string]),
  // A combination names its option and price type by the rows' key columns.
  ['shows.*.combinations.*.ticketOptionId', 'ticketOptionId'],
  ['shows.*.combinations.*.priceTypeId', 'priceTypeId'],
]);
