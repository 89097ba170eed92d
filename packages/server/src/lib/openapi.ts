import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';
import { ApiError, ERROR_CODES } from './errors.js';
import { issuesToEntries, locationOf } from './validation.js';

/** A router whose validation failures become the envelope with every offending field. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw ApiError.invalid(issuesToEntries(result.error.issues, locationOf(result.target)));
    },
  });
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
export const SECURITY: Record<'private' | 'public' | 'channels' | 'operator', Record<string, string[]>> = {
  private: { privateKey: [] },
  public: { publicKey: [] },
  channels: { channelsKey: [] },
  operator: { operatorToken: [] },
};
