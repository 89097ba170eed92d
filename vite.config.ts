import { defineConfig } from 'vitest/config';

/**
 * The server test files that pass on PostgreSQL as well as on SQLite (the `server-pg`
 * project); the list grows until it is all of them (issue 17).
 */
const PG_READY = [
  'src/**/*.pg.test.ts',
  'src/app.aborts.test.ts',
  'src/flows/flows.test.ts',
  'src/flows/reseal-secrets.test.ts',
  'src/modules/payouts/payouts.accounts.test.ts',
  'src/modules/auth/auth.tokens.test.ts',
  'src/modules/partners/partners.test.ts',
  'src/modules/partners/partners.webhook-secret.test.ts',
  'src/modules/tickets/tickets.pages.test.ts',
  'src/modules/tickets/tickets.test.ts',
  'src/modules/channels/channels.test.ts',
  'src/middleware/control-chars.test.ts',
  'src/middleware/cors.test.ts',
  'src/middleware/page-rate-limit.test.ts',
  'src/middleware/rate-limit.test.ts',
  'src/modules/accesslayer/accesslayer.test.ts',
  'src/modules/auth/auth.login-force.test.ts',
  'src/modules/auth/auth.otp.test.ts',
  'src/modules/auth/auth.step-up.test.ts',
  'src/modules/auth/auth.token-policy.test.ts',
  'src/modules/auth/auth.urls.test.ts',
  'src/modules/docs/docs.test.ts',
  'src/modules/email/email.delivery.test.ts',
  'src/modules/email/email.pages.test.ts',
  'src/modules/events/events.errors.test.ts',
  'src/modules/events/events.svg.test.ts',
  'src/modules/feeds/feeds.test.ts',
  'src/modules/feeds/feeds.neighbours.test.ts',
  'src/modules/intentions/intentions.holds.test.ts',
  'src/modules/intentions/intentions.test.ts',
  'src/modules/listings/listings.lifecycle.test.ts',
  'src/modules/listings/listings.test.ts',
  'src/modules/market/market.pages.test.ts',
  'src/modules/market/market.seatmap.test.ts',
  'src/modules/marketdata/marketdata.buyside.test.ts',
  'src/modules/marketdata/marketdata.test.ts',
  'src/modules/metrics/metrics.test.ts',
  'src/modules/payments/checkout.test.ts',
  'src/modules/platform/ownership.test.ts',
  'src/modules/platform/platform-request.test.ts',
  'src/modules/risk/risk.test.ts',
  'src/modules/rules/rules.errors.test.ts',
  'src/modules/rules/rules.test.ts',
  'src/modules/sell/sell.hub.test.ts',
  'src/modules/sell/sell.pages.test.ts',
  'src/modules/tickets/tickets.bulk.parse.test.ts',
  'src/modules/tickets/tickets.shield.test.ts',
  'src/modules/webhooks/webhooks.lanes.test.ts',
  'src/modules/webhooks/webhooks.routes.test.ts',
  'src/modules/widgets/widgets.static.test.ts',
  'src/app.request-id.test.ts',
  'src/app.test.ts',
  'src/middleware/client-address.test.ts',
  'src/middleware/idempotency.test.ts',
  'src/middleware/request-body.test.ts',
  'src/modules/accesslayer/accesslayer.buy.test.ts',
  'src/modules/events/events.test.ts',
  'src/modules/marketdata/leads.test.ts',
  'src/modules/marketdata/wishlist.job.test.ts',
  'src/modules/tickets/tickets.bulk.test.ts',
  'src/modules/health/health.test.ts',
  'src/modules/events/import/import.test.ts',
  'src/surface.test.ts',
  'src/fuzz.test.ts',
  'src/main.test.ts',
  'src/main.timeouts.test.ts',
  'src/main.drain.test.ts',
  'src/reseal.test.ts',
];

/** One Vitest run for the whole repository; each workspace is a project. */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          root: './packages/server',
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.pg.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 15_000,
        },
      },
      {
        // The server's tests on a real PostgreSQL server (started by the global setup; each test
        // app gets a database of its own). The files that run on both engines so far are listed
        // here; the rest run on SQLite only until they do (issue 17).
        test: {
          name: 'server-pg',
          root: './packages/server',
          // RESALE_PG_ALL=1 runs every server test file on PostgreSQL (to see what is left).
          include: process.env.RESALE_PG_ALL ? ['src/**/*.test.ts'] : PG_READY,
          globalSetup: ['src/testing/postgres.global.ts'],
          setupFiles: ['src/testing/postgres.setup.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 15_000,
        },
      },
      {
        test: {
          name: 'widgets',
          root: './packages/widgets',
          include: ['src/**/*.test.ts'],
          environment: 'happy-dom',
        },
      },
      {
        test: {
          name: 'demo',
          root: './demo',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 30_000,
        },
      },
      {
        // Real Chromium against the real service and demo: one file at a time (one browser each).
        test: {
          name: 'e2e',
          root: './e2e',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
