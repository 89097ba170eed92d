import type { Server } from 'node:http';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { listen, type Listening } from '../../testing/harness.js';
import { startStripeDouble, type StripeDouble } from '../../testing/stripe-double.js';
import { ledgerEntries } from '../ledger/ledger.table.js';
import { checkoutSetup } from './checkout.testing.js';
import { StripeProvider } from './stripe.provider.js';

/**
 * The checkout's world (checkoutSetup) with the Stripe provider pointed at a local double of
 * Stripe's API, reached by the real SDK; the service served over HTTP, where the double
 * delivers its signed events. `confirm` plays Stripe.js in the buyer's browser: it confirms
 * the PaymentIntent with one of Stripe's test payment methods. The same provider pays sellers
 * (Connect). What it starts is pushed to `servers` and `open`, for the test's afterEach to close.
 */
export async function stripeWorld(servers: Server[], open: { close(): Promise<void> }[]) {
  // Stripe's clock is the test's (set once the app exists): objects, balances and signatures on the manual clock.
  let now = () => Date.now();
  const double: StripeDouble = await startStripeDouble({ now: () => now() });
  open.push(double);
  const provider = new StripeProvider({ secretKey: double.secretKey, publishableKey: 'pk_test_double', webhookSecret: double.webhookSecret, api: { host: '127.0.0.1', port: double.port, protocol: 'http' }, now: () => now() });
  const s = await checkoutSetup(servers, { paymentProvider: provider, payoutProvider: provider });
  now = () => s.t.clock.now();
  const http: Listening = await listen(s.t.app);
  open.push(http);
  double.deliverTo(`${http.base}/v1/payments/stripe/events`);
  const sdk = double.sdk();
  const piOf = (page: string) => /data-client-secret="(pi_[A-Za-z0-9]+)_secret_[^"]+"/.exec(page)?.[1];
  const confirm = async (pi: string, method: string) => {
    try {
      return await sdk.paymentIntents.confirm(pi, { payment_method: method });
    } catch (err) {
      if (err instanceof Stripe.errors.StripeCardError) return err;
      throw err;
    }
  };
  const balances = async () => {
    const out: Record<string, number> = {};
    for (const e of await s.t.db.select().from(ledgerEntries)) out[e.account] = (out[e.account] ?? 0) + e.amountMinor;
    expect(Object.values(out).reduce((a, b) => a + b, 0), 'the ledger sums to zero').toBe(0);
    return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== 0));
  };
  return { ...s, double, provider, http, piOf, confirm, balances };
}


/** Opens and onboards a seller's Stripe account as the sell pages would (a stepped-up session); returns its id. */
export async function onboardSeller(w: Awaited<ReturnType<typeof stripeWorld>>, email: string): Promise<string> {
  const seller = (await w.t.deps.users.find(w.t.db, w.p.id, email))!;
  const connect = w.t.deps.payouts.connect!;
  await connect.onboardingLink({ partnerId: w.p.id, userPk: seller.id, steppedUpAt: w.t.clock.now() }, { returnUrl: 'http://resale.test/r', refreshUrl: 'http://resale.test/f' }, 'en', 'ES');
  const accountId = (await w.t.db.read(async (tx) => await connect.get(tx, seller.id)))!.accountId;
  await w.double.completeOnboarding(accountId);
  return accountId;
}
