import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppDeps } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { ApiError } from '../../lib/errors.js';
import { createRouter, envelope, errorResponses, jsonBody, jsonResponse, refuseRepeatedQuery, SECURITY, withRepeatedQuery } from '../openapi.js';
import { locationOf } from '../../lib/validation.js';
import { partnerKey } from '../middleware/auth.js';
import { IdempotencyKeyHeaders, idempotency, respondInTransaction } from '../middleware/idempotency.js';
import { MAX_RULE_ITEMS, ruleIssuesToEntries, RulesQuery, RulesRequest, ruleToApi, StoredRuleItem } from '../../domain/rules/rules.schemas.js';

const RulesResponse = envelope(z.array(StoredRuleItem)).openapi('RulesResponse');

/**
 * Validation failures of this router: as everywhere, except that the first pass over the
 * raw items reports deprecated fields as `deprecated_field` (see rules.schemas.ts).
 */
function rulesHook<T>(result: { success: true; data: T; target: string } | { success: false; error: { issues: z.core.$ZodIssue[] }; target: string }, c: Context): undefined {
  if (!result.success) throw ApiError.invalid(withRepeatedQuery(c, result.target, ruleIssuesToEntries(result.error.issues, locationOf(result.target))));
  if (result.target === 'query') refuseRepeatedQuery(c, Object.keys(result.data as object));
  return undefined;
}

/** The path rules had before /v1/rules (SPEC, Versioning); its calls answer 410 naming the successor. */
export const RETIRED_RULES_PATH = '/v1/events/rules';

/**
 * The answer to a call of the retired rules path: 410 `endpoint_moved`, with the successor in
 * the message and in a `Link` header, so a partner's integration fails loudly and says where
 * to go rather than reading as an unknown event or a wrong method.
 */
export function rulesMoved(method: 'GET' | 'POST'): ApiError {
  return new ApiError(410, 'endpoint_moved', `${RETIRED_RULES_PATH} was replaced by ${method} /v1/rules (same key, same fields)`, {
    headers: { Link: '</v1/rules>; rel="successor-version"' },
  });
}

/** POST /v1/rules and GET /v1/rules, and the retired POST /v1/events/rules. */
export function ruleRoutes(deps: AppDeps) {
  const app = createRouter();
  const common = { tags: ['Rules'], security: [SECURITY.public, SECURITY.private] };

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: '/v1/rules',
      operationId: 'upsertRules',
      summary: 'Create or update rules and combinations',
      description:
        `Body: 1 to ${MAX_RULE_ITEMS} items, all for the same event and show (another event or show answers 400 invalid_value naming the item, e.g. 3.showId). ` +
        'Items are applied in order in one transaction: if one fails, nothing is written. Each rule is stored once per ticket option, scope ' +
        '(the ticket option, or the combination named by priceTypeId) and ruleType; posting it again replaces it, except superSwapConfig, which merges the flags sent. ' +
        'A COMBINATION item creates or updates a combination (price in major units, fees excluded). ' +
        'The ids must be those sent at event creation: an unknown event (or another partner’s) or show answers 404; an unknown ticketOptionId or priceTypeId, ' +
        'or a priceTypeId forming no combination, answers 400 naming the field. Deprecated fields superswap, superswapInit, minPriceSell, maxPriceSell and ' +
        'ruleType ticketShield answer 400 deprecated_field with their path and what replaces them. Accepts the public or the private key, and Idempotency-Key.',
      middleware: [partnerKey(deps, ['public', 'private']), idempotency(deps)],
      request: { headers: IdempotencyKeyHeaders, body: jsonBody(RulesRequest) },
      responses: { 200: jsonResponse(RulesResponse, 'The items applied, as stored, in the order sent'), ...errorResponses(404, 409, 413, 415, 422) },
    }),
    (c) => {
      const items = c.req.valid('json');
      const partnerId = c.get('auth').partner.id;
      return respondInTransaction(c, deps, 200, async (tx) => (await deps.rules.apply(tx, partnerId, items)).map(ruleToApi)) as never;
    },
    rulesHook,
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'get',
      path: '/v1/rules',
      operationId: 'listRules',
      summary: 'Read the rules and combinations of a show',
      description:
        'The stored combinations and rules of a show (optionally of one ticket option), in the item shape of POST /v1/rules: combinations first, then rules ' +
        'by ticket option, option-scoped before combination-scoped. Without updatedAt the items are valid POST items (at most 100 per POST). Accepts the public or the private key.',
      middleware: [partnerKey(deps, ['public', 'private'])],
      request: { query: RulesQuery },
      responses: { 200: jsonResponse(RulesResponse, 'The stored rules and combinations'), ...errorResponses(404) },
    }),
    async (c) => {
      const query = c.req.valid('query');
      const partnerId = c.get('auth').partner.id;
      // One snapshot: the rules and the ids they name are read in one read transaction.
      const rules = await deps.db.read((tx) => deps.rules.list(tx, partnerId, query), { snapshot: true });
      return c.json(ok(rules.map(ruleToApi)), 200);
    },
    rulesHook,
  );

  app.openapi(
    createRoute({
      ...common,
      method: 'post',
      path: RETIRED_RULES_PATH,
      operationId: 'retiredUpsertRules',
      summary: 'Retired: use POST /v1/rules',
      description:
        'The earlier path of POST /v1/rules. With a key that may post rules, answers 410 endpoint_moved with a Link header to /v1/rules, whatever the body. ' +
        'GET /v1/events/rules, unless an event of yours is called "rules", answers the same.',
      deprecated: true,
      middleware: [partnerKey(deps, ['public', 'private'])],
      responses: errorResponses(410),
    }),
    () => {
      throw rulesMoved('POST');
    },
  );

  return app;
}
