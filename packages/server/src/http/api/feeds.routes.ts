import { PartnerIdParam } from '../../domain/partners/partners.schemas.js';
import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { operatorAuditContext, operatorRoute } from '../middleware/auth.js';
import { feedRunToApi, FeedRunSchema } from '../../domain/feeds/feeds.schemas.js';
import { FeedsService } from '../../domain/feeds/feeds.service.js';
import { pollFeeds } from '../../flows/operator-changes.js';


/**
 * The operator's view of pull sync, under /admin/v1: the latest feed runs of a partner,
 * and a poll on demand. `feeds` may be given (tests pass one with a short time limit).
 */
export function feedRoutes(deps: AppDeps, feeds: FeedsService = new FeedsService(deps)) {
  const app = createRouter();
  const common = operatorRoute(deps);

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/partners/{partnerId}/feedRuns',
      operationId: 'listFeedRuns',
      summary: 'List the latest feed runs of a partner',
      description: 'The 50 latest polls of the partner’s events feed and cancelled-events feed, newest first, with what was applied, skipped and why.',
      request: { params: PartnerIdParam },
      responses: { 200: jsonResponse(envelope(z.array(FeedRunSchema)), 'The runs, newest first'), ...errorResponses(404) },
    }),
    async (c) => {
      const partner = await deps.partners.get(c.req.valid('param').partnerId);
      return c.json(ok((await feeds.runs(partner.id, 50)).map(feedRunToApi)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/admin/v1/partners/{partnerId}/feeds/poll',
      operationId: 'pollFeeds',
      summary: 'Poll a partner’s feeds now',
      description:
        'Polls the events feed, then the cancelled-events feed, now, whatever the schedule, and answers the runs. ' +
        'A feed without a URL in the partner’s settings is not polled. A feed that fails is a run with ok false, not an error of this call. ' +
        'Audited as `feeds.poll`, naming the runs started. Operator token.',
      request: { params: PartnerIdParam },
      responses: { 200: jsonResponse(envelope(z.array(FeedRunSchema)), 'The runs just made'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok((await pollFeeds(deps, operatorAuditContext(c), c.req.valid('param').partnerId, feeds)).map(feedRunToApi)), 200),
  );

  return app;
}
