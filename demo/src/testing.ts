import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { start, type ProviderOverrides } from '@resale/server/start';
import { freePort } from '@resale/server/testing';
import { startDemo, type RunningDemo } from './start.js';

/**
 * The real service and the demo on loopback, for the demo's tests: the service with a
 * temporary file database and its sandbox partner wired to the demo (ownership, login,
 * webhooks, CORS origin), exactly as `npm start` wires them, on free ports.
 */

export const TEST_KEYS = {
  private: 'sk_demo_test_private_key_00000000000',
  public: 'pk_demo_test_public_key_000000000000',
  channels: 'sk_ch_demo_test_channels_key_00000',
  webhookSecret: 'whsec_ZGVtby10ZXN0LXdlYmhvb2stc2VjcmV0LTAwMA==',
  platformSecret: 'demo-test-platform-secret-0000000',
  /** The operator API's bearer token (`/admin/v1`), for tests that set up other partners. */
  operator: 'demo-test-operator-token-000000000',
  /** The console's operator (OPERATOR_EMAILS): signs in to /console with a code from the mailbox. */
  operatorEmail: 'operator@demo.test',
};

export { freePort };

export interface TestStack {
  dir: string;
  serviceUrl: string;
  demoUrl: string;
  demoPort: number;
  statePath: string;
  demo: RunningDemo;
  /** Starts the service (again, on the same port and database). */
  startService(): Promise<void>;
  stopService(): Promise<void>;
  /** Starts the demo again on the same port and state file (after `demo.stop()`). */
  restartDemo(): Promise<RunningDemo>;
  /** A call to the service with the private key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export function serviceEnv(dir: string, servicePort: number, demoUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    PORT: String(servicePort),
    HOST: '127.0.0.1',
    // PORT is never 0 here: PUBLIC_BASE_URL must be where the service really listens.
    PUBLIC_BASE_URL: `http://127.0.0.1:${servicePort}`,
    DATABASE_PATH: join(dir, 'resale.sqlite'),
    SECRET_KEY: 'demo-test-secret-key-000000000000000000',
    LOG_LEVEL: process.env.RESALE_TEST_LOG_LEVEL ?? 'silent',
    SANDBOX_PRIVATE_KEY: TEST_KEYS.private,
    SANDBOX_PUBLIC_KEY: TEST_KEYS.public,
    SANDBOX_CHANNELS_KEY: TEST_KEYS.channels,
    SANDBOX_WEBHOOK_SECRET: TEST_KEYS.webhookSecret,
    SANDBOX_PLATFORM_SECRET: TEST_KEYS.platformSecret,
    SANDBOX_OWNERSHIP_URL: `${demoUrl}/platform/ownership`,
    SANDBOX_LOGIN_URL: `${demoUrl}/login`,
    SANDBOX_SITE_URL: `${demoUrl}/`,
    SANDBOX_WEBHOOK_URL: `${demoUrl}/webhooks`,
    SANDBOX_ALLOWED_ORIGINS: demoUrl,
    OPERATOR_TOKEN: TEST_KEYS.operator,
    OPERATOR_EMAILS: TEST_KEYS.operatorEmail,
  };
}

/**
 * `providers`: payment and payout providers for the service in place of the sandbox (the browser
 * journey with Stripe's side played locally, packages/server/src/testing/stripe-browser.ts).
 */
export async function startTestStack(opts: { providers?: ProviderOverrides } = {}): Promise<TestStack> {
  const dir = mkdtempSync(join(tmpdir(), 'resale-demo-'));
  const [servicePort, demoPort] = [await freePort(), await freePort()];
  const serviceUrl = `http://127.0.0.1:${servicePort}`;
  const demoUrl = `http://localhost:${demoPort}`;
  const statePath = join(dir, 'demo-state.json');
  let service: { stop: () => Promise<void> } | null = null;
  const startService = async () => {
    service = await start(serviceEnv(dir, servicePort, demoUrl), opts.providers ?? {});
  };
  const stopService = async () => {
    await service?.stop();
    service = null;
  };
  const launchDemo = () =>
    startDemo({
      port: demoPort,
      serviceUrl,
      publicKey: TEST_KEYS.public,
      privateKey: TEST_KEYS.private,
      webhookSecret: TEST_KEYS.webhookSecret,
      platformSecret: TEST_KEYS.platformSecret,
      statePath,
    });
  await startService();
  const stack: TestStack = {
    dir,
    serviceUrl,
    demoUrl,
    demoPort,
    statePath,
    demo: null as unknown as RunningDemo,
    startService,
    stopService,
    async restartDemo() {
      stack.demo = await launchDemo();
      return stack.demo;
    },
    async api(method, path, body) {
      const res = await fetch(`${serviceUrl}${path}`, {
        method,
        headers: { authorization: TEST_KEYS.private, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await stack.demo?.stop();
      await stopService();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    stack.demo = await launchDemo();
  } catch (err) {
    await stopService();
    throw err;
  }
  return stack;
}

/**
 * A tiny browser for one origin set: keeps cookies per host, never follows redirects (tests
 * look at each hop), and sends `Origin` on POSTs as browsers do for forms.
 */
export class TestBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  async request(method: string, url: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const u = new URL(url);
    const cookies = this.jar.get(u.host);
    const h: Record<string, string> = { ...headers };
    if (cookies && cookies.size > 0) h.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      h['content-type'] = 'application/x-www-form-urlencoded';
      if (!('origin' in h)) h.origin = u.origin;
    }
    const res = await fetch(u, { method, headers: h, redirect: 'manual', ...(body === undefined ? {} : { body }) });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const jar = this.jar.get(u.host) ?? new Map<string, string>();
      if (/max-age=0/i.test(line) || value === '') jar.delete(name);
      else jar.set(name, value);
      this.jar.set(u.host, jar);
    }
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text: await res.text() };
  }

  get(url: string, headers?: Record<string, string>) {
    return this.request('GET', url, undefined, headers);
  }

  post(url: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.request('POST', url, form, headers);
  }

  /** Signs in on the demo as `userId` (the login form, as a person would). */
  async signIn(demoUrl: string, userId: string): Promise<void> {
    const res = await this.post(`${demoUrl}/login`, { user: userId, returnTo: '' });
    if (res.status !== 303) throw new Error(`sign-in as ${userId} answered ${res.status}`);
  }
}

/** Signs `body` as the service does (Standard Webhooks), with the test secret unless another is given. */
export function signedHeaders(id: string, body: string, opts: { secret?: string; at?: Date } = {}): Record<string, string> {
  const at = opts.at ?? new Date();
  const signature = new Webhook(opts.secret ?? TEST_KEYS.webhookSecret).sign(id, at, body);
  return { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}
