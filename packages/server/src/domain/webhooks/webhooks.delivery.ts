import { Webhook } from 'standardwebhooks';

/**
 * One delivery attempt over HTTP, and the retry schedule. No database here: the service
 * decides what to send and records what happened.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * How long to wait after the failed attempt n (n = 1…9) before attempt n + 1:
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h.
 * In total 75 h 35 min 5 s (about 3 days and 3 hours) between the first and the tenth
 * attempt. When the tenth attempt (the one after the last delay) fails too, the message
 * becomes `failed`; an operator can replay it.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];

/** Attempts a message gets before it is `failed`: the first one plus one per delay. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** Time limit of one attempt (connect, send, answer, read the start of the body). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export const WEBHOOK_USER_AGENT = 'resale-webhooks/1.0';

/** How much of a failed answer's body is kept in the delivery log. */
export const MAX_ERROR_BODY_CHARS = 200;

/**
 * The wait after the failed attempt `attempt` (1-based), or null when it was the last one.
 *
 * @example retryDelayMs(1) // 5000
 * @example retryDelayMs(MAX_ATTEMPTS) // null
 */
export function retryDelayMs(attempt: number): number | null {
  return RETRY_SCHEDULE_MS[attempt - 1] ?? null;
}

/**
 * The Standard Webhooks headers of one attempt. The signature covers
 * `{webhook-id}.{webhook-timestamp}.{body}`; `at` comes from the injected clock. With several
 * secrets (the current one and, during a rotation's grace, the previous one) the header holds
 * one `v1,<base64>` per secret, space-separated, in the order given: Standard Webhooks
 * verifiers accept a header when any of its signatures matches their secret.
 *
 * @example
 * const headers = signedHeaders([current, previous], 'msg_01…', body, clock.now());
 * headers['webhook-signature'] // 'v1,K5oZ… v1,9dQ2…'
 */
export function signedHeaders(secrets: string | readonly string[], messageId: string, body: string, at: number): Record<string, string> {
  const timestamp = new Date(at);
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(' '),
  };
}

/** What one attempt gave. `ok` is any 2xx. */
export interface AttemptOutcome {
  ok: boolean;
  /** The HTTP status, when the endpoint answered one. */
  statusCode: number | null;
  /** Wall time of the HTTP call, in milliseconds. */
  latencyMs: number;
  /** Why the attempt failed; null on success. Never holds the secret; at most ~200 characters of the answer. */
  error: string | null;
}

export interface PostOptions {
  timeoutMs: number;
  fetch: typeof fetch;
  /** Removed from error texts, whatever happens (the signing secret). */
  redact?: string[];
}

/**
 * POSTs one signed body. Never throws: a non-2xx answer, a redirect (not followed), a
 * timeout and a network error are all failed outcomes with a short reason.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, opts: PostOptions): Promise<AttemptOutcome> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const scrub = (text: string) => (opts.redact ?? []).reduce((t, secret) => (secret ? t.split(secret).join('[redacted]') : t), text);
  try {
    const res = await opts.fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
    if (res.status >= 200 && res.status < 300) {
      await res.body?.cancel().catch(() => undefined);
      return { ok: true, statusCode: res.status, latencyMs: elapsed(), error: null };
    }
    const excerpt = await readExcerpt(res, MAX_ERROR_BODY_CHARS);
    const latencyMs = elapsed();
    const redirect = res.status >= 300 && res.status < 400 ? ' (redirects are not followed)' : '';
    return { ok: false, statusCode: res.status, latencyMs, error: scrub(`HTTP ${res.status}${redirect}${excerpt ? `: ${excerpt}` : ''}`) };
  } catch (err) {
    const latencyMs = elapsed();
    if (signal.aborted) return { ok: false, statusCode: null, latencyMs, error: `No answer within ${opts.timeoutMs} ms` };
    return { ok: false, statusCode: null, latencyMs, error: scrub(`The endpoint could not be reached (${describeNetworkError(err)})`) };
  }
}

/** The first `max` characters of the body, whitespace collapsed; the rest is never read. */
async function readExcerpt(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  try {
    while (text.length < max * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body that breaks off (or the time limit) leaves what was read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length > max ? clean.slice(0, max) + '…' : clean;
}

/** `ECONNREFUSED`, `ENOTFOUND`, … from undici's `fetch failed` and its cause. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message.slice(0, 120);
  return err instanceof Error ? err.message.slice(0, 120) : 'unknown error';
}
