import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse } from '../openapi.js';
import { handleProviderEvent } from '../../flows/hosted-payment.js';
import { EventSignatureError } from '../../domain/payments/payments.provider.js';

const StripeEventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_1QxYz2AbCdEf' }),
    object: z.literal('event'),
    type: z.string().openapi({ example: 'payment_intent.succeeded' }),
    data: z.object({ object: z.object({}).catchall(z.unknown()) }),
  })
  .catchall(z.unknown())
  .openapi('StripeEvent', { description: 'An event as Stripe sends it (see Stripe’s API reference, Events).' });

const EventReceivedSchema = z
  .object({
    received: z.literal(true),
    result: z.enum(['processed', 'duplicate', 'ignored']).openapi({ description: '`duplicate`: this event id was processed before, nothing changed again; `ignored`: a type the service does not act on, or a payment it does not know.' }),
  })
  .openapi('ProviderEventReceived');

/**
 * `POST /v1/payments/stripe/events`: where Stripe delivers its events (docs/payments.md). The
 * body is read as the raw bytes Stripe signed and verified with the SDK against
 * STRIPE_WEBHOOK_SECRET before anything is parsed or done; each event is processed once
 * (flows/hosted-payment.ts). No key: the signature is the authentication. Documented, and
 * served outside the validator, which would parse the JSON before the signature is checked.
 */
export function paymentRoutes(deps: AppDeps) {
  const app = createRouter();
  app.openAPIRegistry.registerPath(
    createRoute({
      method: 'post',
      path: '/v1/payments/stripe/events',
      operationId: 'receiveStripeEvent',
      tags: ['Payment provider'],
      summary: 'Receive a Stripe event',
      description:
        'For Stripe, not for partners: subscribe this URL in Stripe’s dashboard to `payment_intent.succeeded`, `payment_intent.payment_failed`, `payment_intent.processing`, `payment_intent.requires_action`, `payment_intent.canceled`, `refund.created`, `refund.updated` and `account.updated` (Connect). ' +
        'Verified with the `Stripe-Signature` header and STRIPE_WEBHOOK_SECRET; each event id is processed once, in the transaction of the change it causes. 404 when Stripe is not configured.',
      security: [],
      request: {
        headers: z.object({ 'stripe-signature': z.string().openapi({ description: 'Stripe’s signature of the raw body.', example: 't=1732406400,v1=30787adbba7b5066555ab225e26e06ba7d9712bc2d6b023249944a1aa176ee4d' }) }),
        body: jsonBody(StripeEventSchema),
      },
      responses: { 200: jsonResponse(envelope(EventReceivedSchema), 'Received'), ...errorResponses(404, 413, 415) },
    }),
  );
  app.post('/v1/payments/stripe/events', async (c) => {
    const provider = deps.payments.hosted;
    if (!provider || provider.name !== 'stripe') throw ApiError.notFound('payment provider', 'stripe');
    const raw = await c.req.text();
    let event;
    try {
      event = provider.verifyEvent(raw, c.req.header('stripe-signature'));
    } catch (err) {
      if (!(err instanceof EventSignatureError)) throw err;
      throw new ApiError(400, 'invalid_signature', 'The Stripe-Signature header does not verify this body (check STRIPE_WEBHOOK_SECRET)', { path: 'Stripe-Signature', in: 'header' });
    }
    return c.json(ok({ received: true as const, result: await handleProviderEvent(deps, provider, event) }), 200);
  });
  return app;
}
