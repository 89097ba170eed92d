/**
 * Module boundaries of the server ("one writer per table": docs/architecture.md),
 * checked by dependency-cruiser in `npm test` (`npm run lint:boundaries`) and by
 * src/boundaries.test.ts (which also proves the rules fire on a violation).
 *
 * The rules never name a module: an owner is read from the path (`$1` is the directory the
 * importing file lives in), so a new module needs no change here.
 *
 * Paths are matched wherever `src/` sits (`(?:^|/)src/`), so the same rules hold when the
 * cruise starts from the repository root, from packages/server, or from a test's fixture.
 *
 * Not checked (excluded from the cruise): tests and their helpers, `*.test.ts(x)`, `src/testing/`,
 * `*.testing.ts(x)`, and the test-only worker `*.concurrency.thread.ts` (a `*.thread.ts` can be
 * production code: tickets.worker.thread.ts is the ingestion thread's entry).
 */

/** Files that may import any table: the tables themselves (foreign keys are schema) and the db/ barrel. */
const SCHEMA = ['\\.table\\.ts$', '(?:^|/)src/db/'];

/** A table file anywhere under src/. */
const TABLE = '(?:^|/)src/.+\\.table\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-foreign-table',
      severity: 'error',
      comment:
        "A file of module X (or of another directory of src/: middleware, jobs, pages, lib, flows…) imports another module's (directory's) *.table.ts. " +
        "Only the owner writes its tables: use the owner's service (commands) or its <m>.queries.ts (reads).",
      from: {
        // $1: the owner of the importing file, `modules/<m>` or a top-level directory of src/.
        path: '(?:^|/)src/((?:modules/)?[^/]+)/',
        pathNot: SCHEMA,
      },
      to: {
        path: TABLE,
        pathNot: '(?:^|/)src/$1/',
      },
    },
    {
      name: 'no-table-in-root-files',
      severity: 'error',
      comment: 'A file directly in src/ (app.ts, main.ts, deps.ts…) imports a *.table.ts: go through services and queries.',
      from: { path: '(?:^|/)src/[^/]+$' },
      to: { path: TABLE },
    },
    {
      name: 'no-sql-driver-outside-schema',
      severity: 'error',
      comment:
        'Only *.table.ts and src/db/ import a database driver or dialect (drizzle-orm/sqlite-core, better-sqlite3, drizzle-orm/better-sqlite3, pg, drizzle-orm/pg-core, drizzle-orm/node-postgres): the rest of the code stays portable (docs/operating.md, "PostgreSQL"). The test setup that starts PostgreSQL (src/testing/postgres*.ts) may use pg.',
      from: { path: '(?:^|/)src/', pathNot: [...SCHEMA, '(?:^|/)src/testing/postgres[^/]*\\.ts$'] },
      to: {
        path: [
          // Resolved into node_modules (the usual case)…
          '(?:^|/)node_modules/(?:@types/)?(?:better-sqlite3|pg)/',
          '(?:^|/)node_modules/drizzle-orm/(?:sqlite-core|better-sqlite3|pg-core|node-postgres)/',
          // …or left as the bare name when it cannot be resolved (a cruise outside the repository).
          '^(?:@types/)?(?:better-sqlite3|pg)$',
          '^drizzle-orm/(?:sqlite-core|better-sqlite3|pg-core|node-postgres)(?:/|$)',
        ],
      },
    },
    {
      name: 'no-table-in-flows',
      severity: 'error',
      comment: 'src/flows/ composes services and queries; it imports no *.table.ts, not even its own.',
      from: { path: '(?:^|/)src/flows/' },
      to: { path: '\\.table\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A circular import among server files (tests excluded). Break it with a file both sides import (types in <m>.model.ts, the Job type in jobs/job.ts). ' +
        "Cycles through src/context.ts are allowed: it is the type-only hub of AppDeps (services take `Pick<AppDeps, …>`, AppDeps names the services).",
      from: { path: '(?:^|/)src/' },
      to: { circular: true, viaOnly: { pathNot: '(?:^|/)src/context\\.ts$' } },
    },
  ],
  options: {
    // Tests and test helpers may reach into any table (they build fixtures).
    exclude: {
      path: ['\\.test\\.tsx?$', '(?:^|/)src/testing/', '\\.testing\\.tsx?$', '\\.concurrency\\.thread\\.ts$'],
    },
    doNotFollow: { path: 'node_modules' },
    // `import type` counts: a type from another module's table is still its table.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: __dirname + '/tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
