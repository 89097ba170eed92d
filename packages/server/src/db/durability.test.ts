import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp-dir.js';
import { closeDb, createDb } from './client.js';

/**
 * Commits that acknowledge something survive a power loss (db/client.ts, Durability): the
 * service's connections flush the WAL at every commit (`synchronous = FULL`, 2); only a
 * connection that acknowledges nothing (the ingestion worker thread's) opens `fast` (NORMAL, 1).
 */
describe('SQLite durability', () => {
  it('opens durable by default, fast only when asked', async () => {
    const dir = tempDir('resale-durability');
    const durable = createDb(join(dir, 'a.sqlite'));
    const fast = createDb(join(dir, 'a.sqlite'), { migrate: false, durability: 'fast' });
    expect(durable.$client.pragma('synchronous', { simple: true })).toBe(2);
    expect(fast.$client.pragma('synchronous', { simple: true })).toBe(1);
    expect(durable.$client.pragma('journal_mode', { simple: true })).toBe('wal');
    await closeDb(fast);
    await closeDb(durable);
  });
});
