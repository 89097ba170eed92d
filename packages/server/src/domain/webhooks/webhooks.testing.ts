import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../../testing/harness.js';
import type { PartnerSettingsPatch } from '../partners/partners.settings.js';
import type { WebhookAction } from './webhooks.catalog.js';
import { WebhooksService, type EnqueueInput, type WebhooksServiceOptions } from './webhooks.service.js';

/** Test helpers of the webhooks module (used by its tests only). */

/** One request the receiver got. */
export interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver answers to the n-th request (1-based): a status, or `hang` (never answers). */
export type Reply = (n: number, req: Received) => number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Changes the answer from now on. */
  reply: (fn: Reply) => void;
  close: () => Promise<void>;
}

const servers: Server[] = [];

/** Closes every receiver still open; call in afterEach. */
export async function closeReceivers(): Promise<void> {
  await Promise.all(servers.splice(0).map(closeServer));
}

function closeServer(s: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!s.listening) return resolve();
    s.closeAllConnections();
    s.close(() => resolve());
  });
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * A real HTTP server on 127.0.0.1 playing the partner's webhook endpoint. It records
 * each request (raw body, headers) and answers per `reply` (default 200). A 2xx answer carries
 * the body `okBody` (default `ok`), any other `errorBody`; every answer has `headers` too.
 */
export async function receiver(reply: Reply = () => 200, opts: { port?: number; errorBody?: string; okBody?: string; headers?: Record<string, string> } = {}): Promise<Receiver> {
  const received: Received[] = [];
  let answer = reply;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: flatHeaders(req.headers), body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const status = answer(received.length, r);
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain', ...opts.headers });
      res.end(status >= 200 && status < 300 ? (opts.okBody ?? 'ok') : (opts.errorBody ?? 'upstream unavailable'));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/resale`,
    port,
    received,
    reply: (fn) => {
      answer = fn;
    },
    close: () => closeServer(server),
  };
}

/** A port nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A test app, a partner with the given settings, and a WebhooksService over the app's deps. */
export async function setup(settings: PartnerSettingsPatch = {}, opts: WebhooksServiceOptions = {}) {
  const t = createTestApp();
  const partner = await t.partner('Acme', settings);
  const svc = newService(t, opts);
  return { t, partner, svc };
}

/** A new service instance over the same database (as after a restart, or another process). */
export function newService(t: TestApp, opts: WebhooksServiceOptions = {}): WebhooksService {
  return new WebhooksService({ db: t.db, clock: t.clock, partners: t.deps.partners, logger: t.deps.logger }, { timeoutMs: 2_000, ...opts });
}

/** Enqueues in a transaction of its own. */
export async function enqueue<A extends WebhookAction>(t: TestApp, svc: WebhooksService, partnerId: string, input: EnqueueInput<A>) {
  return await t.db.transact(async (tx) => await svc.enqueue(tx, partnerId, input));
}

/** A ticketShield.updated message for a show. */
export function shield(showId = 'show-1', status = true): EnqueueInput<'ticketShield.updated'> {
  return { action: 'ticketShield.updated', resourceKey: `show:tour-2026/${showId}`, data: { status, eventId: 'tour-2026', showId } };
}
