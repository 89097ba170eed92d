import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResaleCtaClickEvent } from '../../events/cta-click.js';
import { $, cta, mount, shadow } from '../../internal/test-utils.js';
import type { BuyButtonComponent } from '../../internal/types.js';

const button = (over: Partial<BuyButtonComponent['buyButton']> = {}): BuyButtonComponent => ({
  type: 'button',
  class: 'buyButton',
  buyButton: { visible: true, callToAction: cta(), colors: { background: '#112233', text: '#ffffff' }, ...over },
});

afterEach(() => document.body.replaceChildren());

describe('<resale-buy-button>', () => {
  it('renders an http(s) link with the server text', async () => {
    const el = await mount('resale-buy-button', { component: button() });
    const a = $(el, 'a[part~="cta"]') as HTMLAnchorElement;
    // happy-dom's page is http://localhost:3000/: the link carries it as the way back.
    expect(a.getAttribute('href')).toBe('https://resale.example/market/ptr_1/tour?showId=s1&returnTo=http%3A%2F%2Flocalhost%3A3000%2F');
    expect(a.textContent).toBe('Buy resale tickets');
  });

  it('carries return-to as the way back (not its fragment), or else the page address', async () => {
    const el = await mount('resale-buy-button', { component: button() }, { 'return-to': 'https://tickets.example/events/gala?x=1#resale' });
    const href = new URL($(el, 'a').getAttribute('href')!);
    expect(href.searchParams.get('returnTo')).toBe('https://tickets.example/events/gala?x=1#resale');
    expect(href.searchParams.get('showId')).toBe('s1');
    history.replaceState(null, '', '/events/gala?lang=es#buy');
    try {
      const byPage = await mount('resale-buy-button', { component: button() });
      expect(new URL($(byPage, 'a').getAttribute('href')!).searchParams.get('returnTo')).toBe('http://localhost:3000/events/gala?lang=es');
    } finally {
      history.replaceState(null, '', '/');
    }
  });

  it('ignores a return-to that is not http(s), and never replaces a returnTo the partner server put on the URL', async () => {
    const el = await mount('resale-buy-button', { component: button() }, { 'return-to': 'javascript:alert(1)' });
    expect(new URL($(el, 'a').getAttribute('href')!).searchParams.get('returnTo')).toBe('http://localhost:3000/');
    const tagged = 'https://resale.example/market/p/e?showId=s1&returnTo=https%3A%2F%2Ftickets.example%2Fe&returnToTag=abc&oneTimeToken=tok';
    const signed = await mount('resale-buy-button', { component: button({ callToAction: cta({ url: tagged }) }) }, { 'return-to': 'https://other.example/' });
    expect($(signed, 'a').getAttribute('href')).toBe(tagged);
  });

  it('renders nothing when visible is false', async () => {
    const el = await mount('resale-buy-button', { component: button({ visible: false }) });
    expect(shadow(el).querySelector('a, button')).toBeNull();
  });

  it('renders a disabled button without href when enabled is false', async () => {
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false }) }) });
    expect(shadow(el).querySelector('a')).toBeNull();
    const b = $(el, 'button[part~="cta"]') as HTMLButtonElement;
    expect(b.disabled).toBe(true);
    expect(b.getAttribute('part')).toContain('cta-disabled');
  });

  it('sets its colours through CSSOM (style.setProperty), which a strict CSP never blocks', async () => {
    // Lit's styleMap writes a style attribute on first render; the browser journeys check that
    // the page reports no CSP violation, this checks the path the colours take.
    const setProperty = vi.spyOn(CSSStyleDeclaration.prototype, 'setProperty');
    const el = await mount('resale-buy-button', { component: button() });
    expect(setProperty.mock.calls.map(([name, value]) => [name, value])).toEqual([
      ['--_cta-bg', '#112233'],
      ['--_cta-fg', '#ffffff'],
    ]);
    expect($(el, 'a').style.getPropertyValue('--_cta-bg')).toBe('#112233');
    setProperty.mockRestore();
  });

  it('gives the call to action colours priority over the component colours', async () => {
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ colors: { background: '#abcdef', text: '#000' } }) }) });
    const a = $(el, 'a');
    expect(a.style.getPropertyValue('--_cta-bg')).toBe('#abcdef');
    expect(a.style.getPropertyValue('--_cta-fg')).toBe('#000');
  });

  it('uses the component colours when the call to action has none', async () => {
    const el = await mount('resale-buy-button', { component: button() });
    expect($(el, 'a').style.getPropertyValue('--_cta-bg')).toBe('#112233');
  });

  it('rejects colours that are not #rgb/#rrggbb and falls back to the tokens', async () => {
    const el = await mount('resale-buy-button', {
      component: button({ callToAction: cta({ colors: { background: 'red;background:url(https://x.test/)', text: 'rgb(0,0,0)' } }), colors: { background: 'var(--x)', text: '#12345' } }),
    });
    const a = $(el, 'a');
    expect(a.style.getPropertyValue('--_cta-bg')).toBe('');
    expect(a.style.getPropertyValue('--_cta-fg')).toBe('');
  });

  it('renders a non-http URL as a disabled call to action', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', ' JAVASCRIPT:alert(1)', 'vbscript:x']) {
      const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ url }) }) });
      expect(shadow(el).querySelector('a')).toBeNull();
      expect(($(el, 'button') as HTMLButtonElement).disabled).toBe(true);
    }
  });

  it('renders server strings as text, never markup', async () => {
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ text: '<img src=x onerror=alert(1)>' }) }) });
    expect(shadow(el).querySelector('img')).toBeNull();
    expect($(el, 'a').textContent).toBe('<img src=x onerror=alert(1)>');
  });

  it('dispatches a bubbling, composed, cancelable resale-cta-click; preventDefault stops navigation', async () => {
    const el = await mount('resale-buy-button', { component: button() });
    const seen = vi.fn((e: ResaleCtaClickEvent) => e.preventDefault());
    document.addEventListener('resale-cta-click', seen);
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    $(el, 'a').dispatchEvent(click);
    document.removeEventListener('resale-cta-click', seen);
    expect(seen).toHaveBeenCalledOnce();
    const event = seen.mock.calls[0]![0];
    expect(event.bubbles && event.composed && event.cancelable).toBe(true);
    expect(event.detail).toEqual({ componentClass: 'buyButton', url: 'https://resale.example/market/ptr_1/tour?showId=s1&returnTo=http%3A%2F%2Flocalhost%3A3000%2F' });
    expect(click.defaultPrevented).toBe(true);
  });

  it('lets the click navigate when nobody cancels', async () => {
    const el = await mount('resale-buy-button', { component: button() });
    const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
    const a = $(el, 'a');
    let preventedByUs: boolean | undefined;
    // Registered after the component's own listener: sees its verdict, then keeps happy-dom from navigating.
    a.addEventListener('click', (e) => {
      preventedByUs = e.defaultPrevented;
      e.preventDefault();
    });
    a.dispatchEvent(click);
    expect(preventedByUs).toBe(false);
  });
});
