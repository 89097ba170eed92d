// SQLite only: `npm run import` opens a SQLite file (`--database`, DATABASE_PATH); it has no PostgreSQL mode. The import itself runs on both engines (import.test.ts).
import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../../testing/temp-dir.js';
import { describe, expect, it } from 'vitest';
import { createDb } from '../../../db/client.js';
import { fileDeps } from '../../../testing/harness.js';
import { systemClock } from '../../../lib/clock.js';
import { runCli, type CliIo } from './cli.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(HERE, '../../../..');
const ROOT = resolve(SERVER, '../..');
const CLI = join(HERE, 'cli.ts');

/** A database file with one partner, closed again, as an operator would find it. */
async function databaseWithPartner(): Promise<{ path: string; partnerId: string; dir: string }> {
  const dir = tempDir('resale-cli');
  const path = join(dir, 'resale.sqlite');
  const deps = fileDeps(path, { clock: systemClock });
  const partnerId = (await deps.db.transact(async (tx) => await deps.partners.createIn(tx, 'Acme'))).partner.id;
  deps.db.$client.close();
  return { path, partnerId, dir };
}

function io(overrides: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false, cwd: SERVER, env: {}, ...overrides } satisfies CliIo };
}

function storedEventIds(path: string, partnerId: string): string[] {
  const db = createDb(path);
  try {
    return db.$client.prepare('SELECT external_reference_id AS id FROM events WHERE partner_id = ? ORDER BY external_reference_id').all(partnerId).map((r) => (r as { id: string }).id);
  } finally {
    db.$client.close();
  }
}

describe('usage errors exit with 2 and say what is wrong', () => {
  const cases: [string, string[], RegExp][] = [
    ['no --partner', ['docs/samples/events.csv'], /--partner <partnerId> is required/],
    ['no file', ['--partner', 'ptr_x'], /Name the file to import/],
    ['two files', ['--partner', 'ptr_x', 'a.csv', 'b.csv'], /One file at a time \(got 2\)/],
    ['an unknown option', ['--partner', 'ptr_x', '--force', 'a.csv'], /Unknown option '--force'/],
    ['a file that is not .csv or .xlsx', ['--partner', 'ptr_x', 'events.xls'], /only .csv and .xlsx/],
  ];
  for (const [what, argv, message] of cases) {
    it(what, async () => {
      const t = io({ env: { INIT_CWD: ROOT } });
      expect(await runCli(argv, t.io)).toBe(2);
      expect(t.err.join('\n')).toMatch(message);
      expect(t.err.join('\n')).toMatch(/Usage: npm run import/);
      expect(t.out).toEqual([]);
    });
  }

  it('a missing file, a missing database, an unknown partner', async () => {
    const { path, partnerId, dir } = await databaseWithPartner();
    const a = io({ env: { INIT_CWD: ROOT } });
    expect(await runCli(['--partner', partnerId, '--database', path, 'docs/samples/nope.csv'], a.io)).toBe(2);
    expect(a.err).toEqual([`No file at ${join(ROOT, 'docs/samples/nope.csv')}`]);

    const b = io({ env: { INIT_CWD: ROOT } });
    expect(await runCli(['--partner', partnerId, '--database', join(dir, 'missing.sqlite'), 'docs/samples/events.csv'], b.io)).toBe(2);
    expect(b.err[0]).toMatch(/^No database at .*missing\.sqlite: start the service once/);

    const c = io({ env: { INIT_CWD: ROOT } });
    expect(await runCli(['--partner', 'ptr_nobody', '--database', path, 'docs/samples/events.csv'], c.io)).toBe(2);
    expect(c.err).toEqual([`Unknown partner 'ptr_nobody' in ${path}`]);
    expect(storedEventIds(path, partnerId)).toEqual([]);
  });
});

describe('runs', () => {
  it('reads paths from where the operator typed the command, and the database from DATABASE_PATH', async () => {
    const { path, partnerId, dir } = await databaseWithPartner();
    copyFileSync(join(ROOT, 'docs/samples/events.xlsx'), join(dir, 'mine.xlsx'));
    const t = io({ cwd: SERVER, env: { INIT_CWD: dir, DATABASE_PATH: path } });
    expect(await runCli(['--partner', partnerId, 'mine.xlsx'], t.io)).toBe(0);
    expect(t.out).toEqual([
      `${join(dir, 'mine.xlsx')}: 9 row(s), 2 event(s)`,
      '  created      2  (tour-2026, jazz-harbour-2026)',
      '  updated      0',
      '  rejected     0',
    ]);
    expect(storedEventIds(path, partnerId)).toEqual(['jazz-harbour-2026', 'tour-2026']);
  });

  it('--dry-run prints what would happen and the bad rows, exits 1, writes nothing', async () => {
    const { path, partnerId } = await databaseWithPartner();
    const t = io({ env: { INIT_CWD: ROOT } });
    expect(await runCli(['--partner', partnerId, '--database', path, '--dry-run', 'docs/samples/events-bad.csv'], t.io)).toBe(1);
    expect(t.out.slice(0, 4)).toEqual([
      `${join(ROOT, 'docs/samples/events-bad.csv')}: 8 row(s), 2 event(s) (dry run: nothing written)`,
      '  would create 1  (good-night)',
      '  would update 0',
      '  rejected     1  (bad-fest)',
    ]);
    expect(t.out).toContain('  row 7, currency: currency must be an ISO 4217 currency code such as EUR (found \'EUX\') [event bad-fest]');
    expect(t.out).toContain('  row 9, eventId: eventId is required on every row');
    expect(storedEventIds(path, partnerId)).toEqual([]);
  });

  it('reports a file that cannot be read as a sheet, exit 1', async () => {
    const { path, partnerId, dir } = await databaseWithPartner();
    const broken = join(dir, 'broken.xlsx');
    copyFileSync(join(ROOT, 'docs/samples/events.csv'), broken);
    const t = io();
    expect(await runCli(['--partner', partnerId, '--database', path, broken], t.io)).toBe(1);
    expect(t.out[0]).toBe(`${broken}: nothing imported`);
    expect(t.out[1]).toMatch(/The workbook cannot be read/);
  });
});

describe('as a child process (node --import tsx cli.ts)', () => {
  function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: SERVER, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('imports the CSV sample into a database with a partner: exit 0, then 0 again as updates; the bad file exits 1', async () => {
    const { path, partnerId } = await databaseWithPartner();
    const env = { INIT_CWD: ROOT };
    const first = await run(['--partner', partnerId, '--database', path, 'docs/samples/events.csv'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('  created      2  (tour-2026, jazz-harbour-2026)');
    expect(storedEventIds(path, partnerId)).toEqual(['jazz-harbour-2026', 'tour-2026']);

    const second = await run(['--partner', partnerId, '--database', path, 'docs/samples/events.csv'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('  updated      2  (tour-2026, jazz-harbour-2026)');

    const bad = await run(['--partner', partnerId, '--database', path, 'docs/samples/events-bad.csv'], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('  row 5, ticketOptionName: ticketOptionName is required for a new ticket option [event bad-fest]');
    expect(storedEventIds(path, partnerId)).toEqual(['good-night', 'jazz-harbour-2026', 'tour-2026']);
  }, 60_000);
});
