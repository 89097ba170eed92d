import { z } from '@hono/zod-openapi';

/** Limits of POST /v1/wrapper/accesslayer/bulk. */
export const BULK_LIMITS = { events: 50, shows: 200 } as const;

const id = () => z.string().trim().min(1).max(200);

const type = z
  .string()
  .refine((v) => v.toLowerCase() === 'buy', { message: 'must be buy (any letter case)' })
  .openapi({ param: { name: 'type', in: 'query' }, example: 'buy', description: 'The access layer mode: `buy` (any letter case).' });
const lang = z.enum(['en', 'es']).optional().openapi({ param: { name: 'lang', in: 'query' }, example: 'es', description: 'Language of the texts and of the pages the URLs open. Defaults to the partner’s language.' });
const loginTrust = z
  .string()
  .min(1)
  .optional()
  .openapi({
    param: { name: 'loginTrust[user]', in: 'query' },
    example: 'fan@example.com',
    description: 'E-mail, E.164 phone or user id of the signed-in user: every URL of the answer then carries its own single-use oneTimeToken (Login Trust). Needs the private key.',
  });

export const BuyQuery = z.object({
  type,
  eventId: id().openapi({ param: { name: 'eventId', in: 'query' }, example: 'tour-2026', description: 'The partner’s event id (externalReferenceId).' }),
  showId: id().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1', description: 'The partner’s show id.' }),
  lang,
  'loginTrust[user]': loginTrust,
});

export const BulkQuery = z.object({ type, lang, 'loginTrust[user]': loginTrust });

export const BulkBody = z
  .array(
    z.strictObject({
      eventId: id().openapi({ example: 'tour-2026' }),
      showIds: z.array(id()).min(1).max(BULK_LIMITS.shows).openapi({ example: ['show-1', 'show-2'] }),
    }),
  )
  .max(BULK_LIMITS.events)
  .superRefine((items, ctx) => {
    const shows = items.reduce((n, i) => n + i.showIds.length, 0);
    if (shows > BULK_LIMITS.shows) ctx.addIssue({ code: 'custom', message: `must name at most ${BULK_LIMITS.shows} shows in all (${shows} sent)`, input: items });
  })
  .openapi('BuyAccessLayerBulkRequest', { description: `At most ${BULK_LIMITS.events} events and ${BULK_LIMITS.shows} shows in all.` });

const Colors = z.object({ background: z.string().openapi({ example: '#0b4fb3' }), text: z.string().openapi({ example: '#ffffff' }) }).openapi('ComponentColors');

const Cta = z
  .object({
    text: z.string().openapi({ example: 'Buy resale tickets' }),
    url: z.string().openapi({ example: 'https://resale.example/market/ptr_…/tour-2026?showId=show-1&lang=en' }),
    enabled: z.boolean().openapi({ description: 'false: show it disabled (resale closed or nothing for sale).' }),
    colors: Colors.optional().openapi({ description: 'When configured; they take priority over the component’s colours.' }),
    reserved: z
      .object({
        tickets: z.number().int().openapi({ example: 2 }),
        backAt: z.string().openapi({ example: '2026-06-01T18:42:00.000Z', description: 'When the first of these holds ends unless paid: the tickets may be back on sale then (already past: any moment).' }),
        whose: z.enum(['others', 'any']).openapi({ description: '`others` in an answer signed for a fan (their own holds are in `yourHold`); `any` in an unsigned answer, which cannot tell whose.' }),
      })
      .optional()
      .openapi({ description: 'Tickets of this call to action’s scope (the show, or the category) held in other checkouts waiting for payment; absent when none. With nothing for sale, say “reserved by another fan — may be back at 18:42” rather than “none for sale”.' }),
    yourHold: z
      .object({
        tickets: z.number().int().openapi({ example: 2 }),
        expiresAt: z.string().openapi({ example: '2026-06-01T18:42:00.000Z', description: 'When the hold ends unless paid.' }),
        url: z.string().openapi({ description: 'The fan’s checkout, signed as the other URLs.' }),
        releaseUrl: z.string().openapi({ description: 'The market page, where the fan sees the hold and can release it, signed as the other URLs.' }),
      })
      .optional()
      .openapi({ description: 'Only with `loginTrust[user]`: the fan’s own checkout of this scope still holding tickets. Say “You have these tickets reserved — continue to checkout (mm:ss left)” linking `url`, and “release them” linking `releaseUrl`.' }),
    waitingList: z
      .object({
        fans: z.number().int().openapi({ example: 12, description: 'Fans in the show’s line (waiting, or holding an offer). The line is the show’s, whatever the category.' }),
        joinUrl: z.string().openapi({ description: 'The market page’s join form (`#waitinglist`), with the category of a category’s call to action; signed as the other URLs.' }),
        yours: z
          .object({
            position: z.number().int().openapi({ example: 3, description: '1: the next fan a fitting ticket is offered to. An order, not a promise: a listing goes to the earliest entry it satisfies.' }),
            quantity: z.number().int().openapi({ example: 2 }),
            state: z.enum(['WAITING', 'OFFERED']).openapi({ description: '`OFFERED`: tickets are held for this fan until `offerExpiresAt`.' }),
            offerExpiresAt: z.string().optional().openapi({ example: '2026-06-01T18:42:00.000Z' }),
            url: z.string().openapi({ description: 'The offer’s checkout while `OFFERED`; otherwise the market, where the fan sees the line and can leave it. Signed.' }),
          })
          .optional()
          .openapi({ description: 'Only with `loginTrust[user]`, for a fan in the line: say “You are #3 in line” (or “Tickets are held for you — buy before 18:42”) linking `url`.' }),
      })
      .optional()
      .openapi({ description: 'While the organiser has the show’s waiting list on and resale is open. With nothing for sale (`enabled` false), say “Join the waiting list · 12 fans waiting” linking `joinUrl` rather than a disabled button.' }),
  })
  .openapi('BuyCallToAction');

const visible = z.boolean().openapi({ description: 'false: the partner must not render it.' });

export const BuyBannerComponentSchema = z
  .object({
    type: z.literal('banner'),
    class: z.literal('buyBanner'),
    buyBanner: z.object({ title: z.string(), description: z.string(), image: z.string().nullable(), visible, colors: Colors, callToAction: Cta }),
  })
  .openapi('BuyBannerComponent');

export const BuyModalComponentSchema = z
  .object({
    type: z.literal('modal'),
    class: z.literal('buyModal'),
    buyModal: z.object({ title: z.string(), description: z.string(), image: z.string(), visible, callToAction: Cta }),
  })
  .openapi('BuyModalComponent', { description: 'The partner supplies the overlay and the close behaviour.' });

export const BuyButtonComponentSchema = z
  .object({
    type: z.literal('button'),
    class: z.literal('buyButton'),
    buyButton: z.object({ visible, callToAction: Cta, colors: Colors }),
  })
  .openapi('BuyButtonComponent');

const CategorySchema = z
  .object({
    ticketOptionId: z.string().openapi({ example: 'opt-field' }),
    title: z.string().openapi({ example: 'General field', description: 'The ticket option’s visible name (`title` in the event). Added to the spec’s shape.' }),
    currency: z.string().openapi({ example: 'EUR', description: 'ISO 4217 code of `floorPrice`. Added to the spec’s shape.' }),
    quantityForSale: z.number().int().openapi({ example: 12, description: 'Tickets for sale now; 0 = none.' }),
    floorPrice: z.number().openapi({ example: 50.05, description: 'Lowest price per ticket, buyer fee included, in major units of the ticket option’s currency; 0 when nothing is for sale.' }),
    visible,
    callToAction: Cta,
    colors: Colors.optional(),
  })
  .openapi('BuyCategory');

export const CategoriesListComponentSchema = z
  .object({
    type: z.literal('list'),
    class: z.literal('categoriesList'),
    categoriesList: z.object({
      visible,
      categories: z.array(CategorySchema).openapi({ description: 'One per ticket option of the show, in the show’s order; options disabled by the operator are absent.' }),
    }),
  })
  .openapi('CategoriesListComponent');

const BestListingSchema = z
  .object({
    listingId: z.string(),
    ticketOptionId: z.string(),
    area: z.string().nullable(),
    quantity: z.number().int().openapi({ description: 'Tickets of the listing, sold together.' }),
    currency: z.string(),
    price: z.number().openapi({ description: 'Per ticket, buyer fee included, in major units.' }),
    seats: z.array(z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() })),
    url: z.string().openapi({ description: 'The market page with this listing marked.' }),
  })
  .openapi('BuyBestListing');

export const IntegratedMapComponentSchema = z
  .object({
    type: z.literal('map'),
    class: z.literal('integratedMap'),
    integratedMap: z.object({
      map: z.object({
        config: z.object({ allowOrphanTicketSelection: z.boolean() }),
        totalCount: z.number().int().openapi({ description: 'Tickets for sale in the show.' }),
        bestListing: BestListingSchema.nullable().openapi({ description: 'The cheapest offer.' }),
        results: z
          .array(
            z.object({
              area: z.string(),
              quantityForSale: z.number().int(),
              floorPrice: z.number().openapi({ description: 'Lowest price per ticket in the area, buyer fee included (in the currency of the option that has it); 0 when nothing is for sale.' }),
              ticketOptionIds: z.array(z.string()),
            }),
          )
          .openapi({ description: 'Per area of the show’s ticket options.' }),
      }),
    }),
  })
  .openapi('IntegratedMapComponent', { description: 'Only for events with a seating chart whose offers carry an area, when the partner enabled the map.' });

export const BuyComponentSchema = z
  .union([BuyBannerComponentSchema, BuyModalComponentSchema, BuyButtonComponentSchema, CategoriesListComponentSchema, IntegratedMapComponentSchema])
  .openapi('BuyComponent');

export const BuyComponentsResponse = z.array(BuyComponentSchema).openapi('BuyAccessLayer');

export const BulkResponse = z
  .array(
    z.object({
      eventId: z.string(),
      showId: z.string(),
      components: z.array(z.union([BuyBannerComponentSchema, BuyModalComponentSchema, BuyButtonComponentSchema])).openapi({ description: 'Empty for an unknown event or show.' }),
    }),
  )
  .openapi('BuyAccessLayerBulk', { description: 'One entry per requested show, in request order.' });
