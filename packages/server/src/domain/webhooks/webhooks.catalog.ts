import { z, type OpenAPIHono } from '@hono/zod-openapi';
import { WEBHOOK_ACTIONS, WEBHOOK_KINDS, type WebhookAction, type WebhookKindOf } from './webhooks.kinds.js';

/**
 * The catalog of webhooks the service sends, derived from their definitions (webhooks.kinds.ts):
 * for each action, the schema of its `data` and of the whole body `{family, action, data}`
 * (`family` is the part of `action` before the first dot), and their OpenAPI documents. The body
 * a partner receives is exactly `JSON.stringify({family, action, data})`.
 *
 * `WebhooksService.enqueue` validates `data` against these schemas, so a payload that does
 * not match the documented shape is a programming error caught before it is stored.
 */

export { WEBHOOK_ACTIONS, type WebhookAction };

/** The schema of `data` for each action. */
export const WEBHOOK_DATA_SCHEMAS = Object.fromEntries(WEBHOOK_KINDS.map((kind) => [kind.action, kind.data])) as { [A in WebhookAction]: WebhookKindOf<A>['data'] };

/** The `data` of one action: what `enqueue` accepts for it. */
export type WebhookData<A extends WebhookAction> = z.input<WebhookKindOf<A>['data']>;

/** The example of each action's `data` (each one parses under its schema: openapi.contract.test.ts). */
export const WEBHOOK_EXAMPLES = Object.fromEntries(WEBHOOK_KINDS.map((kind) => [kind.action, kind.example])) as { [A in WebhookAction]: WebhookData<A> };

/** The family of an action: the part before the first dot (`ticketShield.updated` -> `ticketShield`). */
export function familyOf(action: string): string {
  const dot = action.indexOf('.');
  return dot === -1 ? action : action.slice(0, dot);
}

/** The body sent for a message: `{family, action, data}`, in this key order. */
export interface WebhookBody {
  family: string;
  action: WebhookAction;
  data: Record<string, unknown>;
}

// ------------------------------------------------------------------ whole bodies

/** A component name per action: `ticketShield.updated` -> `TicketShieldUpdatedWebhook`. */
function componentName(action: WebhookAction): string {
  return action
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('') + 'Webhook';
}

/** The schema of the body of one kind; typed by the kind's own action and `data` (destructuring a union would widen them). */
function bodySchema<K extends WebhookKindOf<WebhookAction>>({ action, data, description, example }: K) {
  const family = familyOf(action);
  return z
    .object({
      family: z.literal(family).openapi({ description: 'The part of action before the first dot.', example: family }),
      action: z.literal(action as K['action']).openapi({ description: 'What happened.', example: action }),
      data: data as K['data'],
    })
    .openapi(componentName(action), { description, example: { family, action, data: example } });
}

/** The schema of the whole body of each action (`{family, action, data}`). */
export const WEBHOOK_BODY_SCHEMAS = Object.fromEntries(WEBHOOK_KINDS.map((kind) => [kind.action, bodySchema(kind)])) as {
  [A in WebhookAction]: ReturnType<typeof bodySchema<WebhookKindOf<A>>>;
};

/** The headers of every delivery, as documented in OpenAPI. */
export const WebhookHeadersSchema = z.object({
  'webhook-id': z.string().openapi({ description: 'The message id; the same on every retry and replay, so use it to deduplicate.', example: 'msg_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix time of this attempt, in seconds.', example: '1777720000' }),
  'webhook-signature': z.string().openapi({
    description: 'Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` with the partner’s whsec_ secret.',
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

/**
 * Documents every webhook under the OpenAPI 3.1 `webhooks` object, with the signing
 * headers and the body schema, one per kind in the order of `WEBHOOK_KINDS`. Called by
 * `createApp` on the app's own registry (app.ts), which puts them in /v1/openapi.json.
 */
export function registerWebhookDocs(registry: OpenAPIHono['openAPIRegistry']): void {
  for (const { action, description } of WEBHOOK_KINDS) {
    registry.registerWebhook({
      method: 'post',
      path: action,
      operationId: `webhook_${action.replace('.', '_')}`,
      // Signed (webhook-signature), not keyed: the partner's endpoint needs no key of ours.
      security: [],
      tags: ['Webhooks'],
      summary: `${action} webhook`,
      description:
        description +
        ' Sent as a POST to the partner’s webhookUrl, signed by the Standard Webhooks scheme; answer any 2xx within 10 s, or it is retried (about 3 days).',
      request: { headers: WebhookHeadersSchema, body: { content: { 'application/json': { schema: WEBHOOK_BODY_SCHEMAS[action] } }, required: true } },
      responses: { 200: { description: 'Any 2xx acknowledges the message; anything else, a timeout or a network error is retried.' } },
    });
  }
}
