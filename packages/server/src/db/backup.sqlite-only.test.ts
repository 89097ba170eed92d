import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { partnerRow } from '../testing/factories.js';
import { describe, expect, it } from 'vitest';
import { partners } from '../domain/partners/partners.table.js';
import { tempDir } from '../testing/temp-dir.js';
import { backupSqlite, BackupError, integrityProblems } from './backup.js';
import { createDb } from './client.js';

/**
 * SQLite only: the online backup of `npm run backup` (db/backup.ts), a consistent copy of a
 * live database file while its connection goes on writing. PostgreSQL is backed up with its
 * own tools (backup.test.ts checks the command refuses there).
 */


function partnerIds(path: string): string[] {
  const copy = new Database(path, { readonly: true });
  try {
    return (copy.prepare('select id from partners order by id').all() as { id: string }[]).map((r) => r.id);
  } finally {
    copy.close();
  }
}

describe('the online backup of a SQLite database', () => {
  it('copies every committed transaction, passes the integrity check, and leaves no partial file beside it', async () => {
    const dir = tempDir('resale-backup');
    const db = createDb(join(dir, 'live.sqlite'));
    await db.transact(async (tx) => void (await tx.insert(partners).values([partnerRow('p_1'), partnerRow('p_2')])));
    const result = await backupSqlite(join(dir, 'live.sqlite'), join(dir, 'copy.sqlite'));
    expect(result.pages).toBeGreaterThan(0);
    expect(result.bytes).toBeGreaterThan(0);
    expect(partnerIds(join(dir, 'copy.sqlite'))).toEqual(['p_1', 'p_2']);
    expect(integrityProblems(join(dir, 'copy.sqlite'))).toEqual([]);
    expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([]);
    db.$client.close();
  });

  it('holds a consistent state while the service writes between its steps (the copy restarts rather than mixing states)', async () => {
    const dir = tempDir('resale-backup');
    const db = createDb(join(dir, 'live.sqlite'));
    for (let i = 0; i < 50; i++) await db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow(`p_${String(i).padStart(3, '0')}`))));
    let written = 0;
    const writer = setInterval(() => {
      if (written < 20) void db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow(`q_${written++}`))));
    }, 1);
    try {
      await backupSqlite(join(dir, 'live.sqlite'), join(dir, 'copy.sqlite'), { pagesPerStep: 1 });
    } finally {
      clearInterval(writer);
    }
    const ids = partnerIds(join(dir, 'copy.sqlite'));
    // Every row of before, and of the writes a prefix: q_0 … q_k, none skipped.
    expect(ids.filter((id) => id.startsWith('p_'))).toHaveLength(50);
    const q = ids.filter((id) => id.startsWith('q_')).map((id) => Number(id.slice(2))).sort((a, b) => a - b);
    expect(q).toEqual(q.map((_, i) => i));
    expect(integrityProblems(join(dir, 'copy.sqlite'))).toEqual([]);
    db.$client.close();
  });

  it('refuses an existing destination unless asked to overwrite, and a source that does not exist, writing nothing', async () => {
    const dir = tempDir('resale-backup');
    const db = createDb(join(dir, 'live.sqlite'));
    await db.transact(async (tx) => void (await tx.insert(partners).values(partnerRow('p_1'))));
    writeFileSync(join(dir, 'taken.sqlite'), 'not a database');
    const refused = await backupSqlite(join(dir, 'live.sqlite'), join(dir, 'taken.sqlite')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BackupError);
    expect((refused as BackupError).reason).toBe('exists');
    await backupSqlite(join(dir, 'live.sqlite'), join(dir, 'taken.sqlite'), { overwrite: true });
    expect(partnerIds(join(dir, 'taken.sqlite'))).toEqual(['p_1']);

    const missing = await backupSqlite(join(dir, 'nope.sqlite'), join(dir, 'out.sqlite')).catch((e: unknown) => e);
    expect((missing as BackupError).reason).toBe('failed');
    expect(existsSync(join(dir, 'out.sqlite'))).toBe(false);
    expect(existsSync(join(dir, 'nope.sqlite'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.partial-'))).toEqual([]);
    db.$client.close();
  });
});
