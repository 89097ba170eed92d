import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runBackupCli, type BackupCliIo } from './backup.js';
import { serviceDatabaseEnv } from './testing/harness.js';
import { tempDir } from './testing/temp-dir.js';

/**
 * `npm run backup` where the service runs on PostgreSQL (`DATABASE_URL`): it copies only a
 * SQLite database, so it refuses and names PostgreSQL's own tools. The copy itself is SQLite's
 * (db/backup.sqlite-only.test.ts).
 */

const SERVER = fileURLToPath(new URL('..', import.meta.url));
const CLI = resolve(SERVER, 'src/backup.ts');
const URL_WITH_PASSWORD = 'postgres://resale:s3cret-pw@db.internal:5432/resale';

function io(env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const value: BackupCliIo = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: SERVER, env };
  return { io: value, out, err };
}

describe('npm run backup with DATABASE_URL (PostgreSQL)', () => {
  it('refuses with exit 2, says PostgreSQL is backed up with its own tools, and writes nothing (whatever the arguments)', async () => {
    const dir = tempDir('resale-backup');
    for (const argv of [['copy.sqlite'], ['--force', 'copy.sqlite'], []]) {
      const t = io({ DATABASE_URL: URL_WITH_PASSWORD, DATABASE_PATH: join(dir, 'resale.sqlite'), INIT_CWD: dir });
      expect(await runBackupCli(argv, t.io), argv.join(' ')).toBe(2);
      expect(t.err.join('\n')).toMatch(/^DATABASE_URL is set: the service runs on PostgreSQL, and npm run backup only copies a SQLite database/);
      expect(t.err.join('\n')).toMatch(/pg_dump/);
      expect(t.err.join('\n')).toMatch(/base backups/);
      expect(t.err.join('\n')).not.toContain('s3cret-pw');
      expect(t.out).toEqual([]);
    }
    expect(readdirSync(dir)).toEqual([]);
    // An empty DATABASE_URL counts as unset: the SQLite path is used (here: no database there).
    const unset = io({ DATABASE_URL: '', DATABASE_PATH: join(dir, 'missing.sqlite'), INIT_CWD: dir });
    expect(await runBackupCli(['copy.sqlite'], unset.io)).toBe(2);
    expect(unset.err.join('\n')).toMatch(/No database at .*missing\.sqlite/);
  });

  it('refuses as a script (tsx, as npm run backup does) over the service’s database, exit 2', async () => {
    const dir = tempDir('resale-backup');
    // The service's database: a PostgreSQL one in the server-pg project; on SQLite, a URL (nothing connects to it).
    const database = await serviceDatabaseEnv(join(dir, 'resale.sqlite'));
    const url = 'DATABASE_URL' in database ? database.DATABASE_URL : URL_WITH_PASSWORD;
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ['--import', 'tsx', CLI, 'nightly.sqlite'], { cwd: SERVER, env: { ...process.env, DATABASE_URL: url, INIT_CWD: dir } }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/DATABASE_URL is set: the service runs on PostgreSQL.*pg_dump/s);
    expect(readdirSync(dir)).toEqual([]);
  }, 30_000);
});
