import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { StripeProvider } from '../domain/payments/stripe.provider.js';
import type { StripeDouble } from './stripe-double.js';

/**
 * Stripe's browser side, played on loopback for the browser journeys (no network reaches
 * js.stripe.com here): a stand-in for Stripe.js at `/v3/` with the little of it our checkout
 * uses (`Stripe(key)`, `elements({clientSecret})`, `create('payment').mount(el)`,
 * `confirmPayment({elements, confirmParams: {return_url}})`), confirming through the double
 * with Stripe's test payment methods; and the Connect onboarding page an account link leads
 * to, whose button completes the account and goes to the link's `return_url`. Test tooling:
 * no part of the product.
 */
export interface StripeBrowser {
  /** `http://127.0.0.1:<port>`: what the checkout's policy must allow instead of Stripe's origins. */
  origin: string;
  /** A Stripe provider whose script, policy and onboarding links point here, its API at the double. */
  provider: StripeProvider;
  close(): Promise<void>;
}

/** The fake Stripe.js: a radio group of test payment methods in place of the Payment Element. */
function script(origin: string): string {
  return `(function () {
  var methods = [['pm_card_visa', 'Visa ending in 4242'], ['pm_card_chargeDeclined', 'Card that is declined']];
  window.Stripe = function (key) {
    var secret = null, mounted = null;
    return {
      elements: function (opts) {
        secret = opts.clientSecret;
        return { create: function () { return { mount: function (el) {
          mounted = el;
          var box = document.createElement('fieldset');
          var legend = document.createElement('legend');
          legend.textContent = 'Test payment method';
          box.appendChild(legend);
          methods.forEach(function (m, i) {
            var id = 'stripe-double-' + m[0];
            var input = document.createElement('input');
            input.type = 'radio'; input.name = 'stripe-double-method'; input.value = m[0]; input.id = id; input.checked = i === 0;
            var label = document.createElement('label');
            label.htmlFor = id; label.textContent = m[1];
            var row = document.createElement('div');
            row.appendChild(input); row.appendChild(label);
            box.appendChild(row);
          });
          el.appendChild(box);
        } }; } };
      },
      confirmPayment: function (opts) {
        var picked = mounted.querySelector('input:checked').value;
        // text/plain: a simple request, no preflight (the answer carries Access-Control-Allow-Origin).
        return fetch('${origin}/v3/confirm', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ key: key, clientSecret: secret, paymentMethod: picked }) })
          .then(function (r) { return r.json(); })
          .then(function (answer) {
            if (answer.error) return { error: answer.error };
            var url = new URL(opts.confirmParams.return_url);
            url.searchParams.set('payment_intent', answer.id);
            url.searchParams.set('redirect_status', 'succeeded');
            window.location.assign(url.toString());
            return new Promise(function () {});
          });
      }
    };
  };
})();
`;
}

/** Starts Stripe's browser side in front of `double`. */
export async function startStripeBrowser(double: StripeDouble): Promise<StripeBrowser> {
  const sdk = double.sdk();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': type, 'access-control-allow-origin': '*', ...headers }).end(body);
    void (async () => {
      if (req.method === 'GET' && url.pathname === '/v3/') return send(200, 'text/javascript; charset=utf-8', script(origin));
      if (req.method === 'POST' && url.pathname === '/v3/confirm') {
        let text = '';
        for await (const chunk of req) text += String(chunk);
        const { clientSecret, paymentMethod } = JSON.parse(text) as { clientSecret: string; paymentMethod: string };
        const id = clientSecret.split('_secret_')[0]!;
        if ((await sdk.paymentIntents.retrieve(id)).client_secret !== clientSecret) return send(400, 'application/json', JSON.stringify({ error: { message: 'Invalid client secret' } }));
        try {
          const pi = await sdk.paymentIntents.confirm(id, { payment_method: paymentMethod });
          return send(200, 'application/json', JSON.stringify({ id: pi.id, status: pi.status }));
        } catch (err) {
          if (err instanceof Stripe.errors.StripeError) return send(200, 'application/json', JSON.stringify({ error: { type: err.type, code: err.code, message: err.message } }));
          throw err;
        }
      }
      const onboarding = /^\/connect\/onboarding\/(acct_\w+)(\/complete)?$/.exec(url.pathname);
      if (onboarding && req.method === 'GET') {
        return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="en"><head><title>Stripe onboarding (double)</title><link rel="icon" href="data:,"></head><body><main><h1>Set up payouts</h1><form method="post" action="/connect/onboarding/${onboarding[1]}/complete"><button type="submit">Complete onboarding</button></form></main></body></html>`);
      }
      const dashboard = /^\/connect\/express\/(acct_\w+)$/.exec(url.pathname);
      if (dashboard && req.method === 'GET') {
        return send(200, 'text/html; charset=utf-8', `<!doctype html><html lang="en"><head><title>Stripe Express (double)</title><link rel="icon" href="data:,"></head><body><main><h1>Your Stripe Express account ${dashboard[1]}</h1></main></body></html>`);
      }
      if (onboarding?.[2] && req.method === 'POST') {
        await double.completeOnboarding(onboarding[1]!);
        // Back where the latest account link of this account said.
        const link = [...double.requests].reverse().find((r) => r.path === '/v1/account_links' && (r.body as { account?: string }).account === onboarding[1]);
        return send(303, 'text/plain', '', { location: String((link?.body as { return_url?: string }).return_url) });
      }
      send(404, 'text/plain', 'not found');
    })().catch((err: unknown) => send(500, 'text/plain', String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** Stripe's provider with its browser side here. */
  class LocalStripe extends StripeProvider {
    override readonly scriptUrl = `${origin}/v3/`;
    override readonly onboardingOrigins = [origin];
    override readonly csp = { scriptSrc: [origin], frameSrc: [origin], connectSrc: [origin], imgSrc: [] as string[] } as unknown as StripeProvider['csp'];
    override async onboardingLink(input: { accountId: string; returnUrl: string; refreshUrl: string }): Promise<string> {
      const url = new URL(await super.onboardingLink(input));
      return `${origin}${url.pathname}`;
    }
    override async dashboardLink(accountId: string): Promise<string> {
      return `${origin}${new URL(await super.dashboardLink(accountId)).pathname}`;
    }
  }
  const provider = new LocalStripe({ secretKey: double.secretKey, publishableKey: 'pk_test_browser', webhookSecret: double.webhookSecret, api: { host: '127.0.0.1', port: double.port, protocol: 'http' }, now: () => Date.now() });
  return {
    origin,
    provider,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
