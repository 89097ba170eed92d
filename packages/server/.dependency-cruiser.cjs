/**
 * Module boundaries of the server ("one writer per table": docs/architecture.md),
 * checked by dependency-cruiser in `npm test` (`npm run lint:boundaries`) and by
 * src/boundaries.test.ts (which also proves the rules fire on a violation).
 *
 * The rules never name a module: an owner is read from the path (`$1` is the directory the
 * importing file lives in), so a new module needs no change here.
 *
 * Paths are the server's `src/` (`(?:^|packages/server/)src/`), so the same rules hold when the
 * cruise starts from the repository root, from packages/server, or from a test's fixture, and
 * never match another package's `src/` (packages/shared, which the server imports by name).
 *
 * Not checked (excluded from the cruise): tests and their helpers, `*.test.ts(x)`, `src/testing/`,
 * `*.testing.ts(x)`, and the test-only worker `*.concurrency.thread.ts` (a `*.thread.ts` can be
 * production code: tickets.worker.thread.ts is the ingestion thread's entry).
 */

/** Files that may import any table: the tables themselves (foreign keys are schema) and the db/ barrel. */
const SCHEMA = ['\\.table\\.ts$', '(?:^|packages/server/)src/db/'];

/** A table file anywhere under src/. */
const TABLE = '(?:^|packages/server/)src/.+\\.table\\.ts$';

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
        // $1: the owner of the importing file: `domain/<m>`, `http/<part>` or another directory of src/.
        path: '(?:^|packages/server/)src/((?:domain/|http/)?[^/]+)/',
        pathNot: SCHEMA,
      },
      to: {
        path: TABLE,
        pathNot: '(?:^|packages/server/)src/$1/',
      },
    },
    {
      name: 'no-table-in-root-files',
      severity: 'error',
      comment: 'A file directly in src/ (app.ts, main.ts, deps.ts…) imports a *.table.ts: go through services and queries.',
      from: { path: '(?:^|packages/server/)src/[^/]+$' },
      to: { path: TABLE },
    },
    {
      name: 'no-sql-driver-outside-schema',
      severity: 'error',
      comment:
        'Only *.table.ts and src/db/ import a database driver or dialect (drizzle-orm/sqlite-core, better-sqlite3, drizzle-orm/better-sqlite3, pg, drizzle-orm/pg-core, drizzle-orm/node-postgres): the rest of the code stays portable (docs/operating.md, "PostgreSQL"). The test setup that starts PostgreSQL (src/testing/postgres*.ts) may use pg.',
      from: { path: '(?:^|packages/server/)src/', pathNot: [...SCHEMA, '(?:^|packages/server/)src/testing/postgres[^/]*\\.ts$'] },
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
      from: { path: '(?:^|packages/server/)src/flows/' },
      to: { path: '\\.table\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A circular import among server files (tests excluded). Break it with a file both sides import (types in <m>.model.ts, the Job type in jobs/job.ts). ' +
        'No cycle is allowed, type-only imports included: services name what they need (`Pick<Kernel, …>` and the other modules\' types), never the AppDeps that names them all.',
      from: { path: '(?:^|packages/server/)src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-no-outer-ring',
      severity: 'error',
      comment:
        'src/domain/ is the inner ring (tables, queries, models, services): it never imports flows/, http/, jobs/ or a file directly in src/ (app.ts, deps.ts, context.ts, main.ts…). ' +
        'A type it needs from outside belongs in the module (its <m>.model.ts) or in lib/.',
      from: { path: '(?:^|packages/server/)src/domain/' },
      to: { path: ['(?:^|packages/server/)src/(?:flows|http|jobs)/', '(?:^|packages/server/)src/[^/]+\\.tsx?$'] },
    },
    {
      name: 'flows-import-no-outer-ring',
      severity: 'error',
      comment: 'src/flows/ (use cases across modules) calls the domain; it never imports http/, jobs/ or a file directly in src/ (they call flows, not the other way).',
      from: { path: '(?:^|packages/server/)src/flows/' },
      to: { path: ['(?:^|packages/server/)src/(?:http|jobs)/', '(?:^|packages/server/)src/[^/]+\\.tsx?$'] },
    },
    {
      name: 'jobs-import-no-http',
      severity: 'error',
      comment: 'src/jobs/ calls flows and services; it never imports http/ (what both need belongs in the domain or lib/).',
      from: { path: '(?:^|packages/server/)src/jobs/' },
      to: { path: '(?:^|packages/server/)src/http/' },
    },
    {
      name: 'http-imports-no-jobs',
      severity: 'error',
      comment: 'src/http/ answers requests through flows and services; it never imports jobs/ (what both need belongs in the domain or lib/).',
      from: { path: '(?:^|packages/server/)src/http/' },
      to: { path: '(?:^|packages/server/)src/jobs/' },
    },
    {
      name: 'outer-rings-import-no-entry-point',
      severity: 'error',
      comment:
        'src/http/ and src/jobs/ never import a file directly in src/ (the entry points and the composition: main.ts, app.ts, deps.ts, env.ts…), except context.ts, the types of the composed dependencies (AppDeps) and of a request (AppEnv).',
      from: { path: '(?:^|packages/server/)src/(?:http|jobs)/' },
      to: { path: '(?:^|packages/server/)src/[^/]+\\.tsx?$', pathNot: '(?:^|packages/server/)src/context\\.ts$' },
    },
    {
      name: 'every-file-in-a-ring',
      severity: 'error',
      comment:
        'A directory of src/ outside the rings: code lives in domain/<module>/, flows/, http/{api,pages,middleware}/, jobs/, or the kernel (lib/, db/); entry points sit directly in src/ (docs/architecture.md).',
      from: { path: '(?:^|packages/server/)src/(?!(?:domain|flows|http|jobs|lib|db|testing)/)[^/]+/' },
      to: {},
    },
    {
      name: 'no-path-into-another-package',
      severity: 'error',
      comment:
        "A relative import that leaves the server's package (`../../../widgets/src/…`): what the server and the widgets share lives in packages/shared and is imported by name (`@resale/shared/seat-rules`), as its package.json exports it.",
      from: { path: '(?:^|packages/server/)src/' },
      to: { dependencyTypes: ['local'], path: '^(?:\\.\\./|packages/(?!server/))' },
    },
    {
      name: 'page-views-are-stateless',
      severity: 'error',
      comment:
        'A page view (http/pages/**/*.view.tsx) renders the view model its load made: it never imports the database, flows, jobs, the composition, a service, queries, a store or a table at runtime ' +
        '(a module\'s model and definitions, lib/ and the pages\' kit are fine, and so is a type-only import of anything). Reading or acting belongs in the page\'s <page>.load.ts (docs/architecture.md, "Pages: load, view, messages").',
      from: { path: '(?:^|packages/server/)src/http/pages/.+\\.view\\.tsx$' },
      to: {
        path: ['(?:^|packages/server/)src/(?:db|flows|jobs)/', '(?:^|packages/server/)src/domain/.+\\.(?:service|queries|store|table)\\.ts$', '(?:^|packages/server/)src/[^/]+\\.tsx?$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'kernel-imports-only-kernel',
      severity: 'error',
      comment:
        'src/lib/ and src/db/ are the kernel every ring uses: they import only lib/ and db/. The one reach outward is the schema: db/ may import *.table.ts files (the tables are schema, gathered by db/schema.ts).',
      from: { path: '(?:^|packages/server/)src/(?:lib|db)/' },
      to: { path: '(?:^|packages/server/)src/', pathNot: ['(?:^|packages/server/)src/(?:lib|db)/', '\\.table\\.ts$'] },
    },
  ],
  options: {
    // Tests and test helpers may reach into any table (they build fixtures).
    exclude: {
      path: ['\\.test\\.tsx?$', '(?:^|packages/server/)src/testing/', '\\.testing\\.tsx?$', '\\.concurrency\\.thread\\.ts$'],
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
