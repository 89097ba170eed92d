/**
 * Limits on the shape of JSON text from outside (request bodies, the partner's feeds and
 * ownership answers), checked on the text **before** it is parsed or walked.
 *
 * Why: `JSON.parse` itself copes with any nesting, but everything after it is recursive: zod's
 * validation, `JSON.stringify` (metadata sizes, storage, idempotency), our own walks. A body of
 * `{"a":{"a":…}}` 100,000 levels deep blew the stack of each of them (a 500), and an array of
 * 200,000 elements makes the validator build 200,000 error entries. RFC 8259 §9 lets a parser
 * limit the depth of nesting; we do, and the size of containers, once, where the text comes in.
 *
 * The scan is one pass over the characters with no recursion and no allocation but four small
 * typed arrays (one slot per level): it counts depth outside strings (honouring `\` escapes, so `"\"["` opens
 * nothing), and the elements of each open array and the keys of each open object. It is not a
 * validator: on malformed text it may count oddly, but then `JSON.parse` refuses the text anyway;
 * on well-formed text it is exact.
 *
 * The deepest body the API takes is 6 levels (an event: `shows[].priceTypes[].inventory`); the
 * largest array 5,000 items (`POST /v1/tickets`). The free-form fields (lead `metadata`, ticket
 * `props`, a price type's `_id`) are where more could come, and 32 levels is far beyond any
 * legitimate use of them.
 */

export interface JsonLimits {
  /** Most levels of objects and arrays, the outermost counting as 1. */
  maxDepth: number;
  /** Most elements of one array. */
  maxArrayItems: number;
  /** Most keys of one object. */
  maxObjectKeys: number;
}

/** The limits of request bodies. */
export const REQUEST_JSON_LIMITS: JsonLimits = { maxDepth: 32, maxArrayItems: 10_000, maxObjectKeys: 1_000 };

/**
 * The limits of the partner platform's answers (feeds, ownership): the same depth, no count
 * limits (a feed may list many events; its size is bounded by the fetch's byte limit).
 */
export const PLATFORM_JSON_LIMITS: JsonLimits = { maxDepth: 32, maxArrayItems: Number.POSITIVE_INFINITY, maxObjectKeys: Number.POSITIVE_INFINITY };

/** What {@link jsonLimitViolation} found. */
export type JsonLimitViolation =
  | { kind: 'depth'; limit: number }
  | {
      kind: 'array_items' | 'object_keys';
      limit: number;
      /** The container's path, dotted like validation errors (`items`, `0.props`); '' for the root. */
      path: string;
    };

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_ARRAY = 0x5b; // [
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const COLON = 0x3a; // :

/**
 * The first limit `text` breaks, or null. Linear in the length of `text`; never recursive.
 *
 * @example
 * jsonLimitViolation('[[[[1]]]]', { maxDepth: 3, maxArrayItems: 10, maxObjectKeys: 10 }); // { kind: 'depth', limit: 3 }
 * jsonLimitViolation('{"items":[1,2,3]}', { maxDepth: 3, maxArrayItems: 2, maxObjectKeys: 10 }); // { kind: 'array_items', limit: 2, path: 'items' }
 */
export function jsonLimitViolation(text: string, limits: JsonLimits = REQUEST_JSON_LIMITS): JsonLimitViolation | null {
  const { maxDepth, maxArrayItems, maxObjectKeys } = limits;
  // Per open level (1 = outermost): object or array, elements (or keys) started so far, and
  // where the current key's string starts and ends (for the path of an error).
  const isObject = new Uint8Array(maxDepth + 1);
  const counts = new Float64Array(maxDepth + 1);
  const keyStart = new Int32Array(maxDepth + 1);
  const keyEnd = new Int32Array(maxDepth + 1);
  let depth = 0;
  // At the start of an element (array) or a key (object): after '[', '{' or ','.
  let fresh = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const ch = text.charCodeAt(i);
    if (ch <= 0x20 || ch === COLON) continue; // whitespace; ':' leads from a key to its value, which starts nothing new
    if (ch === COMMA) {
      fresh = depth > 0;
      continue;
    }
    if (ch === CLOSE_OBJECT || ch === CLOSE_ARRAY) {
      if (depth > 0) depth--;
      fresh = false;
      continue;
    }
    // A token starts: a string, a container, or a scalar (number, true, false, null, or junk).
    if (fresh) {
      fresh = false;
      const object = isObject[depth] === 1;
      if (++counts[depth]! > (object ? maxObjectKeys : maxArrayItems)) {
        return { kind: object ? 'object_keys' : 'array_items', limit: object ? maxObjectKeys : maxArrayItems, path: pathTo(text, depth, isObject, counts, keyStart, keyEnd) };
      }
      if (object) keyStart[depth] = i;
    }
    if (ch === QUOTE) {
      i = closingQuote(text, i);
      if (depth > 0 && isObject[depth] === 1 && keyStart[depth]! >= 0 && keyEnd[depth]! < keyStart[depth]!) keyEnd[depth] = i;
    } else if (ch === OPEN_OBJECT || ch === OPEN_ARRAY) {
      if (++depth > maxDepth) return { kind: 'depth', limit: maxDepth };
      isObject[depth] = ch === OPEN_OBJECT ? 1 : 0;
      counts[depth] = 0;
      keyStart[depth] = -1;
      keyEnd[depth] = -2;
      fresh = true;
    } else {
      // The rest of a scalar: skip to the next structural character or whitespace.
      while (i + 1 < n && !isDelimiter(text.charCodeAt(i + 1))) i++;
    }
  }
  return null;
}

/** The index of the quote that closes the string opened at `open` (an escaped quote, after an odd run of backslashes, does not), or the end of the text. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

function isDelimiter(c: number): boolean {
  return c <= 0x20 || c === COMMA || c === COLON || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === OPEN_OBJECT || c === OPEN_ARRAY || c === QUOTE;
}

/** The dotted path of the container open at `depth`: the keys and indexes of its ancestors' current elements. */
function pathTo(text: string, depth: number, isObject: Uint8Array, counts: Float64Array, keyStart: Int32Array, keyEnd: Int32Array): string {
  const parts: string[] = [];
  for (let d = 1; d < depth; d++) {
    if (isObject[d] === 1) {
      const raw = text.slice(keyStart[d]!, keyEnd[d]! + 1);
      try {
        parts.push(String(JSON.parse(raw)));
      } catch {
        parts.push(raw);
      }
    } else parts.push(String(counts[d]! - 1));
  }
  return parts.join('.');
}

/**
 * A sentence for a violation, naming the container when it has a path.
 *
 * @example jsonLimitMessage({ kind: 'array_items', limit: 10000, path: 'items' }) // 'items holds more than 10000 elements'
 */
export function jsonLimitMessage(violation: JsonLimitViolation, subject = 'The body'): string {
  if (violation.kind === 'depth') return `${subject} nests objects and arrays more than ${violation.limit} levels deep`;
  const where = violation.path === '' ? subject : violation.path;
  return `${where} holds more than ${violation.limit} ${violation.kind === 'array_items' ? 'elements' : 'keys'}`;
}
