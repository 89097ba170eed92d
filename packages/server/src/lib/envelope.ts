import type { ErrorEntry } from './errors.js';

/** The response envelope of the spec: `{status, data, errors}`. */
export interface Envelope<T> {
  status: number;
  data: T;
  errors: ErrorEntry[] | null;
}

/** A success envelope. `errors` is null on success, as the spec allows. */
export function ok<T>(data: T, status = 200): { status: number; data: T; errors: null } {
  return { status, data, errors: null };
}

/** An error envelope; `data` is null. */
export function fail(status: number, errors: ErrorEntry[]): Envelope<null> {
  return { status, data: null, errors };
}
