/**
 * Web origins as browsers send them in `Origin`: scheme, host and optional port, lower case,
 * no path and no trailing slash (`https://tickets.partner.example`, `http://localhost:3001`).
 */
export const ORIGIN_PATTERN = /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z0-9-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/;

/** An origin as configured, normalised to the form browsers send (lower case, no trailing slash). */
export function normaliseOrigin(value: string): string {
  return value.trim().toLowerCase().replace(/\/$/, '');
}
