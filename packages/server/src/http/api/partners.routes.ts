import { createRoute, z } from '@hono/zod-openapi';
import type { AppDeps } from '../../context.js';
import { toIso } from '../../lib/clock.js';
import { ok } from '../../lib/envelope.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse } from '../openapi.js';
import { operatorAuditContext, operatorRoute } from '../middleware/auth.js';
import { createPartner, rotatePartnerKey, rotatePartnerWebhookSecret, updatePartner } from '../../flows/operator-changes.js';
import type { PartnerChange } from '../../domain/partners/partners.service.js';
import {
  PartnerIdParam,
  PartnerCreatedSchema,
  PartnerCreateSchema,
  PartnerSchema,
  PartnerUpdateSchema,
  partnerToApi,
  RotatedSchema,
  RotateSchema,
  WebhookSecretRotatedSchema,
  WebhookSecretRotateSchema,
} from '../../domain/partners/partners.schemas.js';


/** The operator API for partners, keys and settings, under /admin/v1. */
export function partnerRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = operatorRoute(deps);

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/admin/v1/partners',
      operationId: 'createPartner',
      summary: 'Create a partner',
      description: 'Creates a partner with its private, public and channels keys and its webhook signing secret, all shown only in this answer. Audited as `partner.create` (never a secret). Operator token. No `Idempotency-Key`: a kept answer would keep the secrets, which are stored only as hashes; a request retried after a lost answer makes a second partner, so list the partners (their names) before retrying.',
      request: { body: jsonBody(PartnerCreateSchema) },
      responses: { 201: jsonResponse(envelope(PartnerCreatedSchema, 201), 'The partner and its secrets'), ...errorResponses() },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const { partner, secrets } = await createPartner(deps, operatorAuditContext(c), { name: body.name, settings: body.settings });
      return c.json(ok({ partner: partnerToApi(partner), keys: secrets.keys, webhookSecret: secrets.webhookSecret }, 201), 201);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/partners',
      operationId: 'listPartners',
      description: 'Every partner of this service with its settings (never its keys nor secrets). Operator token.',
      summary: 'List partners',
      responses: { 200: jsonResponse(envelope(z.array(PartnerSchema)), 'Every partner, newest first'), ...errorResponses() },
    }),
    async (c) => c.json(ok((await deps.partners.list()).map(partnerToApi)), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/admin/v1/partners/{partnerId}',
      operationId: 'getPartner',
      description: 'One partner with its settings; `platformSecret` reads back as `platformSecretSet`. Operator token.',
      summary: 'Read a partner and its settings',
      request: { params: PartnerIdParam },
      responses: { 200: jsonResponse(envelope(PartnerSchema), 'The partner'), ...errorResponses(404) },
    }),
    async (c) => c.json(ok(partnerToApi(await deps.partners.get(c.req.valid('param').partnerId))), 200),
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'patch',
      path: '/admin/v1/partners/{partnerId}',
      operationId: 'updatePartner',
      summary: 'Update a partner’s name or settings',
      description: 'Settings sent replace the stored ones; settings omitted keep their values; `null` clears a URL or the platform secret. Unknown settings are rejected. Audited as `partner.update` with the fields that changed (the platform secret as `[redacted]`). Operator token.',
      request: { params: PartnerIdParam, body: jsonBody(PartnerUpdateSchema) },
      responses: { 200: jsonResponse(envelope(PartnerSchema), 'The updated partner'), ...errorResponses(404) },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const change: PartnerChange = {};
      if (body.name !== undefined) change.name = body.name;
      if (body.settings !== undefined) change.settings = body.settings;
      return c.json(ok(partnerToApi(await updatePartner(deps, operatorAuditContext(c), c.req.valid('param').partnerId, change))), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/admin/v1/partners/{partnerId}/keys/rotate',
      operationId: 'rotatePartnerKey',
      description: 'Issues a new private, public or channels key (or webhook secret) and answers it once. The previous one keeps working for `graceSeconds` (0: revoked at once), so deployments can roll over. Audited as `partner.key.rotate` (`partner.webhook_secret.rotate` for the webhook secret) with the kind and grace, never the secret. Operator token.',
      summary: 'Rotate a key or the webhook secret',
      request: { params: PartnerIdParam, body: jsonBody(RotateSchema) },
      responses: { 200: jsonResponse(envelope(RotatedSchema), 'The new secret, shown once'), ...errorResponses(404) },
    }),
    async (c) => {
      const { kind, graceSeconds } = c.req.valid('json');
      const r = await rotatePartnerKey(deps, operatorAuditContext(c), c.req.valid('param').partnerId, { kind, graceSeconds });
      return c.json(ok({ kind, secret: r.secret, previousValidUntil: r.previousValidUntil === null ? null : toIso(r.previousValidUntil) }), 200);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/admin/v1/partners/{partnerId}/webhookSecret/rotate',
      operationId: 'rotatePartnerWebhookSecret',
      summary: 'Rotate the webhook signing secret, with a grace period',
      description:
        'Replaces the partner’s Standard Webhooks secret. During the grace (`graceSeconds`, 24 hours when absent) every webhook is signed with both secrets: `webhook-signature` holds two space-separated `v1,` signatures, the new secret’s first, and a verifier with either secret accepts it. The partner switches its verifier to the new secret within the grace; after it, only the new secret signs. A rotation during a grace replaces the previous secret. The body may be left out. Audited as `partner.webhook_secret.rotate` with the grace, never the secret. Operator token.',
      request: {
        params: PartnerIdParam,
        // Optional: a bare POST rotates with the default grace.
        body: { content: { 'application/json': { schema: WebhookSecretRotateSchema } }, required: false },
      },
      responses: { 200: jsonResponse(envelope(WebhookSecretRotatedSchema), 'The new secret, shown once, and when the previous one stops signing'), ...errorResponses(404) },
    }),
    async (c) => {
      // Without a body the validator passes `{}`, so the default is applied by the flow, not by the schema.
      const { graceSeconds } = c.req.valid('json');
      const r = await rotatePartnerWebhookSecret(deps, operatorAuditContext(c), c.req.valid('param').partnerId, { graceSeconds });
      return c.json(ok({ webhookSecret: r.secret, previousValidUntil: r.previousValidUntil === null ? null : toIso(r.previousValidUntil) }), 200);
    },
  );

  return app;
}
