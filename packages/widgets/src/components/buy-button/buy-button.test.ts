import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResaleCtaClickEvent } from '../../events/cta-click.js';
import { $, cta, mount, shadow, text } from '../../internal/test-utils.js';
import type { BuyButtonComponent, YourHold } from '../../internal/types.js';
import type { ResaleBuyButton } from './buy-button.js';

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

describe('<resale-buy-button> with tickets held in checkouts', () => {
  const NOW = Date.parse('2026-06-01T18:30:00Z');
  const at = (ms: number) => new Date(ms).toISOString();
  /** hh:mm as the viewer reads it: their time zone, the service's locales (en-GB, es-ES). */
  const hhmm = (ms: number, locale = 'en-GB') => new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(ms);
  const hold = (over: Partial<YourHold> = {}): YourHold => ({
    tickets: 2,
    expiresAt: at(NOW + 5 * 60_000),
    url: 'https://resale.example/checkout/ptr_1/int_1?lang=en',
    releaseUrl: 'https://resale.example/market/ptr_1/tour?showId=s1',
    ...over,
  });
  const tick = async (el: ResaleBuyButton, ms: number) => {
    await vi.advanceTimersByTimeAsync(ms);
    await el.updateComplete;
  };
  const hrefs = (el: Element) => [...shadow(el).querySelectorAll('[href]')].map((a) => a.getAttribute('href')!);

  afterEach(() => vi.useRealTimers());

  it('shows the fan their hold: tickets, time left, continue and release, both with the way back', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold() }) }) }, { 'return-to': 'https://tickets.example/e/1' });
    expect(text($(el, '[part="your-hold-title"]'))).toBe('You have 2 tickets reserved (5:00 left)');
    expect(text($(el, '[part="your-hold-time"]'))).toBe('(5:00 left)');
    const go = $(el, 'a[part="your-hold-continue"]');
    const release = $(el, 'a[part="your-hold-release"]');
    expect(text(go)).toBe('Continue to checkout');
    expect(text(release)).toBe('Release them');
    expect(go.getAttribute('href')).toBe('https://resale.example/checkout/ptr_1/int_1?lang=en&returnTo=https%3A%2F%2Ftickets.example%2Fe%2F1');
    expect(release.getAttribute('href')).toBe('https://resale.example/market/ptr_1/tour?showId=s1&returnTo=https%3A%2F%2Ftickets.example%2Fe%2F1');
    // The buy call to action is still there while it is enabled.
    expect(text($(el, 'a[part~="cta"]'))).toBe('Buy resale tickets');
  });

  it('says it in Spanish, in the singular for one ticket', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, yourHold: hold({ tickets: 1, expiresAt: at(NOW + 12 * 60_000 + 3_000) }) }) }), lang: 'es' });
    expect(text($(el, '[part="your-hold-title"]'))).toBe('Tienes 1 entrada reservada (quedan 12:03)');
    expect(text($(el, '[part="your-hold-continue"]'))).toBe('Continuar con el pago');
    expect(text($(el, '[part="your-hold-release"]'))).toBe('Liberarla');
    expect(text($(el, '[part="your-hold"]'))).not.toMatch(/reserved|ticket/);
    const many = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold() }) }), lang: 'es' });
    expect(text($(many, '[part="your-hold-title"]'))).toBe('Tienes 2 entradas reservadas (quedan 5:00)');
    expect(text($(many, '[part="your-hold-release"]'))).toBe('Liberarlas');
    const one = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold({ tickets: 1 }) }) }) });
    expect(text($(one, '[part="your-hold-title"]'))).toBe('You have 1 ticket reserved (5:00 left)');
    expect(text($(one, '[part="your-hold-release"]'))).toBe('Release it');
  });

  it('counts down every second, then says the reservation ended, without links, and stops its timer', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold({ expiresAt: at(NOW + 61_500) }) }) }) });
    const time = () => text(shadow(el).querySelector('[part="your-hold-time"]'));
    expect(time()).toBe('(1:02 left)');
    await tick(el, 499);
    expect(time()).toBe('(1:02 left)');
    await tick(el, 1);
    expect(time()).toBe('(1:01 left)');
    await tick(el, 1_000);
    expect(time()).toBe('(1:00 left)');
    await tick(el, 1_000);
    expect(time()).toBe('(0:59 left)');
    await tick(el, 58_000);
    expect(time()).toBe('(0:01 left)');
    await tick(el, 1_000);
    const block = $(el, '[part="your-hold"]');
    expect(block.hasAttribute('data-ended')).toBe(true);
    expect(text($(el, '[part="your-hold-title"]'))).toBe('Your reservation has ended');
    expect(shadow(el).querySelector('[part="your-hold-time"], [part="your-hold-continue"], [part="your-hold-release"]')).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('announces politely only under 5 minutes, under 1 minute and at the end, never each second', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold({ expiresAt: at(NOW + 6 * 60_000) }) }) }) });
    const live = $(el, '[part="your-hold"] [aria-live]');
    expect(live.getAttribute('aria-live')).toBe('polite');
    expect(live.getAttribute('role')).toBe('status');
    const said: string[] = [text(live)];
    for (let s = 0; s < 6 * 60; s++) {
      await tick(el, 1_000);
      // The same node all along: a live region replaced by another is not spoken.
      expect($(el, '[part="your-hold"] [aria-live]')).toBe(live);
      if (text(live) !== said.at(-1)) said.push(text(live));
    }
    expect(said).toEqual(['', 'Less than 5 minutes left to pay for your reserved tickets.', 'Less than a minute left to pay for your reserved tickets.', 'Your reservation has ended']);
    // The time itself is a timer (not live): it ticks silently.
    expect(shadow(el).querySelector('[role="timer"]')).toBeNull();
  });

  it('stops its timer out of the page and shows the time now when put back', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold() }) }) });
    expect($(el, '[part="your-hold-time"]').getAttribute('role')).toBe('timer');
    expect(vi.getTimerCount()).toBe(1);
    el.remove();
    expect(vi.getTimerCount()).toBe(0);
    vi.setSystemTime(NOW + 90_000);
    document.body.append(el);
    await el.updateComplete;
    expect(text($(el, '[part="your-hold-time"]'))).toBe('(3:30 left)');
    expect(vi.getTimerCount()).toBe(1);
  });

  it('dispatches the cancelable resale-cta-click from both links, saying which', async () => {
    vi.useFakeTimers({ now: NOW });
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold: hold() }) }) });
    const seen = vi.fn((e: ResaleCtaClickEvent) => e.preventDefault());
    document.addEventListener('resale-cta-click', seen);
    const clicks = ['your-hold-continue', 'your-hold-release'].map((part) => {
      const click = new MouseEvent('click', { bubbles: true, cancelable: true, composed: true });
      $(el, `a[part="${part}"]`).dispatchEvent(click);
      return click;
    });
    document.removeEventListener('resale-cta-click', seen);
    expect(seen.mock.calls.map(([e]) => [e.detail, e.cancelable, e.composed])).toEqual([
      [{ componentClass: 'buyButton', hold: 'continue', url: 'https://resale.example/checkout/ptr_1/int_1?lang=en&returnTo=http%3A%2F%2Flocalhost%3A3000%2F' }, true, true],
      [{ componentClass: 'buyButton', hold: 'release', url: 'https://resale.example/market/ptr_1/tour?showId=s1&returnTo=http%3A%2F%2Flocalhost%3A3000%2F' }, true, true],
    ]);
    expect(clicks.every((c) => c.defaultPrevented)).toBe(true);
  });

  it('makes no link of a hold whose URLs are not http(s), nor of one it cannot read', async () => {
    vi.useFakeTimers({ now: NOW });
    const bad = ['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,<script>alert(1)</script>', ''];
    const holds = [
      ...bad.map((url) => hold({ url })),
      ...bad.map((releaseUrl) => hold({ releaseUrl })),
      hold({ tickets: 0 }),
      hold({ expiresAt: 'soon' }),
      { tickets: 2 } as YourHold,
      'yes' as unknown as YourHold,
    ];
    for (const yourHold of holds) {
      const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ yourHold }) }) });
      expect(shadow(el).querySelector('[part^="your-hold"]')).toBeNull();
      expect(hrefs(el).every((h) => h.startsWith('https:'))).toBe(true);
    }
  });

  it('says under a disabled button that tickets are reserved by another fan, and when they may be back', async () => {
    vi.useFakeTimers({ now: NOW });
    const backAt = NOW + 12 * 60_000;
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 1, backAt: at(backAt), whose: 'others' } }) }) });
    expect(($(el, 'button[part~="cta"]') as HTMLButtonElement).disabled).toBe(true);
    expect(hhmm(backAt)).toMatch(/^\d\d:\d\d$/);
    expect(text($(el, '[part="reserved"]'))).toBe(`Reserved by another fan — may be back at ${hhmm(backAt)}`);
    const many = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 3, backAt: at(backAt), whose: 'others' } }) }) });
    expect(text($(many, '[part="reserved"]'))).toBe(`Reserved by other fans — may be back at ${hhmm(backAt)}`);
    const es = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 3, backAt: at(backAt), whose: 'others' } }) }), lang: 'es' });
    expect(text($(es, '[part="reserved"]'))).toBe(`Reservadas por otros fans — pueden volver a la venta a las ${hhmm(backAt, 'es-ES')}`);
  });

  it('says "in a checkout" when the answer cannot tell whose (unsigned), and "any moment" once the time is past', async () => {
    vi.useFakeTimers({ now: NOW });
    const backAt = NOW + 60_000;
    const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 1, backAt: at(backAt), whose: 'any' } }) }) });
    expect(text($(el, '[part="reserved"]'))).toBe(`Reserved in a checkout — may be back at ${hhmm(backAt)}`);
    // The note changes by itself when the time comes.
    await tick(el, 60_000);
    expect(text($(el, '[part="reserved"]'))).toBe('Reserved in a checkout — may be back any moment');
    expect(vi.getTimerCount()).toBe(0);
    const past = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 2, backAt: at(NOW - 5_000), whose: 'others' } }) }), lang: 'es' });
    expect(text($(past, '[part="reserved"]'))).toBe('Reservadas por otros fans — pueden volver a la venta en cualquier momento');
    const anyEs = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 1, backAt: at(NOW - 5_000), whose: 'any' } }) }), lang: 'es' });
    expect(text($(anyEs, '[part="reserved"]'))).toBe('Reservada en una compra en curso — puede volver a la venta en cualquier momento');
  });

  it('shows no note beside an enabled call to action, and none for a reservation it cannot read', async () => {
    vi.useFakeTimers({ now: NOW });
    const enabled = await mount('resale-buy-button', { component: button({ callToAction: cta({ reserved: { tickets: 1, backAt: at(NOW + 60_000), whose: 'others' } }) }) });
    expect(shadow(enabled).querySelector('[part="reserved"]')).toBeNull();
    for (const reserved of [{ tickets: 0, backAt: at(NOW), whose: 'others' }, { backAt: at(NOW) }, null]) {
      const el = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: reserved as never }) }) });
      expect(shadow(el).querySelector('[part="reserved"]')).toBeNull();
    }
    const undated = await mount('resale-buy-button', { component: button({ callToAction: cta({ enabled: false, reserved: { tickets: 1, backAt: 'later', whose: 'others' } }) }) });
    expect(text($(undated, '[part="reserved"]'))).toBe('Reserved by another fan');
  });

  it('renders nothing new, and runs no timer, without either field', async () => {
    vi.useFakeTimers({ now: NOW });
    for (const callToAction of [cta(), cta({ enabled: false })]) {
      const el = await mount('resale-buy-button', { component: button({ callToAction }) });
      expect([...shadow(el).querySelectorAll('*')].map((n) => n.getAttribute('part'))).toEqual([callToAction.enabled ? 'cta' : 'cta cta-disabled']);
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
