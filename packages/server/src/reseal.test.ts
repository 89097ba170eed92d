import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { closeDb, openDb } from './db/client.js';
import { buildDeps } from './deps.js';
import { ManualClock } from './lib/clock.js';
import { keyIdOf, SecretBox } from './lib/crypto.js';
import { partners } from './domain/partners/partners.table.js';
import { PayoutAccounts } from './domain/payouts/payouts.accounts.js';
import { payoutAccounts } from './domain/payouts/payouts.table.js';
import { runResealCli, type ResealCliIo } from './reseal.js';
import { locationOf, serviceDatabaseEnv, TEST_SECRET_KEY, whereOf, type ServiceDatabase } from './testing/harness.js';
import { tempDir } from './testing/temp-dir.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(HERE, '..');
const ROOT = resolve(SERVER, '../..');
const CLI = join(HERE, 'reseal.ts');

const NEW = 'cli-rotated-secret-key-0123456789abcdef';
const IBAN = 'ES9121000418450200051332';

/**
 * A migrated database of its own (a SQLite file in `dir`, or a PostgreSQL database) with a
 * partner (webhook and platform secrets) and a payout account, sealed under the test key.
 */
async function seededDatabase(dir: string): Promise<{ database: ServiceDatabase; where: string; webhookSecret: string }> {
  const database = await serviceDatabaseEnv(join(dir, 'resale.sqlite'));
  const deps = buildDeps({
    db: await openDb(locationOf(database), { poolSize: 1 }),
    clock: new ManualClock('2026-03-01T12:00:00Z'),
    logger: pino({ level: 'silent' }),
    secretKey: TEST_SECRET_KEY,
    config: { env: 'test', publicBaseUrl: 'http://resale.test', operatorToken: null, maxBodyBytes: 1 << 20, rateLimitPerMinute: 10_000, smtpUrl: null, mailFrom: 'x <x@resale.test>' },
  });
  try {
    const { partner, secrets } = await deps.partners.create('Acme', { platformSecret: 'acme-platform-header-secret' });
    await deps.db.transact(async (tx) => {
      const user = await deps.users.resolve(tx, partner.id, { email: 'seller@example.com' });
      await new PayoutAccounts(deps).save(tx, partner.id, user.id, { holderName: 'Ana García', iban: IBAN });
    });
    return { database, where: whereOf(database), webhookSecret: secrets.webhookSecret };
  } finally {
    deps.messages.close();
    await closeDb(deps.db);
  }
}

/** What the database holds, opened with `secretKey`: the key ids of its sealed values and their plain values. */
async function opened(database: ServiceDatabase, secretKey: string) {
  const db = await openDb(locationOf(database), { migrate: false, poolSize: 1 });
  try {
    const box = new SecretBox(secretKey);
    const p = (await db.select().from(partners))[0]!;
    const a = (await db.select().from(payoutAccounts))[0]!;
    const sealed = [p.webhookSecretSealed, p.platformSecretSealed!, a.accountSealed];
    return { keyIds: sealed.map((v) => v.split('.')[1]), plain: sealed.map((v) => box.open(v)) };
  } finally {
    await closeDb(db);
  }
}

function io(env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const value: ResealCliIo = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: SERVER, env };
  return { io: value, out, err };
}

describe('npm run reseal', () => {
  it('reseals the database (a SQLite file, or PostgreSQL) under the newest key, so the old key can go; a second run rewrites nothing', async () => {
    const dir = tempDir('resale-reseal');
    const { database, where, webhookSecret } = await seededDatabase(dir);
    expect((await opened(database, TEST_SECRET_KEY)).keyIds).toEqual(Array(3).fill(keyIdOf(TEST_SECRET_KEY)));

    const run = io({ ...database, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` });
    expect(await runResealCli([], run.io)).toBe(0);
    expect(run.err).toEqual([]);
    expect(run.out).toEqual([
      `Resealed ${where} under key ${keyIdOf(NEW)}:`,
      '  partners: 1 of 1 rows rewritten',
      '  payout_accounts: 1 of 1 rows rewritten',
      `Every stored secret is sealed under key ${keyIdOf(NEW)}: key ${keyIdOf(TEST_SECRET_KEY)} may now be removed from SECRET_KEY (then restart every process).`,
    ]);
    // Never a key or a secret in what it prints.
    for (const secret of [NEW, TEST_SECRET_KEY, webhookSecret, IBAN, 'acme-platform-header-secret']) expect(run.out.join('\n')).not.toContain(secret);

    expect(await opened(database, NEW)).toEqual({ keyIds: Array(3).fill(keyIdOf(NEW)), plain: [webhookSecret, 'acme-platform-header-secret', IBAN] });

    const again = io({ ...database, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` });
    expect(await runResealCli([], again.io)).toBe(0);
    expect(again.out.slice(1, 3)).toEqual(['  partners: 0 of 1 rows rewritten', '  payout_accounts: 0 of 1 rows rewritten']);
    const single = io({ ...database, SECRET_KEY: NEW });
    expect(await runResealCli([], single.io)).toBe(0);
    expect(single.out.at(-1)).toBe(`Every stored secret is sealed under key ${keyIdOf(NEW)}, the only key of SECRET_KEY.`);
  });

  it('fails (exit 1, nothing written) when SECRET_KEY lacks the key a value was sealed with', async () => {
    const dir = tempDir('resale-reseal');
    const { database } = await seededDatabase(dir);
    const run = io({ ...database, SECRET_KEY: NEW });
    expect(await runResealCli([], run.io)).toBe(1);
    expect(run.err[0]).toMatch(/^reseal: partners ptr_\w+ \(webhook_secret_sealed\): /);
    expect(run.err[0]).toContain(`The secret was sealed under key ${keyIdOf(TEST_SECRET_KEY)}, which SECRET_KEY does not list (it lists ${keyIdOf(NEW)})`);
    expect(run.err.at(-1)).toBe('Nothing was written.');
    expect(run.err.join('\n')).not.toContain(NEW);
    expect((await opened(database, TEST_SECRET_KEY)).keyIds).toEqual(Array(3).fill(keyIdOf(TEST_SECRET_KEY)));
  });

  it('answers usage errors with exit 2: arguments, SECRET_KEY missing or malformed', async () => {
    const dir = tempDir('resale-reseal');
    const { database } = await seededDatabase(dir);
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['extra'], { ...database, SECRET_KEY: NEW }, /No arguments expected/],
      [['--force'], { ...database, SECRET_KEY: NEW }, /Unknown option '--force'/],
      [['--help'], { ...database, SECRET_KEY: NEW }, /Usage: npm run reseal/],
      [[], { ...database }, /SECRET_KEY: is required/],
      [[], { ...database, SECRET_KEY: `${NEW},short` }, /SECRET_KEY: key 2 of 2 must be at least 32 characters/],
      [[], { ...database, SECRET_KEY: `${NEW}, ${TEST_SECRET_KEY}` }, /SECRET_KEY: key 2 of 2 starts or ends with a space/],
    ];
    for (const [argv, env, message] of cases) {
      const run = io(env);
      expect(await runResealCli(argv, run.io), `${argv.join(' ')} ${JSON.stringify(env)}`).toBe(2);
      expect(run.err.join('\n')).toMatch(message);
      expect(run.err.join('\n')).not.toContain(NEW);
      expect(run.out).toEqual([]);
    }
  });

  it('runs as a script (tsx, as npm run reseal does)', async () => {
    const dir = tempDir('resale-reseal');
    const { database, webhookSecret } = await seededDatabase(dir);
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      // No DATABASE_URL but the database's own (this process's, on PostgreSQL, is the server's admin database).
      execFile(process.execPath, ['--import', 'tsx', CLI], { cwd: SERVER, env: { ...process.env, DATABASE_URL: '', ...database, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` } }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/partners: 1 of 1 rows rewritten/);
    expect((await opened(database, NEW)).plain[0]).toBe(webhookSecret);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.reseal).toBe('npm run reseal -w @resale/server');
    expect(JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')).scripts.reseal).toBe('tsx src/reseal.ts');
  }, 30_000);
});
