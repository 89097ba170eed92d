import { html, nothing, type PropertyDeclarations } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import { renderCta } from '../../internal/cta.js';
import { t, type MessageKey } from '../../internal/i18n.js';
import { pickColors } from '../../internal/safe.js';
import type { SellEntry } from '../../internal/types.js';
import { sellActionsStyles } from './sell-actions.styles.js';

/** Keys become part names (`cta-SELL`): only plain upper-case keys qualify. */
const KEY = /^[A-Z0-9_]{1,40}$/;
const STATUSES = new Set(['SELLABLE', 'NOT_SELLABLE', 'FOR_SALE', 'SOLD', 'MIXED']);

/**
 * A ticket's or an order's resale state on a My tickets page: a localised status label and one
 * link per call to action, in the server's order. An empty `callToActions` renders no action
 * (the status stays). The partner's server gets the entries from the sell access layer and
 * passes one per element: `.entry=${{status, ticketId, callToActions}}`.
 *
 * @csspart base - the wrapper
 * @csspart status - the status label (attribute `data-status` with the raw status)
 * @csspart actions - the `<ul>` of calls to action
 * @csspart cta - one call to action (also `cta-<KEY>`, e.g. `cta-SELL`)
 * @csspart cta-disabled - a call to action the server disabled (a `<button disabled>`)
 * @event resale-cta-click - detail: componentClass `sellActions`, key, ticketId or orderId, url; cancelable
 */
export class ResaleSellActions extends ResaleElement {
  static override styles = sellActionsStyles;
  static override properties: PropertyDeclarations = {
    entry: { attribute: false },
  };

  /** One `tickets[]` or `orders[]` entry of the sell access layer. */
  declare entry: SellEntry | undefined;

  override render() {
    const entry = this.entry;
    if (!entry || !STATUSES.has(entry.status)) return nothing;
    const lang = this.locale;
    const ids = 'orderId' in entry ? { orderId: entry.orderId } : { ticketId: entry.ticketId };
    const ctas = Array.isArray(entry.callToActions) ? entry.callToActions : [];
    return html`<div class="base" part="base">
      <span class="status" part="status" data-status=${entry.status}>${t(lang, `status_${entry.status}` as MessageKey)}</span>
      ${ctas.length === 0
        ? nothing
        : html`<ul class="actions" part="actions" aria-label=${t(lang, 'resaleActions')}>
            ${ctas.map(
              (c) =>
                html`<li>${renderCta({ cta: c, colors: pickColors(c.colors), host: this, part: KEY.test(c.key) ? `cta-${c.key}` : '', detail: { componentClass: 'sellActions', key: c.key, ...ids } })}</li>`,
            )}
          </ul>`}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-sell-actions': ResaleSellActions;
  }
}
