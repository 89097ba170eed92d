/**
 * `@resale/client`: a typed client of the resale API, generated from its OpenAPI document
 * (`GET /v1/openapi.json`). Every operation is a method named after its operationId; requests,
 * answers and errors are typed from `schema.d.ts`. Webhooks are verified with
 * {@link verifyWebhook}.
 *
 * @example
 * const resale = createResaleClient({ baseUrl: 'https://resale.example', key: process.env.RESALE_KEY! });
 * const { data, error } = await resale.getEvent({ params: { path: { externalReferenceId: 'tour-2026' } } });
 *
 * @packageDocumentation
 */
import createClient, { type Client, type FetchOptions } from 'openapi-fetch';
import type { ErrorResponseJSON, SuccessResponseJSON } from 'openapi-typescript-helpers';
import { Webhook } from 'standardwebhooks';
import { OPERATIONS, type OperationId } from './operations.js';
import type { components, paths, webhooks } from './schema.js';

/** The operations table (operationId → method and path) and the operationId type, generated. */
export { OPERATIONS, type OperationId } from './operations.js';
/** The types openapi-typescript generated from the document: `paths`, `webhooks` and `components` (schemas). */
export type { components, paths, webhooks } from './schema.js';

/** The media types the client reads and sends (`application/json`). */
type Media = `${string}/${string}`;

/** The operation object of `schema.d.ts` (`paths[path][method]`) of the operation `K`. */
export type OperationOf<K extends OperationId> = NonNullable<paths[(typeof OPERATIONS)[K]['path']][(typeof OPERATIONS)[K]['method']]>;

/**
 * What a call of operation `K` takes: `params` (`path`, `query`, `header`), `body`, and any
 * `fetch` option (`signal`, `headers` such as `Idempotency-Key` …).
 */
export type OperationInit<K extends OperationId> = FetchOptions<OperationOf<K>>;

/** The body of a 2xx answer of operation `K`: its success envelope `{status, data, errors: null}`. */
export type OperationData<K extends OperationId> = SuccessResponseJSON<OperationOf<K>>;

/** The body of an error answer of operation `K`: the service's {@link ErrorEnvelope}. */
export type OperationError<K extends OperationId> = [ErrorResponseJSON<OperationOf<K>>] extends [never] ? ErrorEnvelope : ErrorResponseJSON<OperationOf<K>>;

/**
 * What a call of operation `K` resolves with: `{ data, response }` on a 2xx (`data` is the
 * success envelope `{status, data, errors: null}`), else `{ error, response }` with `error` the
 * service's {@link ErrorEnvelope}. `response` is the fetch `Response` (headers such as
 * `Request-Id`, `Retry-After`).
 */
export type OperationResult<K extends OperationId> =
  | { data: OperationData<K>; error?: never; response: Response }
  | { data?: never; error: OperationError<K>; response: Response };

/** The keys of `T` that are not optional. */
type RequiredKeys<T> = { [P in keyof T]-?: {} extends Pick<T, P> ? never : P }[keyof T];

/** The argument list of operation `K`: the init may be left out when nothing in it is required. */
export type OperationArgs<K extends OperationId> = RequiredKeys<OperationInit<K>> extends never ? [init?: OperationInit<K>] : [init: OperationInit<K>];

/** One method per operationId, e.g. `client.createEvent({ body })`. */
export type ResaleOperations = { [K in OperationId]: (...init: OperationArgs<K>) => Promise<OperationResult<K>> };

/** Every error answer of the API: `{status, data: null, errors}` with `status` the HTTP code. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

/** One entry of {@link ErrorEnvelope}'s `errors`: a stable `code`, a `message` for people, and the offending `path`/`in` when there is one. */
export type ErrorEntry = components['schemas']['ErrorEntry'];

/** The named schemas of the API (`Schemas['EventCreate']` …), for typing request bodies ahead of a call. */
export type Schemas = components['schemas'];

/** Options of {@link createResaleClient}. */
export interface ResaleClientOptions {
  /** Where the service runs, without `/v1`: `https://resale.example`. */
  baseUrl: string;
  /** The partner's key (`sk_…` private, `pk_…` public or `sk_ch_…` channels; the operator token for `/admin/v1`), sent as `Authorization: Bearer <key>` on every request. */
  key: string;
  /** A `fetch` to use instead of the global one (tests, proxies, retries). */
  fetch?: (input: Request) => Promise<Response>;
  /** Headers added to every request. */
  headers?: Record<string, string>;
}

/** A client of the resale API: one method per operationId, plus the raw openapi-fetch client. */
export type ResaleClient = ResaleOperations & {
  /** The openapi-fetch client underneath, for path-style calls: `client.raw.GET('/v1/events/{externalReferenceId}', { params })`. */
  readonly raw: Client<paths, Media>;
};

/**
 * Creates a client of the resale API. The key is set once and sent on every request.
 *
 * Each method resolves (never rejects on an HTTP error) with `{ data, response }` or
 * `{ error, response }`; use {@link unwrap} to get the data or throw a {@link ResaleApiError}.
 *
 * @example
 * const resale = createResaleClient({ baseUrl: process.env.RESALE_BASE_URL!, key: process.env.RESALE_KEY! });
 * const { data, error } = await resale.createEvent({ body: event });
 * if (error) console.error(error.errors.map((e) => `${e.code}: ${e.message}`));
 * else console.log(data.data.id); // evt_…
 */
export function createResaleClient(options: ResaleClientOptions): ResaleClient {
  const raw = createClient<paths, Media>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.key}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Untyped on purpose: every method is checked against schema.d.ts by `ResaleOperations`.
  const request = raw.request as unknown as (method: string, path: string, init?: unknown) => Promise<unknown>;
  const methods: Record<string, unknown> = {};
  for (const [operationId, { method, path }] of Object.entries(OPERATIONS)) {
    methods[operationId] = (init?: unknown) => request(method, path, init);
  }
  return Object.freeze({ ...methods, raw }) as unknown as ResaleClient;
}

/**
 * An error answer of the API, thrown by {@link unwrap}: the HTTP `status`, the service's
 * {@link ErrorEnvelope} (`envelope.errors` names each problem) and the `requestId` to quote to
 * support.
 */
export class ResaleApiError extends Error {
  /** The HTTP status code. */
  readonly status: number;
  /** The answer's body: `{status, data: null, errors}`. */
  readonly envelope: ErrorEnvelope;
  /** The `Request-Id` header of the answer. */
  readonly requestId: string | null;

  constructor(envelope: ErrorEnvelope, response: Response) {
    super(`${response.status} ${envelope.errors.map((e) => `${e.code}: ${e.message}`).join('; ')}`);
    this.name = 'ResaleApiError';
    this.status = response.status;
    this.envelope = envelope;
    this.requestId = response.headers.get('request-id');
  }
}

/**
 * The success body of a call, or a thrown {@link ResaleApiError} for an error answer.
 *
 * @example const { data: event } = unwrap(await resale.getEvent({ params: { path: { externalReferenceId } } }));
 */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): NonNullable<R['data']> {
  if (result.error !== undefined) throw new ResaleApiError(asErrorEnvelope(result.error, result.response), result.response);
  return result.data as NonNullable<R['data']>;
}

/** The error body as the envelope; a body that is not one (a proxy's page) becomes one naming the status. */
function asErrorEnvelope(body: unknown, response: Response): ErrorEnvelope {
  if (typeof body === 'object' && body !== null && Array.isArray((body as { errors?: unknown }).errors)) return body as ErrorEnvelope;
  return { status: response.status, data: null, errors: [{ code: 'internal_error', message: `HTTP ${response.status} without the error envelope` }] };
}

/** The action of a webhook the service sends (`listing.created`, `ticket.update` …). */
export type WebhookAction = keyof webhooks;

/** The JSON body of the webhook `A`, `{family, action, data}`; without `A`, the union of every webhook (narrow it by `action`). */
export type WebhookPayload<A extends WebhookAction = WebhookAction> = {
  [K in A]: NonNullable<webhooks[K]['post']>['requestBody']['content']['application/json'];
}[A];

/** Headers as Node's `IncomingMessage#headers`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Verifies a webhook of the service (the Standard Webhooks scheme: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) and answers its typed payload. Throws when the
 * signature does not match the raw body, a header is missing, or the timestamp is more than
 * five minutes off. Pass the body exactly as received (before any JSON parsing).
 *
 * @param rawBody The request body as received: a string or the raw bytes.
 * @param headers The request headers.
 * @param secret The partner's webhook secret (`whsec_…`); during a secret rotation, either one verifies.
 *
 * @example
 * const event = verifyWebhook(rawBody, req.headers, process.env.RESALE_WEBHOOK_SECRET!);
 * if (event.action === 'listing.created') console.log(event.data.listingId);
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookPayload {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  const flat: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (flat[name] = value));
  else {
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  return new Webhook(secret).verify(body, flat) as WebhookPayload;
}
