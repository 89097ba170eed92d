/** What a call to action was clicked for. */
export interface CtaClickDetail {
  /** The component class: buyBanner, buyModal, buyButton, categoriesList, integratedMap, sellBanner, or sellActions. */
  componentClass: string;
  /** The URL the click navigates to (already checked to be http(s)). */
  url: string;
  /** The category's ticket option, or the ticket option of the seat-map selection. */
  ticketOptionId?: string;
  /** The sell CTA key (SELL, EDIT …) for sell actions. */
  key?: string;
  /** The ticket or order of sell actions. */
  ticketId?: string;
  orderId?: string;
  /** The listings picked on the seat map. */
  listingIds?: string[];
  /** A link of the fan's own hold (buy button, categories list): to its checkout, or to release it. */
  hold?: 'continue' | 'release';
  /** A link of the show's waiting list (buy button, categories list): to join it, or to the fan's place in it. */
  waitingList?: 'join' | 'place';
}

/**
 * Dispatched before a call to action navigates. Cancelable: `preventDefault()` stops the
 * navigation, so a partner can route it itself (a single-page app, an in-app browser).
 *
 * @example
 * document.addEventListener('resale-cta-click', (e) => { e.preventDefault(); router.go(e.detail.url); });
 */
export class ResaleCtaClickEvent extends CustomEvent<CtaClickDetail> {
  static readonly eventName = 'resale-cta-click';
  constructor(detail: CtaClickDetail) {
    super(ResaleCtaClickEvent.eventName, { bubbles: true, composed: true, cancelable: true, detail });
  }
}
