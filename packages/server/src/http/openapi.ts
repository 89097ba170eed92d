import { OpenAPIHono, z, type RouteConfig } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';
import type { Context } from 'hono';
import { ApiError, ERROR_CODES, type ErrorEntry } from '../lib/errors.js';
import { issuesToEntries, locationOf } from '../lib/validation.js';

/**
 * A router whose validation failures become the envelope with every offending field, and whose
 * query parameters are single values (see {@link repeatedQuery}).
 */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) throw ApiError.invalid(withRepeatedQuery(c, result.target, issuesToEntries(result.error.issues, locationOf(result.target))));
      if (result.target === 'query') refuseRepeatedQuery(c, Object.keys(result.data as object));
    },
  });
}

/**
 * Entries (400 `invalid_value`, `in: query`) for the parameters among `names` sent more than
 * once (`?eventId=a&eventId=b`). Every query parameter of the API is a single value
 * (`loginTrust[user]` included: its brackets are part of its name); which of two values a
 * client meant is anyone's guess, so neither is used. Parameters an operation does not know
 * stay ignored, repeated or not.
 */
export function repeatedQuery(c: Context, names: Iterable<string>): ErrorEntry[] {
  if (!c.req.url.includes('&')) return [];
  const all = c.req.queries();
  const entries: ErrorEntry[] = [];
  for (const name of new Set(names)) {
    const count = all[name]?.length ?? 0;
    if (count > 1) entries.push({ code: 'invalid_value', message: `${name} was sent ${count} times; send it once`, path: name, in: 'query' });
  }
  return entries;
}

/** Throws the 400 of {@link repeatedQuery} when a parameter among `names` was repeated; for a query that parsed. */
export function refuseRepeatedQuery(c: Context, names: Iterable<string>): void {
  const entries = repeatedQuery(c, names);
  if (entries.length > 0) throw ApiError.invalid(entries);
}

/**
 * The entries of a query that did not parse, a repeated parameter said as such: the validator
 * hands a repeated parameter over as an array, which would read "must be of type string".
 */
export function withRepeatedQuery(c: Context, target: string, entries: ErrorEntry[]): ErrorEntry[] {
  if (target !== 'query') return entries;
  const repeated = repeatedQuery(c, entries.flatMap((e) => (e.path === undefined ? [] : [e.path])));
  if (repeated.length === 0) return entries;
  return [...repeated, ...entries.filter((e) => !repeated.some((r) => r.path === e.path))];
}

export const ErrorEntrySchema = z
  .object({
    code: z.enum(ERROR_CODES).openapi({ example: 'missing_field', description: 'Stable machine-readable code.' }),
    message: z.string().openapi({ example: 'shows.0.date is required', description: 'Human-readable explanation; may change.' }),
    path: z.string().optional().openapi({ example: 'shows.0.date', description: 'The offending field, dotted from the root of its part of the request.' }),
    in: z.enum(['body', 'query', 'path', 'header']).optional().openapi({ example: 'body' }),
  })
  .openapi('ErrorEntry');

export const ErrorEnvelopeSchema = z
  .object({
    status: z.number().int().openapi({ example: 400, description: 'Repeats the HTTP status code.' }),
    data: z.null(),
    errors: z.array(ErrorEntrySchema),
  })
  .openapi('ErrorEnvelope');

/** The success envelope around `data`. */
export function envelope<T extends z.ZodType>(data: T, status = 200) {
  return z.object({
    status: z.number().int().openapi({ example: status }),
    data,
    errors: z.null().openapi({ description: 'null on success' }),
  });
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: every offending field is listed',
  401: 'Missing or unknown key',
  403: 'A key of the wrong kind',
  404: 'Unknown resource (or another partner’s: they read the same)',
  409: 'Conflicting state',
  410: 'A retired path: the message and the Link header name its successor',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Idempotency-Key reused with another request',
  429: 'Rate limited; see Retry-After',
};

/** Documented error responses, all the error envelope. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorEnvelopeSchema } } }> = {};
  for (const s of [...new Set([400, 401, 403, 429, ...statuses])]) {
    out[s] = { description: ERROR_DESCRIPTIONS[s] ?? 'Error', content: { 'application/json': { schema: ErrorEnvelopeSchema } } };
  }
  return out;
}

/** A required JSON body. `required` matters: without it the validator skips bodies without a JSON content type. */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { content: { 'application/json': { schema } }, required: true, ...(description ? { description } : {}) };
}

/** A JSON success response. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** Security requirement names registered in the document. */
export const SECURITY: Record<'private' | 'public' | 'channels' | 'operator' | 'door', Record<string, string[]>> = {
  private: { privateKey: [] },
  public: { publicKey: [] },
  channels: { channelsKey: [] },
  operator: { operatorToken: [] },
  door: { doorToken: [] },
};

/**
 * `route` documented with `body` as its JSON request body, while the route validates with its
 * own. For bulk endpoints that take their items loosely and check each one on its own (one bad
 * item is that item's rejection, not the request's): the document still names the item schema,
 * so a generated client types the items.
 *
 * @example
 * app.openapi(documentBodyAs(app, createRoute({ ...route, request: { body: jsonBody(looseItems) } }), z.array(TicketInputSchema)), handler);
 */
export function documentBodyAs<R extends RouteConfig>(app: OpenAPIHono<AppEnv>, route: R, body: z.ZodType): R & { hide: true } {
  const { middleware: _middleware, hide: _hide, ...documented } = route;
  app.openAPIRegistry.registerPath({ ...documented, request: { ...documented.request, body: jsonBody(body, route.request?.body?.description) } });
  return { ...route, hide: true };
}
