import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';

/**
 * The generated document (GET /v1/openapi.json) through the linters a partner would use, with
 * the repository's configurations (packages/server/redocly.yaml, .redocly.lint-ignore.yaml,
 * .spectral.yaml; every rule turned off is listed there with its reason): Redocly CLI
 * (recommended) and Spectral (spectral:oas), 0 errors and 0 warnings each.
 *
 * The CLIs run from node_modules through their node entry with this very Node (no npx, no
 * network: telemetry and update checks are off), over the document written to a temporary
 * directory beside copies of the configurations (the ignore file names the document by its
 * path relative to itself).
 */

const SERVER_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CONFIGS = ['redocly.yaml', '.redocly.lint-ignore.yaml', '.spectral.yaml'];
const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** The file a package's `bin` names, resolved from node_modules. */
function binOf(pkg: string, name: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), bin[name]!);
}

/** Runs a CLI by its node entry in `cwd`; answers its stdout whatever its exit code (a finding exits non-zero). */
async function cli(entry: string, args: string[], cwd: string): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', CI: 'true' };
  try {
    return (await run(process.execPath, [entry, ...args], { cwd, env, maxBuffer: 64 << 20, timeout: 60_000 })).stdout;
  } catch (err) {
    const failed = err as { stdout?: string; stderr?: string; message: string };
    if (failed.stdout) return failed.stdout;
    throw new Error(`${entry} failed: ${failed.stderr ?? failed.message}`);
  }
}

let dir: string;

beforeAll(async () => {
  const t = createTestApp();
  const res = await t.app.request('/v1/openapi.json');
  expect(res.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'resale-openapi-lint-'));
  writeFileSync(join(dir, 'openapi.json'), await res.text());
  for (const file of CONFIGS) copyFileSync(join(SERVER_ROOT, file), join(dir, file));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the OpenAPI document under the partners’ linters', () => {
  it('Redocly CLI (recommended): 0 errors, 0 warnings', { timeout: 90_000 }, async () => {
    const out = await cli(binOf('@redocly/cli', 'redocly'), ['lint', 'openapi.json', '--config', 'redocly.yaml', '--format', 'json'], dir);
    const report = JSON.parse(out.slice(out.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer?: string }[] }[];
    };
    const problems = report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('Spectral (spectral:oas): 0 errors, 0 warnings', { timeout: 90_000 }, async () => {
    const out = await cli(binOf('@stoplight/spectral-cli', 'spectral'), ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'], dir);
    // Spectral answers `[]` when nothing is found; severities 0 (error) to 3 (hint).
    const results = JSON.parse(out.slice(out.indexOf('['))) as { code: string; message: string; severity: number; path: string[] }[];
    const problems = results.filter((r) => r.severity <= 1).map((r) => `${r.code} ${r.path.join('.')}: ${r.message}`);
    expect(problems).toEqual([]);
  });
});
