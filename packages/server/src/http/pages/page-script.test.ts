import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { PAGE_SCRIPT, PAGE_SCRIPT_PATH } from './page-script.js';
import { priceBreakdown, type FeeSchedule } from '@resale/shared/fees';

/** The little of the DOM these tests touch (the server's types have no DOM library, jsdom no types). */
interface El {
  hidden: boolean;
  textContent: string | null;
  className: string;
  getAttribute(name: string): string | null;
  click(): void;
  value?: string;
  dispatchEvent(event: unknown): boolean;
}
interface Win {
  document: { querySelector(selector: string): El | null; activeElement: El | null };
  Date: { now(): number };
  navigator: object;
  setTimeout: unknown;
  Event: new (type: string) => unknown;
  eval(code: string): unknown;
}
const { JSDOM } = createRequire(import.meta.url)('jsdom') as { JSDOM: new (html: string, opts: { runScripts: 'outside-only' }) => { window: Win } };

/**
 * Runs the pages' script in a DOM whose clock and timers the test drives: `advance(ms)` moves
 * time and fires the timers that fall due, in order. No real waiting.
 */
function page(body: string, opts: { now?: number; lang?: string; clipboard?: (text: string) => Promise<void>; stripe?: (...args: unknown[]) => unknown } = {}) {
  const dom = new JSDOM(`<!DOCTYPE html><html lang="${opts.lang ?? 'en'}"><body>${body}</body></html>`, { runScripts: 'outside-only' });
  const win = dom.window;
  let now = opts.now ?? Date.parse('2026-03-01T12:00:00Z');
  let timers: { at: number; fn: () => void }[] = [];
  win.Date.now = () => now;
  win.setTimeout = (fn: () => void, ms: number) => timers.push({ at: now + ms, fn });
  if (opts.clipboard) Object.defineProperty(win.navigator, 'clipboard', { value: { writeText: opts.clipboard } });
  if (opts.stripe) (win as unknown as { Stripe: unknown }).Stripe = opts.stripe;
  win.eval(PAGE_SCRIPT);
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (!next || next.at > until) break;
      timers = timers.slice(1);
      now = next.at;
      next.fn();
    }
    now = until;
  };
  /** Types `text` into an input as a person would: its value, then an `input` event. */
  const type = (el: El, text: string) => {
    el.value = text;
    el.dispatchEvent(new win.Event('input'));
  };
  return { doc: win.document, advance, pending: () => timers.length, type };
}

const countdown = (end: string, now = '2026-03-01T12:00:00Z') =>
  `<p data-countdown="${end}" data-countdown-now="${now}" data-countdown-one="{n} minute left" data-countdown-other="{n} minutes left" data-countdown-ended="Time is up">
    Reserved until 12:07 <span data-countdown-reveal hidden><span data-countdown-clock></span> left</span><span data-countdown-live aria-live="polite"></span>
    <span data-countdown-on-end hidden>Reload</span></p>`;

describe('the pages’ script', () => {
  it('counts down to the end as m:ss, announcing every 5 minutes, each of the last 5, and the end; never on load', () => {
    const { doc, advance, pending } = page(countdown('2026-03-01T12:07:00Z'));
    const clock = doc.querySelector('[data-countdown-clock]')!;
    const live = doc.querySelector('[data-countdown-live]')!;
    const onEnd = doc.querySelector('[data-countdown-on-end]')!;
    expect(doc.querySelector('[data-countdown-reveal]')!.hidden).toBe(false);
    expect(clock.textContent).toBe('7:00');
    expect(onEnd.hidden).toBe(true);
    expect(live.textContent).toBe('');
    const said: string[] = [];
    const observe = () => {
      if (live.textContent && said.at(-1) !== live.textContent) said.push(live.textContent);
    };
    for (let s = 0; s < 7 * 60; s++) {
      advance(1000);
      observe();
    }
    expect(clock.textContent).toBe('0:00');
    expect(said).toEqual(['5 minutes left', '4 minutes left', '3 minutes left', '2 minutes left', '1 minute left', 'Time is up']);
    expect(doc.querySelector('[data-countdown]')!.getAttribute('data-countdown-state')).toBe('ended');
    expect(onEnd.hidden).toBe(false);
    // It stops ticking at the end.
    expect(pending()).toBe(0);
  });

  it('shows 1:00 with a minute left, and trusts the server’s clock over the device’s', () => {
    // The device is 10 minutes fast: the server said 12:00, the device thinks 12:10.
    const { doc, advance } = page(countdown('2026-03-01T12:02:00Z'), { now: Date.parse('2026-03-01T12:10:00Z') });
    const clock = doc.querySelector('[data-countdown-clock]')!;
    expect(clock.textContent).toBe('2:00');
    advance(60_000);
    expect(clock.textContent).toBe('1:00');
    expect(doc.querySelector('[data-countdown-live]')!.textContent).toBe('1 minute left');
  });

  it('picks the plural form of the page’s language, and leaves an unreadable end alone', () => {
    const es = page(countdown('2026-03-01T12:02:00Z').replace('{n} minute left', 'queda {n} minuto').replace('{n} minutes left', 'quedan {n} minutos'), { lang: 'es' });
    es.advance(1000);
    es.advance(59_000);
    expect(es.doc.querySelector('[data-countdown-live]')!.textContent).toBe('queda 1 minuto');
    const bad = page(countdown('not a date'));
    expect(bad.doc.querySelector('[data-countdown-reveal]')!.hidden).toBe(true);
    expect(bad.pending()).toBe(0);
  });

  /** A countdown in the long format (the ticket view's unlock), `end` away from the server's now of 12:00. */
  const longCountdown = (endMs: number, days = ' data-countdown-day-one="{n} day" data-countdown-day-other="{n} days"') =>
    countdown(new Date(Date.parse('2026-03-01T12:00:00Z') + endMs).toISOString())
      .replace('<p data-countdown=', `<p data-countdown-format="long"${days} data-countdown=`)
      .replace('minute left"', 'minute to unlock"')
      .replace('minutes left"', 'minutes to unlock"');
  const s = 1000;
  const h = 3_600_000;
  const d = 24 * h;

  it('counts down in the long format: days in words, then h:mm:ss, then m:ss', () => {
    const days = page(longCountdown(2 * d + 4 * h + 10 * 60 * s + 5 * s));
    const clock = days.doc.querySelector('[data-countdown-clock]')!;
    expect(days.doc.querySelector('[data-countdown-reveal]')!.hidden).toBe(false);
    expect(clock.textContent).toBe('2 days 04:10:05');
    days.advance(1000);
    expect(clock.textContent).toBe('2 days 04:10:04');

    // The day's word by the page's plural rule, and the step from a day to hours.
    const one = page(longCountdown(d + 2 * s));
    const oneClock = one.doc.querySelector('[data-countdown-clock]')!;
    expect(oneClock.textContent).toBe('1 day 00:00:02');
    one.advance(2000);
    expect(oneClock.textContent).toBe('1 day 00:00:00');
    one.advance(1000);
    expect(oneClock.textContent).toBe('23:59:59');

    // Hours without a leading zero, then minutes alone under an hour.
    const hours = page(longCountdown(h + s));
    const hoursClock = hours.doc.querySelector('[data-countdown-clock]')!;
    expect(hoursClock.textContent).toBe('1:00:01');
    hours.advance(2000);
    expect(hoursClock.textContent).toBe('59:59');
    expect(page(longCountdown(9 * 60 * s + 5 * s)).doc.querySelector('[data-countdown-clock]')!.textContent).toBe('9:05');

    // Spanish days, and `{n} d` when the page gives no words.
    expect(page(longCountdown(2 * d, ' data-countdown-day-one="{n} día" data-countdown-day-other="{n} días"'), { lang: 'es' }).doc.querySelector('[data-countdown-clock]')!.textContent).toBe('2 días 00:00:00');
    expect(page(longCountdown(d + 5 * s, '')).doc.querySelector('[data-countdown-clock]')!.textContent).toBe('1 d 00:00:05');
  });

  it('announces a long countdown only in its last 5 minutes and at the end, then shows what comes at the end', () => {
    const { doc, advance, pending } = page(longCountdown(12 * 60 * s));
    const live = doc.querySelector('[data-countdown-live]')!;
    const said: string[] = [];
    for (let i = 0; i < 12 * 60; i++) {
      advance(1000);
      if (live.textContent && said.at(-1) !== live.textContent) said.push(live.textContent);
    }
    // No "10 minutes" mark: for an end days away, every 5 minutes would be noise.
    expect(said).toEqual(['5 minutes to unlock', '4 minutes to unlock', '3 minutes to unlock', '2 minutes to unlock', '1 minute to unlock', 'Time is up']);
    expect(doc.querySelector('[data-countdown-clock]')!.textContent).toBe('0:00');
    expect(doc.querySelector('[data-countdown]')!.getAttribute('data-countdown-state')).toBe('ended');
    expect(doc.querySelector('[data-countdown-on-end]')!.hidden).toBe(false);
    expect(pending()).toBe(0);

    // An end already past on load: ended at once.
    const past = page(longCountdown(-5 * s));
    expect(past.doc.querySelector('[data-countdown-clock]')!.textContent).toBe('0:00');
    expect(past.doc.querySelector('[data-countdown-on-end]')!.hidden).toBe(false);
    expect(past.pending()).toBe(0);
  });

  it('shows a copy button only where it can copy, and copies its target’s value', async () => {
    const copied: string[] = [];
    const html = '<input id="share" value=" https://resale.test/market/x "><button type="button" hidden data-copy-target="share" data-copy-done="Copied">Copy link</button>';
    const { doc, advance } = page(html, { clipboard: async (text) => void copied.push(text) });
    const button = doc.querySelector('button')!;
    expect(button.hidden).toBe(false);
    button.click();
    await Promise.resolve();
    await Promise.resolve();
    expect(copied).toEqual(['https://resale.test/market/x']);
    expect(button.textContent).toBe('Copied');
    advance(2000);
    expect(button.textContent).toBe('Copy link');
    // Without a clipboard (an old browser, an insecure origin) the button stays hidden.
    expect(page(html).doc.querySelector('button')!.hidden).toBe(true);
  });

  it('calculates the sell page’s money as the seller types, exactly as the server does, and says the payout once typing pauses', () => {
    const fees: FeeSchedule = { buyerPercent: 7.5, buyerFixedMinor: 50, sellerPercent: 5, sellerFixedMinor: 0 };
    const cells = ['price', 'buyerFee', 'buyerTotal', 'sellerFee', 'payout'].map((c) => `<td data-payout-cell="${c}"${c === 'buyerFee' ? ' data-payout-sign="+ "' : c === 'sellerFee' ? ' data-payout-sign="− "' : ''}>?</td>`).join('');
    const html = (lang: string, currency = 'EUR', digits = 2) =>
      page(`<input id="price" data-payout="t" data-payout-fees='${JSON.stringify(fees)}' data-payout-currency="${currency}" data-payout-digits="${digits}" data-payout-live="live" data-payout-said="You receive {amount}">
        <table id="t" hidden><tr>${cells}</tr></table><p id="live" aria-live="polite"></p>`, { lang });
    const { doc, type, advance } = html('en');
    const table = doc.querySelector('#t')!;
    const cell = (c: string) => doc.querySelector(`[data-payout-cell="${c}"]`)!.textContent;
    const money = (minor: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(minor / 100);
    for (const [typed, minor] of [['40', 4000], ['40,5', 4050], ['45.55', 4555], ['0.07', 7], ['999999.99', 99999999]] as const) {
      type(doc.querySelector('#price')!, typed);
      const b = priceBreakdown(minor, fees);
      expect([cell('price'), cell('buyerFee'), cell('buyerTotal'), cell('sellerFee'), cell('payout')]).toEqual([money(b.priceMinor), `+ ${money(b.buyerFeeMinor)}`, money(b.buyerTotalMinor), `− ${money(b.sellerFeeMinor)}`, money(b.payoutMinor)]);
    }
    expect(table.hidden).toBe(false);
    // Said once typing pauses, not at every key.
    expect(doc.querySelector('#live')!.textContent).toBe('');
    advance(1000);
    expect(doc.querySelector('#live')!.textContent).toBe(`You receive ${money(priceBreakdown(99999999, fees).payoutMinor)}`);
    // What does not parse keeps the last figures (the server names the error on submit).
    for (const bad of ['abc', '-5', '1.234', '0', '']) type(doc.querySelector('#price')!, bad);
    expect(cell('price')).toBe(money(99999999));

    // A currency without minor units, in Spanish.
    const yen = html('es', 'JPY', 0);
    yen.type(yen.doc.querySelector('#price')!, '5000');
    expect(yen.doc.querySelector('[data-payout-cell="payout"]')!.textContent).toBe(new Intl.NumberFormat('es', { style: 'currency', currency: 'JPY' }).format(priceBreakdown(5000, fees).payoutMinor));
    yen.type(yen.doc.querySelector('#price')!, '5000.5');
    expect(yen.doc.querySelector('[data-payout-cell="price"]')!.textContent).toBe(new Intl.NumberFormat('es', { style: 'currency', currency: 'JPY' }).format(5000));
  });

  it('names the card’s network as the buyer types its number, with the server’s own rule', () => {
    const { doc, type } = page('<input id="n" data-card-brand="n-brand"><p id="n-brand" aria-live="polite"></p>');
    const input = doc.querySelector('#n')!;
    const out = doc.querySelector('#n-brand')!;
    type(input, '4');
    expect(out.textContent).toBe('');
    type(input, '42');
    expect(out.textContent).toBe('Visa');
    type(input, '3782 82');
    expect(out.textContent).toBe('American Express');
    type(input, '2221 00');
    expect(out.textContent).toBe('Mastercard');
    type(input, '9999');
    expect(out.textContent).toBe('');
  });

  it('focuses the element marked data-autofocus', () => {
    const { doc } = page('<a href="#x">first</a><div class="error-summary" tabindex="-1" data-autofocus>Problems</div>');
    expect(doc.activeElement?.className).toBe('error-summary');
  });

  it('is served at its content-hashed path as JavaScript, cached for good; other names are not found', async () => {
    const t = createTestApp();
    const res = await t.app.request(PAGE_SCRIPT_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(PAGE_SCRIPT);
    expect(PAGE_SCRIPT_PATH).toMatch(/^\/assets\/pages-[A-Za-z0-9_-]{12}\.js$/);
    expect((await t.app.request('/assets/pages-AAAAAAAAAAAA.js')).status).toBe(404);
  });
});

describe('the hosted payment form (Stripe’s Payment Element)', () => {
  const form = `<form data-hosted-payment="stripe" data-key="pk_test_1" data-client-secret="pi_1_secret_2" data-return-url="https://resale.test/checkout/p/i/return?lang=es" data-locale="es" data-load-failed="Could not load">
    <div data-hosted-element></div><p data-hosted-error hidden></p><button type="submit" data-hosted-submit hidden>Pay</button></form>`;

  /** A stand-in for Stripe.js that records what the page asked of it; `confirmPayment` answers `answer`. */
  function fakeStripe(answer: unknown) {
    const calls: unknown[][] = [];
    const stripe = (...args: unknown[]) => {
      calls.push(['Stripe', ...args]);
      return {
        elements: (opts: unknown) => {
          calls.push(['elements', opts]);
          return { create: (type: string, o: unknown) => (calls.push(['create', type, o]), { mount: (el: El | null) => calls.push(['mount', el?.getAttribute('data-hosted-element')]) }) };
        },
        confirmPayment: (opts: { confirmParams: unknown }) => (calls.push(['confirmPayment', opts.confirmParams]), Promise.resolve(answer)),
      };
    };
    return { stripe, calls };
  }

  it('mounts the element with the key, the client secret and the locale, and confirms toward the return address', async () => {
    const { stripe, calls } = fakeStripe({ error: { message: 'Your card was declined.' } });
    const { doc } = page(form, { stripe });
    const button = doc.querySelector('[data-hosted-submit]') as El & { disabled: boolean };
    expect(button.hidden).toBe(false);
    expect(calls.slice(0, 4)).toEqual([['Stripe', 'pk_test_1', { locale: 'es' }], ['elements', { clientSecret: 'pi_1_secret_2', appearance: {} }], ['create', 'payment', { layout: 'tabs' }], ['mount', '']]);
    doc.querySelector('form')!.dispatchEvent(new (doc as unknown as { defaultView: { Event: new (t: string, o: object) => unknown } }).defaultView.Event('submit', { cancelable: true }));
    expect(calls.at(-1)).toEqual(['confirmPayment', { return_url: 'https://resale.test/checkout/p/i/return?lang=es' }]);
    expect(button.disabled).toBe(true);
    await new Promise((r) => setImmediate(r));
    // Stripe's own words for a decline, and the button works again for another try.
    expect(doc.querySelector('[data-hosted-error]')).toMatchObject({ hidden: false, textContent: 'Your card was declined.' });
    expect(button.disabled).toBe(false);
  });

  it('says the form could not be loaded when Stripe.js is missing, and offers no button', () => {
    const { doc } = page(form);
    expect(doc.querySelector('[data-hosted-error]')).toMatchObject({ hidden: false, textContent: 'Could not load' });
    expect(doc.querySelector('[data-hosted-submit]')!.hidden).toBe(true);
  });
});
