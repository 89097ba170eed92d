import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../context.js';
import { ApiError } from '../../lib/errors.js';

/**
 * Refuses control characters (C0 but tab, LF and CR; DEL; C1), and in a JSON body unpaired
 * surrogate escapes (`\udfff`: no character at all), in what a request carries, for
 * every endpoint at once: a NUL or an escape in a partner's user id, an event title or a
 * buyer's name travels on into e-mails, PDFs, webhooks and the partner's own systems, and is
 * never meant. Tab, line feed and carriage return stay allowed in JSON strings (descriptions
 * have lines); in the URL nothing is.
 *
 * Cheap on the hot paths: the URL is tested as it arrives (percent-encoded) and a JSON body as
 * text, by one regular expression each; the body is only parsed here, to name the field, when
 * that test finds one. Reading the text first costs the route nothing: Hono's `c.req.json()`
 * parses the cached text (it never reads a cached parsed value, so parsing here would be twice).
 */
export function refuseControlCharacters(): MiddlewareHandler<AppEnv> {
  return async function controlCharacters(c, next) {
    if (URL_CONTROL.test(c.req.url)) throw new ApiError(400, 'invalid_value', 'The URL must not contain control characters');
    const method = c.req.method;
    if (method !== 'GET' && method !== 'HEAD' && /json/i.test(c.req.header('content-type') ?? '')) {
      const text = await c.req.text();
      if (JSON_CONTROL.test(text)) {
        const path = pathOfControl(text);
        // Malformed JSON is left to the validator, which says so.
        if (path !== null) throw ApiError.field('invalid_value', path, `${path || 'The body'} must not contain control characters or unpaired surrogates`);
      }
    }
    await next();
  };
}

/**
 * Whether a JSON text may hold what {@link refuseControlCharacters} refuses (a control or an
 * escape of one, or of a lone surrogate; a false alarm is possible, a miss is not): a fast path
 * that answers a body without the middleware (node-listener.ts) leaves such a body to it.
 */
export function mayHoldControl(jsonText: string): boolean {
  return JSON_CONTROL.test(jsonText);
}

/** A percent-encoded C0 control, DEL or C1 control (UTF-8: %C2%80 to %C2%9F) anywhere in the URL (a raw one never reaches a handler). */
const URL_CONTROL = /%(?:[01][0-9a-f]|7f)|%c2%[89][0-9a-f]/i;

/**
 * DEL or a C1 control, raw (JSON does not require them escaped), or a JSON escape of one of them
 * or of a C0 control other than tab, LF and CR (raw C0 controls are not valid JSON). An escape is
 * real when an odd number of backslashes leads to it: `\\u0000` is the text "\u0000", not a NUL.
 */
const JSON_CONTROL = /[\u007f-\u009f]|(?<!\\)(?:\\\\)*\\(?:u00(?:0[0-8bcef]|1[0-9a-f]|7f|[89][0-9a-f])|ud[89a-f]|[bf])/i;

/**
 * The characters {@link JSON_CONTROL} looks for, once decoded: the controls, and a surrogate
 * without its pair (a JSON escape such as `\udfff` alone decodes to one: no character, and not
 * text PostgreSQL stores; a pair, an emoji, is fine).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The dotted path (as validation errors give it) of the first key or string holding a control, '' for the root, null when the text is not JSON. */
function pathOfControl(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return find(value, '');
}

/**
 * Depth-first, in document order: the path of the first string or key of `value` holding a
 * control, or null. Iterative (an explicit stack), so no nesting can exhaust the call stack,
 * whatever runs before it (`checkRequestBody` already refuses bodies deeper than 32 levels).
 */
function find(value: unknown, path: string): string | null {
  const stack: [unknown, string][] = [[value, path]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (typeof node === 'string') {
      if (CONTROL.test(node)) return at;
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    const entries: [string, unknown][] = Array.isArray(node) ? node.map((v, i) => [String(i), v]) : Object.entries(node);
    // Children pushed last-first, so the first is examined first; a key is examined when its entry is reached.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      const childPath = at ? `${at}.${key}` : key;
      stack.push([CONTROL.test(key) ? KEY_HAS_CONTROL : child, childPath]);
    }
  }
  return null;
}

/** Stands in a stack entry for a child whose key holds a control: it is reported at its own path. */
const KEY_HAS_CONTROL = '\u0000';
