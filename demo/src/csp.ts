/**
 * The Content-Security-Policy of the demo's pages: the example of what a partner page that
 * embeds the resale widgets needs. Nothing inline: scripts and styles are files.
 *
 * - `script-src 'self' <service>`: the widget bundle (`/widgets/v1/resale.js` and its chunks)
 *   comes from the service; the page's own glue script (`/assets/resale-data.js`) from itself.
 * - `connect-src 'self' <service>`: the widgets fetch the access layer and the seat map from
 *   the service (CORS, the public key as Authorization).
 * - `img-src 'self' data: <service>`: images the widgets show (banner images, the seating
 *   chart picture) — add the hosts of images you configure in your banners.
 * - `style-src 'self'`: the widgets' styles are constructable stylesheets (adoptedStyleSheets),
 *   which CSP does not govern, so no 'unsafe-inline' is needed.
 * - `form-action 'self' <service>`: the sign-in form redirects back to the service (Login
 *   Force), and browsers check form redirects against form-action.
 */
export function pageCsp(serviceOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${serviceOrigin}`,
    `connect-src 'self' ${serviceOrigin}`,
    `img-src 'self' data: ${serviceOrigin}`,
    "style-src 'self'",
    `form-action 'self' ${serviceOrigin}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}
