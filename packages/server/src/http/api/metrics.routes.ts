import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps, AppEnv } from '../../context.js';
import { createRouter, ErrorEnvelopeSchema, SECURITY } from '../openapi.js';
import { metricsToken } from '../middleware/auth.js';

/**
 * `GET /metrics`: the Prometheus text exposition of `deps.metrics`, for the operator's
 * scraper. Outside `/v1`, no API key: `Authorization: Bearer $METRICS_TOKEN` (or
 * `$OPERATOR_TOKEN` when METRICS_TOKEN is unset), 401 in the envelope otherwise. Never rate
 * limited: app.ts mounts it with the health endpoints, before every limit and key check.
 *
 * @example app.route('/', metricsRoutes(deps));
 */
export function metricsRoutes(deps: Pick<AppDeps, 'config' | 'metrics'>): OpenAPIHono<AppEnv> {
  const app = createRouter();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics',
      description:
        'Request counts and latencies by route template, requests in flight, database call durations, queue depths and ages (ticket jobs, webhooks, e-mail, SMS, due payouts), ' +
        'webhook and buy-intention outcomes, the buy access layer cache, and process metrics (event-loop lag, memory, CPU), in the Prometheus text format 0.0.4. ' +
        'Authorization: Bearer METRICS_TOKEN, or OPERATOR_TOKEN when METRICS_TOKEN is not set. Never rate limited. See the operating guide (docs/operating.md), "Metrics".',
      security: [SECURITY.operator],
      middleware: [metricsToken(deps)],
      responses: {
        200: {
          description: 'The metrics',
          content: { 'text/plain': { schema: z.string().openapi({ example: 'resale_http_requests_total{method="GET",route="/v1/events/:eventId",status="200"} 42' }) } },
        },
        401: { description: 'No token, or not the metrics token', content: { 'application/json': { schema: ErrorEnvelopeSchema } } },
      },
    }),
    async (c) => c.text(await deps.metrics.scrape(), 200, { 'Content-Type': deps.metrics.contentType, 'Cache-Control': 'no-store' }),
  );
  return app;
}
