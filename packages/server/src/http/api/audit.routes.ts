import { createRoute } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonResponse } from '../openapi.js';
import { operatorRoute } from '../middleware/auth.js';
import { AuditListQuerySchema, AuditListSchema, auditEntryToApi, auditQueryOf } from '../../domain/audit/audit.schemas.js';
import { OPERATOR_ACTIONS } from '../../flows/operator-changes.js';

/** The operator's view of the audit log (every change made in the console or through /admin/v1), under /admin/v1. */
export function auditRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = operatorRoute(deps);
  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/audit',
      operationId: 'listAuditEntries',
      summary: 'List the audit log',
      description:
        'Every change made through the operator API or in the console, newest first: who made it (the operator token, or a console user), the partner it concerns, the action, ' +
        'what it changed (the fields that changed, before → after; secrets never appear, a rotation reads `[redacted]`), when, from which client address and in which request. ' +
        'Each entry is written in the transaction of its change, and the log is append-only. ' +
        `The operator API's actions: ${Object.values(OPERATOR_ACTIONS).map((a) => `\`${a}\``).join(', ')}. ` +
        'Filter by partner, actor, action and period (`from` inclusive, `to` exclusive); unknown parameters are refused. Cursor pagination: pass `nextCursor` as `startingAfter`. Operator token.',
      request: { query: AuditListQuerySchema },
      responses: { 200: jsonResponse(envelope(AuditListSchema), 'A page of audit entries, newest first'), ...errorResponses() },
    }),
    async (c) => {
      const page = await deps.db.read(async (tx) => await deps.audit.list(tx, auditQueryOf(c.req.valid('query'))));
      return c.json(ok({ items: page.items.map(auditEntryToApi), nextCursor: page.nextCursor }), 200);
    },
  );
  return app;
}
