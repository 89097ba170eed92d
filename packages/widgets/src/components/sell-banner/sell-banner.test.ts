import { afterEach, describe, expect, it, vi } from 'vitest';
import { $, cta, mount, shadow, text } from '../../internal/test-utils.js';
import type { SellBannerComponent } from '../../internal/types.js';

const banner = (over: Partial<SellBannerComponent['sellBanner']> = {}): SellBannerComponent => ({
  type: 'banner',
  class: 'sellBanner',
  sellBanner: { title: 'Can’t go?', description: 'Resell safely.', image: null, visible: true, colors: { background: '#fff', text: '#1f2328' }, callToAction: cta({ text: 'Sell' }), ...over },
});

afterEach(() => document.body.replaceChildren());

describe('<resale-sell-banner>', () => {
  it('renders the banner and its call to action', async () => {
    const el = await mount('resale-sell-banner', { component: banner() });
    expect(text($(el, '[part="title"]'))).toBe('Can’t go?');
    expect(shadow(el).querySelector('img')).toBeNull();
    expect(text($(el, 'a[part~="cta"]'))).toBe('Sell');
  });

  it('renders nothing when visible is false', async () => {
    const el = await mount('resale-sell-banner', { component: banner({ visible: false }) });
    expect(shadow(el).children).toHaveLength(0);
  });

  it('dispatches resale-cta-click with the sellBanner class', async () => {
    const el = await mount('resale-sell-banner', { component: banner() });
    const seen = vi.fn((e: Event) => e.preventDefault());
    el.addEventListener('resale-cta-click', seen);
    $(el, 'a').click();
    expect((seen.mock.calls[0]![0] as CustomEvent).detail.componentClass).toBe('sellBanner');
  });

  it('disables a call to action with a non-http URL', async () => {
    const el = await mount('resale-sell-banner', { component: banner({ callToAction: cta({ url: 'javascript:void(0)' }) }) });
    expect(shadow(el).querySelector('a')).toBeNull();
  });
});
