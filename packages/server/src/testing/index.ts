/**
 * `@resale/server/testing` (package.json `exports`): the server's test tooling that the other
 * workspaces use (demo/, e2e/, bench/), imported by name, never by a path into this `src/`
 * (`src/entry-points.test.ts` checks that). The server's own tests import the files directly.
 */
export { freePort } from './free-port.js';
export { startStripeDouble, type StripeDouble, type StripeDoubleOptions, type StripeDoubleEvent, type StripeDoubleRequest, type WebhookDelivery } from './stripe-double.js';
export { startStripeBrowser, type StripeBrowser } from './stripe-browser.js';
export { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';
export { roundRobinProxy, roundRobinTcpProxy, type RoundRobinProxy, type RoundRobinTcpProxy } from './round-robin-proxy.js';
export { SERVICE_MAIN, spawnService, type LogLine, type ServiceProcess } from './service-process.js';
