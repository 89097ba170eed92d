import { execFile } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from './db/client.js';
import { buildDeps } from './deps.js';
import { systemClock } from './lib/clock.js';
import { locationOf, serviceDatabaseEnv, TEST_SECRET_KEY, whereOf, type ServiceDatabase } from './testing/harness.js';
import { sqlRows } from './testing/sql.js';
import { tempDir } from './testing/temp-dir.js';
import { runCli, type CliIo } from './import.js';

/**
 * `npm run import` over the service's database, as the service finds it: a SQLite file
 * (`DATABASE_PATH`), or PostgreSQL (`DATABASE_URL`) in the server-pg project. What only a
 * SQLite file has (`--database`, a missing file) is in cli.sqlite-only.test.ts.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(HERE, '..');
const ROOT = resolve(SERVER, '../..');
const CLI = join(HERE, 'import.ts');

/** A database of its own (a SQLite file in `dir`, or a PostgreSQL database) with one partner, closed again, as an operator would find it. */
async function databaseWithPartner(): Promise<{ database: ServiceDatabase; where: string; partnerId: string; dir: string }> {
  const dir = tempDir('resale-cli');
  const database = await serviceDatabaseEnv(join(dir, 'resale.sqlite'));
  const deps = buildDeps({
    db: await openDb(locationOf(database), { poolSize: 1 }),
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secretKey: TEST_SECRET_KEY,
    config: { env: 'test', publicBaseUrl: 'http://resale.test', operatorToken: null, maxBodyBytes: 1 << 20, rateLimitPerMinute: 10_000, smtpUrl: null, mailFrom: 'x <x@resale.test>' },
  });
  try {
    const partnerId = (await deps.db.transact(async (tx) => await deps.partners.createIn(tx, 'Acme'))).partner.id;
    return { database, where: whereOf(database), partnerId, dir };
  } finally {
    deps.messages.close();
    await closeDb(deps.db);
  }
}

function io(overrides: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false, cwd: SERVER, env: {}, ...overrides } satisfies CliIo };
}

async function storedEventIds(database: ServiceDatabase, partnerId: string): Promise<string[]> {
  const db = await openDb(locationOf(database), { migrate: false, poolSize: 1 });
  try {
    const rows = await sqlRows<{ id: string }>(db, sql`select external_reference_id as id from events where partner_id = ${partnerId} order by external_reference_id`);
    return rows.map((r) => r.id);
  } finally {
    await closeDb(db);
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

  it('a missing file, an unknown partner', async () => {
    const { database, where, partnerId } = await databaseWithPartner();
    const a = io({ env: { INIT_CWD: ROOT, ...database } });
    expect(await runCli(['--partner', partnerId, 'docs/samples/nope.csv'], a.io)).toBe(2);
    expect(a.err).toEqual([`No file at ${join(ROOT, 'docs/samples/nope.csv')}`]);

    const c = io({ env: { INIT_CWD: ROOT, ...database } });
    expect(await runCli(['--partner', 'ptr_nobody', 'docs/samples/events.csv'], c.io)).toBe(2);
    expect(c.err).toEqual([`Unknown partner 'ptr_nobody' in ${where}`]);
    // Never the database's password.
    expect(c.err.join('\n')).not.toContain(':resale-test@');
    expect(await storedEventIds(database, partnerId)).toEqual([]);
  });

  it('a DATABASE_URL that is not PostgreSQL’s, or not the one the process started with, and --database beside DATABASE_URL', async () => {
    const { database } = await databaseWithPartner();
    const onPostgres = 'DATABASE_URL' in database;
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--partner', 'ptr_x', 'docs/samples/events.csv'], { DATABASE_URL: 'mysql://db/resale' }, /DATABASE_URL: must be a postgres:\/\/ \(or postgresql:\/\/\) URL/],
      // The tables are built for the engine when the process starts (db/engine.ts).
      [['--partner', 'ptr_x', 'docs/samples/events.csv'], onPostgres ? { DATABASE_PATH: join(tempDir('resale-cli'), 'x.sqlite') } : { DATABASE_URL: 'postgres://resale:secret@127.0.0.1:1/resale' }, /DATABASE_URL: must be set in the environment the process started with/],
      [['--partner', 'ptr_x', '--database', 'x.sqlite', 'docs/samples/events.csv'], { DATABASE_URL: 'postgres://resale:secret@127.0.0.1:1/resale' }, /--database names a SQLite file, but DATABASE_URL is set/],
    ];
    for (const [argv, env, message] of cases) {
      const t = io({ env: { INIT_CWD: ROOT, ...env } });
      expect(await runCli(argv, t.io), JSON.stringify(env)).toBe(2);
      expect(t.err.join('\n')).toMatch(message);
      expect(t.err.join('\n')).not.toContain('secret');
      expect(t.out).toEqual([]);
    }
  });
});

describe('runs', () => {
  it('reads paths from where the operator typed the command, and the database from DATABASE_PATH or DATABASE_URL', async () => {
    const { database, partnerId, dir } = await databaseWithPartner();
    copyFileSync(join(ROOT, 'docs/samples/events.xlsx'), join(dir, 'mine.xlsx'));
    const t = io({ cwd: SERVER, env: { INIT_CWD: dir, ...database } });
    expect(await runCli(['--partner', partnerId, 'mine.xlsx'], t.io)).toBe(0);
    expect(t.out).toEqual([
      `${join(dir, 'mine.xlsx')}: 9 row(s), 2 event(s)`,
      '  created      2  (tour-2026, jazz-harbour-2026)',
      '  updated      0',
      '  rejected     0',
    ]);
    expect(await storedEventIds(database, partnerId)).toEqual(['jazz-harbour-2026', 'tour-2026']);
  });

  it('--dry-run prints what would happen and the bad rows, exits 1, writes nothing', async () => {
    const { database, partnerId } = await databaseWithPartner();
    const t = io({ env: { INIT_CWD: ROOT, ...database } });
    expect(await runCli(['--partner', partnerId, '--dry-run', 'docs/samples/events-bad.csv'], t.io)).toBe(1);
    expect(t.out.slice(0, 4)).toEqual([
      `${join(ROOT, 'docs/samples/events-bad.csv')}: 8 row(s), 2 event(s) (dry run: nothing written)`,
      '  would create 1  (good-night)',
      '  would update 0',
      '  rejected     1  (bad-fest)',
    ]);
    expect(t.out).toContain('  row 7, currency: currency must be an ISO 4217 currency code such as EUR (found \'EUX\') [event bad-fest]');
    expect(t.out).toContain('  row 9, eventId: eventId is required on every row');
    expect(await storedEventIds(database, partnerId)).toEqual([]);
  });

  it('reports a file that cannot be read as a sheet, exit 1', async () => {
    const { database, partnerId, dir } = await databaseWithPartner();
    const broken = join(dir, 'broken.xlsx');
    copyFileSync(join(ROOT, 'docs/samples/events.csv'), broken);
    const t = io({ env: { ...database } });
    expect(await runCli(['--partner', partnerId, broken], t.io)).toBe(1);
    expect(t.out[0]).toBe(`${broken}: nothing imported`);
    expect(t.out[1]).toMatch(/The workbook cannot be read/);
  });
});

describe('as a child process (node --import tsx import.ts)', () => {
  function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((done) => {
      execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: SERVER, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  it('imports the CSV sample into the service’s database (DATABASE_PATH, or DATABASE_URL): exit 0, then 0 again as updates; the bad file exits 1', async () => {
    const { database, partnerId } = await databaseWithPartner();
    // No DATABASE_URL but the database's own (this process's, on PostgreSQL, is the server's admin database).
    const env = { INIT_CWD: ROOT, DATABASE_URL: '', ...database };
    const first = await run(['--partner', partnerId, 'docs/samples/events.csv'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('  created      2  (tour-2026, jazz-harbour-2026)');
    expect(await storedEventIds(database, partnerId)).toEqual(['jazz-harbour-2026', 'tour-2026']);

    const second = await run(['--partner', partnerId, 'docs/samples/events.csv'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('  updated      2  (tour-2026, jazz-harbour-2026)');

    const bad = await run(['--partner', partnerId, 'docs/samples/events-bad.csv'], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('  row 5, ticketOptionName: ticketOptionName is required for a new ticket option [event bad-fest]');
    expect(await storedEventIds(database, partnerId)).toEqual(['good-night', 'jazz-harbour-2026', 'tour-2026']);
  }, 60_000);
});
