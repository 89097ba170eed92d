// SQLite only: the online backup of a SQLite file (better-sqlite3's backup API, integrity checks, `npm run backup` over DATABASE_PATH); on PostgreSQL backups are the server's own (pg_dump, base backups).
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { runBackupCli, type BackupCliIo } from './backup.js';
import { backupSqlite, BackupError, integrityProblems } from './db/backup.js';
import { createDb } from './db/client.js';
import { systemClock } from './lib/clock.js';
import { fileDeps } from './testing/harness.js';
import { tempDir } from './testing/temp-dir.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(HERE, '..');
const ROOT = resolve(SERVER, '../..');
const CLI = join(HERE, 'backup.ts');

/** A migrated database file (as the service leaves it) with a probe table: rows, and a counter kept equal to their number in the same transaction. */
function probeDatabase(dir: string, seedRows: number): string {
  const path = join(dir, 'resale.sqlite');
  const db = createDb(path);
  db.$client.exec('CREATE TABLE probe (id INTEGER PRIMARY KEY, payload BLOB NOT NULL); CREATE TABLE probe_count (n INTEGER NOT NULL); INSERT INTO probe_count VALUES (0);');
  const insert = db.$client.prepare('INSERT INTO probe (payload) VALUES (randomblob(200))');
  db.$client.transaction(() => {
    for (let i = 0; i < seedRows; i++) insert.run();
    db.$client.prepare('UPDATE probe_count SET n = ?').run(seedRows);
  })();
  db.$client.close();
  return path;
}

/** What a copy holds: its integrity check, its probe rows and its counter. */
function inspect(path: string): { integrity: string; rows: number; counter: number } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return {
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      rows: (db.prepare('SELECT count(*) AS n FROM probe').get() as { n: number }).n,
      counter: (db.prepare('SELECT n FROM probe_count').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/**
 * A thread with its own connection that commits, as fast as it can until told to stop, one
 * transaction after another: a probe row and the counter. `committed` is how many it has
 * committed so far (read at any time).
 */
function startWriter(path: string) {
  const shared = new Int32Array(new SharedArrayBuffer(8)); // [0] stop flag, [1] committed
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const Database = require(workerData.driver);
    const shared = new Int32Array(workerData.shared);
    const db = new Database(workerData.path);
    db.pragma('busy_timeout = 5000');
    const insert = db.prepare('INSERT INTO probe (payload) VALUES (randomblob(200))');
    const bump = db.prepare('UPDATE probe_count SET n = n + 1');
    const one = db.transaction(() => { insert.run(); bump.run(); });
    parentPort.postMessage('ready');
    let n = 0;
    while (Atomics.load(shared, 0) === 0) { one(); n++; Atomics.store(shared, 1, n); }
    db.close();
    parentPort.postMessage('stopped');
  `;
  const worker = new Worker(code, { eval: true, workerData: { path, shared: shared.buffer, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
  const ready = new Promise<void>((ok, ko) => {
    worker.once('message', () => ok());
    worker.once('error', ko);
  });
  const stopped = new Promise<void>((ok, ko) => {
    worker.on('message', (m) => m === 'stopped' && ok());
    worker.once('error', ko);
  });
  return {
    ready,
    committed: () => Atomics.load(shared, 1),
    async stop() {
      Atomics.store(shared, 0, 1);
      await stopped;
      await worker.terminate();
    },
  };
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('backupSqlite (online backup of a live database)', () => {
  it('copies a file database while another thread keeps committing: the copy is sound, holds every commit made before it began, and no half transaction', async () => {
    const dir = tempDir('resale-backup');
    const seed = 40_000;
    const source = probeDatabase(dir, seed);
    const writer = startWriter(source);
    let before = 0;
    let after = 0;
    try {
      await writer.ready;
      await until(() => writer.committed() >= 200);
      before = seed + writer.committed();
      const result = await backupSqlite(source, join(dir, 'copy.sqlite'));
      after = seed + writer.committed();
      // The writer went on committing while the copy was taken (it was never blocked), and goes on after.
      expect(after).toBeGreaterThan(before);
      await until(() => seed + writer.committed() > after + 200);
      expect(result.pages).toBeGreaterThan(2000);
      expect(result.bytes).toBe(result.pages * 4096);
    } finally {
      await writer.stop();
    }
    const copy = inspect(join(dir, 'copy.sqlite'));
    expect(copy.integrity).toBe('ok');
    // Every transaction committed before the backup began is in the copy; none committed after it ended.
    expect(copy.rows).toBeGreaterThanOrEqual(before);
    expect(copy.rows).toBeLessThanOrEqual(after);
    // One snapshot: the counter and the rows were written together, so they agree.
    expect(copy.counter).toBe(copy.rows);
    // The source went on: it holds more than the copy.
    expect(inspect(source).rows).toBeGreaterThan(copy.rows);
    // The copy is a whole database of the service: the migrations are there, and nothing else was left beside it.
    const reopened = createDb(join(dir, 'copy.sqlite'));
    reopened.$client.close();
    expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([]);
  });

  it('copies in small steps while the services write between the steps (inserts interleaved through PartnersService): the copy restarts and stays consistent', async () => {
    const dir = tempDir('resale-backup');
    const path = join(dir, 'resale.sqlite');
    const deps = fileDeps(path, { clock: systemClock });
    try {
      for (let i = 0; i < 20; i++) await deps.partners.create(`Before ${i}`);
      const count = (db: Database.Database) => ({
        partners: (db.prepare('SELECT count(*) AS n FROM partners').get() as { n: number }).n,
        keys: (db.prepare('SELECT count(*) AS n FROM api_keys').get() as { n: number }).n,
      });
      const committedBefore = count(deps.db.$client);
      let writing = true;
      let written = 0;
      // Another connection of this process writes between the copy's steps (both yield with setImmediate).
      const writes = (async () => {
        while (writing && written < 40) {
          await deps.partners.create(`During ${written}`);
          written++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      await backupSqlite(path, join(dir, 'copy.sqlite'), { pagesPerStep: 2 });
      writing = false;
      await writes;
      expect(written).toBeGreaterThan(0);
      const copy = new Database(join(dir, 'copy.sqlite'), { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const got = count(copy);
        expect(got.partners).toBeGreaterThanOrEqual(committedBefore.partners);
        expect(got.partners).toBeLessThanOrEqual(committedBefore.partners + written);
        // Each partner is created with its three keys in one transaction: never a partner without them.
        expect(got.keys).toBe(got.partners * 3);
      } finally {
        copy.close();
      }
    } finally {
      deps.messages.close();
      deps.db.$client.close();
    }
  });

  it('refuses an existing destination unless told to overwrite, and leaves it untouched', async () => {
    const dir = tempDir('resale-backup');
    const source = probeDatabase(dir, 10);
    const destination = join(dir, 'copy.sqlite');
    writeFileSync(destination, 'precious');
    await expect(backupSqlite(source, destination)).rejects.toThrow(BackupError);
    expect(readFileSync(destination, 'utf8')).toBe('precious');
    await backupSqlite(source, destination, { overwrite: true });
    expect(inspect(destination)).toEqual({ integrity: 'ok', rows: 10, counter: 10 });
  });

  it('fails on a source that is not a database, leaving no file behind', async () => {
    const dir = tempDir('resale-backup');
    writeFileSync(join(dir, 'junk.sqlite'), 'this is not a database, only some text that is long enough'.repeat(200));
    const error = await backupSqlite(join(dir, 'junk.sqlite'), join(dir, 'copy.sqlite')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackupError);
    expect((error as BackupError).reason).toBe('failed');
    expect(readdirSync(dir)).toEqual(['junk.sqlite']);
  });

  it('integrityProblems reports a damaged file', () => {
    const dir = tempDir('resale-backup');
    const path = probeDatabase(dir, 2000);
    expect(integrityProblems(path)).toEqual([]);
    // Overwrite a page in the middle of the table with garbage.
    const bytes = readFileSync(path);
    bytes.fill(0x5a, 4096 * 20, 4096 * 21);
    writeFileSync(path, bytes);
    expect(integrityProblems(path).length).toBeGreaterThan(0);
  });
});

function io(overrides: Partial<BackupCliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), cwd: SERVER, env: {}, ...overrides } satisfies BackupCliIo };
}

describe('npm run backup (the command)', () => {
  it('copies the DATABASE_PATH database into the file: exit 0 and a summary', async () => {
    const dir = tempDir('resale-backup');
    const source = probeDatabase(dir, 100);
    const t = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
    expect(await runBackupCli(['backup-1.sqlite'], t.io)).toBe(0);
    expect(t.err).toEqual([]);
    expect(t.out.join('\n')).toMatch(new RegExp(`^Backed up ${source} to ${join(dir, 'backup-1.sqlite')}: .* in \\d+ ms; integrity check ok$`));
    expect(inspect(join(dir, 'backup-1.sqlite'))).toEqual({ integrity: 'ok', rows: 100, counter: 100 });
  });

  it('reads a relative DATABASE_PATH from its working directory (packages/server under npm) and the file from where the command was typed', async () => {
    const dir = tempDir('resale-backup');
    mkdirSync(join(dir, 'server'));
    mkdirSync(join(dir, 'typed-here'));
    const source = probeDatabase(join(dir, 'server'), 5);
    const t = io({ cwd: join(dir, 'server'), env: { DATABASE_PATH: './resale.sqlite', INIT_CWD: join(dir, 'typed-here') } });
    expect(await runBackupCli(['copy.sqlite'], t.io)).toBe(0);
    expect(t.out[0]).toContain(source);
    expect(inspect(join(dir, 'typed-here', 'copy.sqlite')).rows).toBe(5);
  });

  describe('refuses with exit 2 and says why', () => {
    const cases: [string, string[], Record<string, string>, RegExp][] = [
      ['no file', [], {}, /Name the file to write the copy to/],
      ['two files', ['a.sqlite', 'b.sqlite'], {}, /One file at a time \(got 2\)/],
      ['an unknown option', ['--database', 'x', 'a.sqlite'], {}, /Unknown option '--database'/],
      ['--help', ['--help'], {}, /Usage: npm run backup/],
      ['DATABASE_PATH=:memory:', ['a.sqlite'], { DATABASE_PATH: ':memory:' }, /DATABASE_PATH is :memory:.*cannot be backed up/],
      ['DATABASE_PATH=file::memory:', ['a.sqlite'], { DATABASE_PATH: 'file::memory:?cache=shared' }, /DATABASE_PATH is :memory:/],
    ];
    for (const [what, argv, env, message] of cases) {
      it(what, async () => {
        const dir = tempDir('resale-backup');
        const t = io({ env: { INIT_CWD: dir, ...env } });
        expect(await runBackupCli(argv, t.io)).toBe(2);
        expect(t.err.join('\n')).toMatch(message);
        expect(t.err.join('\n')).toMatch(/Usage: npm run backup/);
        expect(t.out).toEqual([]);
        expect(readdirSync(dir)).toEqual([]);
      });
    }

    it('no database at DATABASE_PATH (and none is created)', async () => {
      const dir = tempDir('resale-backup');
      const t = io({ env: { DATABASE_PATH: join(dir, 'missing.sqlite'), INIT_CWD: dir } });
      expect(await runBackupCli(['copy.sqlite'], t.io)).toBe(2);
      expect(t.err.join('\n')).toMatch(/No database at .*missing\.sqlite \(DATABASE_PATH\)/);
      expect(readdirSync(dir)).toEqual([]);
    });

    it('a destination that exists, unless --force (which replaces it)', async () => {
      const dir = tempDir('resale-backup');
      const source = probeDatabase(dir, 3);
      writeFileSync(join(dir, 'old.sqlite'), 'yesterday');
      const t = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
      expect(await runBackupCli(['old.sqlite'], t.io)).toBe(2);
      expect(t.err.join('\n')).toMatch(/old\.sqlite already exists: name a new file, or pass --force to replace it/);
      expect(readFileSync(join(dir, 'old.sqlite'), 'utf8')).toBe('yesterday');
      const forced = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
      expect(await runBackupCli(['--force', 'old.sqlite'], forced.io)).toBe(0);
      expect(inspect(join(dir, 'old.sqlite')).rows).toBe(3);
    });

    it('the database itself, one of its files, or a link to it, even with --force', async () => {
      const dir = tempDir('resale-backup');
      const source = probeDatabase(dir, 3);
      symlinkSync(source, join(dir, 'link.sqlite'));
      const sourceBytes = readFileSync(source);
      for (const target of ['resale.sqlite', 'resale.sqlite-wal', 'resale.sqlite-shm', 'link.sqlite', './sub/../resale.sqlite']) {
        const t = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
        expect(await runBackupCli(['--force', target], t.io), target).toBe(2);
        expect(t.err.join('\n')).toMatch(/is the database itself|No directory/);
      }
      expect(readFileSync(source).equals(sourceBytes)).toBe(true);
      expect(inspect(source)).toMatchObject({ integrity: 'ok', rows: 3 });
    });

    it('a destination whose directory is missing, or that is a directory', async () => {
      const dir = tempDir('resale-backup');
      const source = probeDatabase(dir, 3);
      mkdirSync(join(dir, 'adir'));
      const missing = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
      expect(await runBackupCli(['nowhere/copy.sqlite'], missing.io)).toBe(2);
      expect(missing.err.join('\n')).toMatch(/No directory .*nowhere: create it first/);
      const directory = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
      expect(await runBackupCli(['--force', 'adir'], directory.io)).toBe(2);
      expect(directory.err.join('\n')).toMatch(/adir is a directory: name a file/);
    });
  });

  it('exits 1 when the copy fails (a DATABASE_PATH that is not a database), leaving nothing under the name', async () => {
    const dir = tempDir('resale-backup');
    writeFileSync(join(dir, 'notes.txt'), 'not a database '.repeat(500));
    const t = io({ env: { DATABASE_PATH: join(dir, 'notes.txt'), INIT_CWD: dir } });
    expect(await runBackupCli(['copy.sqlite'], t.io)).toBe(1);
    expect(t.err.join('\n')).toMatch(/Backup of .*notes\.txt failed: .*\nNothing was written to .*copy\.sqlite\./);
    expect(existsSync(join(dir, 'copy.sqlite'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('exits 1 when the copy fails its integrity check (a damaged database), leaving nothing under the name', async () => {
    const dir = tempDir('resale-backup');
    const source = probeDatabase(dir, 2000);
    const bytes = readFileSync(source);
    bytes.fill(0x5a, 4096 * 20, 4096 * 21);
    writeFileSync(source, bytes);
    const t = io({ env: { DATABASE_PATH: source, INIT_CWD: dir } });
    expect(await runBackupCli(['copy.sqlite'], t.io)).toBe(1);
    expect(t.err.join('\n')).toMatch(/failed: The copy failed its integrity check: /);
    expect(readdirSync(dir).filter((f) => f.includes('copy'))).toEqual([]);
  });

  it('runs as a script (tsx, as npm run backup does) with exit codes 0 and 2', async () => {
    const dir = tempDir('resale-backup');
    const source = probeDatabase(dir, 7);
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: SERVER, env: { ...process.env, DATABASE_PATH: source, INIT_CWD: dir } }, (err, stdout, stderr) => {
          done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
      });
    const ok = await run(['nightly.sqlite']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/integrity check ok/);
    expect(inspect(join(dir, 'nightly.sqlite')).rows).toBe(7);
    const again = await run(['nightly.sqlite']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.backup).toMatch(/backup/);
    expect(JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')).scripts.backup).toBe('tsx src/backup.ts');
  }, 30_000);
});
