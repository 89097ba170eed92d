/** The states of a webhook message: waiting (or retrying), delivered, given up, or not sent (not subscribed). */
export const WEBHOOK_MESSAGE_STATES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type WebhookMessageState = (typeof WEBHOOK_MESSAGE_STATES)[number];
