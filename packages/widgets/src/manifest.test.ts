// @vitest-environment node
/**
 * The custom elements manifest against what partners read and compile against:
 * - each component's .md documents exactly the attributes, properties, methods, events and CSS
 *   parts the manifest lists (and every CSS custom property it lists);
 * - every tag in the manifest is typed in `HTMLElementTagNameMap` as its class, for a program
 *   that imports only the package's entry (`src/index.ts`).
 * The manifest is generated here from the sources with the package's own config
 * (custom-elements-manifest.config.js), as `npm run build` does, so the check needs no build.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMPONENTS = join(PACKAGE_ROOT, 'src/components');

/** The parts of the Custom Elements Manifest schema these checks read. */
interface Named {
  name: string;
}
interface Member extends Named {
  kind: 'field' | 'method';
  privacy?: 'public' | 'private' | 'protected';
  static?: boolean;
  readonly?: boolean;
}
interface Attribute extends Named {
  fieldName?: string;
}
interface ElementDeclaration extends Named {
  kind: string;
  tagName?: string;
  attributes?: Attribute[];
  members?: Member[];
  events?: Named[];
  cssParts?: Named[];
  cssProperties?: Named[];
}
interface Definition {
  kind: string;
  name: string;
  declaration: { name: string };
}
interface Manifest {
  modules: { path: string; declarations?: ElementDeclaration[]; exports?: Definition[] }[];
}

/** What one element offers, as comparable strings (`returnTo ↔ return-to`, `show()`, …). */
interface Api {
  properties: string[];
  methods: string[];
  events: string[];
  parts: string[];
  cssProperties: string[];
}

/** Runs `cem analyze` with the package's config into a temporary folder and reads the result. */
function analyze(): Manifest {
  const require = createRequire(import.meta.url);
  const cem = join(dirname(require.resolve('@custom-elements-manifest/analyzer/package.json')), 'cem.js');
  const out = mkdtempSync(join(tmpdir(), 'resale-cem-'));
  try {
    // The CLI joins --outdir to the working directory, so it takes a relative path.
    execFileSync(process.execPath, [cem, 'analyze', '--outdir', relative(PACKAGE_ROOT, out)], { cwd: PACKAGE_ROOT, stdio: 'pipe' });
    return JSON.parse(readFileSync(join(out, 'custom-elements.json'), 'utf8')) as Manifest;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const property = (name: string, attribute: string | undefined, readonly: boolean) => `${name}${readonly ? ' (read-only)' : ''} ↔ ${attribute ?? '–'}`;
const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

/** The public API of an element as the manifest describes it (inherited members included). */
function manifestApi(element: ElementDeclaration): Api {
  const isPublic = (m: Member) => !m.static && (m.privacy ?? 'public') === 'public';
  const attributeOf = new Map((element.attributes ?? []).map((a) => [a.fieldName ?? a.name, a.name]));
  const members = (element.members ?? []).filter(isPublic);
  return {
    properties: sorted(members.filter((m) => m.kind === 'field').map((m) => property(m.name, attributeOf.get(m.name), m.readonly === true))),
    methods: sorted(members.filter((m) => m.kind === 'method').map((m) => `${m.name}()`)),
    events: sorted((element.events ?? []).map((e) => e.name)),
    parts: sorted((element.cssParts ?? []).map((p) => p.name)),
    cssProperties: sorted((element.cssProperties ?? []).map((p) => p.name)),
  };
}

/** The text under each `## ` heading of a component's .md. */
function sections(md: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const chunk of md.split(/^## /m).slice(1)) {
    const newline = chunk.indexOf('\n');
    out.set(chunk.slice(0, newline).trim(), chunk.slice(newline + 1));
  }
  return out;
}

/** The cells of a section's table rows (header and separator rows left out). */
function rows(section: string | undefined): string[][] {
  const lines = (section ?? '').split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) => l.slice(1, l.lastIndexOf('|')).split(/(?<!\\)\|/).map((c) => c.trim()));
}

/** The first backticked word of a table cell (`` `open` (reflected) `` → `open`). */
const code = (cell: string | undefined) => /`([^`]+)`/.exec(cell ?? '')?.[1];

/**
 * The API a component's .md documents, by its conventions: the "Attributes and properties" table
 * (property, then attribute or `–`; "(read-only)" after a property without a setter) with a
 * "Methods:" paragraph below it, the "Events" and "Parts" tables (the name first), and the
 * "CSS custom properties" text (compared one way only: it also names the general tokens).
 */
function documentedApi(md: string): Api {
  const s = sections(md);
  const table = s.get('Attributes and properties');
  const methods = (table ?? '').split(/\n\s*\n/).find((paragraph) => paragraph.startsWith('Methods: ')) ?? '';
  return {
    properties: sorted(rows(table).map(([name, attribute]) => property(code(name) ?? `?${name}`, code(attribute), /\(read-only\)/.test(name ?? '')))),
    methods: sorted([...methods.matchAll(/`(\w+)\(/g)].map((m) => `${m[1]}()`)),
    events: sorted(rows(s.get('Events')).map(([name]) => code(name) ?? `?${name}`)),
    parts: sorted(rows(s.get('Parts')).map(([name]) => code(name) ?? `?${name}`)),
    cssProperties: sorted([...(s.get('CSS custom properties') ?? '').matchAll(/`(--[\w-]+)`/g)].map((m) => m[1]!)),
  };
}

/** Differences between the manifest and the .md, as sentences (empty when they agree). */
function compare(manifest: Api, doc: Api): string[] {
  const problems: string[] = [];
  for (const kind of ['properties', 'methods', 'events', 'parts'] as const) {
    for (const item of manifest[kind]) if (!doc[kind].includes(item)) problems.push(`${kind}: the .md misses ${item}`);
    for (const item of doc[kind]) if (!manifest[kind].includes(item)) problems.push(`${kind}: the .md lists ${item}, which the manifest does not have`);
  }
  for (const item of manifest.cssProperties) if (!doc.cssProperties.includes(item)) problems.push(`cssProperties: the .md misses ${item}`);
  return problems;
}

/** The type `HTMLElementTagNameMap[tag]` has for a program that imports only `src/index.ts`. */
function tagNameMapTypes(tags: string[]): Map<string, string | undefined> {
  const config = ts.getParsedCommandLineOfConfigFile(join(PACKAGE_ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram([join(PACKAGE_ROOT, 'src/index.ts')], config.options);
  const checker = program.getTypeChecker();
  const entry = program.getSourceFile(join(PACKAGE_ROOT, 'src/index.ts'))!;
  const map = checker.getSymbolsInScope(entry, ts.SymbolFlags.Interface).find((s) => s.name === 'HTMLElementTagNameMap');
  if (!map) throw new Error('HTMLElementTagNameMap is not in scope');
  const type = checker.getDeclaredTypeOfSymbol(map);
  return new Map(tags.map((tag) => {
    const prop = type.getProperty(tag);
    return [tag, prop && checker.typeToString(checker.getTypeOfSymbol(prop))];
  }));
}

let manifest: Manifest;
let elements: ElementDeclaration[];
beforeAll(() => {
  manifest = analyze();
  elements = manifest.modules.flatMap((m) => m.declarations ?? []).filter((d) => d.tagName);
}, 30_000);

describe('custom elements manifest', () => {
  it('has every component folder as an element, with its class named by its tag', () => {
    const folders = readdirSync(COMPONENTS, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(sorted(elements.map((e) => e.tagName!))).toEqual(sorted(folders.map((f) => `resale-${f}`)));
    for (const e of elements) expect(e.name, e.tagName).toBe(`Resale${e.tagName!.replace(/^resale/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}`);
  });

  it('defines each tag once, with the class that has it', () => {
    const definitions = manifest.modules.flatMap((m) => m.exports ?? []).filter((e) => e.kind === 'custom-element-definition');
    expect(sorted(definitions.map((d) => `${d.name} ${d.declaration.name}`))).toEqual(sorted(elements.map((e) => `${e.tagName} ${e.name}`)));
    expect(definitions).toHaveLength(elements.length);
  });

  it('types every tag in HTMLElementTagNameMap as its class', () => {
    const types = tagNameMapTypes(elements.map((e) => e.tagName!));
    for (const e of elements) expect(types.get(e.tagName!), `HTMLElementTagNameMap['${e.tagName}']`).toBe(e.name);
  }, 30_000);

  it('gives every event its class, and no internal state as an attribute', () => {
    for (const e of elements) {
      for (const event of e.events ?? []) expect(event, `${e.tagName} ${event.name}`).toMatchObject({ type: { text: expect.stringMatching(/^Resale\w+Event$/) } });
      for (const a of e.attributes ?? []) expect(a.fieldName ?? a.name, `${e.tagName} attribute ${a.name}`).not.toMatch(/^_/);
    }
  });

  it('is what each component .md documents', () => {
    const problems = elements.flatMap((e) => {
      const folder = e.tagName!.replace(/^resale-/, '');
      const md = readFileSync(join(COMPONENTS, folder, `${folder}.md`), 'utf8');
      return compare(manifestApi(e), documentedApi(md)).map((p) => `${folder}.md: ${p}`);
    });
    expect(problems).toEqual([]);
  });

  it('notices a part, an attribute or an event that the .md lacks or invents', () => {
    const seatMap = elements.find((e) => e.tagName === 'resale-seat-map')!;
    const md = readFileSync(join(COMPONENTS, 'seat-map/seat-map.md'), 'utf8');
    const doctored = md
      .replace(/^\| `legend` \|.*\n/m, '')
      .replace('| `returnTo` | `return-to` |', '| `returnTo` | `back-to` |')
      .replace(/^(\| `resale-error` \|.*\n)/m, '$1| `resale-gone` | never sent |\n');
    expect(doctored).not.toBe(md);
    expect(compare(manifestApi(seatMap), documentedApi(doctored))).toEqual([
      'properties: the .md misses returnTo ↔ return-to',
      'properties: the .md lists returnTo ↔ back-to, which the manifest does not have',
      'events: the .md lists resale-gone, which the manifest does not have',
      'parts: the .md misses legend',
    ]);
  });
});
