import type { Kernel } from '../lib/kernel.js';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import type { WebhookAction } from '../domain/webhooks/webhooks.catalog.js';
import type { WebhookMessage, WebhooksService } from '../domain/webhooks/webhooks.service.js';

/** The audit action of a test event sent from the console. */
export const WEBHOOK_TEST_ACTION = 'webhook.test';

/** What sending a test event needs: the database, the outbox and the audit log. */
export type WebhookTestDeps = Pick<Kernel, 'db'> & { webhooks: WebhooksService; audit: AuditService };

/**
 * Sends the partner a test event of `action`: the kind's documented example, queued in the
 * outbox and then signed and delivered like any real message, on a resource key of its own so
 * it never holds back a real one (`WebhooksService.enqueueTestIn`), and records `webhook.test`
 * (the message as target, `after: { action, state }`) in the same transaction.
 *
 * @throws ApiError 404 for an unknown partner (nothing queued, nothing recorded)
 * @example const message = await sendTestWebhook(deps, ctx, 'ptr_…', 'listing.created'); // message.state === 'pending'
 */
export async function sendTestWebhook(deps: WebhookTestDeps, ctx: AuditContext, partnerId: string, action: WebhookAction): Promise<WebhookMessage> {
  return deps.db.transact(async (tx) => {
    const message = await deps.webhooks.enqueueTestIn(tx, partnerId, action);
    await deps.audit.record(tx, ctx, { action: WEBHOOK_TEST_ACTION, partnerId, target: message.id, after: { action, state: message.state } });
    return message;
  });
}
