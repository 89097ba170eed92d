import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from './paths.js';

/** The repository's root (packages/server/..). */
const ROOT = resolve(SERVER_ROOT, '../..');

/** Every Markdown file a reader of a clone meets first. */
const DOCS = ['README.md', 'demo/README.md', 'packages/widgets/README.md', 'docs/import.md'];

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

  it('says what npm install may need to build better-sqlite3', () => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(text).toMatch(/## Prerequisites[\s\S]*better-sqlite3[\s\S]*C\+\+ compiler/);
  });
});
