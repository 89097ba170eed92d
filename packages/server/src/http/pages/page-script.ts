import { percentOf } from '@resale/shared/fees';
import { cardBrand } from '@resale/shared/cards';
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../../context.js';

/**
 * The one script of the hosted pages: small progressive enhancements driven by data
 * attributes, so a page asks for a behaviour in its markup and works without script (every
 * behaviour here only improves what the server already rendered). The pages' CSP forbids
 * inline script; a page that wants this one renders {@link PageScript}'s tag and passes
 * `cspWith({ scripts: true })` (`script-src 'self'`).
 *
 * Behaviours (add one by adding a `data-*` contract here, its test beside, and nothing else):
 *
 * - `data-countdown="<ISO end>"` (and `data-countdown-now="<ISO server now>"`, so a wrong
 *   clock on the device does not shorten or lengthen it): inside it, `[data-countdown-clock]`
 *   shows the time left as `m:ss`, `[data-countdown-reveal]` elements are shown (they start
 *   `hidden`: without script the page shows the end time only), and `[data-countdown-live]`
 *   (an `aria-live` region) announces it sparingly: every 5 minutes, every minute in the last
 *   5, and at the end; texts from `data-countdown-one` / `data-countdown-other` (`{n}` minutes,
 *   chosen by `Intl.PluralRules` in the page's `lang`) and `data-countdown-ended`. At the end
 *   the element gets `data-countdown-state="ended"` and its `[data-countdown-on-end]` elements
 *   are shown. `data-countdown-format="long"` (opt-in, for ends days away: the ticket view's QR
 *   unlock) shows `2 days 04:10:05`, `4:10:05` or `9:05` instead, the days' words from
 *   `data-countdown-day-one` / `data-countdown-day-other` (`{n}` days, same plural rule; `{n} d`
 *   without them), and announces only each of the last 5 minutes and the end (every 5 minutes
 *   for days would be noise).
 * - `data-copy-target="<id>"` on a `hidden` button: shown, and a press copies the value (or
 *   the text) of the element with that id to the clipboard, then says `data-copy-done` for a
 *   moment in the button.
 * - `data-autofocus`: the element gets the focus on load (an error summary, so a screen reader
 *   reads it and the keyboard starts there).
 * - `data-payout="<table id>"` on a price input (the sell page): as the seller types, the money
 *   table's `[data-payout-cell]` cells (`price`, `buyerFee`, `buyerTotal`, `sellerFee`,
 *   `payout`, each with its `data-payout-sign`) are calculated with the fees in
 *   `data-payout-fees` (JSON of the FeeSchedule, @resale/shared/fees: the same half-up rounding in
 *   integer minor units), `data-payout-currency` and `data-payout-digits`; the table is shown
 *   once a price parses, and `data-payout-live` (an `aria-live` region's id) is told
 *   `data-payout-said` ("You receive {amount}") once typing pauses. The server calculates the
 *   same on Calculate and checks it again on Publish: the script only saves a round trip.
 *   page-script.test.ts checks it against priceBreakdown.
 * - `data-hosted-payment="stripe"` on the checkout's form with a hosted provider: mounts
 *   Stripe's Payment Element (Stripe.js, loaded by the page from Stripe before this script)
 *   into `[data-hosted-element]` with `data-key` (publishable key), `data-client-secret`,
 *   `data-locale` and the page's brand colour, shows `[data-hosted-submit]`, and on submit
 *   confirms with Stripe, which brings the buyer back to `data-return-url` (3-D Secure and
 *   bank redirects included). An error Stripe reports (a declined card, a field left empty) is
 *   shown in `[data-hosted-error]` and the button works again; Stripe.js missing (blocked,
 *   offline) shows `data-load-failed` there. The outcome itself comes from Stripe's events
 *   to the server, never from this script.
 * - `data-card-brand="<id>"` on a card number input: as the buyer types, the element with that
 *   id (an `aria-live` hint) names the card's network (`cardBrand`, @resale/shared/cards, its
 *   source written in as `percentOf`'s is), or nothing while it cannot tell.
 * - `data-component` on a widget element (`<resale-buy-banner>`): its JSON is given to the
 *   element as its `component` property (the console's preview draws a banner this way, with
 *   the same widget the partner's pages load).
 * - `data-live-preview` on a form (the console's settings): as the person types (paused for
 *   half a second), the form is posted to its own action with `op=preview` and `fragment=1`
 *   (nothing is saved: the server answers the preview alone), and the page's `[data-preview]`
 *   is replaced by the answer's; its `data-brand-color` becomes the `--brand` of its
 *   `.preview-page` (CSSOM, which the CSP allows, unlike a style attribute). Without script the
 *   form's "Preview" button does the same with a whole page.
 *
 * Written as plain JavaScript in a string: the server never runs it, and no build step stands
 * between this file and what browsers receive. The one exception is the fee arithmetic, the
 * source of `percentOf` (@resale/shared/fees) written in as it is, so the preview a seller
 * sees and the price the server settles cannot round differently (BigInt, ES2020).
 */
export const PAGE_SCRIPT = `(function () {
  'use strict';
  var doc = document;
  function each(selector, fn) { Array.prototype.forEach.call(doc.querySelectorAll(selector), fn); }
  function pad(n) { return n < 10 ? '0' + n : String(n); }

  each('[data-countdown]', function (el) {
    var end = Date.parse(el.getAttribute('data-countdown'));
    var serverNow = Date.parse(el.getAttribute('data-countdown-now') || '');
    if (isNaN(end)) return;
    var endLocal = isNaN(serverNow) ? end : Date.now() + (end - serverNow);
    var clock = el.querySelector('[data-countdown-clock]');
    var live = el.querySelector('[data-countdown-live]');
    var lang = doc.documentElement.lang || 'en';
    var plural = typeof Intl !== 'undefined' && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
    var lastSaid = null;
    function say(text) { if (live && text && text !== lastSaid) { live.textContent = text; lastSaid = text; } }
    function minutesText(n) {
      var form = plural && plural.select(n) === 'one' ? 'data-countdown-one' : 'data-countdown-other';
      return (el.getAttribute(form) || '').replace('{n}', String(n));
    }
    var longFormat = el.getAttribute('data-countdown-format') === 'long';
    function daysText(n) {
      var form = plural && plural.select(n) === 'one' ? 'data-countdown-day-one' : 'data-countdown-day-other';
      return (el.getAttribute(form) || '{n} d').replace('{n}', String(n));
    }
    function clockText(seconds) {
      if (!longFormat) return Math.floor(seconds / 60) + ':' + pad(seconds % 60);
      var days = Math.floor(seconds / 86400);
      var hours = Math.floor((seconds % 86400) / 3600);
      var rest = pad(Math.floor((seconds % 3600) / 60)) + ':' + pad(seconds % 60);
      if (days > 0) return daysText(days) + ' ' + pad(hours) + ':' + rest;
      return hours > 0 ? hours + ':' + rest : Math.floor(seconds / 60) + ':' + pad(seconds % 60);
    }
    var lastMinutes = null;
    function reveal(selector) { Array.prototype.forEach.call(el.querySelectorAll(selector), function (x) { x.hidden = false; }); }
    reveal('[data-countdown-reveal]');
    function tick() {
      var left = Math.max(0, endLocal - Date.now());
      var seconds = Math.ceil(left / 1000);
      if (clock) { clock.hidden = false; clock.textContent = clockText(seconds); }
      if (seconds === 0) {
        el.setAttribute('data-countdown-state', 'ended');
        reveal('[data-countdown-on-end]');
        say(el.getAttribute('data-countdown-ended'));
        return;
      }
      // Said when the minutes left change (a late timer in a background tab still says it), on
      // the 5-minute marks (not in the long format) and each of the last 5; never on load: the
      // page says the end time.
      var minutes = Math.ceil(seconds / 60);
      if (lastMinutes !== null && minutes !== lastMinutes && (minutes <= 5 || (!longFormat && minutes % 5 === 0))) say(minutesText(minutes));
      lastMinutes = minutes;
      setTimeout(tick, left % 1000 || 1000);
    }
    tick();
  });

  each('[data-copy-target]', function (button) {
    var target = doc.getElementById(button.getAttribute('data-copy-target') || '');
    if (!target || !navigator.clipboard) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = 'value' in target ? target.value : target.textContent;
      navigator.clipboard.writeText(String(text || '').trim()).then(function () {
        button.textContent = button.getAttribute('data-copy-done') || label;
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });

  each('[data-payout]', function (input) {
    var table = doc.getElementById(input.getAttribute('data-payout') || '');
    var fees;
    try { fees = JSON.parse(input.getAttribute('data-payout-fees') || ''); } catch (e) { return; }
    var digits = Number(input.getAttribute('data-payout-digits') || '2');
    var money;
    try { money = new Intl.NumberFormat(doc.documentElement.lang || 'en', { style: 'currency', currency: input.getAttribute('data-payout-currency') || '' }); } catch (e) { return; }
    var live = doc.getElementById(input.getAttribute('data-payout-live') || '');
    var said = input.getAttribute('data-payout-said') || '';
    var timer = null;
    if (!table || !fees) return;
    function format(minor) { return money.format(minor / Math.pow(10, digits)); }
    // The server's own percentOf (@resale/shared/fees), its source written in here: one rounding.
    ${percentOf.toString()}
    function parse(text) {
      var t = String(text).replace(/\\s/g, '').replace(',', '.');
      var m = /^(\\d{1,9})(?:\\.(\\d*))?$/.exec(t);
      if (!m || (m[2] || '').length > digits) return null;
      var minor = Number(m[1]) * Math.pow(10, digits) + Number(((m[2] || '') + '000000').slice(0, digits) || '0');
      return minor > 0 ? minor : null;
    }
    function update() {
      var price = parse(input.value);
      // A price that does not parse keeps the last figures: the server says what is wrong.
      if (price === null) return;
      var buyerFee = percentOf(price, fees.buyerPercent) + fees.buyerFixedMinor;
      var sellerFee = percentOf(price, fees.sellerPercent) + fees.sellerFixedMinor;
      var values = { price: price, buyerFee: buyerFee, buyerTotal: price + buyerFee, sellerFee: sellerFee, payout: price - sellerFee };
      Array.prototype.forEach.call(table.querySelectorAll('[data-payout-cell]'), function (cell) {
        cell.textContent = (cell.getAttribute('data-payout-sign') || '') + format(values[cell.getAttribute('data-payout-cell')]);
      });
      table.hidden = false;
      if (live) {
        if (timer) clearTimeout(timer);
        timer = setTimeout(function () { live.textContent = said.replace('{amount}', format(values.payout)); }, 1000);
      }
    }
    input.addEventListener('input', update);
  });

  each('[data-hosted-payment="stripe"]', function (form) {
    var error = form.querySelector('[data-hosted-error]');
    var submit = form.querySelector('[data-hosted-submit]');
    function fail(text) { error.textContent = text || ''; error.hidden = false; }
    if (typeof window.Stripe !== 'function') { fail(form.getAttribute('data-load-failed')); return; }
    var brand = window.getComputedStyle ? window.getComputedStyle(doc.documentElement).getPropertyValue('--brand').trim() : '';
    var stripe = window.Stripe(form.getAttribute('data-key'), { locale: form.getAttribute('data-locale') || 'auto' });
    var elements = stripe.elements({ clientSecret: form.getAttribute('data-client-secret'), appearance: brand ? { variables: { colorPrimary: brand } } : {} });
    elements.create('payment', { layout: 'tabs' }).mount(form.querySelector('[data-hosted-element]'));
    submit.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      submit.disabled = true;
      error.hidden = true;
      stripe.confirmPayment({ elements: elements, confirmParams: { return_url: form.getAttribute('data-return-url') } }).then(function (result) {
        if (result && result.error) { fail(result.error.message); submit.disabled = false; }
      });
    });
  });

  // The server's own cardBrand (@resale/shared/cards), its source written in here: one rule.
  ${cardBrand.toString()}
  each('input[data-card-brand]', function (input) {
    var out = doc.getElementById(input.getAttribute('data-card-brand'));
    if (!out) return;
    input.addEventListener('input', function () {
      var name = cardBrand(input.value) || '';
      if (out.textContent !== name) out.textContent = name;
    });
  });

  function giveComponents(root) {
    Array.prototype.forEach.call(root.querySelectorAll('[data-component]'), function (el) {
      try { el.component = JSON.parse(el.getAttribute('data-component')); } catch (e) { /* the server wrote it: never malformed */ }
    });
  }
  giveComponents(doc);

  each('form[data-live-preview]', function (form) {
    var timer = null;
    var sent = 0;
    // The service's own colour, for a preview whose brand colour is cleared (the server's rule drew the stored one).
    var serviceBrand = window.getComputedStyle ? window.getComputedStyle(doc.documentElement).getPropertyValue('--brand').trim() : '';
    function refresh() {
      var mine = ++sent;
      var body = new FormData(form);
      body.set('op', 'preview');
      body.set('fragment', '1');
      fetch(form.action, { method: 'POST', body: new URLSearchParams(body), credentials: 'same-origin' }).then(function (res) {
        return res.ok ? res.text() : null;
      }).then(function (text) {
        // An answer overtaken by a newer one is dropped, so the preview shows the last keystroke.
        if (!text || mine !== sent) return;
        var next = new DOMParser().parseFromString(text, 'text/html').querySelector('[data-preview]');
        var current = doc.querySelector('[data-preview]');
        if (!next || !current) return;
        var adopted = doc.importNode(next, true);
        current.replaceWith(adopted);
        var colour = adopted.getAttribute('data-brand-color');
        var page = adopted.querySelector('.preview-page');
        if (page) page.style.setProperty('--brand', /^#[0-9a-fA-F]{6}$/.test(colour || '') ? colour : serviceBrand);
        giveComponents(adopted);
      }).catch(function () { /* offline: the Preview button still works */ });
    }
    form.addEventListener('input', function () {
      if (timer) clearTimeout(timer);
      timer = setTimeout(refresh, 500);
    });
  });

  var first = doc.querySelector('[data-autofocus]');
  if (first) first.focus();
})();
`;

/**
 * A script of the hosted pages served by the service under a name made of its content's hash
 * (`<prefix>-<hash>.js`): cached for good, and a change is a new URL. Only the current name is
 * served: during a rolling deploy a page rendered by an older process may ask for its older name,
 * get a 404, and work as it does without script. The pages' script below is one; the console's
 * passkey script is another (only the pages that need it load it).
 */
export interface ServedScript {
  /** Where it is served. */
  path: string;
  /** The deferred tag that loads it (for a page's `head`; the page answers with `script-src 'self'`). */
  tag(): ReturnType<typeof html>;
  /** Mounts its route on `app`. */
  serve(app: Hono<any>): void;
}

/** A {@link ServedScript} of `source` under `prefix` (a path without the `-<hash>.js`). */
export function servedScript(prefix: string, source: string): ServedScript {
  const path = `${prefix}-${createHash('sha256').update(source).digest('base64url').slice(0, 12)}.js`;
  return {
    path,
    tag: () => html`<script src="${path}" defer></script>`,
    serve: (app) =>
      app.get(path, (c) =>
        c.body(source, 200, {
          'Content-Type': 'text/javascript; charset=utf-8',
          'Cache-Control': 'public, max-age=31536000, immutable',
          'X-Content-Type-Options': 'nosniff',
        }),
      ),
  };
}

const pageScript = servedScript('/assets/pages', PAGE_SCRIPT);

/** The script's path: named by its content's hash, so it is cached for good and a change is a new URL. */
export const PAGE_SCRIPT_PATH = pageScript.path;

/**
 * The tag that loads {@link PAGE_SCRIPT}: deferred, so it runs once the page is parsed. Put
 * it in `Layout`'s `head` and answer the page with `cspWith({ scripts: true })`.
 *
 * @example renderPage(c, <Layout lang={lang} title={title} head={pageScriptTag()}>…</Layout>, { csp: cspWith({ scripts: true }) });
 */
export function pageScriptTag() {
  return pageScript.tag();
}

/** `GET /assets/pages-<hash>.js`: the pages' script (see {@link servedScript}). */
export function pageScriptRoutes() {
  const app = new Hono<AppEnv>();
  pageScript.serve(app);
  return app;
}
