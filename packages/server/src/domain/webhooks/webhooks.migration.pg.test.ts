import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATIONS_FOLDER } from '../../db/client.js';
import { migrateWithLock } from '../../db/postgres.js';
import { freshPostgresUrl } from '../../testing/postgres.js';
import { tempDir } from '../../testing/temp-dir.js';

/** Migration 0004 (PostgreSQL): webhook bodies from jsonb to their text. */
describe('migration 0004_webhook_body_text', () => {
  it('turns a stored body object into its JSON text and a JSON string value into that string', async () => {
    const url = await freshPostgresUrl({ migrate: false });
    // The migrations before 0004, as a database of the previous release has them.
    const before = join(tempDir('resale-migrations'), 'drizzle-pg');
    cpSync(MIGRATIONS_FOLDER, before, { recursive: true });
    const journalPath = join(before, 'meta/_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    journal.entries = journal.entries.filter((e) => e.tag < '0004');
    writeFileSync(journalPath, JSON.stringify(journal));

    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migrateWithLock(pool, before);
      await pool.query(`insert into partners (id, name, settings, webhook_secret_sealed, created_at, updated_at) values ('p1', 'P', '{}', 'x', 0, 0)`);
      const insert = (id: string, payload: string) =>
        pool.query(`insert into webhook_messages (id, partner_id, action, family, resource_key, payload, state, attempts, created_at) values ($1, 'p1', 'event.unlock', 'event', 'r', $2::jsonb, 'pending', 0, 0)`, [id, payload]);
      await insert('object', '{"family":"event","action":"event.unlock","data":{"showId":"s"}}');
      await insert('string', JSON.stringify('{"family":"event","action":"event.unlock","data":{}}'));

      await migrateWithLock(pool, MIGRATIONS_FOLDER);
      const rows = (await pool.query<{ id: string; payload: string; type: string }>(`select id, payload, pg_typeof(payload)::text as type from webhook_messages order by id`)).rows;
      expect(rows.map((r) => r.type)).toEqual(['text', 'text']);
      // jsonb's text of the object (its key order), and the string's own text.
      expect(JSON.parse(rows[0]!.payload)).toEqual({ family: 'event', action: 'event.unlock', data: { showId: 's' } });
      expect(rows[1]!.payload).toBe('{"family":"event","action":"event.unlock","data":{}}');
    } finally {
      await pool.end();
    }
  });
});
