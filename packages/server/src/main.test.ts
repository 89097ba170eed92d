import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from './main.js';
import { eventBody } from './testing/factories.js';
import { serviceDatabaseEnv } from './testing/harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** `database`: where the service keeps its data (a SQLite file, or a PostgreSQL database; see serviceDatabaseEnv). */
function env(database: Record<string, string>) {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...database,
    SECRET_KEY: 'main-test-secret-key-000000000000000',
    OPERATOR_TOKEN: 'main-test-operator-token-00000000',
    LOG_LEVEL: 'silent',
    SANDBOX_PRIVATE_KEY: 'sk_main_test_private_000000',
    SANDBOX_PUBLIC_KEY: 'pk_main_test_public_0000000',
    SANDBOX_CHANNELS_KEY: 'sk_ch_main_test_channels_00',
    SANDBOX_OWNERSHIP_URL: 'http://127.0.0.1:9/owned',
  };
}

describe('main: the service over real HTTP', () => {
  it('starts on a new database (a SQLite file, or a PostgreSQL database) with the sandbox partner, serves the API, and keeps data across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resale-main-'));
    dirs.push(dir);
    const database = await serviceDatabaseEnv(join(dir, 'resale.sqlite'));
    const first = await start(env(database));
    const base = `http://127.0.0.1:${first.port}`;
    const created = await fetch(`${base}/v1/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_main_test_private_000000', 'content-type': 'application/json' },
      body: JSON.stringify(eventBody('real-http')),
    });
    expect(created.status).toBe(200);
    expect(created.headers.get('request-id')).toMatch(/^req_/);
    const partners = await fetch(`${base}/admin/v1/partners`, { headers: { authorization: 'Bearer main-test-operator-token-00000000' } });
    const list = (await partners.json()) as { data: { name: string; settings: { ownershipUrl: string } }[] };
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ name: 'sandbox', settings: { ownershipUrl: 'http://127.0.0.1:9/owned' } });
    await first.stop();

    const second = await start(env(database));
    const read = await fetch(`http://127.0.0.1:${second.port}/v1/events/real-http`, { headers: { authorization: 'sk_main_test_private_000000' } });
    expect(read.status).toBe(200);
    const again = await fetch(`http://127.0.0.1:${second.port}/admin/v1/partners`, { headers: { authorization: 'Bearer main-test-operator-token-00000000' } });
    expect(((await again.json()) as { data: unknown[] }).data).toHaveLength(1);
    await second.stop();
  });

  it('takes payments through Stripe when STRIPE_* are set: its event endpoint verifies signatures (404 with the sandbox)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resale-main-'));
    dirs.push(dir);
    const database = await serviceDatabaseEnv(join(dir, 'resale.sqlite'));
    const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'payment_intent.succeeded', data: { object: {} } });
    const post = (port: number) => fetch(`http://127.0.0.1:${port}/v1/payments/stripe/events`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body });
    const sandbox = await start(env(database));
    expect((await post(sandbox.port)).status).toBe(404);
    await sandbox.stop();
    const stripe = await start({ ...env(database), STRIPE_SECRET_KEY: 'sk_test_main00000000', STRIPE_PUBLISHABLE_KEY: 'pk_test_main00000000', STRIPE_WEBHOOK_SECRET: 'whsec_main00000000' });
    const refused = await post(stripe.port);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('invalid_signature');
    await stripe.stop();
  });

  it('refuses to start with a bad variable, naming it', async () => {
    await expect(start({ ...env({ DATABASE_PATH: join('/tmp', 'resale.sqlite') }), PORT: '-1' })).rejects.toThrow(/PORT/);
  });
});
