/**
 * `@resale/server/schemas` (package.json `exports`): the zod schemas of answers that another
 * workspace checks its hand-written types against, at the type level only (the widgets'
 * src/internal/types.conformance.ts): the buy and sell access layers, and the live stock.
 */
export { BuyComponentSchema } from './flows/accesslayer/accesslayer.buy.schemas.js';
export { SellAccessLayerResponse } from './flows/accesslayer/accesslayer.schemas.js';
export { ShowStockSchema } from './flows/accesslayer/accesslayer.stream.schemas.js';
