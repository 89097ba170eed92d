import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** Why a backup failed: `exists` when the destination appeared meanwhile (and overwriting was not asked for). */
export class BackupError extends Error {
  constructor(
    message: string,
    readonly reason: 'exists' | 'integrity' | 'failed',
  ) {
    super(message);
  }
}

export interface BackupResult {
  /** Pages of the copy (of the database's page size). */
  pages: number;
  /** Size of the copy in bytes. */
  bytes: number;
  ms: number;
}

export interface BackupOptions {
  /** Replace an existing destination file. Without it, an existing destination is refused. */
  overwrite?: boolean;
  /**
   * Pages copied per step. Default: all of them in one step, which copies one snapshot of the
   * database under a single read transaction. In WAL mode (the service's) a reader blocks no
   * writer, so the service keeps writing meanwhile; the WAL only grows until the copy ends.
   * Smaller steps let this process do other work in between, but SQLite restarts the copy
   * whenever another connection writes between two steps, so against a busy service they may
   * never finish. Tests use small steps to exercise those restarts.
   */
  pagesPerStep?: number;
  /** Checked the copy with `PRAGMA integrity_check` before it takes the destination's name. Default true. */
  verify?: boolean;
}

/**
 * A consistent copy of the SQLite database at `source` into the file `destination`, while other
 * connections (the running service, the ingestion worker) go on reading and writing: SQLite's
 * online backup API (better-sqlite3's `db.backup`). The copy holds every transaction committed
 * before it started and no half of any other.
 *
 * The source is opened read-only and must exist (nothing is created or migrated). The copy is
 * written next to the destination under a temporary name, checked (`PRAGMA integrity_check`),
 * flushed, and only then given the destination's name, so a crash or a failure never leaves a
 * partial file under that name. The destination's directory must exist.
 *
 * @example await backupSqlite('./data/resale.sqlite', '/backups/resale-2026-03-01.sqlite');
 */
export async function backupSqlite(source: string, destination: string, opts: BackupOptions = {}): Promise<BackupResult> {
  const started = performance.now();
  if (!opts.overwrite && existsSync(destination)) throw new BackupError(`${destination} already exists`, 'exists');
  const temporary = join(dirname(destination), `.${basename(destination)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  const stepPages = opts.pagesPerStep !== undefined && opts.pagesPerStep > 0 ? Math.floor(opts.pagesPerStep) : 0x7fffffff;
  let pages = 0;
  let bytes = 0;
  try {
    // Read-only: the backup never writes the live database. (With the service stopped, SQLite
    // may leave an empty -wal and a -shm beside it, as any reader does; they are harmless.)
    const from = new Database(source, { readonly: true, fileMustExist: true });
    try {
      from.pragma('busy_timeout = 5000');
      const progress = await from.backup(temporary, {
        progress: () => stepPages,
      });
      pages = progress.totalPages;
    } finally {
      from.close();
    }
    if (opts.verify !== false) {
      const problems = integrityProblems(temporary);
      if (problems.length > 0) throw new BackupError(`The copy failed its integrity check: ${problems.slice(0, 5).join('; ')}`, 'integrity');
    }
    syncFile(temporary);
    bytes = statSync(temporary).size;
    if (opts.overwrite) {
      renameSync(temporary, destination);
    } else {
      // A hard link fails when the name is taken, even if it was taken a moment ago.
      try {
        linkSync(temporary, destination);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupError(`${destination} already exists`, 'exists');
        // File systems without hard links: the check above, then a rename.
        if (existsSync(destination)) throw new BackupError(`${destination} already exists`, 'exists');
        renameSync(temporary, destination);
      }
    }
    syncDirectory(dirname(destination));
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError((err as Error).message, 'failed');
  } finally {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(temporary + suffix, { force: true });
  }
  return { pages, bytes, ms: Math.round(performance.now() - started) };
}

/**
 * The rows of `PRAGMA integrity_check` of the database file at `path` other than `ok` (or the
 * error that stopped the check): an empty list means the file is sound. Opened read-write (it is a copy of ours) so that closing it
 * leaves no -wal or -shm file behind.
 */
export function integrityProblems(path: string): string[] {
  const copy = new Database(path, { fileMustExist: true });
  try {
    const rows = copy.pragma('integrity_check') as { integrity_check: string }[];
    return rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
  } catch (err) {
    // Damage can stop the check itself (SQLITE_CORRUPT, "file is not a database").
    return [(err as Error).message];
  } finally {
    copy.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** So the new name survives a power cut. Not every platform can open a directory: best effort. */
function syncDirectory(path: string): void {
  try {
    const fd = openSync(path, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Windows and some file systems: the rename is still done.
  }
}
