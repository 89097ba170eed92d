/**
 * Builds `@resale/client/admission`, the offline verifier of rotating admission codes, into
 * `dist/admission/` (part of `npm run build`, after the main entry's `tsc -p tsconfig.build.json`).
 *
 * The verifier is defined once, in the private workspace `@resale/shared` (`admission-kit.ts`,
 * with the code format `admission-code.ts` and the WebCrypto checks `admission-crypto.ts`): the
 * service builds kits with it, its tests and the benchmark check with it. `@resale/shared` is
 * TypeScript sources, never built nor published, so the client cannot depend on it at run time.
 * This script compiles those sources into the client's `dist/` instead, with the TypeScript
 * compiler the rest of the build uses:
 *
 * - one definition: nothing is copied into the repository; `dist/` is build output, rebuilt from
 *   shared's sources on every build (and by `prepack`, so a tarball always matches them);
 * - by name: the sources are found through `@resale/shared/admission-kit` (shared's `exports`,
 *   the workspace link npm makes), never by a path into another package, which the workspaces'
 *   boundary test forbids (packages/server/src/entry-points.test.ts; a tsconfig with
 *   `"files": ["../shared/src/…"]` would be such a path);
 * - real declarations: tsc emits each module's `.d.ts` next to its `.js` (the entry's,
 *   `admission-kit.d.ts`, imports nothing), the same compiler and options as the main entry;
 * - no new dependency: a bundler (esbuild is in node_modules, but only as vite's and tsx's)
 *   would make one file of the JavaScript but not of the declarations, which tsc would still
 *   have to emit; the modules are small and import only each other, so one file gains nothing.
 *
 * The build fails if the program reaches beyond shared's folder or if an emitted module imports
 * anything but its siblings (a bare import would need a dependency the package does not
 * declare): the verifier stays self-contained, with WebCrypto only (Node 22+, browsers).
 *
 * Run: `tsx scripts/build-admission.mts` (from packages/client; `npm run build` does).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
/** The published module's entry (package.json `exports["./admission"]`). */
const ENTRY = '@resale/shared/admission-kit';
const OUT_DIR = join(PACKAGE, 'dist', 'admission');

const entry = realpathSync(fileURLToPath(import.meta.resolve(ENTRY)));
const rootDir = dirname(entry);

const parsed = ts.parseJsonConfigFileContent(
  {
    // The repository's options, and shared's own environment (packages/shared/tsconfig.json):
    // WebCrypto as browsers declare it, no Node types, since the modules run in either.
    extends: '../../tsconfig.base.json',
    compilerOptions: {
      lib: ['ES2023', 'DOM'],
      types: [],
      declaration: true,
      rootDir,
      outDir: OUT_DIR,
      noEmitOnError: true,
    },
    files: [entry],
  },
  ts.sys,
  PACKAGE,
);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => PACKAGE, getNewLine: () => '\n' };
/** Stops the build on the compiler's errors, before anything is written. */
function failOn(diagnostics: readonly ts.Diagnostic[]): void {
  if (diagnostics.length === 0) return;
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}
failOn([...parsed.errors, ...ts.getPreEmitDiagnostics(program)]);
failOn(program.emit().diagnostics);

const problems: string[] = [];
const compiled = program
  .getSourceFiles()
  .filter((f) => !f.isDeclarationFile)
  .map((f) => f.fileName);
for (const file of compiled) {
  if (relative(rootDir, file).startsWith('..')) problems.push(`${file} is outside ${rootDir}`);
}
for (const name of readdirSync(OUT_DIR).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
  const text = readFileSync(join(OUT_DIR, name), 'utf8');
  for (const [, specifier] of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g)) {
    if (!specifier!.startsWith('./')) problems.push(`dist/admission/${name} imports '${specifier}': the verifier must import only its own modules`);
  }
  // A side-effect import (`import 'x'`) and a dynamic one (`import('x')`).
  for (const [, specifier] of text.matchAll(/(?:(?:^|\n)\s*import\s*|\bimport\s*\(\s*)['"]([^'"]+)['"]/g)) {
    if (!specifier!.startsWith('./')) problems.push(`dist/admission/${name} imports '${specifier}': the verifier must import only its own modules`);
  }
}
if (problems.length > 0) {
  console.error(`build-admission: ${problems.join('\n')}`);
  process.exit(1);
}
console.log(`build-admission: ${compiled.map((f) => relative(rootDir, f).split(sep).join('/')).join(', ')} -> dist/admission/`);
