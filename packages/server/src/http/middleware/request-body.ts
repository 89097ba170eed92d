import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { jsonLimitMessage, jsonLimitViolation, REQUEST_JSON_LIMITS, type JsonLimits } from '../../lib/json-limits.js';
import { noticePage } from '../pages/layout.js';
import { defineMessages, pageLang } from '../../lib/i18n.js';

/**
 * What a request body may be, checked once for every request before anything reads, parses or
 * walks it (so before the control-character check, the keys, the idempotency claim and the
 * routes):
 *
 * - **Media type.** An API endpoint (`/v1/…`, `/admin/v1/…`) takes `application/json` only
 *   (parameters such as `charset=utf-8` are ignored: RFC 8259 defines none, JSON is UTF-8). Any
 *   other type with a non-empty body, a missing one included, answers 415
 *   `unsupported_media_type`. That includes the structured `+json` suffixes
 *   (`application/json-patch+json`, `application/merge-patch+json`, …): they name formats with
 *   meanings of their own (a JSON Patch is a list of operations) that no endpoint implements,
 *   so reading one as a plain body would do something the client did not ask for. An empty body
 *   passes with any type (`curl -X POST -d ''` sends a form type), so endpoints without a body
 *   keep working. A hosted page's form endpoint (sell, market, checkout, sign-in) takes
 *   `application/x-www-form-urlencoded` and `multipart/form-data` only; anything else answers
 *   415 with a localised notice page, and a form the parser cannot read (a multipart body
 *   without its boundary) 400 with the same page. Unknown paths and wrong methods are left to
 *   the 404/405.
 * - **JSON shape.** A body sent as JSON (any type naming json, as the control-character check
 *   reads them) deeper than {@link REQUEST_JSON_LIMITS}' 32 levels answers 400 `invalid_json`;
 *   an array of more than 10,000 elements or an object of more than 1,000 keys answers 400
 *   `out_of_range` naming it. The scan is linear and not recursive (`lib/json-limits.ts`).
 *
 * Reading the text here costs the routes nothing: Hono caches it, and `c.req.json()` parses
 * the cached text.
 *
 * @example app.use('*', checkRequestBody());
 */
export function checkRequestBody(limits: JsonLimits = REQUEST_JSON_LIMITS): MiddlewareHandler<AppEnv> {
  return async function requestBody(c, next) {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const type = c.req.header('content-type') ?? '';
    const essence = type.split(';', 1)[0]!.trim().toLowerCase();

    if (isEndpoint(c)) {
      if (isApiPath(c.req.path)) {
        if (essence !== 'application/json' && !(await isEmptyBody(c))) {
          throw new ApiError(415, 'unsupported_media_type', `Send the body as JSON (Content-Type: application/json)${essence ? `, not ${essence.slice(0, 100)}` : ''}`, {
            path: 'Content-Type',
            in: 'header',
          });
        }
      } else {
        if (essence !== 'application/x-www-form-urlencoded' && essence !== 'multipart/form-data') return unreadableForm(c, 415);
        // Parsed here, once (Hono caches the form for the page): a malformed multipart body
        // (no boundary, a truncated part) makes the parser throw, which in a page was a 500.
        try {
          await c.req.parseBody();
        } catch {
          return unreadableForm(c, 400);
        }
      }
    }

    if (/json/i.test(type)) {
      const violation = jsonLimitViolation(await c.req.text(), limits);
      if (violation?.kind === 'depth') throw new ApiError(400, 'invalid_json', jsonLimitMessage(violation));
      if (violation) throw new ApiError(400, 'out_of_range', jsonLimitMessage(violation), { in: 'body', ...(violation.path ? { path: violation.path } : {}) });
    }
    return next();
  };
}

const m = defineMessages(
  {
    unsupportedFormTitle: 'This form could not be read',
    unsupportedFormText: 'Send it from its page: go back, reload the page and try again.',
  },
  {
    unsupportedFormTitle: 'No hemos podido leer este formulario',
    unsupportedFormText: 'Envíalo desde su página: vuelve atrás, recarga la página e inténtalo de nuevo.',
  },
);

/** The notice page of a form post the service cannot read (415: not a form; 400: a malformed one). */
function unreadableForm(c: Context<AppEnv>, status: 400 | 415): Promise<Response> {
  const lang = pageLang(c);
  return noticePage(c, { lang, status, title: m(lang, 'unsupportedFormTitle'), text: m(lang, 'unsupportedFormText') });
}

/** The paths of the JSON API (the rest are hosted pages, widgets and the docs). */
function isApiPath(path: string): boolean {
  return path.startsWith('/v1/') || path.startsWith('/admin/v1/');
}

/** True when a route of this method matched (not only middleware): an unknown path or a wrong method gets its 404/405 instead. */
function isEndpoint(c: Context<AppEnv>): boolean {
  return matchedRoutes(c).some((r) => r.method !== 'ALL');
}

async function isEmptyBody(c: Context<AppEnv>): Promise<boolean> {
  if (c.req.raw.body === null || c.req.header('content-length') === '0') return true;
  return (await c.req.arrayBuffer()).byteLength === 0;
}
