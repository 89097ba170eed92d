import { PartnerIdParam } from '../partners/partners.schemas.js';
import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { WEBHOOK_ACTIONS } from './webhooks.catalog.js';
import { MAX_LIST_LIMIT, WEBHOOK_MESSAGE_STATES, type WebhookMessageWithAttempts } from './webhooks.service.js';

/** Request and response schemas of the operator's webhook delivery log. */

const iso = (description: string, example: string) => z.string().openapi({ description, example });

export const WebhookAttemptSchema = z
  .object({
    id: z.string().openapi({ example: 'att_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    attempt: z.number().int().openapi({ description: 'Attempt number within the current delivery round (a replay starts a new round at 1).', example: 1 }),
    url: z.string().openapi({ description: 'Where it was sent; empty when the partner had no webhookUrl.', example: 'https://partner.example/hooks/resale' }),
    at: iso('When the attempt started.', '2026-03-01T12:00:00.000Z'),
    statusCode: z.number().int().nullable().openapi({ description: 'HTTP status answered; null for a timeout, a network error or no URL.', example: 500 }),
    latencyMs: z.number().int().openapi({ description: 'Duration of the HTTP call, in milliseconds.', example: 87 }),
    error: z.string().nullable().openapi({ description: 'Why it failed (at most ~200 characters of the answer); null on success.', example: 'HTTP 500: upstream unavailable' }),
    answer: z.string().nullable().openapi({
      description: 'What the partner’s server answered: the first 1,024 characters of the body (secrets removed), whatever the status; null when nothing answered, the body was empty, or the answer was a redirect.',
      example: '{"error":"database down"}',
    }),
    nextAttemptAt: z.string().nullable().openapi({ description: 'When the next attempt was scheduled after this one; null when delivered or given up.', example: '2026-03-01T12:00:05.000Z' }),
  })
  .openapi('WebhookAttempt');

export const WebhookMessageSchema = z
  .object({
    id: z.string().openapi({ description: 'The message id, sent as webhook-id on every attempt and replay.', example: 'msg_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    action: z.enum(WEBHOOK_ACTIONS).openapi({ example: 'ticketShield.updated' }),
    family: z.string().openapi({ example: 'ticketShield' }),
    resourceKey: z.string().openapi({ description: 'Messages of one resource are delivered in order.', example: 'show:tour-2026/show-2026-05-01' }),
    state: z.enum(WEBHOOK_MESSAGE_STATES).openapi({
      description: 'pending: to be sent (or retried); delivered: a 2xx was received; failed: every attempt of the schedule failed; skipped: the partner does not subscribe to the action.',
      example: 'delivered',
    }),
    body: z.record(z.string(), z.unknown()).openapi({
      description: 'The exact JSON sent: {family, action, data}.',
      example: { family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour-2026', showId: 'show-2026-05-01' } },
    }),
    attemptCount: z.number().int().openapi({ description: 'Attempts made in the current delivery round.', example: 2 }),
    nextAttemptAt: z.string().nullable().openapi({ description: 'When it is due (pending only); null while it waits for the partner to set a webhookUrl (`lastError` says so), and once delivered, failed or skipped.', example: null }),
    deliveredAt: z.string().nullable().openapi({ example: '2026-03-01T12:00:05.000Z' }),
    lastStatus: z.number().int().nullable().openapi({ example: 200 }),
    lastError: z.string().nullable().openapi({ example: null }),
    createdAt: iso('When the change that caused it committed.', '2026-03-01T12:00:00.000Z'),
    attempts: z.array(WebhookAttemptSchema).openapi({ description: 'The delivery log, oldest first.' }),
  })
  .openapi('WebhookMessage');

export const WebhookListQuery = z.object({
  state: z
    .enum(WEBHOOK_MESSAGE_STATES)
    .optional()
    .openapi({ param: { name: 'state', in: 'query' }, description: 'Only messages in this state.', example: 'failed' }),
  action: z
    .enum(WEBHOOK_ACTIONS)
    .optional()
    .openapi({ param: { name: 'action', in: 'query' }, description: 'Only messages of this action.', example: 'ticketShield.updated' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIST_LIMIT)
    .default(50)
    .openapi({ param: { name: 'limit', in: 'query' }, description: `How many messages, newest first (1–${MAX_LIST_LIMIT}).`, example: 50 }),
});

export const WebhookMessageParams = PartnerIdParam.extend({
  messageId: z.string().openapi({ param: { name: 'messageId', in: 'path' }, example: 'msg_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

/** The operator's view of a message and its delivery log. */
export function webhookMessageToApi({ message, attempts }: WebhookMessageWithAttempts): z.output<typeof WebhookMessageSchema> {
  return {
    id: message.id,
    action: message.action as z.output<typeof WebhookMessageSchema>['action'],
    family: message.family,
    resourceKey: message.resourceKey,
    state: message.state,
    body: message.payload,
    attemptCount: message.attempts,
    nextAttemptAt: isoOrNull(message.nextAttemptAt),
    deliveredAt: isoOrNull(message.deliveredAt),
    lastStatus: message.lastStatus,
    lastError: message.lastError,
    createdAt: toIso(message.createdAt),
    attempts: attempts.map((att) => ({
      id: att.id,
      attempt: att.attempt,
      url: att.url,
      at: toIso(att.at),
      statusCode: att.statusCode,
      latencyMs: att.latencyMs,
      error: att.error,
      answer: att.answer,
      nextAttemptAt: isoOrNull(att.nextAttemptAt),
    })),
  };
}
