import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { seatMapData } from '../../flows/market.seatmap.js';

const id = () => z.string().trim().min(1).max(200);
const Seat = z.object({ section: z.string().nullable(), row: z.string().nullable(), seat: z.string().nullable() });

export const SeatMapSchema = z
  .object({
    eventId: z.string().openapi({ example: 'tour-2026' }),
    showId: z.string().openapi({ example: 'show-1' }),
    chart: z
      .object({
        svgCode: z.string().nullable().openapi({ description: 'The event’s SVG chart as stored: sanitised when the partner sent it (no scripts, event handlers, `<foreignObject>` or references outside the chart; zones carry `data-area`, seats `data-section`, `data-row`, `data-seat`). The widget sanitises again before rendering.' }),
        image: z.string().nullable().openapi({ description: 'The chart as an image URL, when no SVG was sent.' }),
      })
      .openapi({ description: 'The event’s seating chart.' }),
    config: z.object({ allowOrphanTicketSelection: z.boolean().openapi({ description: 'Whether a pick may leave a single free seat in a row.' }) }),
    areas: z
      .array(
        z.object({
          area: z.string().openapi({ example: 'Pista' }),
          quantityForSale: z.number().int().openapi({ example: 12 }),
          floorPrice: z.number().openapi({ example: 50.05, description: 'Lowest price per ticket in the area, buyer fee included, major units.' }),
          currency: z.string().openapi({ example: 'EUR' }),
          ticketOptionIds: z.array(z.string()).openapi({ example: ['opt-field'] }),
        }),
      )
      .openapi({ description: 'Areas with offers.' }),
    listings: z
      .array(
        z.object({
          listingId: z.string().openapi({ example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
          ticketOptionId: z.string().openapi({ example: 'opt-field' }),
          area: z.string().nullable().openapi({ example: 'Pista' }),
          quantity: z.number().int().openapi({ example: 2, description: 'Tickets of the listing, sold together.' }),
          price: z.number().openapi({ example: 50.05, description: 'Per ticket, buyer fee included, major units.' }),
          currency: z.string().openapi({ example: 'EUR' }),
          seats: z.array(Seat),
        }),
      )
      .openapi({ description: 'Every listing for sale in the show, cheapest first.' }),
    selectUrl: z.string().openapi({ description: 'Where the pick continues: append `&listingIds=<id>,<id>` and open it (a link the fan follows). Followed from one of the partner’s allowed origins (its `Referer`), it reserves the picked listings for the signed-in fan (signing in first when needed) and opens the checkout; from anywhere else it shows the pick on the market with “Reserve and pay”.' }),
  })
  .openapi('SeatMap');

/** `GET /v1/wrapper/seatmap`: what the seat map widget draws, with the public key (browser) or the private key. */
export function seatMapRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/wrapper/seatmap',
      operationId: 'seatMap',
      tags: ['Access layer'],
      summary: 'Seat map data for a show: chart, areas and listings',
      description:
        'What `<resale-seat-map>` draws: the event’s seating chart, the offers per area and every listing with its seats. The public key is enough (CORS for the partner’s allowed origins). ' +
        'Continue to checkout by opening `selectUrl` with `&listingIds=` the picked listings (one ticket option per checkout): the fan goes from the map to the card form. A page that sets `Referrer-Policy: no-referrer` gets the market’s “Reserve and pay” step instead.',
      security: [SECURITY.public, SECURITY.private],
      middleware: [partnerKey(deps, ['public', 'private'])],
      request: {
        query: z.object({
          eventId: id().openapi({ param: { name: 'eventId', in: 'query' }, example: 'tour-2026' }),
          showId: id().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1' }),
          lang: z.enum(['en', 'es']).optional().openapi({ param: { name: 'lang', in: 'query' }, example: 'es' }),
        }),
      },
      responses: { 200: jsonResponse(envelope(SeatMapSchema), 'The seat map'), ...errorResponses(404) },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const partner = c.get('auth').partner;
      const data = await deps.db.read(async (tx) => await seatMapData(tx, partner, q, { publicBaseUrl: deps.config.publicBaseUrl, lang: q.lang ?? partner.settings.defaultLang }));
      return c.json(ok(data), 200);
    },
  );
  return app;
}
