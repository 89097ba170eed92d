import type { MiddlewareHandler } from 'hono';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppEnv } from '../../context.js';

/**
 * Request ids and the one log line per request, for the app's middleware ({@link requestContext})
 * and for the answers a fast path gives from Node's own objects before the app sees the request
 * (node-listener.ts): both name a request and log it the same way.
 */

/** What an inbound `Request-Id` may be to be used as ours: bounded, and characters that are safe in a header, a log, a URL and HTML. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller's `Request-Id` when it may be ours (at most 128 of `A–Z a–z 0–9 . _ : -`), else
 * null: anything else (too long, spaces, commas of a repeated header, `%`, quotes, angle
 * brackets, control or non-ASCII bytes) is dropped, never echoed, and the request gets a
 * generated id. An id the client chose is not necessarily unique (a retry may reuse it).
 *
 * @example inboundRequestId('checkout-7f3a:retry.2') // 'checkout-7f3a:retry.2'
 */
export function inboundRequestId(value: string): string | null {
  return SAFE_REQUEST_ID.test(value) ? value : null;
}

/** W3C Trace Context `traceparent`, version 00: version-traceid-parentid-flags, lowercase hex. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/**
 * The trace id of a valid W3C `traceparent` header (version `00`, a 32-hex trace id and a
 * 16-hex parent id, neither all zeros, 2-hex flags; lowercase, as the recommendation requires),
 * else null (the header is then ignored, as the recommendation says).
 *
 * It goes into the request's log line as `traceId`, and never becomes the request id: one trace
 * spans many requests (a page of the partner's may call the API several times under one trace,
 * a retry reuses its parent id), while a request id names one request and one log line.
 *
 * @example traceIdOf('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01') // '4bf92f3577b34da6a3ce929d0e0e4736'
 */
export function traceIdOf(traceparent: string): string | null {
  const m = TRACEPARENT.exec(traceparent);
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return null;
  return m[1]!;
}

/**
 * A request header from Node's parsed headers. Node joins a repeated header with ", ", which
 * neither check above accepts: two `Request-Id`s or two `traceparent`s count as none.
 */
export function nodeHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw.join(', ') : raw;
}

/**
 * The request ids of one app: the caller's own `Request-Id` when it is safe
 * ({@link inboundRequestId}), else a random per-instance prefix and a counter (unique and cheap;
 * they need not be unguessable: they identify a log line, they grant nothing).
 */
export class RequestIds {
  private readonly prefix = 'req_' + randomBytes(9).toString('base64url');
  private counter = 0;

  /** The id of a request that sent `sent` as its `Request-Id` (undefined: none), and whether that was refused. */
  of(sent: string | undefined): { id: string; refused: boolean } {
    const inbound = sent ? inboundRequestId(sent) : null;
    return { id: inbound ?? this.prefix + (++this.counter).toString(36), refused: sent !== undefined && sent !== '' && inbound === null };
  }
}

/** What the log line of a request says. Path only: query strings carry e-mails and tokens. Never headers: they carry keys. */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  /** `performance.now()` when the request reached us. */
  started: number;
  partnerId: string | undefined;
  /** The `traceparent` header as sent (its trace id is logged when it is valid). */
  traceparent: string | undefined;
  /** The caller's `Request-Id` was not safe to use (the value itself is never logged nor echoed: it is whatever a client chose to send). */
  requestIdRefused: boolean;
}

/** Writes the one `request` line of a request (info level: nothing is built when the logger is quieter). */
export function logRequest(logger: Logger, line: RequestLine): void {
  if (!logger.isLevelEnabled('info')) return;
  const traceId = line.traceparent ? traceIdOf(line.traceparent) : null;
  logger.info(
    {
      requestId: line.requestId,
      method: line.method,
      path: line.path,
      status: line.status,
      ms: Math.round((performance.now() - line.started) * 10) / 10,
      partnerId: line.partnerId,
      // Only when present (pino leaves out undefined fields).
      traceId: traceId ?? undefined,
      requestIdRefused: line.requestIdRefused ? true : undefined,
    },
    'request',
  );
}

/**
 * Names every request (`Request-Id`, in the answer and in `c.get('requestId')`) and logs it
 * once it is answered. A valid W3C `traceparent` adds its trace id to the log line; it never
 * becomes the request id (see traceIdOf). Headers are read from Node's IncomingMessage when
 * there is one (asking Hono builds a whole Headers object on every request).
 *
 * @example app.use('*', requestContext(deps.logger, new RequestIds()));
 */
export function requestContext(logger: Logger, ids: RequestIds): MiddlewareHandler<AppEnv> {
  return async function requestContextMiddleware(c, next) {
    const incoming = (c.env as { incoming?: { headers?: IncomingHttpHeaders } } | undefined)?.incoming;
    const header = (name: string) => (incoming?.headers ? nodeHeader(incoming.headers, name) : c.req.header(name));
    const sent = header('request-id');
    const { id, refused } = ids.of(sent);
    c.set('requestId', id);
    // Before next(): the header goes into the response as it is built. Setting it afterwards
    // makes Hono copy the finished response (a third of the cost of a cached buy access layer answer).
    c.header('Request-Id', id);
    const started = performance.now();
    await next();
    // A response a handler built itself (not through the context) gets it here.
    if (!c.res.headers.has('Request-Id')) c.res.headers.set('Request-Id', id);
    logRequest(logger, { requestId: id, method: c.req.method, path: c.req.path, status: c.res.status, started, partnerId: c.get('auth')?.partner.id, traceparent: header('traceparent'), requestIdRefused: refused });
  };
}
