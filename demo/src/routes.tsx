/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import { createHmac, createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { csrf } from 'hono/csrf';
import { Webhook } from 'standardwebhooks';
import { pageCsp } from './csp.js';
import { EventPage, HomePage, LoginPage, MyTicketsPage, NoticePage, WebhooksPage } from './pages.js';
import { ownershipRecord } from './records.js';
import { createServiceClient, type SellAccessLayerData } from './service-client.js';
import { currentUser, resolveReturnTo, signIn, signOut, withOneTimeToken } from './session.js';
import type { DemoStore, DemoUser } from './store.js';
import { receiveWebhook } from './webhooks.js';

export interface DemoAppOptions {
  /** The service: what the demo's server calls and what browsers load the widgets from. */
  serviceUrl: string;
  publicKey: string;
  privateKey: string;
  /** The partner's Standard Webhooks secret (`whsec_…`). */
  webhookSecret: string;
  /** What the service sends in `X-Resale-Secret` to the ownership endpoint. */
  platformSecret: string;
  store: DemoStore;
  /** The clock of the demo (webhook receipt times). Default: the real one. */
  now?: () => Date;
  /** Signs the session cookie. Default: derived from platformSecret, so sessions survive restarts. */
  sessionSecret?: string;
}

/** Webhook bodies the demo accepts (the service's are a few kilobytes). */
export const WEBHOOK_MAX_BYTES = 1024 * 1024;

const ASSETS: Record<string, { type: string; body: string }> = {
  'demo.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/demo.css', import.meta.url), 'utf8') },
  'resale-data.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/resale-data.js', import.meta.url), 'utf8') },
};

/** Constant-time comparison of secrets of any length (hashes first, so lengths do not leak). */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The demo partner platform ("Demo Tickets") as a Hono app: what a partner builds around the
 * resale service.
 *
 * Pages: `/` (events), `/events/:eventId` (the widgets on an event page), `/my-tickets`
 * (the sell access layer, server to server), `/login` (pick a user; Login Force),
 * `/webhooks` (deliveries received). Platform contracts: `GET /platform/ownership`
 * (ticket ownership, behind `X-Resale-Secret`) and `POST /webhooks` (signed deliveries).
 *
 * @example
 * const app = createDemoApp({ serviceUrl, publicKey, privateKey, webhookSecret, platformSecret, store: DemoStore.open(path) });
 * serve({ fetch: app.fetch, port: 3001 });
 */
export function createDemoApp(options: DemoAppOptions) {
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const serviceUrl = options.serviceUrl.replace(/\/+$/, '');
  const serviceOrigin = new URL(serviceUrl).origin;
  const sessionSecret = options.sessionSecret ?? createHmac('sha256', options.platformSecret).update('demo-session-cookie').digest('base64url');
  // Calls made while a person waits for a page give up sooner than seeding does.
  const service = createServiceClient({ serviceUrl, privateKey: options.privateKey, timeoutMs: 4_000 });
  const verifier = new Webhook(options.webhookSecret);
  const csp = pageCsp(serviceOrigin);

  const app = new Hono();

  const page = async (c: Context, node: { toString(): string | Promise<string> }, status = 200) => {
    c.header('Content-Security-Policy', csp);
    // Pages may carry one-time-token URLs (My tickets) and personal data: never cached.
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'strict-origin-when-cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.html('<!DOCTYPE html>' + (await node.toString()), status as 200);
  };
  const user = (c: Context) => currentUser(c, store, sessionSecret);
  const selfOrigin = (c: Context) => new URL(c.req.url).origin;

  // Forms post only from the demo's own pages (Origin or Sec-Fetch-Site checked).
  app.use('/login', csrf());
  app.use('/logout', csrf());

  app.get('/assets/:name', (c) => {
    const asset = ASSETS[c.req.param('name')];
    if (!asset) return c.text('Not found', 404);
    return c.body(asset.body, 200, { 'Content-Type': asset.type, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
  });

  app.get('/', async (c) => page(c, <HomePage user={await user(c)} events={store.state.events} />));

  app.get('/events/:eventId', async (c) => {
    const u = await user(c);
    const event = store.event(c.req.param('eventId'));
    if (!event) return page(c, <NoticePage user={u} title="Event not found" text="There is no such event on Demo Tickets." link={{ href: '/', text: 'See all events' }} />, 404);
    const here = `${selfOrigin(c)}/events/${encodeURIComponent(event.id)}`;
    // Signed for the signed-in user (Login Trust): the service then knows them, even if this
    // browser was signed in there as someone else before.
    const fallbackUrl = await service.buyingFlowUrl(event.id, event.showId, here, u ? { loginTrustUser: u.email } : {}).catch(() => null);
    // Someone signed in: the widgets get the access layer signed for them, which shows their own
    // hold ("continue to checkout") apart from other fans'. Without an answer, the widgets ask
    // the service themselves with the public key.
    const components = u ? await service.buyAccessLayer(event.id, event.showId, u.email).catch(() => null) : null;
    return page(c, <EventPage user={u} event={event} serviceUrl={serviceUrl} publicKey={options.publicKey} fallbackUrl={fallbackUrl} components={components} />);
  });

  app.get('/my-tickets', async (c) => {
    const u = await user(c);
    if (!u) return c.redirect(`/login?returnTo=${encodeURIComponent('/my-tickets')}`, 302);
    const tickets = store.ticketsOf(u.id);
    // Each ticket's secure view (ticketShield): asked together with the sell access layer; a
    // ticket whose URL the service did not give shows its details without the link.
    const views = Promise.allSettled(tickets.map((t) => service.ticketViewUrl(t.ticketId)));
    let access: SellAccessLayerData | null;
    try {
      access = await service.sellAccessLayer({
        user: u.email,
        // Without tickets, email-only mode still answers the seller's past sales.
        ...(tickets.length > 0
          ? { tickets: tickets.map((t) => ({ eventId: t.eventId, showId: t.showId, ticketId: t.ticketId, ticketOptionId: t.ticketOptionId, priceTypeId: t.priceTypeId })) }
          : {}),
        autologin: true,
        includeTicketSales: true,
      });
    } catch {
      access = null;
    }
    const viewUrls = Object.fromEntries((await views).flatMap((r, i) => (r.status === 'fulfilled' ? [[tickets[i]!.ticketId, r.value]] : [])));
    return page(c, <MyTicketsPage user={u} serviceUrl={serviceUrl} events={store.state.events} tickets={tickets} access={access} viewUrls={viewUrls} />);
  });

  app.get('/login', async (c) => {
    const u = await user(c);
    const raw = c.req.query('returnTo') ?? '';
    const target = resolveReturnTo(raw, selfOrigin(c), serviceOrigin);
    // `prompt=login`: the person signed out on the service ("Not you?"), so ask who is there
    // instead of sending the same user straight back.
    const prompt = c.req.query('prompt') === 'login';
    // Already signed in and the service sent the browser here (Login Force): straight back with a token.
    if (u && target.kind === 'service' && !prompt) return backToService(c, u, target.url);
    return page(c, <LoginPage user={u} users={store.state.users} returnTo={target.kind === 'refused' ? '' : raw} target={target.kind} prompt={prompt} />);
  });

  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const raw = typeof form.returnTo === 'string' ? form.returnTo : '';
    const target = resolveReturnTo(raw, selfOrigin(c), serviceOrigin);
    const chosen = typeof form.user === 'string' ? store.state.users.find((x) => x.id === form.user) : undefined;
    if (!chosen) {
      return page(
        c,
        <LoginPage user={await user(c)} users={store.state.users} returnTo={target.kind === 'refused' ? '' : raw} target={target.kind} error="Choose one of the users listed." />,
        400,
      );
    }
    await signIn(c, chosen, sessionSecret);
    if (target.kind === 'service') return backToService(c, chosen, target.url);
    return c.redirect(target.kind === 'self' ? target.path : '/', 303);
  });

  /** Login Force, steps 3 and 4: a one-time token for the user, then back to returnTo with it. */
  async function backToService(c: Context, u: DemoUser, url: URL) {
    try {
      const token = await service.oneTimeToken(u.email);
      return c.redirect(withOneTimeToken(url, token), 303);
    } catch {
      return page(
        c,
        <NoticePage user={u} title="The resale service did not answer" text="You are signed in on Demo Tickets, but we could not take you back to the resale service. Try again in a moment." link={{ href: url.href, text: 'Try again' }} />,
        502,
      );
    }
  }

  // Signing out here signs out of the resale service too: the browser goes through the service's
  // sign-out URL (a top-level navigation carries its cookie), so the next person on this browser
  // is not signed in there as the last one. Without an answer from the service: home all the same.
  app.post('/logout', async (c) => {
    signOut(c);
    const through = await service.signOutUrl(`${selfOrigin(c)}/`).catch(() => null);
    return c.redirect(through ?? '/', 303);
  });

  app.get('/platform/ownership', (c) => {
    if (!sameSecret(c.req.header('x-resale-secret'), options.platformSecret)) return c.json({ error: 'unauthorized' }, 401);
    const who = c.req.query('user');
    if (!who) return c.json({ error: 'the user query parameter is required' }, 400);
    const u = store.findUser(who);
    if (!u) return c.json({ error: 'unknown user' }, 404);
    const tickets = store.ticketsOf(u.id);
    if (tickets.length === 0) return c.body(null, 204);
    return c.json(tickets.map(ownershipRecord), 200, { 'Cache-Control': 'no-store' });
  });

  app.post(
    '/webhooks',
    bodyLimit({ maxSize: WEBHOOK_MAX_BYTES, onError: (c) => c.json({ error: 'payload too large' }, 413) }),
    async (c) => {
      const raw = await c.req.text();
      const headers = { 'webhook-id': c.req.header('webhook-id'), 'webhook-timestamp': c.req.header('webhook-timestamp'), 'webhook-signature': c.req.header('webhook-signature') };
      const { status, delivery } = receiveWebhook(store, verifier, raw, headers, now());
      return status === 200 ? c.body(null, 204) : c.json({ error: delivery.verdict }, status as 400);
    },
  );

  app.get('/webhooks', async (c) => page(c, <WebhooksPage user={await user(c)} deliveries={store.state.webhooks} />));

  app.notFound(async (c) => page(c, <NoticePage user={await user(c)} title="Page not found" text="There is no such page on Demo Tickets." link={{ href: '/', text: 'Go to the events' }} />, 404));

  app.onError(async (err, c) => {
    if ('getResponse' in err && typeof err.getResponse === 'function') return err.getResponse() as Response;
    console.error('[demo]', err);
    return page(c, <NoticePage user={null} title="Something went wrong" text="The demo hit an error. Try again." />, 500);
  });

  return app;
}
