import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createDemoApp } from './app.js';
import { seed, type SeedReport } from './seed.js';
import { createServiceClient } from './service-client.js';
import { DemoStore } from './store.js';

export interface StartDemoOptions {
  /** 0 picks a free port. */
  port: number;
  /** The service's base URL, as browsers and the demo's server reach it. */
  serviceUrl: string;
  publicKey: string;
  privateKey: string;
  webhookSecret: string;
  platformSecret: string;
  /** The JSON state file. Default `./data/demo-state.json` (relative to the working directory). */
  statePath?: string;
  /**
   * Interface to bind. Default: loopback on both families (127.0.0.1 and ::1 on the same
   * port), so `http://localhost:<port>` works whichever address the client resolves first.
   */
  hostname?: string;
  /** The demo's clock. Default: the real one. */
  now?: () => Date;
}

export interface RunningDemo {
  /** `http://localhost:<port>` */
  url: string;
  port: number;
  seeded: SeedReport;
  store: DemoStore;
  stop: () => Promise<void>;
}

export const DEFAULT_STATE_PATH = './data/demo-state.json';

/**
 * Starts the demo platform: opens (or creates) its state file, listens, then seeds the
 * service (events every start, tickets once per state file; retried while the service is
 * still starting). Rejects, with the server closed, when seeding fails for good.
 *
 * @example
 * const demo = await startDemo({ port: 3001, serviceUrl: 'http://localhost:3000', publicKey, privateKey, webhookSecret, platformSecret });
 * console.log(demo.url); // http://localhost:3001
 * await demo.stop();
 */
export async function startDemo(opts: StartDemoOptions): Promise<RunningDemo> {
  const now = opts.now ?? (() => new Date());
  const store = DemoStore.open(resolve(opts.statePath ?? DEFAULT_STATE_PATH));
  const app = createDemoApp({
    serviceUrl: opts.serviceUrl,
    publicKey: opts.publicKey,
    privateKey: opts.privateKey,
    webhookSecret: opts.webhookSecret,
    platformSecret: opts.platformSecret,
    store,
    now,
  });
  const listener = getRequestListener(app.fetch);
  const servers: Server[] = [];
  const listen = (port: number, host: string) =>
    new Promise<Server>((ok, fail) => {
      const server = createServer(listener);
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        ok(server);
      });
    });

  const first = await listen(opts.port, opts.hostname ?? '127.0.0.1');
  servers.push(first);
  const port = (first.address() as AddressInfo).port;
  if (!opts.hostname) {
    // IPv6 loopback on the same port when the machine has it; without it, IPv4 is enough.
    await listen(port, '::1').then(
      (s) => servers.push(s),
      () => undefined,
    );
  }
  const stop = async () => {
    await Promise.all(
      servers.splice(0).map(
        (s) =>
          new Promise<void>((done) => {
            s.closeAllConnections();
            s.close(() => done());
          }),
      ),
    );
  };

  try {
    const seeded = await seed({ store, service: createServiceClient({ serviceUrl: opts.serviceUrl, privateKey: opts.privateKey }), now });
    const host = opts.hostname && opts.hostname !== '0.0.0.0' && opts.hostname !== '::' ? opts.hostname : 'localhost';
    return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, port, seeded, store, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
