import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { operatorAuditContext, operatorRoute } from '../middleware/auth.js';
import { replayWebhook } from '../../flows/operator-changes.js';
import { PartnerIdParam } from '../../domain/partners/partners.schemas.js';
import { WebhookListQuery, WebhookMessageParams, WebhookMessageSchema, webhookMessageToApi } from '../../domain/webhooks/webhooks.schemas.js';
import { webhooksServiceOf, type WebhooksService } from '../../domain/webhooks/webhooks.service.js';

/**
 * The operator's webhook delivery log under /admin/v1: a partner's messages with their
 * attempts, and replay. Also documents every webhook kind under the OpenAPI `webhooks`
 * object. `webhooks` defaults to `deps.webhooks` (or one built from `deps` until AppDeps
 * carries it); tests pass one with a short time limit.
 */
export function webhookRoutes(deps: AppDeps, webhooks: WebhooksService = webhooksServiceOf(deps)) {
  const app = createRouter();
  const common = operatorRoute(deps);

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/partners/{partnerId}/webhooks',
      operationId: 'listPartnerWebhooks',
      summary: 'List a partner’s webhook messages and their delivery attempts',
      description:
        'Newest first, each message with its delivery log (status code, latency, error, next attempt). ' +
        'Filter by state (pending, delivered, failed, skipped) and action.',
      request: { params: PartnerIdParam, query: WebhookListQuery },
      responses: { 200: jsonResponse(envelope(z.array(WebhookMessageSchema)), 'The messages, newest first'), ...errorResponses(404) },
    }),
    async (c) => {
      const { partnerId } = c.req.valid('param');
      const { state, action, limit } = c.req.valid('query');
      const rows = await webhooks.list(partnerId, { limit, ...(state ? { state } : {}), ...(action ? { action } : {}) });
      return c.json(ok(rows.map(webhookMessageToApi)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/admin/v1/partners/{partnerId}/webhooks/{messageId}/replay',
      operationId: 'replayPartnerWebhook',
      summary: 'Send a webhook message again',
      description:
        'Queues the message for delivery now, with the same webhook-id (partners deduplicate on it). A delivered, failed or skipped ' +
        'message gets a fresh retry schedule; a pending one is simply made due now. Order per resource still applies. Audited as `webhook.replay`. Operator token.',
      request: { params: WebhookMessageParams },
      responses: { 200: jsonResponse(envelope(WebhookMessageSchema), 'The message, pending and due now'), ...errorResponses(404) },
    }),
    async (c) => {
      const { partnerId, messageId } = c.req.valid('param');
      return c.json(ok(webhookMessageToApi(await replayWebhook(deps, operatorAuditContext(c), partnerId, messageId, webhooks))), 200);
    },
  );

  return app;
}
