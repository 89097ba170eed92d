import { describe, expect, it } from 'vitest';
import * as widgets from './index.js';

describe('index', () => {
  it('defines every core element, and the seat map only on demand', async () => {
    for (const tag of ['resale-buy-banner', 'resale-buy-modal', 'resale-buy-button', 'resale-categories-list', 'resale-sell-actions', 'resale-sell-banner', 'resale-access-layer']) {
      expect(customElements.get(tag), tag).toBeDefined();
    }
    expect(customElements.get('resale-seat-map')).toBeUndefined();
    await widgets.loadSeatMap();
    expect(customElements.get('resale-seat-map')?.name).toBe('ResaleSeatMap');
  });

  it('defines safely: a tag already taken is left alone', () => {
    class Other extends HTMLElement {}
    customElements.define('resale-test-taken', Other);
    expect(() => widgets.ResaleBuyButton.define('resale-test-taken')).not.toThrow();
    expect(customElements.get('resale-test-taken')).toBe(Other);
    expect(() => widgets.ResaleBuyButton.define('resale-buy-button')).not.toThrow();
  });

  it('exports the classes, events and version', () => {
    expect(widgets.VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(new widgets.ResaleReadyEvent({ source: 'fetch', count: 1 }).type).toBe('resale-ready');
    const click = new widgets.ResaleCtaClickEvent({ componentClass: 'buyButton', url: 'https://x.test/' });
    expect([click.type, click.bubbles, click.composed, click.cancelable]).toEqual(['resale-cta-click', true, true, true]);
    const error = new widgets.ResaleErrorEvent({ reason: 'network', message: 'x' });
    expect([error.type, error.bubbles, error.composed, error.cancelable]).toEqual(['resale-error', true, true, false]);
    const stock = new widgets.ResaleStockEvent({ source: 'stream' });
    expect([stock.type, stock.bubbles, stock.composed, stock.cancelable, stock.detail]).toEqual(['resale-stock', true, true, false, { source: 'stream' }]);
  });
});
