/**
 * The real service for the client's tests: started in this process (`start` of
 * `@resale/server/start`) on a throwaway SQLite file, with an operator token, and a partner
 * created through the operator API with the client itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { documentServiceEnv, loadStart } from '../scripts/document.mjs';
import { createResaleClient, unwrap, type Schemas } from '../src/index.js';

/** A running service: its address, the operator token, and how to stop it. */
export interface TestService {
  baseUrl: string;
  operatorToken: string;
  /** Its SQLite file and secret key: for tests that reach below the API (testing/admission.ts). */
  databasePath: string;
  secretKey: string;
  stop(): Promise<void>;
}

/** Starts the service on a fresh SQLite file; `stop` ends it and removes the file. */
export async function startTestService(): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-client-test-'));
  const operatorToken = 'client-test-operator-token-0123456789';
  const start = await loadStart();
  const env: Record<string, string> = { ...documentServiceEnv(join(dir, 'resale.sqlite')), OPERATOR_TOKEN: operatorToken };
  const service = await start(env);
  return {
    baseUrl: `http://127.0.0.1:${service.port}`,
    operatorToken,
    databasePath: env.DATABASE_PATH!,
    secretKey: env.SECRET_KEY!,
    stop: async () => {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates a partner through `POST /admin/v1/partners`: its keys (shown once) and webhook secret. */
export async function createTestPartner(service: TestService, settings: Schemas['PartnerCreate']['settings'] = {}): Promise<Schemas['PartnerCreated']> {
  const operator = createResaleClient({ baseUrl: service.baseUrl, key: service.operatorToken });
  return unwrap(await operator.createPartner({ body: { name: `Client test ${Date.now()}`, settings } })).data;
}

/** A TCP port free at the moment of asking (for a local webhook receiver). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
