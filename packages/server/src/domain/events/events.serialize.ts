import { toIso } from '../../lib/clock.js';
import { toMajor } from '../../lib/money.js';
import type { EventAggregate, ShowAggregate } from './events.model.js';
import type { EventOutput } from './events.schemas.js';

/** Drops keys whose value is null or undefined, so optional fields are absent, not null. */
function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/** The event as the API answers it: the fields the partner sent, with the spec's defaults. */
export function eventToApi(agg: EventAggregate): EventOutput {
  return {
    id: agg.id!,
    externalReferenceId: agg.externalReferenceId,
    title: agg.title,
    description: agg.description,
    location: agg.location,
    producers: agg.producers,
    configuration: withDefaults(agg.configuration),
    ...(agg.seating ? { seating: agg.seating } : {}),
    shows: agg.shows.map(showToApi),
    createdAt: toIso(agg.createdAt!),
    updatedAt: toIso(agg.updatedAt!),
  };
}

function withDefaults(c: EventAggregate['configuration']) {
  return { ...c, redemption: c.redemption ?? { policy: 'NONE' as const } };
}

function showToApi(s: ShowAggregate): EventOutput['shows'][number] {
  const show = compact({
    showId: s.showId,
    title: s.title,
    date: toIso(s.startsAt),
    status: s.status,
    primarySalesUrl: s.primarySalesUrl,
    ticketOptions: s.ticketOptions.map((o) => ({
      ...compact({
        ticketId: o.ticketId,
        title: o.title,
        description: o.description,
        currency: o.currency,
        stock: o.stock,
        webVisibility: o.webVisibility,
        webSoldOut: o.webSoldOut,
        area: o.area,
      }),
      // Always present: null says the partner sent no price.
      price: o.priceMinor === null ? null : toMajor(o.priceMinor, o.currency),
    })),
    priceTypes: s.priceTypes.map((p) =>
      compact({
        priceTypeId: p.priceTypeId,
        _id: p.externalObjectId,
        title: p.title,
        description: p.description,
        webVisibility: p.webVisibility,
        webSoldOut: p.webSoldOut,
        stock: p.stock,
        invisible: p.invisible,
        inventory: p.inventory,
      }),
    ),
    combinations: s.combinations.map((c) => {
      const currency = s.ticketOptions.find((o) => o.ticketId === c.ticketOptionId)!.currency;
      return compact({ ticketOptionId: c.ticketOptionId, priceTypeId: c.priceTypeId, price: toMajor(c.priceMinor, currency), description: c.description });
    }),
    images: s.images,
    configuration: s.configuration,
    showRescheduled: s.showRescheduled,
    resaleEnabled: s.resaleEnabled,
    location: s.location,
    dates: s.dates,
    tags: s.tags,
  });
  // Always present: null says the show is not cancelled.
  return { ...show, cancelledAt: s.cancelledAt === null ? null : toIso(s.cancelledAt) } as EventOutput['shows'][number];
}
