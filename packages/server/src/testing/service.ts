import { afterEach } from 'vitest';
import { start, type Service } from '../main.js';
import { serviceDatabaseEnv } from './harness.js';

/**
 * A whole service started in this process as `npm run serve` starts it (main.ts `start`), on a
 * free loopback port, for tests of what only a real server shows (sockets, timeouts, the worker
 * thread, a database going away). Its database is an in-memory SQLite one, or a PostgreSQL
 * database of its own in the server-pg project, unless `env` names one. Stopped after the test.
 *
 * @example const { port } = await startService({ MAX_BODY_BYTES: '65536' });
 */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const service = await start({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...(env.DATABASE_URL || env.DATABASE_PATH ? {} : await serviceDatabaseEnv(':memory:')),
    SECRET_KEY: 'service-test-secret-key-000000000000',
    LOG_LEVEL: 'silent',
    ...env,
  });
  started.push(service);
  return service;
}

const started: Service[] = [];
afterEach(async () => {
  for (const service of started.splice(0).reverse()) await service.stop();
});
