import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The typed lint of the data layer (packages/server/eslint.config.js, run by `npm run lint` in
 * `npm test`): synchronous SQLite calls and promises nobody awaits fail outside the data
 * layer, and what the services write instead passes. The fixture is a module of its own under
 * src/ (typed linting needs the project's tsconfig and node_modules), removed afterwards; it
 * keeps to the module boundaries, which another test cruises at the same time.
 */

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const MODULE = `zzlint${process.pid}`;
const DIR = join(PACKAGE_DIR, 'src', 'domain', MODULE);

const TABLE = `import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
export const things = sqliteTable('lint_things', { id: text().primaryKey(), n: integer().notNull() });
`;

const SERVICE = `import { eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { things } from './${MODULE}.table.js';

export async function good(tx: Tx, id: string, m: Map<string, number>) {
  const row = (await tx.select().from(things).where(eq(things.id, id)).limit(1))[0];
  await tx.update(things).set({ n: m.get(id) ?? 0 }).where(eq(things.id, id));
  return row;
}

export function syncRead(tx: Tx, id: string) {
  return tx.select().from(things).where(eq(things.id, id)).get();
}

export function syncWrite(tx: Tx) {
  tx.insert(things).values({ id: 'a', n: 1 }).run();
}

export function rawSqlite(tx: Tx) {
  return tx.$client.prepare('select 1').get();
}

export function syncTransaction(tx: Tx) {
  return tx.transaction((sp) => sp.select().from(things).all());
}

export async function floating(tx: Tx) {
  good(tx, 'a', new Map());
}
`;

let linted: ESLint.LintResult[] | null = null;

async function lint(): Promise<ESLint.LintResult[]> {
  if (linted) return linted;
  mkdirSync(DIR, { recursive: true });
  writeFileSync(join(DIR, `${MODULE}.table.ts`), TABLE);
  writeFileSync(join(DIR, `${MODULE}.service.ts`), SERVICE);
  const eslint = new ESLint({ cwd: PACKAGE_DIR });
  linted = await eslint.lintFiles([`src/domain/${MODULE}/*.ts`]);
  return linted;
}

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('lint of the async data layer', () => {
  it('fails on synchronous SQLite calls and unawaited promises outside the data layer, and passes what services write', { timeout: 120_000 }, async () => {
    const results = await lint();
    const service = results.find((r) => r.filePath.endsWith('.service.ts'))!;
    const found = service.messages.map((m) => `${m.line}:${m.ruleId}`);
    const lineOf = (text: string) => SERVICE.split('\n').findIndex((l) => l.includes(text)) + 1;
    expect(found.sort()).toEqual(
      [
        `${lineOf("where(eq(things.id, id)).get()")}:resale/no-sync-database-call`,
        `${lineOf(".values({ id: 'a', n: 1 }).run()")}:resale/no-sync-database-call`,
        `${lineOf("tx.$client.prepare('select 1').get()")}:resale/no-sync-database-call`,
        `${lineOf("tx.$client.prepare('select 1').get()")}:resale/no-sync-database-call`,
        `${lineOf('tx.transaction((sp)')}:resale/no-sync-database-call`,
        `${lineOf('tx.transaction((sp)')}:resale/no-sync-database-call`,
        `${lineOf("good(tx, 'a', new Map());")}:@typescript-eslint/no-floating-promises`,
      ].sort(),
    );
    // The table file (the data layer) may use the dialect; nothing in it is reported.
    expect(results.find((r) => r.filePath.endsWith('.table.ts'))!.messages).toEqual([]);
  });
});
