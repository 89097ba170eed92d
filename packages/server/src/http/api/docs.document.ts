/**
 * The last pass over the generated OpenAPI document: what the route definitions cannot say
 * each on their own, said once for every operation.
 *
 * - Response headers: `Request-Id` on every answer, `Retry-After` on 429 and 503,
 *   `Idempotent-Replayed` on the successes of operations that take `Idempotency-Key`, `Link`
 *   on a 410 (the successor of a retired path); `Allow` on a 405, in the description of the
 *   whole API (a wrong method reaches no operation).
 * - Answers every operation with a body may give: 413 (too large) and 415 (not JSON).
 * - Answers every operation but the health probes may give: 500 (a bug of ours, quoting the
 *   request id) and 503 (a database that cannot be used, db/availability.ts; a process that is
 *   not serving yet, health.routes.ts `healthOnlyApp`), both the error envelope. No operation answers 502 (`upstream_unavailable`
 *   is reserved): a failing partner platform is reported in the answer, never as a 502.
 * - Names for the success envelopes (`{status, data, errors}`), which the routes build
 *   inline: `<Data>Envelope` after the named schema of `data` (`<Data>ListEnvelope` for an
 *   array of it), else `<OperationId>Envelope`. A generated client then has a type per answer.
 * - Request shapes apart from answer shapes where they differ: a field with a `default` is
 *   optional to send and always present in an answer, and client generators (openapi-typescript's
 *   `defaultNonNullable`, on by default) make a field with a `default` required. So a schema
 *   sent in a request loses its `default`s (each one named in its description instead); one that
 *   answers too gets a request twin, `<Name>Input`.
 */

/** A JSON value of the document, loosely typed: this pass only moves parts of it around. */
type Json = any;

const HEADERS = {
  RequestId: {
    description: 'The id of this request, in every answer: the caller’s own `Request-Id` when it is safe (at most 128 of `A–Z a–z 0–9 . _ : -`), else one of ours. Quote it to support.',
    schema: { type: 'string', example: 'req_Yk3lOq9Jc2fV1nZp0a1' },
  },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0, example: 12 } },
  IdempotentReplayed: {
    description: 'Present (`true`) when this is the stored answer of an earlier request with the same Idempotency-Key: nothing was done again.',
    schema: { type: 'string', enum: ['true'], example: 'true' },
  },
  Link: {
    description: 'The successor of the retired path (`rel="successor-version"`).',
    schema: { type: 'string', example: '</v1/rules>; rel="successor-version"' },
  },
} as const;

const WRONG_METHOD = 'A method a path does not have answers 405 method_not_allowed, with an `Allow` header naming the methods it has.';

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Finishes `doc` (as generated from the routes) in place and answers it. Idempotent: a
 * finished document comes out unchanged.
 *
 * @example const doc = finishDocument(app.getOpenAPI31Document({ openapi: '3.1.0', info }));
 */
export function finishDocument<T extends object>(doc: T): T {
  const d = doc as Json;
  d.components ??= {};
  d.components.schemas ??= {};
  d.components.headers = { ...d.components.headers, ...HEADERS };
  // A wrong method is no operation of the document, so it is said once, here.
  // A copy: the generator may hand back the caller's own `info` object.
  // At the end of the first paragraph: guides may follow it (the widgets', docs.widgets.ts).
  if (d.info && !String(d.info.description ?? '').includes(WRONG_METHOD)) {
    const [first = '', ...rest] = String(d.info.description ?? '').split('\n\n');
    d.info = { ...d.info, description: [`${first} ${WRONG_METHOD}`.trim(), ...rest].join('\n\n') };
  }
  for (const { path, method, op } of operations(d)) {
    documentAnswers(op, path);
    nameEnvelopes(d.components.schemas, op, method, path);
  }
  separateRequestShapes(d);
  return doc;
}

/**
 * Wraps a document generator (`OpenAPIHono#getOpenAPI31Document`) so that every document it
 * makes is finished by {@link finishDocument}.
 *
 * @example app.getOpenAPI31Document = finishingDocument(app.getOpenAPI31Document);
 */
export function finishingDocument<A extends unknown[], T extends object>(generate: (...args: A) => T): (...args: A) => T {
  return (...args) => finishDocument(generate(...args));
}

function* operations(d: Json): Generator<{ path: string; method: string; op: Json }> {
  for (const [path, item] of Object.entries<Json>(d.paths ?? {})) {
    for (const method of METHODS) if (item[method]) yield { path, method, op: item[method] };
  }
}

function documentAnswers(op: Json, path: string): void {
  op.responses ??= {};
  // The probes answer exactly what their routes document: they are served even when the rest
  // is not (readyz's 503 says so), and answer from no input.
  const probe = path === '/healthz' || path === '/readyz';
  if (op.requestBody) {
    // Every body passes the size limit and the media-type check (app.ts) before its route.
    op.responses['413'] ??= { description: 'Body too large', content: ERROR_CONTENT };
    op.responses['415'] ??= { description: 'Body is not JSON', content: ERROR_CONTENT };
  }
  if (!probe) {
    op.responses['500'] ??= { description: 'A fault of ours (never your input): the message quotes the request id for support', content: ERROR_CONTENT };
    op.responses['503'] ??= {
      description: 'Not serving right now: the database cannot be used (database_unavailable: unreachable, restarting, full or read-only; nothing was changed), or a release whose migrations are not applied yet (not_ready); retry after Retry-After',
      content: ERROR_CONTENT,
    };
  }
  const idempotent = (op.parameters ?? []).some((p: Json) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
  for (const [status, response] of Object.entries<Json>(op.responses)) {
    const headers: Json = { 'Request-Id': { $ref: '#/components/headers/RequestId' } };
    if (status === '429' || (status === '503' && !probe)) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    if (idempotent && status.startsWith('2')) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
    if (status === '410') headers.Link = { $ref: '#/components/headers/Link' };
    response.headers = { ...response.headers, ...headers };
  }
}

/** `{status, data, errors}` written inline, as `envelope()` builds it. */
function isInlineEnvelope(schema: Json): boolean {
  return schema && !schema.$ref && schema.type === 'object' && schema.properties?.status && 'data' in schema.properties && schema.properties?.errors;
}

function refName(schema: Json): string | undefined {
  return typeof schema?.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
}

function pascal(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function nameEnvelopes(schemas: Json, op: Json, method: string, path: string): void {
  for (const response of Object.values<Json>(op.responses ?? {})) {
    const media = response.content?.['application/json'];
    if (!media || !isInlineEnvelope(media.schema)) continue;
    const data = media.schema.properties.data;
    const named = refName(data) ?? (data?.type === 'array' ? refName(data.items) && `${refName(data.items)}List` : undefined);
    const fallback = pascal(op.operationId ?? `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`);
    const candidates = [...(named ? [`${named}Envelope`] : []), `${fallback}Envelope`];
    // The same name for the same shape only: two answers around one schema with another
    // example status (200, 201, 202) are two envelopes.
    const name = candidates.find((n) => schemas[n] === undefined || sameJson(schemas[n], media.schema)) ?? `${fallback}${Object.keys(op.responses).find((s) => op.responses[s] === response)}Envelope`;
    schemas[name] ??= media.schema;
    media.schema = { $ref: `#/components/schemas/${name}` };
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Every `$ref`'d schema name under `node`, followed through the components. */
function reachable(schemas: Json, node: Json, into = new Set<string>()): Set<string> {
  walk(node, (n) => {
    const name = refName(n);
    if (name && !into.has(name) && schemas[name]) {
      into.add(name);
      reachable(schemas, schemas[name], into);
    }
  });
  return into;
}

function walk(node: Json, visit: (n: Json) => void): void {
  if (!node || typeof node !== 'object') return;
  visit(node);
  for (const value of Array.isArray(node) ? node : Object.values(node)) walk(value, visit);
}

/** A schema object with a `default` (not a `properties` map that has a field named "default"). */
function withDefault(n: Json): boolean {
  return !Array.isArray(n) && !n.$ref && 'default' in n && (n.type !== undefined || n.anyOf !== undefined || n.enum !== undefined);
}

/** Whether a schema carries a `default` of its own (not through a `$ref`). */
function hasOwnDefault(schema: Json): boolean {
  let found = false;
  walk(schema, (n) => {
    if (withDefault(n)) found = true;
  });
  return found;
}

/** Moves a schema's `default`s into their descriptions: optional to send, and still said. */
function dropDefaults(node: Json): void {
  walk(node, (n) => {
    if (!withDefault(n)) return;
    const note = `Default: \`${JSON.stringify(n.default)}\`.`;
    n.description = n.description ? `${n.description} ${note}` : note;
    delete n.default;
  });
}

function separateRequestShapes(d: Json): void {
  const schemas = d.components.schemas;
  const requestRoots: Json[] = [];
  const answerRoots: Json[] = [];
  for (const { op } of operations(d)) {
    if (op.requestBody) requestRoots.push(op.requestBody);
    answerRoots.push(op.responses);
  }
  // What the service sends to partners is an answer too: every field in it is present.
  answerRoots.push(d.webhooks);
  const inRequests = reachable(schemas, requestRoots);
  const inAnswers = reachable(schemas, answerRoots);
  // A request schema changes when it or a schema it reaches has a default.
  const changes = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const name of inRequests) {
      if (changes.has(name)) continue;
      if (hasOwnDefault(schemas[name]) || [...reachable(schemas, schemas[name])].some((n) => changes.has(n))) {
        changes.add(name);
        grew = true;
      }
    }
  }
  const renamed = new Map<string, string>();
  for (const name of changes) renamed.set(name, inAnswers.has(name) ? `${name}Input` : name);
  const retarget = (node: Json) =>
    walk(node, (n) => {
      const name = refName(n);
      if (name && renamed.has(name)) n.$ref = `#/components/schemas/${renamed.get(name)}`;
    });
  for (const name of changes) {
    const copy = structuredClone(schemas[name]);
    dropDefaults(copy);
    retarget(copy);
    schemas[renamed.get(name)!] = copy;
  }
  // Inline request schemas: their defaults go too, and their references move to the twins.
  for (const body of requestRoots) {
    retarget(body);
    dropDefaults(body);
  }
}
