import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from './lib/paths.js';

/**
 * The workspaces use each other through their public entry points, by name
 * (`@resale/server/testing`, `@resale/demo/testing`, the `exports` of each package.json), never
 * by a path into another package (`../packages/server/src/main.js`): not in an import, a dynamic
 * import, a path a process is spawned with, nor a tsconfig's `include`. Comments that cite a
 * path are fine. The server's own `src/` is held to the same by `no-path-into-another-package`
 * (.dependency-cruiser.cjs); this test covers the other workspaces.
 */

/** The repository's root (packages/server/..). */
const ROOT = resolve(SERVER_ROOT, '../..');

/** Each workspace's folder, relative to the root, from the root package.json (`packages/*` expanded). */
function workspaces(): string[] {
  const globs = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  return globs.flatMap((glob) =>
    glob.endsWith('/*')
      ? readdirSync(join(ROOT, glob.slice(0, -2)))
          .map((name) => `${glob.slice(0, -2)}/${name}`)
          .filter((dir) => existsSync(join(ROOT, dir, 'package.json')))
      : [glob],
  );
}

const WORKSPACES = workspaces();

/** The workspaces checked here: all but the server (its boundary lint checks its src/). */
const CHECKED = WORKSPACES.filter((w) => w !== 'packages/server');

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'artifacts', 'coverage', 'data']);

/** The source and JSON files of a workspace (no dependencies, builds or test output). */
function filesOf(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(ROOT, rel), { withFileTypes: true })) {
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !entry.name.startsWith('.')) walk(path);
      } else if (SOURCE.test(entry.name) || entry.name.endsWith('.json')) {
        if (!entry.name.endsWith('.d.ts') && statSync(join(ROOT, path)).size < 1_000_000) out.push(path);
      }
    }
  };
  walk(dir);
  return out;
}

/** The workspace (folder relative to the root) a root-relative path lies in, if any. */
function workspaceOf(path: string): string | undefined {
  return WORKSPACES.find((w) => path === w || path.startsWith(`${w}/`));
}

/** A root-relative path inside another workspace than `own`, or undefined. */
function intoAnother(own: string, target: string): string | undefined {
  const other = workspaceOf(target);
  return other && other !== own ? other : undefined;
}

/** The other workspaces' `src/` folders, as a path in a string literal names them (`packages/server/src/…`, `../server/src`). */
function namesAnotherSrc(own: string, text: string): string | undefined {
  const normalized = text.split('\\').join('/');
  return WORKSPACES.filter((w) => w !== own).find((w) => {
    const tail = w.split('/').pop()!;
    return new RegExp(`(?:^|/)(?:${w.replace('/', '\\/')}|${tail})/src(?:/|$)`).test(normalized);
  });
}

/**
 * Every reach of `file` (root-relative, text `text`) into another workspace, as
 * `file:line: what`. Sources: module specifiers that are relative paths landing in another
 * workspace, and any string (a spawn path, a `new URL(…)`) naming another workspace's `src/`.
 * JSON (tsconfig, package.json): relative paths landing in another workspace.
 */
function reachesIntoOtherPackages(file: string, text: string): string[] {
  const own = workspaceOf(file) ?? '';
  const dir = dirname(file);
  const rootRelative = (spec: string) => relative(ROOT, resolve(ROOT, dir, spec)).split(sep).join('/');
  const found: string[] = [];
  if (file.endsWith('.json')) {
    const { config } = ts.parseConfigFileTextToJson(file, text);
    const visit = (value: unknown) => {
      if (typeof value === 'string') {
        if (/^\.\.?\//.test(value) && intoAnother(own, rootRelative(value))) found.push(`${file}: "${value}"`);
      } else if (value && typeof value === 'object') {
        for (const v of Object.values(value)) visit(v);
      }
    };
    visit(config);
    return found;
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const isSpecifier = (node: ts.Node) => {
    const parent = node.parent;
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return parent.moduleSpecifier === node;
    if (ts.isExternalModuleReference(parent)) return true;
    if (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent)) return true;
    if (ts.isCallExpression(parent) && parent.arguments[0] === node) {
      return parent.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(parent.expression) && parent.expression.text === 'require');
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const value = node.text;
      if (ts.isStringLiteralLike(node) && isSpecifier(node) && /^\.\.?\//.test(value) && intoAnother(own, rootRelative(value))) {
        found.push(`${at(node)}: import of '${value}'`);
      } else if (namesAnotherSrc(own, value)) {
        found.push(`${at(node)}: path '${value}'`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the workspaces use each other through their entry points', () => {
  it('finds the workspaces and files it checks', () => {
    expect(CHECKED).toEqual(expect.arrayContaining(['demo', 'e2e', 'bench', 'packages/client', 'packages/widgets']));
    expect(CHECKED.flatMap(filesOf)).toEqual(expect.arrayContaining(['demo/src/testing.ts', 'bench/lib.ts', 'e2e/src/stripe.test.ts', 'bench/tsconfig.json']));
  });

  it.each(CHECKED)('%s imports no path into another package (only names: @resale/server/testing, …)', (workspace) => {
    const found = filesOf(workspace).flatMap((file) => reachesIntoOtherPackages(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('catches every kind of reach, and lets comments and names pass', () => {
    const code = [
      "import { start } from '../packages/server/src/main.js';",
      "export { TEST_KEYS } from '../demo/src/testing.js';",
      "import type { X } from '../../../server/src/flows/x.js';",
      "const { freePort } = await import('../packages/server/src/testing/free-port.js');",
      "spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/server/src/main.ts')]);",
      "const MAIN = new URL('../../server/src/main.ts', import.meta.url).href;",
      "const seen = `${ROOT}/packages/server/src/main.ts`;",
      '// an import of ../packages/server/src/main.js in a comment',
      '/** (packages/server/src/testing/stripe-browser.ts) */',
      "import { start as s } from '@resale/server/start';",
      "import { helper } from './lib.js';",
      "const own = join(ROOT, 'bench/src/x.ts');",
    ].join('\n');
    expect(reachesIntoOtherPackages('bench/x.ts', code)).toEqual([
      "bench/x.ts:1: import of '../packages/server/src/main.js'",
      "bench/x.ts:2: import of '../demo/src/testing.js'",
      "bench/x.ts:3: path '../../../server/src/flows/x.js'",
      "bench/x.ts:4: import of '../packages/server/src/testing/free-port.js'",
      "bench/x.ts:5: path 'packages/server/src/main.ts'",
      "bench/x.ts:6: path '../../server/src/main.ts'",
      "bench/x.ts:7: path '/packages/server/src/main.ts'",
    ]);
    expect(reachesIntoOtherPackages('packages/widgets/src/internal/x.ts', "import type { X } from '../../../server/src/flows/x.js';")).toEqual([
      "packages/widgets/src/internal/x.ts:1: import of '../../../server/src/flows/x.js'",
    ]);
    expect(reachesIntoOtherPackages('bench/tsconfig.json', '{ "extends": "../tsconfig.base.json", // the base\n "include": [".", "../packages/server/src"] }')).toEqual([
      'bench/tsconfig.json: "../packages/server/src"',
    ]);
  });

  it('points every entry point of a package.json at a file that exists', () => {
    const missing = WORKSPACES.flatMap((w) => {
      const { exports } = JSON.parse(readFileSync(join(ROOT, w, 'package.json'), 'utf8')) as { exports?: Record<string, unknown> };
      const targets = Object.entries(exports ?? {}).flatMap(([name, target]) => (typeof target === 'string' ? [[name, target] as const] : []));
      return targets.filter(([, target]) => !existsSync(join(ROOT, w, target))).map(([name, target]) => `${w}: ${name} -> ${target}`);
    });
    expect(missing).toEqual([]);
  });
});
