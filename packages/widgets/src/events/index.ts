import type { ResaleCtaClickEvent } from './cta-click.js';
import type { ResaleErrorEvent } from './error.js';
import type { ResaleReadyEvent } from './ready.js';
import type { ResaleStockEvent } from './stock.js';

export { ResaleCtaClickEvent, type CtaClickDetail } from './cta-click.js';
export { ResaleErrorEvent, type ErrorDetail } from './error.js';
export { ResaleReadyEvent, type ReadyDetail } from './ready.js';
export { ResaleStockEvent, type StockDetail } from './stock.js';

declare global {
  interface GlobalEventHandlersEventMap {
    'resale-cta-click': ResaleCtaClickEvent;
    'resale-ready': ResaleReadyEvent;
    'resale-error': ResaleErrorEvent;
    'resale-stock': ResaleStockEvent;
  }
}
