import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handMadeShow } from '../testing/admission.js';

/**
 * The package as a partner installs it: `npm pack` (which builds it: ESM and declarations in
 * dist/), the tarball installed into a throwaway project outside the workspace, the examples
 * (the quickstart, and the door of `@resale/client/admission`) compiled there under tsc
 * --strict against the installed declarations, and both entries imported and used by Node.
 * Dependencies come from npm's cache (the workspace's install filled it), so nothing here needs
 * the network.
 */

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
/** npm's own CLI, run by this Node (the npm on PATH may belong to another one). */
const NPM = process.env.npm_execpath && /npm-cli\.js$/.test(process.env.npm_execpath) ? process.env.npm_execpath : undefined;

function npm(args: string[], cwd: string): string {
  return NPM ? execFileSync(process.execPath, [NPM, ...args], { cwd, encoding: 'utf8' }) : execFileSync('npm', args, { cwd, encoding: 'utf8' });
}

let work: string;
let tarball: string;
let files: string[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'resale-client-pack-'));
  const out = npm(['pack', '--json', '--pack-destination', work], PACKAGE);
  const packed = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, packed[0]!.filename);
  files = packed[0]!.files.map((f) => f.path).sort();
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed @resale/client', () => {
  it('holds the built module, its declarations and the README, and no sources or tests', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/operations.js', 'dist/operations.d.ts', 'dist/schema.d.ts', 'dist/admission/admission-kit.js', 'dist/admission/admission-kit.d.ts', 'dist/admission/admission-code.js', 'dist/admission/admission-crypto.js', 'package.json']));
    expect(files.filter((f) => f.startsWith('src/') || f.includes('.test.') || f.startsWith('testing/') || f.startsWith('scripts/'))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string; private?: boolean; exports: Record<string, unknown> };
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    // Exports name built files only (a declaration file is built output; a .ts source is not).
    expect(JSON.stringify(manifest.exports).match(/"[^"]*\.ts"/g)?.filter((f) => !f.endsWith('.d.ts"')) ?? []).toEqual([]);
  });

  it('installs into a project of its own, where the examples compile under tsc --strict and both entries load and work', async () => {
    const project = join(work, 'partner-app');
    cpSync(join(PACKAGE, 'examples'), join(project, 'examples'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module', dependencies: { '@resale/client': `file:${tarball}` } }, null, 2));
    npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], project);
    expect(readdirSync(join(project, 'node_modules', '@resale', 'client'))).toContain('dist');

    // The compiler and Node's types are the workspace's (a partner has their own): everything else resolves inside the project.
    const nodeTypes = join(require.resolve('@types/node/package.json'), '..', '..');
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, typeRoots: [nodeTypes], types: ['node'] }, include: ['examples'] }),
    );
    const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(project, 'tsconfig.json')], { cwd: project, encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr, 'tsc reported errors').toBe('');
    expect(tsc.status).toBe(0);

    const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('@resale/client'); console.log(JSON.stringify({ create: typeof m.createResaleClient, verify: typeof m.verifyWebhook, unwrap: typeof m.unwrap, getEvent: m.OPERATIONS.getEvent }));"], { cwd: project, encoding: 'utf8' });
    expect(loaded.stderr).toBe('');
    expect(JSON.parse(loaded.stdout)).toEqual({ create: 'function', verify: 'function', unwrap: 'function', getEvent: { method: 'get', path: '/v1/events/{externalReferenceId}' } });

    // The offline verifier, from its own entry (`@resale/client/admission`), in a Node process of
    // the partner's project: a real kit and real codes (made here as the service and a phone
    // make them) in, every verdict out.
    const now = Date.now();
    const show = await handMadeShow(now);
    const phone = await show.phone(1);
    const screenshot = await (await show.phone(2))(now - 60_000);
    const text = await phone(now);
    const kit = show.kit([
      { serial: 1, ticketId: 'tk-1' },
      { serial: 2, ticketId: 'tk-2' },
    ]);
    writeFileSync(join(project, 'door.json'), JSON.stringify({ kit, now, text, next: await phone(now + 15_000), old: screenshot }));
    const door = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        [
          "import { readFileSync } from 'node:fs';",
          "import { createKitVerifier, mergeKit, OFFLINE_REASONS } from '@resale/client/admission';",
          "const { kit, now, text, next, old } = JSON.parse(readFileSync('door.json', 'utf8'));",
          'const door = await createKitVerifier(kit);',
          'const verdicts = [];',
          'for (const [scan, at] of [[text, now], [text, now + 1000], [next, now + 15000], [old, now], ["TKT-1", now]]) verdicts.push(await door.verify(scan, at));',
          'console.log(JSON.stringify({ merge: typeof mergeKit, reasons: OFFLINE_REASONS.length, verdicts: verdicts.map((v) => [v.valid, v.reason, v.repeat, v.ticket?.ticketId ?? null]) }));',
        ].join('\n'),
      ],
      { cwd: project, encoding: 'utf8' },
    );
    expect(door.stderr).toBe('');
    expect(JSON.parse(door.stdout)).toEqual({
      merge: 'function',
      reasons: 12,
      verdicts: [
        [true, 'admitted', false, 'tk-1'],
        [true, 'admitted', true, 'tk-1'],
        [false, 'already_admitted', false, 'tk-1'],
        [false, 'expired', false, 'tk-2'],
        [false, 'malformed', false, null],
      ],
    });
    // Only the entries are exported: the verifier's inner modules are not reachable by name.
    const inner = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('@resale/client/dist/admission/admission-crypto.js')"], { cwd: project, encoding: 'utf8' });
    expect(inner.stderr).toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  }, 120_000);
});
