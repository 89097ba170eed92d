import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { tempDir } from './testing/temp-dir.js';
import { eventBody, ticketBody } from './testing/factories.js';

/** packages/server */
const SERVER = fileURLToPath(new URL('..', import.meta.url));
const WIDGETS_ENTRY = join(SERVER, '../widgets/dist/resale.js');

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, unknown>; imports: { path: string; external?: boolean }[] }>;
}

/** Files that are tests or their helpers (the patterns .dependency-cruiser.cjs leaves out), and the development entry. */
const NOT_FOR_DIST = /\.test\.tsx?$|(?:^|\/)src\/testing\/|\.testing\.tsx?$|\.concurrency\.thread\.ts$|(?:^|\/)src\/start-dev\.ts$/;

/** The log lines of the compiled service (pino: one JSON object per line), as they arrive. */
function logLines(child: ChildProcess): { lines: Record<string, unknown>[]; text: () => string } {
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    raw += chunk;
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop()!;
    for (const line of parts) {
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log line (kept in `raw` for the failure message).
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (raw += chunk));
  return { lines, text: () => raw };
}

async function until<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('npm run build: the service compiled for plain node', () => {
  it('builds ES modules with source maps, without tests or tsx, and node runs them: migrations, API, docs, pages, widgets and the ingestion thread', async () => {
    // Inside packages/server (dist/ is ignored by git): the bundles import their packages from
    // node_modules, and find drizzle/ and ../widgets/dist from the server's package.json.
    mkdirSync(join(SERVER, 'dist'), { recursive: true });
    const outDir = mkdtempSync(join(SERVER, 'dist', 'build-test-'));
    onTestFinished(() => rmSync(outDir, { recursive: true, force: true }));
    const metafile = join(outDir, 'meta.json');
    // The package's own script; esbuild takes the last --outdir.
    await promisify(execFile)('npm', ['run', '--silent', 'build', '--', `--outdir=${outDir}`, `--metafile=${metafile}`], { cwd: SERVER });

    const meta = JSON.parse(readFileSync(metafile, 'utf8')) as Metafile;
    const outputs = Object.entries(meta.outputs).filter(([file]) => file.endsWith('.js'));
    expect(outputs.map(([, o]) => o.entryPoint).sort()).toEqual(['src/backup.ts', 'src/import.ts', 'src/main.ts', 'src/migrate.ts', 'src/reseal.ts', 'src/tickets.worker.thread.ts']);
    for (const [file, output] of outputs) {
      expect(existsSync(join(SERVER, `${file}.map`)), `${file}.map`).toBe(true);
      // ES modules: a static import of a package, no require of our own code.
      expect(readFileSync(join(SERVER, file), 'utf8')).toMatch(/^import .* from "[^".]/m);
      // Every package stays in node_modules; tsx is never loaded.
      expect(output.imports.filter((i) => !i.external)).toEqual([]);
      expect(output.imports.map((i) => i.path).filter((p) => p === 'tsx' || p.startsWith('tsx/'))).toEqual([]);
      // No test or test helper is compiled in.
      expect(Object.keys(output.inputs).filter((f) => NOT_FOR_DIST.test(f))).toEqual([]);
      // A bundle shares one import.meta.url: another command's "am I the entry?" check
      // (backup.ts, the import CLI…) bundled in would run that command too. Each command
      // bundles its own check only (its file, or lib/cli.ts's runIfMain that it calls).
      const entryChecks = Object.keys(output.inputs).filter((f) => !f.includes('node_modules') && /process\.argv\[1\]|runIfMain\(import\.meta\.url/.test(readFileSync(join(SERVER, f), 'utf8')));
      const own = output.entryPoint === 'src/tickets.worker.thread.ts' ? [] : [output.entryPoint!];
      expect(entryChecks.filter((f) => f !== 'src/lib/cli.ts')).toEqual(own);
    }
    // The .tsx pages go through hono/jsx.
    const main = outputs.find(([, o]) => o.entryPoint === 'src/main.ts')![1];
    expect(main.imports.map((i) => i.path)).toContain('hono/jsx/jsx-runtime');

    const dir = tempDir('resale-build');
    const key = 'sk_build_test_private_000000';
    const child = spawn(process.execPath, [join(outDir, 'main.js')], {
      cwd: SERVER,
      // Only what the service needs: no NODE_OPTIONS or loader from the test runner.
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_PATH: join(dir, 'resale.sqlite'),
        SECRET_KEY: 'build-test-secret-key-00000000000000',
        LOG_LEVEL: 'info',
        // Stop at once on SIGTERM (no grace period for a load balancer to notice).
        SHUTDOWN_GRACE_SECONDS: '0',
        SANDBOX_PRIVATE_KEY: key,
        SANDBOX_PUBLIC_KEY: 'pk_build_test_public_0000000',
        SANDBOX_CHANNELS_KEY: 'sk_ch_build_test_channels_00',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const log = logLines(child);
    try {
      const listening = await until(
        () => log.lines.find((l) => l.msg === 'resale listening') ?? (child.exitCode === null ? undefined : 'exited'),
        (l) => l !== undefined,
        'the service to listen',
      );
      expect(listening, log.text()).not.toBe('exited');
      const base = `http://127.0.0.1:${(listening as { port: number }).port}`;
      // The thread started from the compiled tickets.worker.thread.js.
      expect(log.lines.map((l) => l.msg)).toContain('ticket ingestion drains on a worker thread');

      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, { method, headers: { authorization: key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
        return { status: res.status, body: (await res.json()) as { data: any } };
      };

      expect((await fetch(`${base}/v1/openapi.json`)).status).toBe(200);
      // The API reference and its bundle (resolved in node_modules from dist/).
      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200);
      const script = /src="(\/docs\/assets\/[^"]+)"/.exec(await docs.text())![1]!;
      expect((await fetch(base + script)).status).toBe(200);
      // A page rendered by hono/jsx.
      const page = await fetch(`${base}/tickets/view/not-a-token`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/^<!DOCTYPE html><html lang="en">/);
      // The widget bundles (served when packages/widgets is built, as npm run build does).
      expect((await fetch(`${base}/widgets/v1/resale.js`)).status).toBe(existsSync(WIDGETS_ENTRY) ? 200 : 404);

      // Migrations applied (the sandbox partner exists and writes work), and POST /v1/tickets's
      // queue drained by the compiled thread.
      expect((await call('POST', '/v1/events', eventBody('tour'))).status).toBe(200);
      const tickets = Array.from({ length: 20 }, (_, i) => ticketBody(`b-${i}`, { externalReferenceEventId: 'tour', buyer: `fan${i}@example.com` }));
      const accepted = await call('POST', '/v1/tickets', tickets);
      expect(accepted.status).toBe(202);
      const job = await until(
        () => call('GET', `/v1/tickets/jobs/${accepted.body.data.jobId}`),
        (r) => r.body.data.state === 'done',
        'the ticket job',
      );
      expect([job.body.data.created, job.body.data.rejected]).toEqual([20, 0]);
      expect((await call('GET', '/v1/tickets/b-7')).body.data).toMatchObject({ ticketId: 'b-7', owner: { email: 'fan7@example.com' } });
      expect(log.lines.filter((l) => typeof l.level === 'number' && l.level >= 50)).toEqual([]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, log.text()).toBe(0);

    // The operator commands run from the build too: migrate and back up the database the
    // service just used (plain node, the same environment variables as with npm run).
    const run = (file: string, args: string[] = []) =>
      promisify(execFile)(process.execPath, [join(outDir, file), ...args], { cwd: SERVER, env: { PATH: process.env.PATH ?? '', DATABASE_PATH: join(dir, 'resale.sqlite') } });
    expect((await run('migrate.js')).stdout).toContain('is up to date');
    expect((await run('backup.js', [join(dir, 'copy.sqlite')])).stdout).toContain('copy.sqlite');
    expect(existsSync(join(dir, 'copy.sqlite'))).toBe(true);
  }, 90_000);
});
