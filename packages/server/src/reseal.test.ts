import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDb } from './db/client.js';
import { keyIdOf, SecretBox } from './lib/crypto.js';
import { partners } from './modules/partners/partners.table.js';
import { PayoutAccounts } from './modules/payouts/payouts.accounts.js';
import { payoutAccounts } from './modules/payouts/payouts.table.js';
import { runResealCli, type ResealCliIo } from './reseal.js';
import { fileDeps, TEST_SECRET_KEY } from './testing/harness.js';
import { tempDir } from './testing/temp-dir.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = resolve(HERE, '..');
const ROOT = resolve(SERVER, '../..');
const CLI = join(HERE, 'reseal.ts');

const NEW = 'cli-rotated-secret-key-0123456789abcdef';
const IBAN = 'ES9121000418450200051332';

/** A migrated SQLite file with a partner (webhook and platform secrets) and a payout account, sealed under the test key. */
async function seededDatabase(dir: string): Promise<{ path: string; webhookSecret: string }> {
  const path = join(dir, 'resale.sqlite');
  const deps = fileDeps(path);
  try {
    const { partner, secrets } = await deps.partners.create('Acme', { platformSecret: 'acme-platform-header-secret' });
    await deps.db.transact(async (tx) => {
      const user = await deps.users.resolve(tx, partner.id, { email: 'seller@example.com' });
      await new PayoutAccounts(deps).save(tx, partner.id, user.id, { holderName: 'Ana García', iban: IBAN });
    });
    return { path, webhookSecret: secrets.webhookSecret };
  } finally {
    deps.messages.close();
    deps.db.$client.close();
  }
}

/** What the database holds, opened with `secretKey`: the key ids of its sealed values and their plain values. */
function opened(path: string, secretKey: string) {
  const db = createDb(path, { migrate: false });
  try {
    const box = new SecretBox(secretKey);
    const p = db.select().from(partners).all()[0]!;
    const a = db.select().from(payoutAccounts).all()[0]!;
    const sealed = [p.webhookSecretSealed, p.platformSecretSealed!, a.accountSealed];
    return { keyIds: sealed.map((v) => v.split('.')[1]), plain: sealed.map((v) => box.open(v)) };
  } finally {
    db.$client.close();
  }
}

function io(env: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const value: ResealCliIo = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: SERVER, env };
  return { io: value, out, err };
}

describe('npm run reseal', () => {
  it('reseals a SQLite file under the newest key, so the old key can go; a second run rewrites nothing', async () => {
    const dir = tempDir('resale-reseal');
    const { path, webhookSecret } = await seededDatabase(dir);
    expect(opened(path, TEST_SECRET_KEY).keyIds).toEqual(Array(3).fill(keyIdOf(TEST_SECRET_KEY)));

    const run = io({ DATABASE_PATH: path, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` });
    expect(await runResealCli([], run.io)).toBe(0);
    expect(run.err).toEqual([]);
    expect(run.out).toEqual([
      `Resealed ${path} under key ${keyIdOf(NEW)}:`,
      '  partners: 1 of 1 rows rewritten',
      '  payout_accounts: 1 of 1 rows rewritten',
      `Every stored secret is sealed under key ${keyIdOf(NEW)}: key ${keyIdOf(TEST_SECRET_KEY)} may now be removed from SECRET_KEY (then restart every process).`,
    ]);
    // Never a key or a secret in what it prints.
    for (const secret of [NEW, TEST_SECRET_KEY, webhookSecret, IBAN, 'acme-platform-header-secret']) expect(run.out.join('\n')).not.toContain(secret);

    expect(opened(path, NEW)).toEqual({ keyIds: Array(3).fill(keyIdOf(NEW)), plain: [webhookSecret, 'acme-platform-header-secret', IBAN] });

    const again = io({ DATABASE_PATH: path, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` });
    expect(await runResealCli([], again.io)).toBe(0);
    expect(again.out.slice(1, 3)).toEqual(['  partners: 0 of 1 rows rewritten', '  payout_accounts: 0 of 1 rows rewritten']);
    const single = io({ DATABASE_PATH: path, SECRET_KEY: NEW });
    expect(await runResealCli([], single.io)).toBe(0);
    expect(single.out.at(-1)).toBe(`Every stored secret is sealed under key ${keyIdOf(NEW)}, the only key of SECRET_KEY.`);
  });

  it('fails (exit 1, nothing written) when SECRET_KEY lacks the key a value was sealed with', async () => {
    const dir = tempDir('resale-reseal');
    const { path } = await seededDatabase(dir);
    const run = io({ DATABASE_PATH: path, SECRET_KEY: NEW });
    expect(await runResealCli([], run.io)).toBe(1);
    expect(run.err[0]).toMatch(/^reseal: partners ptr_\w+ \(webhook_secret_sealed\): /);
    expect(run.err[0]).toContain(`The secret was sealed under key ${keyIdOf(TEST_SECRET_KEY)}, which SECRET_KEY does not list (it lists ${keyIdOf(NEW)})`);
    expect(run.err.at(-1)).toBe('Nothing was written.');
    expect(run.err.join('\n')).not.toContain(NEW);
    expect(opened(path, TEST_SECRET_KEY).keyIds).toEqual(Array(3).fill(keyIdOf(TEST_SECRET_KEY)));
  });

  it('answers usage errors with exit 2: arguments, SECRET_KEY missing or malformed, no database', async () => {
    const dir = tempDir('resale-reseal');
    const { path } = await seededDatabase(dir);
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['extra'], { DATABASE_PATH: path, SECRET_KEY: NEW }, /No arguments expected/],
      [['--force'], { DATABASE_PATH: path, SECRET_KEY: NEW }, /Unknown option '--force'/],
      [['--help'], { DATABASE_PATH: path, SECRET_KEY: NEW }, /Usage: npm run reseal/],
      [[], { DATABASE_PATH: path }, /SECRET_KEY: is required/],
      [[], { DATABASE_PATH: path, SECRET_KEY: `${NEW},short` }, /SECRET_KEY: key 2 of 2 must be at least 32 characters/],
      [[], { DATABASE_PATH: path, SECRET_KEY: `${NEW}, ${TEST_SECRET_KEY}` }, /SECRET_KEY: key 2 of 2 starts or ends with a space/],
      [[], { DATABASE_PATH: ':memory:', SECRET_KEY: NEW }, /in-memory database/],
      [[], { DATABASE_PATH: join(dir, 'missing.sqlite'), SECRET_KEY: NEW }, /No database at .*missing\.sqlite/],
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
    const { path, webhookSecret } = await seededDatabase(dir);
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ['--import', 'tsx', CLI], { cwd: SERVER, env: { ...process.env, DATABASE_URL: '', DATABASE_PATH: path, SECRET_KEY: `${NEW},${TEST_SECRET_KEY}` } }, (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/partners: 1 of 1 rows rewritten/);
    expect(opened(path, NEW).plain[0]).toBe(webhookSecret);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.reseal).toBe('npm run reseal -w @resale/server');
    expect(JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8')).scripts.reseal).toBe('tsx src/reseal.ts');
  }, 30_000);
});
