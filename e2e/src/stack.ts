import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { start } from '../../packages/server/src/main.js';
import { startDemo } from '../../demo/src/start.js';

/** The sandbox partner's keys and secrets in the browser tests (test values, public). */
export const KEYS = {
  private: 'sk_e2e_private_key_000000000000000000',
  public: 'pk_e2e_public_key_0000000000000000000',
  channels: 'sk_ch_e2e_channels_key_00000000000',
  webhookSecret: 'whsec_ZTJlLXdlYmhvb2stc2VjcmV0LTAwMDAwMDAwMA==',
  platformSecret: 'e2e-platform-secret-000000000000',
  operator: 'e2e-operator-token-0000000000000000',
};

/** The service and the demo partner site, running for real on loopback. */
export interface Stack {
  /** The service, as the browser and the demo's server reach it. */
  serviceUrl: string;
  /** The demo partner site: another origin (localhost rather than 127.0.0.1), as a partner's site is. */
  demoUrl: string;
  stop(): Promise<void>;
}

/** A port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the service (its own temporary file database, the sandbox partner wired to the demo:
 * ownership endpoint, login page for Login Force, webhooks, CORS origin) and the demo site,
 * which seeds its events and tickets through the API. Exactly what `npm start` runs, on free
 * ports.
 */
export async function startStack(): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-e2e-'));
  const [servicePort, demoPort] = [await freePort(), await freePort()];
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const demoUrl = `http://localhost:${demoPort}`;
  const service = await start({
    NODE_ENV: 'development',
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: serviceUrl,
    DATABASE_PATH: join(dir, 'resale.sqlite'),
    SECRET_KEY: 'e2e-secret-key-000000000000000000000000',
    OPERATOR_TOKEN: KEYS.operator,
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
    SANDBOX_PRIVATE_KEY: KEYS.private,
    SANDBOX_PUBLIC_KEY: KEYS.public,
    SANDBOX_CHANNELS_KEY: KEYS.channels,
    SANDBOX_WEBHOOK_SECRET: KEYS.webhookSecret,
    SANDBOX_PLATFORM_SECRET: KEYS.platformSecret,
    SANDBOX_OWNERSHIP_URL: `${demoUrl}/platform/ownership`,
    SANDBOX_LOGIN_URL: `${demoUrl}/login`,
    SANDBOX_WEBHOOK_URL: `${demoUrl}/webhooks`,
    SANDBOX_ALLOWED_ORIGINS: demoUrl,
  });
  let demo: { url: string; stop: () => Promise<void> } | null = null;
  try {
    demo = await startDemo({
      port: demoPort,
      serviceUrl,
      publicKey: KEYS.public,
      privateKey: KEYS.private,
      webhookSecret: KEYS.webhookSecret,
      platformSecret: KEYS.platformSecret,
      statePath: join(dir, 'demo-state.json'),
    });
  } catch (err) {
    await service.stop();
    throw err;
  }
  return {
    serviceUrl,
    demoUrl,
    async stop() {
      await demo?.stop();
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Serves one HTML page on loopback (http://localhost:<port>/), as a partner's own page with
 * its own headers. A real server rather than Playwright's route interception: Chrome lets only
 * pages from a local address load scripts from a loopback service.
 */
export async function servePage(headers: Record<string, string>, html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://localhost:${port}/`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
