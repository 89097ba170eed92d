/**
 * The OpenAPI document as the whole-surface tests (surface.test, fuzz.test) read it, and a
 * sampler that builds a plausible value of any of its schemas: the shape an endpoint expects,
 * so that the one wrong thing a test sends is what the endpoint meets.
 */

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
