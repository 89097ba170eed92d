import { html, nothing, type PropertyDeclarations } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { ResaleElement } from '../../internal/base-element.js';
import { renderCta, returnAddress } from '../../internal/cta.js';
import { Clock, renderYourHold, reservedNote } from '../../internal/held.js';
import { formatPrice, t, ticketCount } from '../../internal/i18n.js';
import { pickColors } from '../../internal/safe.js';
import { renderWaitingJoin, renderWaitingPlace } from '../../internal/waiting.js';
import type { CategoriesListComponent, Category } from '../../internal/types.js';
import { listStyles } from './categories-list.styles.js';

/**
 * Resale offers per ticket category, in the server's order: name, quantity for sale, floor price
 * (per ticket, buyer fee included) and a call to action per category. Hidden categories
 * (`visible` false) are left out; a category with 0 for sale says "none for sale" and shows its
 * call to action as the server decided (disabled when `enabled` is false).
 *
 * Each category's name is the partner's `.labels[ticketOptionId]` when given, else the
 * category's `title` (this service sends it), else its `ticketOptionId`. The price's currency is
 * the category's `currency`, else the `currency` attribute; without either the price shows with
 * two decimals. Every link carries `returnTo` (the `return-to` attribute, else the page's address).
 *
 * Tickets held in checkouts (the call to action's `reserved` and `yourHold`): a category with
 * nothing for sale but tickets reserved by others says so in its quantity, with when they may be
 * back ("1 ticket reserved by another fan — may be back at 18:42") instead of "none for sale"; the
 * fan's own hold of a category shows in its item, with the time left, "Continue to checkout" and
 * "Release them".
 *
 * The show's waiting list (the calls to action's `waitingList`): a category with nothing for sale
 * offers "Join the waiting list" (its join form names the category) in place of its disabled
 * button; a fan in line (answers signed for the fan) sees their place above the list, once
 * (unless `place-elsewhere`).
 *
 * @csspart list - the `<ul>`
 * @csspart category - one `<li>` (attribute `data-empty` when nothing is for sale, `data-reserved` when its quantity says tickets reserved)
 * @csspart name - the category name
 * @csspart quantity - "12 tickets" / "none for sale" / "1 ticket reserved by another fan — may be back at 18:42"
 * @csspart price - "from 50.05"
 * @csspart cta - the call to action of a category
 * @csspart cta-disabled - a call to action the server disabled (a `<button disabled>`)
 * @csspart your-hold - the fan's own hold of a category: "You have 2 tickets reserved (4:59 left)" and its links
 * @csspart your-hold-title - its sentence (or "Your reservation has ended")
 * @csspart your-hold-time - the time left, "(4:59 left)"
 * @csspart your-hold-continue - the link to the fan's checkout
 * @csspart your-hold-release - the link to release the tickets (the market page)
 * @csspart waiting-join - a category's "Join the waiting list" (also `cta`)
 * @csspart waiting-place - above the list, the fan's place in line: "You are #3 in line for 2 tickets."
 * @csspart waiting-place-link - its link to the market, where the fan can leave the line
 * @event resale-cta-click - detail carries `ticketOptionId`; cancelable
 */
export class ResaleCategoriesList extends ResaleElement {
  static override styles = listStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
    labels: { attribute: false },
    currency: { type: String },
    returnTo: { type: String, attribute: 'return-to' },
    placeElsewhere: { type: Boolean, attribute: 'place-elsewhere' },
  };

  /** The `categoriesList` item of the buy access layer. */
  declare component: CategoriesListComponent | undefined;
  /** Display names by ticketOptionId. */
  declare labels: Record<string, string> | undefined;
  /** ISO 4217 code of the prices, when the partner knows it. */
  declare currency: string | undefined;
  /**
   * The partner page the market links back to ("Back to …"); default: this page's address. The
   * market shows it only when it is on one of the partner's allowed origins.
   */
  declare returnTo: string | undefined;
  /**
   * The fan's place in the waiting list is shown by another element of the page (the buy
   * button): the list leaves it out rather than say it twice. `<resale-access-layer>` sets it.
   */
  declare placeElsewhere: boolean;

  readonly #clock = new Clock(this);

  #renderCategory(c: Category, back: string | undefined) {
    const lang = this.locale;
    const empty = !(c.quantityForSale > 0);
    const name = this.labels?.[c.ticketOptionId] ?? (c.title || c.ticketOptionId);
    const colors = pickColors(c.callToAction.colors, c.colors);
    const reserved = empty ? reservedNote(lang, c.callToAction.reserved, this.#clock, true) : undefined;
    const detail = { componentClass: 'categoriesList', ticketOptionId: c.ticketOptionId };
    return html`<li class="category" part="category" data-ticket-option-id=${c.ticketOptionId} ?data-empty=${empty} ?data-reserved=${reserved !== undefined}>
      <div class="info">
        <span class="name" part="name">${name}</span>
        <span class="quantity" part="quantity">${empty ? (reserved ?? t(lang, 'noneForSale')) : ticketCount(lang, c.quantityForSale)}</span>
        ${!empty && c.floorPrice > 0
          ? html`<span class="price" part="price">${t(lang, 'from')} ${formatPrice(lang, c.floorPrice, c.currency ?? this.currency)}</span>`
          : nothing}
      </div>
      ${renderWaitingJoin({ cta: c.callToAction, lang, host: this, detail, returnTo: back, colors }) ?? renderCta({ cta: c.callToAction, colors, host: this, detail, returnTo: back })}
      ${renderYourHold({ cta: c.callToAction, lang, clock: this.#clock, host: this, detail, returnTo: back, colors })}
    </li>`;
  }

  override render() {
    const list = this.component?.categoriesList;
    if (!list || list.visible !== true || !Array.isArray(list.categories)) return nothing;
    const shown = list.categories.filter((c) => c && c.visible === true);
    if (shown.length === 0) return nothing;
    const back = returnAddress(this.returnTo);
    // The line is the show's: every category carries the same place; it is said once.
    const first = shown[0]!;
    const place = this.placeElsewhere ? nothing : renderWaitingPlace({ cta: first.callToAction ?? {}, lang: this.locale, host: this, detail: { componentClass: 'categoriesList' }, returnTo: back });
    return html`${place}<ul class="list" part="list" aria-label=${t(this.locale, 'categories')}>
      ${repeat(shown, (c) => c.ticketOptionId, (c) => this.#renderCategory(c, back))}
    </ul>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-categories-list': ResaleCategoriesList;
  }
}
