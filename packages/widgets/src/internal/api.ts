import type { ErrorDetail } from '../events/error.js';
import { isObject } from './safe.js';

/** A failed load, carrying what `resale-error` reports. */
export class LoadError extends Error {
  constructor(readonly detail: ErrorDetail) {
    super(detail.message);
    this.name = 'LoadError';
  }
}

let defaultApiBase = '';

/**
 * The service origin the script was loaded from (`{service}/widgets/v1/resale.js` -> `{service}`),
 * used when an element has no `api-base`. Set once by the script-tag entry.
 */
export function setDefaultApiBase(scriptUrl: string): void {
  try {
    const url = new URL('../../', scriptUrl);
    if (url.protocol === 'https:' || url.protocol === 'http:') defaultApiBase = url.href.replace(/\/$/, '');
  } catch {
    // Not a URL (tests, bundlers): elements then need `api-base`.
  }
}

/** `api-base` when given, else the script's service origin; no trailing slash. */
export function apiBase(value: string | null | undefined): string {
  return (value || defaultApiBase).replace(/\/+$/, '');
}

/** Options of {@link fetchData}. */
export interface FetchOptions {
  /** Sent as `Authorization` (the partner's public key; never a private key in a browser). */
  publicKey?: string | null | undefined;
  signal?: AbortSignal;
}

/**
 * GET a `{status, data, errors}` envelope and return `data`. Credentials are never sent: the
 * public key identifies the partner, and no cookie of the service should ride along.
 * Throws {@link LoadError} for network failures, non-2xx answers and bodies that are not an
 * envelope; rethrows the AbortError of an aborted request so callers can ignore it.
 */
export async function fetchData(url: string, options: FetchOptions = {}): Promise<unknown> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.publicKey) headers['Authorization'] = options.publicKey;
  let response: Response;
  try {
    response = await fetch(url, { method: 'GET', headers, credentials: 'omit', mode: 'cors', signal: options.signal ?? null });
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new LoadError({ reason: 'network', message: err instanceof Error ? err.message : 'network error' });
  }
  if (!response.ok) throw new LoadError({ reason: 'http', status: response.status, message: `HTTP ${response.status}` });
  let body: unknown;
  try {
    body = await response.json();
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new LoadError({ reason: 'parse', message: 'the answer is not JSON' });
  }
  if (!isObject(body) || !('data' in body)) throw new LoadError({ reason: 'parse', message: 'the answer is not an envelope' });
  return body.data;
}

/** True for the rejection of an aborted fetch. */
export function isAbort(err: unknown): boolean {
  return isObject(err) && (err as { name?: unknown }).name === 'AbortError';
}

/** An error value as the `resale-error` detail. */
export function toErrorDetail(err: unknown): ErrorDetail {
  if (err instanceof LoadError) return err.detail;
  return { reason: 'parse', message: err instanceof Error ? err.message : String(err) };
}
