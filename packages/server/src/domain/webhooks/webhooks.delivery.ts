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

/** How much of a failed answer's body the attempt's error repeats (whitespace collapsed). */
export const MAX_ERROR_BODY_CHARS = 200;

/** How much of the answer's body an attempt keeps (`webhook_attempts.answer`), whatever its status. */
export const MAX_ANSWER_CHARS = 1024;

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
  /**
   * The first {@link MAX_ANSWER_CHARS} characters of the answer's body as received (secrets
   * removed); null when nothing answered, the body was empty, or the answer was a redirect
   * (whose body names its target: nothing of it is kept).
   */
  answer: string | null;
}

export interface PostOptions {
  timeoutMs: number;
  fetch: typeof fetch;
  /** Removed from error texts, whatever happens (the signing secret). */
  redact?: string[];
}

/**
 * POSTs one signed body. Never throws: a non-2xx answer, a redirect (not followed), a
 * timeout and a network error are all failed outcomes with a short reason. The start of
 * whatever body the endpoint answers (2xx or not) is kept as `answer`, but nothing of a
 * redirect's: neither its body nor its target.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, opts: PostOptions): Promise<AttemptOutcome> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const scrub = (text: string) => (opts.redact ?? []).reduce((t, secret) => (secret ? t.split(secret).join('[redacted]') : t), text);
  try {
    const res = await opts.fetch(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
    if (res.status >= 300 && res.status < 400) {
      // A redirect's body (and its Location) names where it points: none of it is kept.
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, statusCode: res.status, latencyMs: elapsed(), error: `HTTP ${res.status} (redirects are not followed)`, answer: null };
    }
    // Secrets out first, then cut: a secret across the cut leaves no part of itself. NUL out
    // too: PostgreSQL's text refuses it (in the error as in the answer).
    const text = scrub(await readStart(res, MAX_ANSWER_CHARS * 2)).split('\u0000').join('');
    const latencyMs = elapsed();
    const answer = answerOf(text);
    if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, latencyMs, error: null, answer };
    const excerpt = excerptOf(text, MAX_ERROR_BODY_CHARS);
    return { ok: false, statusCode: res.status, latencyMs, error: `HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`, answer };
  } catch (err) {
    const latencyMs = elapsed();
    if (signal.aborted) return { ok: false, statusCode: null, latencyMs, error: `No answer within ${opts.timeoutMs} ms`, answer: null };
    return { ok: false, statusCode: null, latencyMs, error: scrub(`The endpoint could not be reached (${describeNetworkError(err)})`), answer: null };
  }
}

/** At least the first `max` characters of the body (when it has them), as UTF-8 text; the rest is never read. */
async function readStart(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  try {
    while (text.length < max) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // A body that breaks off (or the time limit) leaves what was read.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/**
 * What an attempt keeps of the body: its first {@link MAX_ANSWER_CHARS} characters (UTF-16
 * units, never half of a pair), without NUL characters (which PostgreSQL's text refuses);
 * null for an empty body.
 */
export function answerOf(text: string): string | null {
  const clean = text.split('\u0000').join('');
  if (clean === '') return null;
  if (clean.length <= MAX_ANSWER_CHARS) return clean;
  const cut = /[\uD800-\uDBFF]/.test(clean[MAX_ANSWER_CHARS - 1]!) ? MAX_ANSWER_CHARS - 1 : MAX_ANSWER_CHARS;
  return clean.slice(0, cut);
}

/** The first `max` characters of the body, whitespace collapsed (the attempt's error). */
function excerptOf(text: string, max: number): string {
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
