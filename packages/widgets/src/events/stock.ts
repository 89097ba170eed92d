/** Where a stock update came from. */
export interface StockDetail {
  /** `stream`: the live stock stream (`GET /v1/wrapper/accesslayer/stream`). */
  source: 'stream';
}

/**
 * Dispatched by `<resale-access-layer>` when live stock changed what its components show
 * (quantities, floor prices, calls to action enabled or not, tickets reserved), once the change
 * is rendered. Not dispatched for the first load (that is `resale-ready`).
 */
export class ResaleStockEvent extends CustomEvent<StockDetail> {
  static readonly eventName = 'resale-stock';
  constructor(detail: StockDetail) {
    super(ResaleStockEvent.eventName, { bubbles: true, composed: true, detail });
  }
}
