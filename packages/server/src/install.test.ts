import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { SERVER_ROOT } from './lib/paths.js';

/**
 * A fresh clone installs on the supported Node.js without a warning a newcomer must act on:
 * every package the lock file brings accepts the oldest Node.js that `engines` allows (no
 * EBADENGINE), and every package with an install script has been reviewed in `allowScripts`
 * (no "not yet covered by allowScripts" advice; npm 12 runs only the scripts allowed there).
 * Read from the files npm reads, so a dependency update that brings either back fails here.
 */

const ROOT = resolve(SERVER_ROOT, '../..');
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts: Record<string, boolean> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { name?: string; version?: string; engines?: { node?: string } | string[]; hasInstallScript?: boolean; link?: boolean }>;
};

/** A lock entry's package name: its `name`, else the last `node_modules/…` of its path. */
function nameOf(path: string, entry: { name?: string }): string {
  return entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

describe('the supported Node.js', () => {
  it('is Node 24 LTS or later, in engines and .nvmrc, and is what runs these tests', () => {
    const oldest = semver.minVersion(root.engines.node)!;
    expect(oldest.major).toBeGreaterThanOrEqual(24);
    expect(readFileSync(join(ROOT, '.nvmrc'), 'utf8').trim()).toBe(String(oldest.major));
    expect(semver.satisfies(process.versions.node, root.engines.node)).toBe(true);
  });

  it('is accepted by every package the lock file installs (no EBADENGINE)', () => {
    const oldest = semver.minVersion(root.engines.node)!.version;
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && !entry.link && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, entry]) => `${nameOf(path, entry)}@${entry.version} wants node ${(entry.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});

describe('install scripts', () => {
  it('of every package in the lock file are reviewed in allowScripts', () => {
    // npm also counts a binding.gyp as an install script (its implicit `node-gyp rebuild`), which
    // the lock file does not record: better-sqlite3 ships one beside its prebuilt binaries.
    const hasScript = (path: string, e: { hasInstallScript?: boolean }) => e.hasInstallScript || existsSync(join(ROOT, path, 'binding.gyp'));
    const withScripts = new Set(Object.entries(lock.packages).filter(([path, e]) => path !== '' && !e.link && hasScript(path, e)).map(([path, e]) => nameOf(path, e)));
    expect([...withScripts].filter((name) => !(name in root.allowScripts)).sort()).toEqual([]);
    // And nothing is listed that the lock no longer brings (a stale approval would allow a future package of that name).
    expect(Object.keys(root.allowScripts).filter((name) => !withScripts.has(name)).sort()).toEqual([]);
  });
});

describe('the repository', () => {
  it('ignores no source, test or document file (a test file git ignores passes here and never reaches CI)', () => {
    // `*.sqlite-*` once ignored every `*.sqlite-only.test.ts`: the SQLite-only tests never reached the repository.
    const ignored = execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 })
      .split('\n')
      .filter((f) => f && !/(^|\/)(node_modules|dist|artifacts|screenshots|data)\//.test(f))
      .filter((f) => /\.(ts|tsx|mts|cts|js|mjs|json|md|sql|yaml|yml)$/.test(f));
    expect(ignored).toEqual([]);
  });
});
