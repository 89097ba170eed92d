import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { closeDb, createDb } from './db/client.js';
import { buildDeps } from './deps.js';
import { systemClock } from './lib/clock.js';
import { TEST_SECRET_KEY } from './testing/harness.js';
import { sqlRows } from './testing/sql.js';
import { tempDir } from './testing/temp-dir.js';
import { runCli, type CliIo } from './import.js';

/**
 * SQLite only: what `npm run import` does with a SQLite file that only SQLite has — the
 * `--database <path>` option (read from where the operator typed the command) and a database
 * file that does not exist (refused, never created). cli.test.ts covers the rest on both engines.
 */

const SERVER = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = resolve(SERVER, '../..');

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false, cwd: SERVER, env } satisfies CliIo };
}

/** A SQLite file with one partner, closed again. */
async function fileWithPartner(path: string): Promise<string> {
  const deps = buildDeps({
    db: createDb(path),
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secretKey: TEST_SECRET_KEY,
    config: { env: 'test', publicBaseUrl: 'http://resale.test', operatorToken: null, maxBodyBytes: 1 << 20, rateLimitPerMinute: 10_000, smtpUrl: null, mailFrom: 'x <x@resale.test>' },
  });
  try {
    return (await deps.db.transact(async (tx) => await deps.partners.createIn(tx, 'Acme'))).partner.id;
  } finally {
    deps.messages.close();
    await closeDb(deps.db);
  }
}

describe('npm run import over a SQLite file', () => {
  it('imports into the file --database names, relative to where the command was typed, and not into DATABASE_PATH', async () => {
    const dir = tempDir('resale-cli-sqlite');
    const partnerId = await fileWithPartner(join(dir, 'chosen.sqlite'));
    const other = join(dir, 'other.sqlite');
    await fileWithPartner(other);
    const t = io({ INIT_CWD: dir, DATABASE_PATH: other });
    expect(await runCli(['--partner', partnerId, '--database', 'chosen.sqlite', join(ROOT, 'docs/samples/events.csv')], t.io)).toBe(0);
    const chosen = createDb(join(dir, 'chosen.sqlite'), { migrate: false });
    const imported = await sqlRows<{ n: number }>(chosen, sql`select count(*) as n from events where partner_id = ${partnerId}`);
    chosen.$client.close();
    expect(imported[0]!.n).toBeGreaterThan(0);
    const untouched = createDb(other, { migrate: false });
    expect((await sqlRows<{ n: number }>(untouched, sql`select count(*) as n from events`))[0]!.n).toBe(0);
    untouched.$client.close();
    expect(t.err).toEqual([]);
  });

  it('refuses a database file that does not exist (exit 2) and never creates one', async () => {
    const dir = tempDir('resale-cli-sqlite');
    const t = io({ INIT_CWD: dir });
    expect(await runCli(['--partner', 'ptr_x', '--database', 'missing.sqlite', join(ROOT, 'docs/samples/events.csv')], t.io)).toBe(2);
    expect(t.err.join('\n')).toContain(`No database at ${join(dir, 'missing.sqlite')}: start the service once (npm start) or pass --database`);
    expect(existsSync(join(dir, 'missing.sqlite'))).toBe(false);
    expect(t.out).toEqual([]);
  });
});
