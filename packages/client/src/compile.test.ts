import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

describe('the package and its example', () => {
  it('compile under tsc --strict', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '-p', `${PACKAGE}tsconfig.json`, '--strict', '--noEmit'], { encoding: 'utf8' });
    expect(run.stdout + run.stderr, 'tsc reported errors').toBe('');
    expect(run.status).toBe(0);
  });

  it('the example uses no casts to any', () => {
    const example = readFileSync(`${PACKAGE}examples/quickstart.ts`, 'utf8');
    expect(example).not.toMatch(/\bas\s+any\b|:\s*any\b|<any>/);
  });
});
