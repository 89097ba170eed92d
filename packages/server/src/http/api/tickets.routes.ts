import { createRoute, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import type { AppDeps, AppEnv } from '../../context.js';
import { toIso } from '../../lib/clock.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, documentBodyAs, envelope, errorResponses, jsonBody, jsonResponse, SECURITY } from '../openapi.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import {
  AdmissionBatchItemSchema,
  ItemResultSchema,
  JobSchema,
  MAX_ASYNC_ITEMS,
  MAX_SYNC_ITEMS,
  TicketInputSchema,
  TicketRecordSchema,
  TicketUpdateSchema,
} from '../../domain/tickets/tickets.schemas.js';
import type { JobStatus } from '../../domain/tickets/tickets.ingest.js';
import { salePublicUrl, secureViewUrl } from '../../domain/tickets/tickets.view.js';

/** The spec's limit of the synchronous endpoint, per partner. */
export const SYNC_TICKETS_PER_MINUTE = 60;

const TicketParam = z.object({ ticketId: z.string().min(1).openapi({ param: { name: 'ticketId', in: 'path' }, example: 'tkt-000123' }) });

/** Items are checked one by one (see TicketInput): the request itself only needs to be an array of objects. */
const itemsBody = (max: number) => z.array(z.looseObject({})).min(1, 'must hold at least one ticket').max(max);

/** The same body as documented: an array of TicketInput, so a generated client types the items. */
const documentedItems = (max: number) =>
  z
    .array(TicketInputSchema)
    .min(1)
    .max(max)
    .openapi({ description: `At most ${max} tickets. Each item is validated on its own; an invalid item is rejected with its reason and the others go on.` });

function jobToApi(job: JobStatus) {
  return {
    jobId: job.id,
    state: job.state,
    total: job.total,
    created: job.created,
    updated: job.updated,
    rejected: job.rejected,
    createdAt: toIso(job.createdAt),
    finishedAt: job.finishedAt === null ? null : toIso(job.finishedAt),
    results: job.results,
  };
}

/** Tickets: ingestion, read, update, delete, admissions. */
export function ticketRoutes(deps: AppDeps) {
  const app = createRouter();
  const svc = deps.tickets;
  const ingest = deps.ticketsIngest;
  const common = { tags: ['Tickets'], security: [SECURITY.private] };
  const key = partnerKey(deps, ['private']);
  const syncLimit: MiddlewareHandler<AppEnv> = async function syncTicketsLimit(c, next) {
    await deps.rateLimiter.take(`sync-tickets:${c.get('auth').partner.id}`, SYNC_TICKETS_PER_MINUTE);
    await next();
  };

  app.openapi(
    documentBodyAs(
      app,
      createRoute({
        ...common,
        method: 'post',
        path: '/v1/tickets',
        operationId: 'createTicketsAsync',
        summary: 'Create tickets asynchronously (queued)',
        description:
          'Answers at once with a job id; a durable queue applies the tickets as capacity allows (the endpoint for volume). ' +
          'Follow the job with GET /v1/tickets/jobs/{jobId}. Sending a ticketId again updates that ticket. Accepts Idempotency-Key.',
        middleware: [key, idempotency(deps)],
        request: { headers: IdempotencyKeyHeaders, body: jsonBody(itemsBody(MAX_ASYNC_ITEMS)) },
        responses: {
          202: jsonResponse(envelope(JobSchema, 202), 'The job, queued; items that failed validation are already rejected in `results`'),
          ...errorResponses(409, 413, 415, 422),
        },
      }),
      documentedItems(MAX_ASYNC_ITEMS),
    ),
    async (c) => {
      const items = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      // Validate before taking the write lock, and wait for it without blocking the event
      // loop (the ingestion thread may be applying a job): the transaction only inserts.
      const prepared = ingest.prepareJob(partnerId, items);
      const release = await ingest.awaitWriteTurn();
      try {
        // Awaited here, so that the turn is released once the transaction has committed.
        return await respondInTransaction(c, deps, 202, async (tx) => jobToApi(await ingest.insertJob(tx, prepared)));
      } finally {
        release();
      }
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/tickets/jobs/{jobId}',
      operationId: 'getTicketJob',
      description: 'The state of a job of POST /v1/tickets (queued, running, done), its counts, and each item’s outcome once known. Jobs are the partner’s own: another partner’s job reads as unknown (404).',
      summary: 'Follow an asynchronous ticket job',
      middleware: [key],
      request: { params: z.object({ jobId: z.string().openapi({ param: { name: 'jobId', in: 'path' }, example: 'job_01jd8x3k4f5g6h7j8k9m0n1p2q' }) }) },
      responses: { 200: jsonResponse(envelope(JobSchema), 'The job and, once done, each item’s outcome'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(jobToApi(await ingest.getJobStatus(c.get('auth').partner.id, c.req.valid('param').jobId))), 200),
  );

  app.openapi(
    documentBodyAs(
      app,
      createRoute({
        ...common,
        method: 'post',
        path: '/v1/sync/tickets',
        operationId: 'createTicketsSync',
        summary: 'Create tickets synchronously',
        description:
          `Applies the tickets now and answers each item's outcome in request order. Not for volume: at most ${MAX_SYNC_ITEMS} items, ` +
          `${SYNC_TICKETS_PER_MINUTE} requests per minute per partner (429 with Retry-After beyond). A rejected item leaves nothing written; the others are applied. Accepts Idempotency-Key.`,
        middleware: [key, syncLimit, idempotency(deps)],
        request: { headers: IdempotencyKeyHeaders, body: jsonBody(itemsBody(MAX_SYNC_ITEMS)) },
        responses: {
          200: jsonResponse(
            envelope(z.object({ created: z.number().int(), updated: z.number().int(), rejected: z.number().int(), results: z.array(ItemResultSchema) }).openapi('TicketSyncResult')),
            'Each item’s outcome',
          ),
          ...errorResponses(409, 413, 415, 422),
        },
      }),
      documentedItems(MAX_SYNC_ITEMS),
    ),
    (c) => {
      const items = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => {
        const results = await svc.syncCreate(tx, partnerId, items);
        const count = (s: string) => results.filter((r) => r.status === s).length;
        return { created: count('created'), updated: count('updated'), rejected: count('rejected'), results };
      });
    },
  );

  // Registered before /v1/tickets/{ticketId}/eventAdmission so that "batch" is never read as a ticket id.
  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/tickets/batch/eventAdmission',
      operationId: 'admitTicketsBatch',
      summary: 'Register admissions in batch',
      description:
        'Records each admission it can. `allRecorded` says whether all were recorded; `failed` lists the others with a reason: unknown, deleted, already_admitted, cancelled, duplicate. At most 1000 items.',
      middleware: [key],
      request: { body: jsonBody(z.array(AdmissionBatchItemSchema).min(1).max(1000)) },
      responses: {
        200: jsonResponse(
          envelope(
            z
              .object({
                allRecorded: z.boolean(),
                recorded: z.number().int(),
                failed: z.array(
                  z.object({ index: z.number().int(), ticketId: z.string(), reason: z.enum(['unknown', 'deleted', 'already_admitted', 'cancelled', 'duplicate']), message: z.string() }),
                ),
              })
              .openapi('AdmissionBatchResult'),
          ),
          'What was recorded',
        ),
        ...errorResponses(413, 415),
      },
    }),
    (c) => {
      const items = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => await svc.admitBatch(tx, partnerId, items));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/tickets/{ticketId}/eventAdmission',
      operationId: 'admitTicket',
      summary: 'Register an admission',
      description: 'Marks the ticket as used at the venue (no body); answers `data: true`. An admitted ticket can no longer be listed; its active listing ends. 409 for a deleted, cancelled or already admitted ticket.',
      middleware: [key],
      request: { params: TicketParam },
      responses: { 200: jsonResponse(envelope(z.literal(true)), 'Recorded'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const { ticketId } = c.req.valid('param');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => {
        await svc.admit(tx, partnerId, ticketId, deps.clock.now());
        return true as const;
      });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/tickets/{ticketId}/url',
      operationId: 'getTicketSecureUrl',
      summary: 'Get the secure ticket-view URL (ticketShield)',
      description:
        'The URL of the secure view with the locked QR. Show it wherever the ticket is viewed while ticketShield is on. ' +
        'It is the holder’s credential: it stops working when the ticket changes hands. The QR stays out of the page until the unlock moment.',
      middleware: [key],
      request: { params: TicketParam },
      responses: { 200: jsonResponse(envelope(z.string().openapi({ example: 'https://resale.example/tickets/view/tkt_01jd….Zq3…' })), 'The URL'), ...errorResponses(404) },
    }),
    async (c) => {
      const { ticketId } = c.req.valid('param');
      const partnerId = c.get('auth').partner.id;
      const ticket = await deps.db.read(async (tx) => await svc.get(tx, partnerId, ticketId));
      return c.json(ok(secureViewUrl(deps, ticket)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/events/tickets/salePublicUrl',
      operationId: 'getSalePublicUrl',
      summary: 'Get the public URL of a ticket’s listing',
      description: 'The public market page of the ticket’s event, filtered to that ticket, for sellers to share.',
      middleware: [key],
      request: {
        query: z.object({
          ticketId: z.string().min(1).openapi({ param: { name: 'ticketId', in: 'query' }, example: 'tkt-000123' }),
          lang: z.enum(['en', 'es']).openapi({ param: { name: 'lang', in: 'query' }, example: 'es' }),
        }),
      },
      responses: { 200: jsonResponse(envelope(z.string().openapi({ example: 'https://resale.example/market/ptr_…/tour-2026?showId=show-1&ticketId=tkt-000123&lang=es' })), 'The URL'), ...errorResponses(404) },
    }),
    async (c) => {
      const { ticketId, lang } = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      const record = await deps.db.read(async (tx) => await svc.toApi(tx, await svc.get(tx, partnerId, ticketId)));
      return c.json(ok(salePublicUrl(deps, { partnerId, externalReferenceEventId: record.externalReferenceEventId, showId: record.showId, ticketId }, lang)), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/tickets/{ticketId}',
      operationId: 'getTicket',
      description: 'The ticket as the service holds it: owner, state (VALID, LISTED, SOLD, ADMITTED, DELETED, CANCELLED), access and seating.',
      summary: 'Read a ticket',
      middleware: [key],
      request: { params: TicketParam },
      responses: { 200: jsonResponse(envelope(TicketRecordSchema), 'The ticket'), ...errorResponses(404) },
    }),
    async (c) => {
      const { ticketId } = c.req.valid('param');
      const partnerId = c.get('auth').partner.id;
      return c.json(ok(await deps.db.read(async (tx) => await svc.toApi(tx, await svc.get(tx, partnerId, ticketId)))), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'put',
      path: '/v1/tickets/{ticketId}',
      operationId: 'updateTicket',
      summary: 'Update a ticket',
      description:
        'The fields sent replace the stored ones (send them all, changed or not); `flags` are kept as sent. A new buyer is a new owner: an active listing of the former owner ends. A deleted ticket answers 409.',
      middleware: [key],
      request: { params: TicketParam, body: jsonBody(TicketUpdateSchema) },
      responses: { 200: jsonResponse(envelope(TicketRecordSchema), 'The ticket after the change'), ...errorResponses(404, 409, 413, 415) },
    }),
    (c) => {
      const { ticketId } = c.req.valid('param');
      const body = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => await svc.toApi(tx, await svc.update(tx, partnerId, ticketId, body)));
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'delete',
      path: '/v1/tickets/{ticketId}',
      operationId: 'deleteTicket',
      summary: 'Delete (invalidate) a ticket',
      description: 'Invalidates the ticket for good: an active listing ends, a pending reservation is released. Cannot be undone; a second DELETE answers 409.',
      middleware: [key],
      request: { params: TicketParam },
      responses: { 200: jsonResponse(envelope(TicketRecordSchema), 'The ticket, now DELETED'), ...errorResponses(404, 409) },
    }),
    (c) => {
      const { ticketId } = c.req.valid('param');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => await svc.toApi(tx, await svc.delete(tx, partnerId, ticketId)));
    },
  );

  return app;
}
