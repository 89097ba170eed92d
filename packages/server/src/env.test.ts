import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from './env.js';

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

  it('treats empty strings as unset and accepts :memory:', () => {
    const env = parseEnv({ SECRET_KEY: SECRET, PORT: '', DATABASE_PATH: ':memory:', PUBLIC_BASE_URL: 'https://resale.example/' });
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_PATH).toBe(':memory:');
    expect(env.PUBLIC_BASE_URL).toBe('https://resale.example');
  });
});
