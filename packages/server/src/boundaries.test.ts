import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import { describe, expect, it } from 'vitest';
import { tempDir } from './testing/temp-dir.js';

/**
 * The module boundaries of docs/architecture.md (packages/server/.dependency-cruiser.cjs, run by
 * `npm run lint:boundaries` in `npm test`): the rules fire on a violation, stay quiet on what
 * is allowed, need no change for a new module, and hold for the real src/.
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
  'src/modules/alpha/alpha.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const alphas = sqliteTable('alphas', { id: text().primaryKey() });
export type AlphaRow = typeof alphas.$inferSelect;
`,
  'src/modules/beta/beta.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { alphas } from '../alpha/alpha.table.js';
export const betas = sqliteTable('betas', { id: text().primaryKey(), alphaId: text().references(() => alphas.id) });
`,
  // Allowed: the db/ barrel, the owner's queries and service, and a test.
  'src/db/schema.ts': `export * from '../modules/alpha/alpha.table.js';
export * from '../modules/beta/beta.table.js';
`,
  'src/modules/alpha/alpha.queries.ts': `import { alphas, type AlphaRow } from './alpha.table.js';
export const table = alphas;
export type { AlphaRow };
`,
  'src/modules/alpha/nested/alpha.import.ts': `import { alphas } from '../alpha.table.js';
export const again = alphas;
`,
  'src/modules/alpha/alpha.service.ts': `import type { AppDeps } from '../../context.js';
import { table } from './alpha.queries.js';
export class AlphaService { constructor(readonly deps: Pick<AppDeps, 'clock'>) {} all() { return table; } }
`,
  'src/modules/alpha/alpha.test.ts': `import { betas } from '../beta/beta.table.js';
export const fixture = betas;
`,
  'src/testing/factories.ts': `import { betas } from '../modules/beta/beta.table.js';
export const factory = betas;
`,
  // Allowed: the type-only hub of AppDeps and the services it names import each other.
  'src/context.ts': `import type { AlphaService } from './modules/alpha/alpha.service.js';
export interface AppDeps { clock: { now(): number }; alpha: AlphaService }
`,
  // Allowed: a module that did not exist when the config was written, with its own table.
  'src/modules/delta/delta.table.ts': `import { sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const deltas = sqliteTable('deltas', { id: text().primaryKey() });
`,
  'src/modules/delta/delta.service.ts': `import { deltas } from './delta.table.js';
import { table } from '../alpha/alpha.queries.js';
export const both = [deltas, table];
`,
  // Forbidden: another module's table (a type-only import counts too).
  'src/modules/beta/beta.service.ts': `import { alphas } from '../alpha/alpha.table.js';
export const x = alphas;
`,
  'src/modules/delta/delta.pages.ts': `import type { AlphaRow } from '../alpha/alpha.table.js';
export type Row = AlphaRow;
`,
  // Forbidden: a table and the SQLite dialect in middleware; a table in app.ts and in flows/.
  'src/middleware/guard.ts': `import { alias } from 'drizzle-orm/sqlite-core';
import { alphas } from '../modules/alpha/alpha.table.js';
export const older = alias(alphas, 'older');
`,
  'src/app.ts': `import { betas } from './modules/beta/beta.table.js';
export const app = betas;
`,
  'src/flows/checkout.ts': `import { alphas } from '../modules/alpha/alpha.table.js';
export const flow = alphas;
`,
  // Forbidden: a cycle between the scheduler and a job.
  'src/jobs/scheduler.ts': `import { alphaJob } from '../modules/alpha/alpha.job.js';
export interface Job { name: string }
export const jobs = [alphaJob];
`,
  'src/modules/alpha/alpha.job.ts': `import type { Job } from '../../jobs/scheduler.js';
export const alphaJob: Job = { name: 'alpha' };
`,
};

describe('module boundaries (dependency-cruiser)', () => {
  it('reports each kind of violation, and nothing that is allowed', async () => {
    const dir = tempDir('boundaries');
    writeFiles(dir, FIXTURE);
    expect(await violations(dir)).toEqual([
      'no-circular: src/jobs/scheduler.ts -> src/modules/alpha/alpha.job.ts',
      'no-foreign-table: src/flows/checkout.ts -> src/modules/alpha/alpha.table.ts',
      'no-foreign-table: src/middleware/guard.ts -> src/modules/alpha/alpha.table.ts',
      'no-foreign-table: src/modules/beta/beta.service.ts -> src/modules/alpha/alpha.table.ts',
      'no-foreign-table: src/modules/delta/delta.pages.ts -> src/modules/alpha/alpha.table.ts',
      'no-sql-driver-outside-schema: src/middleware/guard.ts -> drizzle-orm/sqlite-core',
      'no-table-in-flows: src/flows/checkout.ts -> src/modules/alpha/alpha.table.ts',
      'no-table-in-root-files: src/app.ts -> src/modules/beta/beta.table.ts',
    ]);
  });

  it('finds nothing once the violations are fixed', async () => {
    const dir = tempDir('boundaries');
    writeFiles(dir, {
      ...FIXTURE,
      'src/modules/beta/beta.service.ts': `import { table } from '../alpha/alpha.queries.js';\nexport const x = table;\n`,
      'src/modules/delta/delta.pages.ts': `import type { AlphaRow } from '../alpha/alpha.queries.js';\nexport type Row = AlphaRow;\n`,
      'src/middleware/guard.ts': `import { aliasedTable } from 'drizzle-orm';\nimport { table } from '../modules/alpha/alpha.queries.js';\nexport const older = aliasedTable(table, 'older');\n`,
      'src/app.ts': `export const app = {};\n`,
      'src/flows/checkout.ts': `import { AlphaService } from '../modules/alpha/alpha.service.js';\nexport const flow = AlphaService;\n`,
      'src/jobs/job.ts': `export interface Job { name: string }\n`,
      'src/jobs/scheduler.ts': `import { alphaJob } from '../modules/alpha/alpha.job.js';\nexport const jobs = [alphaJob];\n`,
      'src/modules/alpha/alpha.job.ts': `import type { Job } from '../../jobs/job.js';\nexport const alphaJob: Job = { name: 'alpha' };\n`,
    });
    expect(await violations(dir)).toEqual([]);
  });

  it('holds for the server', { timeout: 60_000 }, async () => {
    expect(await violations(PACKAGE_DIR)).toEqual([]);
  });
});
