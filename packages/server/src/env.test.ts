import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv, parseMigrateEnv } from './env.js';

const SECRET = 'x'.repeat(32);

describe('parseEnv', () => {
  it('applies the documented defaults', () => {
    const env = parseEnv({ SECRET_KEY: SECRET });
    expect(env).toMatchObject({
      NODE_ENV: 'production',
      PORT: 3000,
      HOST: '127.0.0.1',
      DATABASE_PATH: './data/resale.sqlite',
      PUBLIC_BASE_URL: 'http://localhost:3000',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: 1200,
    });
    expect(env.OPERATOR_TOKEN).toBeUndefined();
  });

  it('stops on a bad value, naming every bad variable', () => {
    expect(() => parseEnv({ SECRET_KEY: SECRET, PORT: 'eighty', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'ftp://x' })).toThrowError(EnvError);
    try {
      parseEnv({ SECRET_KEY: SECRET, PORT: 'eighty', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'ftp://x' });
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toMatch(/PORT:/);
      expect(message).toMatch(/LOG_LEVEL:/);
      expect(message).toMatch(/PUBLIC_BASE_URL:/);
    }
  });

  it('requires SECRET_KEY, a long OPERATOR_TOKEN, and all three sandbox keys or none', () => {
    expect(() => parseEnv({})).toThrowError(/SECRET_KEY/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, OPERATOR_TOKEN: 'short' })).toThrowError(/OPERATOR_TOKEN/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, SANDBOX_PRIVATE_KEY: 'sk_aaaaaaaaaaaaaaaaaaaa' })).toThrowError(/set all three or none/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, SANDBOX_PRIVATE_KEY: 'sk_aaaaaaaaaaaaaaaa', SANDBOX_PUBLIC_KEY: 'pk_aaaaaaaaaaaaaaaa', SANDBOX_CHANNELS_KEY: 'nope_aaaaaaaaaaaaaaa' })).toThrowError(
      /SANDBOX_CHANNELS_KEY/,
    );
  });

  it('takes Stripe’s three keys together, of one mode, or none (the sandbox provider)', () => {
    const stripe = { STRIPE_SECRET_KEY: 'sk_test_51AbCdEfGh', STRIPE_PUBLISHABLE_KEY: 'pk_test_51AbCdEfGh', STRIPE_WEBHOOK_SECRET: 'whsec_AbCdEfGh12' };
    expect(parseEnv({ SECRET_KEY: SECRET, ...stripe })).toMatchObject(stripe);
    expect(parseEnv({ SECRET_KEY: SECRET }).STRIPE_SECRET_KEY).toBeUndefined();
    expect(() => parseEnv({ SECRET_KEY: SECRET, STRIPE_SECRET_KEY: stripe.STRIPE_SECRET_KEY })).toThrowError(/STRIPE_SECRET_KEY, STRIPE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET: set all three/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, ...stripe, STRIPE_PUBLISHABLE_KEY: 'pk_live_51AbCdEfGh' })).toThrowError(/same mode/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, ...stripe, STRIPE_SECRET_KEY: 'pk_test_51AbCdEfGh' })).toThrowError(/STRIPE_SECRET_KEY: must be a Stripe secret/);
    expect(() => parseEnv({ SECRET_KEY: SECRET, ...stripe, STRIPE_WEBHOOK_SECRET: 'secret' })).toThrowError(/STRIPE_WEBHOOK_SECRET: must be the signing secret/);
    // The account endpoint's and the Connect endpoint's secrets.
    expect(parseEnv({ SECRET_KEY: SECRET, ...stripe, STRIPE_WEBHOOK_SECRET: 'whsec_AbCdEfGh12,whsec_IjKlMnOp34' }).STRIPE_WEBHOOK_SECRET).toBe('whsec_AbCdEfGh12,whsec_IjKlMnOp34');
    expect(() => parseEnv({ SECRET_KEY: SECRET, ...stripe, STRIPE_WEBHOOK_SECRET: 'whsec_AbCdEfGh12, whsec_IjKlMnOp34' })).toThrowError(/STRIPE_WEBHOOK_SECRET/);
  });

  it('treats empty strings as unset and accepts :memory:', () => {
    const env = parseEnv({ SECRET_KEY: SECRET, PORT: '', DATABASE_PATH: ':memory:', PUBLIC_BASE_URL: 'https://resale.example/' });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_PATH).toBe(':memory:');
    expect(env.PUBLIC_BASE_URL).toBe('https://resale.example');
  });

  it('takes LISTEN_BACKLOG as a whole number from 1 to 65,535, 4,096 unless set', () => {
    expect(parseEnv({ SECRET_KEY: SECRET }).LISTEN_BACKLOG).toBe(4096);
    expect(parseEnv({ SECRET_KEY: SECRET, LISTEN_BACKLOG: '1024' }).LISTEN_BACKLOG).toBe(1024);
    for (const bad of ['0', '-1', '1.5', 'lots', '65536']) expect(() => parseEnv({ SECRET_KEY: SECRET, LISTEN_BACKLOG: bad })).toThrowError(/LISTEN_BACKLOG/);
  });

  it('leaves SQLITE_GROUP_COMMIT off unless it is set to true', () => {
    expect(parseEnv({ SECRET_KEY: SECRET }).SQLITE_GROUP_COMMIT).toBe(false);
    expect(parseEnv({ SECRET_KEY: SECRET, SQLITE_GROUP_COMMIT: 'true' }).SQLITE_GROUP_COMMIT).toBe(true);
    expect(() => parseEnv({ SECRET_KEY: SECRET, SQLITE_GROUP_COMMIT: 'maybe' })).toThrowError(/SQLITE_GROUP_COMMIT/);
  });

  it('defaults the shutdown to a 10 s grace within 30 s, and migrates on start', () => {
    const env = parseEnv({ SECRET_KEY: SECRET });
    expect(env).toMatchObject({ SHUTDOWN_GRACE_SECONDS: 10, SHUTDOWN_TIMEOUT_SECONDS: 30, MIGRATE_ON_START: true });
    expect(parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: '0', SHUTDOWN_TIMEOUT_SECONDS: '0' })).toMatchObject({ SHUTDOWN_GRACE_SECONDS: 0, SHUTDOWN_TIMEOUT_SECONDS: 0 });
    expect(parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: '30', SHUTDOWN_TIMEOUT_SECONDS: '30' }).SHUTDOWN_GRACE_SECONDS).toBe(30);
    expect(parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: 'false' }).MIGRATE_ON_START).toBe(false);
    expect(parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: 'FALSE' }).MIGRATE_ON_START).toBe(false);
    expect(parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: '0' }).MIGRATE_ON_START).toBe(false);
    expect(parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: 'true' }).MIGRATE_ON_START).toBe(true);
    expect(parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: '' }).MIGRATE_ON_START).toBe(true);
  });

  it('refuses shutdown times that are not whole non-negative seconds, or a grace longer than the timeout, with clear messages', () => {
    for (const bad of ['-1', '1.5', 'ten', '1e9']) {
      expect(() => parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: bad })).toThrowError(/SHUTDOWN_GRACE_SECONDS: must be (a whole number of seconds, 0 or more|at most 3600)/);
      expect(() => parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_TIMEOUT_SECONDS: bad })).toThrowError(/SHUTDOWN_TIMEOUT_SECONDS: must be (a whole number of seconds, 0 or more|at most 3600)/);
    }
    expect(() => parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: '-1' })).toThrowError('SHUTDOWN_GRACE_SECONDS: must be a whole number of seconds, 0 or more');
    expect(() => parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: '20', SHUTDOWN_TIMEOUT_SECONDS: '10' })).toThrowError(
      'SHUTDOWN_GRACE_SECONDS: must not be greater than SHUTDOWN_TIMEOUT_SECONDS (20 > 10)',
    );
    // The default timeout (30) bounds a grace set alone.
    expect(() => parseEnv({ SECRET_KEY: SECRET, SHUTDOWN_GRACE_SECONDS: '31' })).toThrowError(/SHUTDOWN_GRACE_SECONDS: must not be greater than SHUTDOWN_TIMEOUT_SECONDS/);
  });

  it('refuses a MIGRATE_ON_START that is not a boolean, and false over an in-memory database', () => {
    expect(() => parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: 'nope' })).toThrowError('MIGRATE_ON_START: must be true or false');
    expect(() => parseEnv({ SECRET_KEY: SECRET, MIGRATE_ON_START: 'false', DATABASE_PATH: ':memory:' })).toThrowError(/MIGRATE_ON_START: must not be false with DATABASE_PATH=:memory:/);
  });

  it('reads only the database and log level for npm run migrate (no SECRET_KEY needed)', () => {
    expect(parseMigrateEnv({})).toEqual({ DATABASE_PATH: './data/resale.sqlite', LOG_LEVEL: 'info' });
    expect(parseMigrateEnv({ DATABASE_PATH: '/var/lib/resale/db.sqlite', SECRET_KEY: '' })).toMatchObject({ DATABASE_PATH: '/var/lib/resale/db.sqlite' });
    expect(() => parseMigrateEnv({ DATABASE_PATH: ':memory:' })).toThrowError(EnvError);
    expect(() => parseMigrateEnv({ LOG_LEVEL: 'loud' })).toThrowError(/LOG_LEVEL:/);
  });

  it('takes SECRET_KEY as a keyring: one key, or comma-separated keys newest first, each of 32 characters or more', () => {
    const older = 'y'.repeat(40);
    expect(parseEnv({ SECRET_KEY: SECRET }).SECRET_KEY).toBe(SECRET);
    expect(parseEnv({ SECRET_KEY: `${SECRET},${older}` }).SECRET_KEY).toBe(`${SECRET},${older}`);
    expect(() => parseEnv({ SECRET_KEY: 'x'.repeat(31) })).toThrowError('SECRET_KEY: the key must be at least 32 characters');
    expect(() => parseEnv({ SECRET_KEY: `${SECRET},short` })).toThrowError('SECRET_KEY: key 2 of 2 must be at least 32 characters');
    expect(() => parseEnv({ SECRET_KEY: `${SECRET},${SECRET}` })).toThrowError('SECRET_KEY: a key is listed twice');
    expect(() => parseEnv({ SECRET_KEY: `${SECRET},` })).toThrowError('SECRET_KEY: key 2 of 2 is empty');
    // The message names the variable and the entry, never a key (this is all of it).
    expect(() => parseEnv({ SECRET_KEY: `${SECRET}, ${older}` })).toThrowError('Invalid environment:\n  SECRET_KEY: key 2 of 2 starts or ends with a space (separate the keys with a comma only)');
  });
});
