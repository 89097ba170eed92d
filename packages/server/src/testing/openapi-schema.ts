/**
 * The OpenAPI document as the whole-surface tests (surface.test, fuzz.test) read it, and a
 * sampler that builds a plausible value of any of its schemas: the shape an endpoint expects,
 * so that the one wrong thing a test sends is what the endpoint meets; and a checker of real
 * answers against it (every test's `t.request`, see harness.ts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The part of an OpenAPI 3.1 schema object the tests read. */
export type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  minItems?: number;
  example?: unknown;
};

/** One operation of the document. */
export type Operation = {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
};

/** The document: its paths and named schemas. */
export type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** A plausible value of a schema of `doc` (its example, else one built from its type), `$ref`s followed. */
export function sampler(doc: Doc): (schema: Schema | undefined) => unknown {
  const resolve = (schema: Schema | undefined): Schema => {
    let s = schema ?? {};
    for (let i = 0; s.$ref && i < 20; i++) s = doc.components.schemas[s.$ref.replace('#/components/schemas/', '')] ?? {};
    return s;
  };
  const sample = (schema: Schema | undefined, depth = 0): unknown => {
    const s = resolve(schema);
    if (s.example !== undefined) return s.example;
    if (s.const !== undefined) return s.const;
    if (s.enum?.length) return s.enum[0];
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives?.length) return sample(alternatives.find((a) => resolve(a).type !== 'null') ?? alternatives[0], depth);
    if (s.allOf?.length) return Object.assign({}, ...s.allOf.map((a) => sample(a, depth)));
    const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
    if (depth > 6) return null;
    switch (type) {
      case 'object':
        return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
      case 'array':
        return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items, depth + 1));
      case 'integer':
      case 'number':
        return 1;
      case 'boolean':
        return true;
      case 'string':
        if (s.format === 'email') return 'fan@example.com';
        if (s.format === 'date-time') return '2026-06-01T20:00:00Z';
        if (s.format === 'uri' || s.format === 'url') return 'https://partner.example/x';
        return 'tour';
      default:
        return 'x';
    }
  };
  return (schema) => sample(schema);
}

/** An answer that did not match the document: which operation and status, and why. */
export interface AnswerMismatch {
  operation: string;
  status: number;
  problem: string;
}

/**
 * Checks real answers against the document: the operation that `method` and `path` reach,
 * the response it documents for the status, and that response's JSON schema (Ajv, draft
 * 2020-12, with formats). Each schema is compiled once, on its first answer.
 *
 * A request that reaches no operation (an unknown path, a wrong method, a hosted page) is not
 * checked: its answer is documented in general (404 `route_not_found`, 405 with `Allow`).
 *
 * @example
 * const check = answerChecker(doc);
 * check('GET', '/v1/events/tour', 200, body); // null when the answer is as documented
 */
export function answerChecker(doc: Doc): (method: string, path: string, status: number, body: unknown, contentType: string | null) => AnswerMismatch | null {
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const base = 'https://resale.test/openapi.json';
  ajv.addSchema({ ...(doc as object), $id: base });
  // The most literal template first: /v1/tickets/batch/eventAdmission before /v1/tickets/{ticketId}/eventAdmission.
  const templates = Object.keys(doc.paths)
    .map((template) => ({
      template,
      re: new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '/?$'),
      literal: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    }))
    .sort((a, b) => b.literal - a.literal);
  const compiled = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  return (method, path, status, body, contentType) => {
    const m = method.toLowerCase();
    const template = templates.find((t) => t.re.test(path) && doc.paths[t.template]?.[m])?.template;
    if (!template) return null;
    const op = doc.paths[template]![m]!;
    const operation = `${method.toUpperCase()} ${template}`;
    const response = op.responses?.[String(status)] as { content?: Record<string, { schema?: Schema }> } | undefined;
    if (!response) return { operation, status, problem: `status ${status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')})` };
    if (!contentType?.includes('application/json')) return null;
    if (!response.content?.['application/json']?.schema) return { operation, status, problem: 'a JSON body where none is documented' };
    const key = `${m} ${template} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile({ $ref: `${base}#/${pointer('paths', template, m, 'responses', String(status), 'content', 'application/json', 'schema')}` });
      compiled.set(key, validate);
    }
    if (validate(body)) return null;
    const problem = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} (${e.schemaPath})`).join('; ');
    return { operation, status, problem };
  };
}
