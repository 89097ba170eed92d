import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { describe, expect, it } from 'vitest';
import { tempDir } from './testing/temp-dir.js';

/**
 * The rings and module boundaries of docs/architecture.md (packages/server/.dependency-cruiser.cjs,
 * run by `npm run lint:boundaries` in `npm test`): each rule fires on its violation, the rules
 * stay quiet on what is allowed, need no change for a new module, and hold for the real src/
 * with no exemption.
 */

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const CONFIG = join(PACKAGE_DIR, '.dependency-cruiser.cjs');

/** The violations of a cruise of `dir`/src with the project's config, as `rule: from -> to` relative to `dir`. */
async function violations(dir: string): Promise<string[]> {
  const options: ICruiseOptions = { ...(await extractDepcruiseOptions(CONFIG)), baseDir: dir };
  const { output } = await cruise(['src'], options);
  const result = output as ICruiseResult;
  const rel = (p: string) => (p.startsWith('.') || p.startsWith('/') ? relative(dir, join(dir, p)) : p).split('\\').join('/');
  return (result.summary.violations ?? []).map((v) => `${v.rule.name}: ${rel(v.from)} -> ${rel(v.to)}`).sort();
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A small server: every kind of import the rules allow, and one of each they forbid. */
const FIXTURE: Record<string, string> = {
  // Allowed: a table imports the SQLite dialect and another module's table (a foreign key).
  'src/domain/alpha/alpha.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const alphas = sqliteTable('alphas', { id: text().primaryKey() });
export type AlphaRow = typeof alphas.$inferSelect;
`,
  'src/domain/beta/beta.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { alphas } from '../alpha/alpha.table.js';
export const betas = sqliteTable('betas', { id: text().primaryKey(), alphaId: text().references(() => alphas.id) });
`,
  // Allowed: the db/ barrel (the kernel's one reach outward: tables), the kernel's types, the
  // owner's queries and service, another module's service type, and a test.
  'src/db/schema.ts': `export * from '../domain/alpha/alpha.table.js';
export * from '../domain/beta/beta.table.js';
`,
  'src/lib/kernel.ts': `export interface Kernel { clock: { now(): number } }
`,
  'src/domain/alpha/alpha.queries.ts': `import { alphas, type AlphaRow } from './alpha.table.js';
export const table = alphas;
export type { AlphaRow };
`,
  'src/domain/alpha/nested/alpha.import.ts': `import { alphas } from '../alpha.table.js';
export const again = alphas;
`,
  'src/domain/alpha/alpha.service.ts': `import type { Kernel } from '../../lib/kernel.js';
import { table } from './alpha.queries.js';
export class AlphaService { constructor(readonly deps: Pick<Kernel, 'clock'>) {} all() { return table; } }
`,
  'src/domain/alpha/alpha.test.ts': `import { betas } from '../beta/beta.table.js';
import { app } from '../../app.js';
export const fixture = [betas, app];
`,
  'src/testing/factories.ts': `import { betas } from '../domain/beta/beta.table.js';
export const factory = betas;
`,
  // Allowed: the composition names every service; http/ and jobs/ take its types.
  // (It also names gamma's service, whose import of it closes a cycle through the domain.)
  'src/context.ts': `import type { Kernel } from './lib/kernel.js';
import type { AlphaService } from './domain/alpha/alpha.service.js';
export interface AppDeps extends Kernel { alpha: AlphaService }
import type { GammaService } from './domain/gamma/gamma.service.js';
export type Gamma = GammaService;
`,
  'src/deps.ts': `import { AlphaService } from './domain/alpha/alpha.service.js';
import type { AppDeps } from './context.js';
export const deps: AppDeps = { clock: { now: () => 0 }, alpha: new AlphaService({ clock: { now: () => 0 } }) };
`,
  'src/app.ts': `import { alphaRoutes } from './http/api/alpha.routes.js';
export const app = alphaRoutes;
`,
  // Allowed: a module that did not exist when the config was written, with its own table,
  // calling another module's service.
  'src/domain/delta/delta.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const deltas = sqliteTable('deltas', { id: text().primaryKey() });
`,
  'src/domain/delta/delta.service.ts': `import { deltas } from './delta.table.js';
import type { AlphaService } from '../alpha/alpha.service.js';
import { table } from '../alpha/alpha.queries.js';
export const both = (alpha: AlphaService) => [deltas, table, alpha];
`,
  // Allowed: a flow over services and queries; a router over a flow; a job over a flow.
  'src/flows/checkout.ts': `import { AlphaService } from '../domain/alpha/alpha.service.js';
import { table } from '../domain/alpha/alpha.queries.js';
export const flow = [AlphaService, table];
`,
  'src/http/api/alpha.routes.ts': `import type { AppDeps } from '../../context.js';
import { flow } from '../../flows/checkout.js';
export const alphaRoutes = (deps: AppDeps) => [deps, flow];
`,
  'src/jobs/job.ts': `import type { AppDeps } from '../context.js';
export interface Job { name: string; run(deps: AppDeps): void }
`,
  // (It also lists beta's job, which imports it back: a cycle.)
  'src/jobs/scheduler.ts': `import { alphaJob } from './alpha.job.js';
import { betaJob } from './beta.job.js';
export const jobs = [alphaJob, betaJob];
`,
  'src/jobs/alpha.job.ts': `import type { Job } from './job.js';
import { flow } from '../flows/checkout.js';
export const alphaJob: Job = { name: 'alpha', run: () => flow };
`,

  // Forbidden: another module's table (a type-only import counts too).
  'src/domain/beta/beta.service.ts': `import { alphas } from '../alpha/alpha.table.js';
export const x = alphas;
`,
  'src/domain/delta/delta.view.ts': `import type { AlphaRow } from '../alpha/alpha.table.js';
export type Row = AlphaRow;
`,
  // Forbidden: a table and the SQLite dialect in middleware; a table in app.ts's neighbour and in flows/.
  'src/http/middleware/guard.ts': `import { alias } from 'drizzle-orm/sqlite-core';
import { alphas } from '../../domain/alpha/alpha.table.js';
export const older = alias(alphas, 'older');
`,
  'src/main.ts': `import { betas } from './domain/beta/beta.table.js';
export const main = betas;
`,
  'src/flows/refund.ts': `import { alphas } from '../domain/alpha/alpha.table.js';
import { alphaRoutes } from '../http/api/alpha.routes.js';
export const flow = [alphas, alphaRoutes];
`,
  // Forbidden: the domain reaching outward (a flow, http, the composition's types), which is
  // also a cycle through context.ts.
  'src/domain/gamma/gamma.service.ts': `import type { AppDeps } from '../../context.js';
import { flow } from '../../flows/checkout.js';
import type { Job } from '../../jobs/job.js';
export class GammaService { constructor(readonly deps: AppDeps, readonly job: Job) {} f = flow }
`,
  // Forbidden: jobs and http importing each other, a job importing the composition, a cycle.
  'src/jobs/beta.job.ts': `import { alphaRoutes } from '../http/api/alpha.routes.js';
import { deps } from '../deps.js';
import { jobs } from './scheduler.js';
export const betaJob = [alphaRoutes, deps, jobs];
`,
  'src/http/api/beta.routes.ts': `import { jobs } from '../../jobs/scheduler.js';
export const betaRoutes = jobs;
`,
  // Forbidden: the kernel importing a module; a directory outside the rings.
  'src/lib/names.ts': `import { table } from '../domain/alpha/alpha.queries.js';
export const names = table;
`,
  'src/modules/old/old.service.ts': `import type { Kernel } from '../../lib/kernel.js';
export type Old = Kernel;
`,
  // Allowed: a page view taking a service's type; forbidden: a view calling a flow.
  'src/http/pages/alpha/alpha.view.tsx': `import type { AlphaService } from '../../../domain/alpha/alpha.service.js';
import { flow } from '../../../flows/checkout.js';
export const view = (alpha: AlphaService) => [alpha, flow];
`,
};

/** The files of FIXTURE that break a rule; without them, nothing does. */
const FORBIDDEN = [
  'src/domain/beta/beta.service.ts',
  'src/domain/delta/delta.view.ts',
  'src/http/middleware/guard.ts',
  'src/main.ts',
  'src/flows/refund.ts',
  'src/domain/gamma/gamma.service.ts',
  'src/jobs/beta.job.ts',
  'src/http/api/beta.routes.ts',
  'src/lib/names.ts',
  'src/modules/old/old.service.ts',
  'src/http/pages/alpha/alpha.view.tsx',
];

const EXPECTED = [
  'domain-imports-no-outer-ring: src/domain/gamma/gamma.service.ts -> src/context.ts',
  'domain-imports-no-outer-ring: src/domain/gamma/gamma.service.ts -> src/flows/checkout.ts',
  'domain-imports-no-outer-ring: src/domain/gamma/gamma.service.ts -> src/jobs/job.ts',
  'every-file-in-a-ring: src/modules/old/old.service.ts -> src/lib/kernel.ts',
  'flows-import-no-outer-ring: src/flows/refund.ts -> src/http/api/alpha.routes.ts',
  'http-imports-no-jobs: src/http/api/beta.routes.ts -> src/jobs/scheduler.ts',
  'jobs-import-no-http: src/jobs/beta.job.ts -> src/http/api/alpha.routes.ts',
  'kernel-imports-only-kernel: src/lib/names.ts -> src/domain/alpha/alpha.queries.ts',
  'no-circular: src/context.ts -> src/domain/gamma/gamma.service.ts',
  'no-circular: src/domain/gamma/gamma.service.ts -> src/jobs/job.ts',
  'no-circular: src/jobs/beta.job.ts -> src/jobs/scheduler.ts',
  'no-foreign-table: src/domain/beta/beta.service.ts -> src/domain/alpha/alpha.table.ts',
  'no-foreign-table: src/domain/delta/delta.view.ts -> src/domain/alpha/alpha.table.ts',
  'no-foreign-table: src/flows/refund.ts -> src/domain/alpha/alpha.table.ts',
  'no-foreign-table: src/http/middleware/guard.ts -> src/domain/alpha/alpha.table.ts',
  'no-sql-driver-outside-schema: src/http/middleware/guard.ts -> drizzle-orm/sqlite-core',
  'no-table-in-flows: src/flows/refund.ts -> src/domain/alpha/alpha.table.ts',
  'no-table-in-root-files: src/main.ts -> src/domain/beta/beta.table.ts',
  'outer-rings-import-no-entry-point: src/jobs/beta.job.ts -> src/deps.ts',
  'page-views-are-stateless: src/http/pages/alpha/alpha.view.tsx -> src/flows/checkout.ts',
];

describe('module boundaries (dependency-cruiser)', () => {
  it('reports each kind of violation, and nothing that is allowed', async () => {
    const dir = tempDir('boundaries');
    writeFiles(dir, FIXTURE);
    expect(await violations(dir)).toEqual(EXPECTED);
  });

  it('finds nothing once the violations are fixed', async () => {
    const dir = tempDir('boundaries');
    const fixed = { ...FIXTURE };
    for (const path of Object.keys(fixed)) if (FORBIDDEN.includes(path)) delete fixed[path];
    writeFiles(dir, {
      ...fixed,
      'src/context.ts': FIXTURE['src/context.ts']!.replace(/import type \{ GammaService \}[^]*$/, ''),
      'src/jobs/scheduler.ts': `import { alphaJob } from './alpha.job.js';\nexport const jobs = [alphaJob];\n`,
    });
    expect(await violations(dir)).toEqual([]);
  });

  it('holds for the server', { timeout: 60_000 }, async () => {
    expect(await violations(PACKAGE_DIR)).toEqual([]);
  });
});
