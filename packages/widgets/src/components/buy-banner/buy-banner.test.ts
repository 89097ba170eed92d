import { afterEach, describe, expect, it } from 'vitest';
import { $, cta, mount, shadow, text } from '../../internal/test-utils.js';
import type { BuyBannerComponent } from '../../internal/types.js';

const banner = (over: Partial<BuyBannerComponent['buyBanner']> = {}): BuyBannerComponent => ({
  type: 'banner',
  class: 'buyBanner',
  buyBanner: {
    title: 'Resale is open',
    description: 'Official resale tickets, guaranteed.',
    image: 'https://cdn.example/banner.png',
    visible: true,
    colors: { background: '#003366', text: '#ffffff' },
    callToAction: cta(),
    ...over,
  },
});

afterEach(() => document.body.replaceChildren());

describe('<resale-buy-banner>', () => {
  it('renders title, description, image and call to action', async () => {
    const el = await mount('resale-buy-banner', { component: banner() });
    expect(text($(el, '[part="title"]'))).toBe('Resale is open');
    expect(text($(el, '[part="description"]'))).toBe('Official resale tickets, guaranteed.');
    expect($(el, '[part="image"]').getAttribute('src')).toBe('https://cdn.example/banner.png');
    expect($(el, 'a[part~="cta"]').getAttribute('href')).toContain('https://resale.example/');
    expect($(el, '[part="base"]').getAttribute('aria-labelledby')).toBe('title');
  });

  it('renders nothing when visible is false', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ visible: false }) });
    expect(shadow(el).querySelector('[part="base"]')).toBeNull();
  });

  it('paints the surface with the banner colours and the call to action inverted', async () => {
    const el = await mount('resale-buy-banner', { component: banner() });
    const base = $(el, '[part="base"]');
    expect(base.style.getPropertyValue('--_banner-bg')).toBe('#003366');
    const a = $(el, 'a');
    expect(a.style.getPropertyValue('--_cta-bg')).toBe('#ffffff');
    expect(a.style.getPropertyValue('--_cta-fg')).toBe('#003366');
  });

  it('prefers the call to action colours over the banner colours', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ callToAction: cta({ colors: { background: '#f00', text: '#fff' } }) }) });
    expect($(el, 'a').style.getPropertyValue('--_cta-bg')).toBe('#f00');
  });

  it('ignores non-hex colours', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ colors: { background: 'expression(alert(1))', text: 'red' } }) });
    expect($(el, '[part="base"]').style.getPropertyValue('--_banner-bg')).toBe('');
  });

  it('leaves out an image that is not http(s)', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ image: 'javascript:alert(1)' }) });
    expect(shadow(el).querySelector('img')).toBeNull();
  });

  it('escapes markup in server strings', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ title: '<img src=x onerror=alert(1)>', description: '<script>alert(1)</script>' }) });
    expect(shadow(el).querySelectorAll('img:not([part="image"]), script')).toHaveLength(0);
    expect($(el, '[part="title"]').textContent).toBe('<img src=x onerror=alert(1)>');
  });

  it('renders nothing when nothing is for sale (call to action disabled) or it leads nowhere: no "Sold out? Not quite." over a greyed button', async () => {
    for (const callToAction of [cta({ enabled: false }), cta({ url: 'javascript:alert(1)' })]) {
      const el = await mount('resale-buy-banner', { component: banner({ callToAction }) });
      expect(shadow(el).querySelector('[part="base"], button, a')).toBeNull();
    }
  });

  it('appears once offers exist, its link carrying the way back (return-to)', async () => {
    const el = await mount('resale-buy-banner', { component: banner({ callToAction: cta({ enabled: false }) }) }, { 'return-to': 'https://tickets.example/e/1' });
    el.component = banner();
    await el.updateComplete;
    expect(new URL($(el, 'a[part~="cta"]').getAttribute('href')!).searchParams.get('returnTo')).toBe('https://tickets.example/e/1');
  });
});
