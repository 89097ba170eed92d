import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from './lib/paths.js';

/** The repository's root (packages/server/..). */
const ROOT = resolve(SERVER_ROOT, '../..');

/** The handbook's pages (docs/*.md). */
const HANDBOOK = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort();

/** Every Markdown file a reader of a clone meets: the entry point, the packages' READMEs and the handbook. */
const DOCS = ['README.md', 'demo/README.md', 'packages/widgets/README.md', 'packages/client/README.md', ...HANDBOOK.map((f) => `docs/${f}`)];

/** The anchors GitHub gives a page's headings (lower case, punctuation dropped, spaces as hyphens), outside code blocks. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const heading = !fence && /^#{1,6} (.+)$/.exec(line);
    if (heading) out.add(heading[1]!.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'));
  }
  return out;
}

/** The relative link targets of a Markdown text (`[text](target)`), without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('#')).map((href) => href.split('#')[0]!);
}

describe('the README stands on its own', () => {
  it.each(DOCS.filter((d) => existsSync(join(ROOT, d))))('%s links only files inside the repository that exist', (doc) => {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    const broken = relativeLinks(text).filter((href) => {
      const target = resolve(dirname(join(ROOT, doc)), href);
      return relative(ROOT, target).startsWith('..') || !existsSync(target);
    });
    expect(broken).toEqual([]);
  });

  it('keeps the README an entry point of at most 300 lines, with a way to every page of the handbook', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain('](docs/README.md)');
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    for (const page of HANDBOOK.filter((f) => f !== 'README.md')) expect(index, page).toContain(`](${page})`);
  });

  it('names no issue numbers in the docs (they describe the product as it is)', () => {
    const numbered = DOCS.flatMap((doc) => (readFileSync(join(ROOT, doc), 'utf8').match(/\bissues? \d+\b/gi) ?? []).map((m) => `${doc}: ${m}`));
    expect(numbered).toEqual([]);
  });

  it('links the handbook’s table of contents to headings that exist', () => {
    const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8');
    const missing = [...index.matchAll(/\]\(([\w.-]+\.md)#([^)]+)\)/g)].filter(([, page, anchor]) => !anchors(readFileSync(join(ROOT, 'docs', page!), 'utf8')).has(anchor!)).map(([, page, anchor]) => `${page}#${anchor}`);
    expect(missing).toEqual([]);
  });

  it('says what npm install may need to build better-sqlite3', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(text).toMatch(/## Prerequisites[\s\S]*better-sqlite3[\s\S]*C\+\+ compiler/);
  });
});
