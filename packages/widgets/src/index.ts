/**
 * The script-tag bundle and the ES entry. Loading it defines every element (safely: a tag
 * already defined is left alone); `<resale-seat-map>` is defined lazily, by
 * `<resale-access-layer>` when a map is present, by {@link loadSeatMap}, or at start-up when the
 * page already contains one.
 *
 * @example
 * <script type="module" src="https://resale.example/widgets/v1/resale.js"></script>
 * <resale-access-layer event-id="tour-2026" show-id="show-1" public-key="pk_…"></resale-access-layer>
 */
import { ResaleAccessLayer } from './components/access-layer/access-layer.js';
import { ResaleBuyBanner } from './components/buy-banner/buy-banner.js';
import { ResaleBuyButton } from './components/buy-button/buy-button.js';
import { ResaleBuyModal } from './components/buy-modal/buy-modal.js';
import { ResaleCategoriesList } from './components/categories-list/categories-list.js';
import { ResaleSellActions } from './components/sell-actions/sell-actions.js';
import { ResaleSellBanner } from './components/sell-banner/sell-banner.js';
import { setDefaultApiBase } from './internal/api.js';
import { loadSeatMap } from './internal/seat-map-loader.js';

setDefaultApiBase(import.meta.url);

ResaleBuyBanner.define('resale-buy-banner');
ResaleBuyModal.define('resale-buy-modal');
ResaleBuyButton.define('resale-buy-button');
ResaleCategoriesList.define('resale-categories-list');
ResaleSellActions.define('resale-sell-actions');
ResaleSellBanner.define('resale-sell-banner');
ResaleAccessLayer.define('resale-access-layer');

// A page that writes <resale-seat-map> itself (the hosted market page) gets its chunk at once.
// Module scripts run after parsing, so the markup is there.
if (typeof document !== 'undefined' && document.querySelector('resale-seat-map')) void loadSeatMap().catch(() => undefined);

export { ResaleAccessLayer, ResaleBuyBanner, ResaleBuyButton, ResaleBuyModal, ResaleCategoriesList, ResaleSellActions, ResaleSellBanner, loadSeatMap };
export type { ResaleSeatMap } from './components/seat-map/seat-map.js';
export { ResaleElement, VERSION } from './internal/base-element.js';
export { ResaleCtaClickEvent, ResaleErrorEvent, ResaleReadyEvent, ResaleStockEvent, type CtaClickDetail, type ErrorDetail, type ReadyDetail, type StockDetail } from './events/index.js';
export { TOKENS, type TokenName } from './styles/tokens.js';
export type * from './internal/types.js';
