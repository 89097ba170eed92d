/** The part of an OpenAPI 3.1 schema object the whole-surface tests (surface.test, fuzz.test) read to build requests. */
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
