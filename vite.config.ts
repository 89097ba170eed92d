import { defineConfig } from 'vitest/config';

/**
 * The server test files that need no database: they check the same thing whichever engine the
 * process runs on, so the `server-pg` project leaves them to `server` (running them twice
 * would prove nothing more). Every other server test file runs on both engines, except
 * `*.sqlite-only.test.ts` (what only SQLite has; each says why at its top).
 */
const ENGINE_INDEPENDENT = [
  // Static checks of the sources: ESLint's own rules, dependency-cruiser's module boundaries.
  'src/lint.test.ts',
  'src/boundaries.test.ts',
  // The other workspaces import the server (and each other) by name, never by a path into a package.
  'src/entry-points.test.ts',
  // The esbuild bundles (entries, imports, no tests); its smoke run of the bundle uses a SQLite file.
  'src/build.test.ts',
  // The committed drizzle-kit snapshots of both engines compared as files, and the SQLite tables against theirs.
  'src/db/schema-parity.test.ts',
  // Parsing of environment variables (pure functions); written for a process started without DATABASE_URL.
  'src/env.test.ts',
  // The README's links and prerequisites (files only).
  'src/readme.test.ts',
  // Redocly and Spectral over the generated document: the same document whichever engine.
  'src/http/api/openapi.lint.test.ts',
  // Pure functions: sealing and keyrings, fees, JSON limits, the ledger's journals.
  'src/lib/crypto.test.ts',
  'src/domain/admission/admission.keys.test.ts',
  'src/domain/ledger/ledger.accounts.test.ts',
  'src/domain/ledger/ledger.reconcile.test.ts',
  // The local double of Stripe's API, driven by the real SDK (test tooling; no database).
  'src/testing/stripe-double.test.ts',
  'src/lib/json-limits.test.ts',
  // Rendering from values in memory: e-mail templates, page layout and messages, ticket PDFs, the secure view's rules.
  'src/domain/email/email.templates.test.ts',
  'src/http/pages/pages.test.ts',
  'src/domain/tickets/tickets.pdf.test.ts',
  'src/domain/tickets/tickets.access.test.ts',
  // Reading CSV/Excel files and turning rows into events, before anything is stored.
  'src/domain/events/import/sheet.read.test.ts',
  'src/domain/events/import/sheet.to-events.test.ts',
  // The server's listener and its fast paths, over Hono apps of the test's own (no database).
  'src/http/node-listener.test.ts',
  // The waiting list's matcher: which free listings fit a fan's request (pure).
  'src/domain/waitinglist/waitinglist.match.test.ts',
  // Quiet hours read on the venue's wall clock (pure).
  'src/domain/waitinglist/waitinglist.model.test.ts',
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
        // app gets a database of its own): every server test file but those only SQLite has and
        // those that need no database (ENGINE_INDEPENDENT).
        test: {
          name: 'server-pg',
          root: './packages/server',
          include: ['src/**/*.test.ts'],
          exclude: ['src/**/*.sqlite-only.test.ts', ...ENGINE_INDEPENDENT],
          globalSetup: ['src/testing/postgres.global.ts'],
          setupFiles: ['src/testing/postgres.setup.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 15_000,
        },
      },
      {
        // What the server and the widgets share (packages/shared): pure functions, no DOM.
        test: {
          name: 'shared',
          root: './packages/shared',
          include: ['src/**/*.test.ts'],
          environment: 'node',
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
        // The typed API client: its generated files against the server's document, its example
        // compiled and run against the real service (started in-process per test file).
        test: {
          name: 'client',
          root: './packages/client',
          include: ['src/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          testTimeout: 60_000,
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
