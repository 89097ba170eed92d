/**
 * Type-level check only (never imported at run time): the hand-written interfaces of types.ts
 * accept what the server's zod schemas produce. `tsc -p packages/widgets` fails when a schema
 * changes a field the widgets read.
 */
import type { z } from '@hono/zod-openapi';
import type { BuyComponentSchema, SellAccessLayerResponse, ShowStockSchema } from '@resale/server/schemas';
import type { Stock } from './stock-stream.js';
import type { BuyComponent, SellBannerComponent, SellOrderEntry, SellTicketEntry } from './types.js';

type Assert<T extends true> = T;
type Extends<A, B> = [A] extends [B] ? true : false;

type Sell = z.output<typeof SellAccessLayerResponse>;

export type Checks = [
  Assert<Extends<z.output<typeof BuyComponentSchema>, BuyComponent>>,
  Assert<Extends<NonNullable<Sell['tickets']>[number], SellTicketEntry>>,
  Assert<Extends<NonNullable<Sell['orders']>[number], SellOrderEntry>>,
  Assert<Extends<NonNullable<Sell['components']>[number], SellBannerComponent>>,
  // The live stock the stream sends (its `snapshot` and `stock` events) is what stock-stream.ts reads.
  Assert<Extends<z.output<typeof ShowStockSchema>, Stock>>,
];
