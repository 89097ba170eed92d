import { afterEach, describe, expect, it } from 'vitest';
import { asc, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { createTestApp } from '../../../testing/harness.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { WEBHOOK_EXAMPLES, type WebhookAction } from '../../../domain/webhooks/webhooks.catalog.js';
import type { EnqueueInput } from '../../../domain/webhooks/webhooks.service.js';
import { webhookAttempts, webhookMessages } from '../../../domain/webhooks/webhooks.table.js';
import { closeReceivers, receiver, shield } from '../../../domain/webhooks/webhooks.testing.js';
import { hashSecret } from '../../../lib/crypto.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { decoded, signIn, submit, withOperators } from './console.testing.js';

afterEach(closeReceivers);

const OPERATOR = 'ops@resale.test';
type TestApp = ReturnType<typeof createTestApp>;

/** An app with an operator, a partner (Acme) with `settings`, and its developer and viewer signed in. */
async function setup(settings: Parameters<TestApp['partner']>[1] = {}, opts: { realTime?: boolean } = {}) {
  const t = createTestApp();
  // A Standard Webhooks verifier checks the timestamp against the real time.
  if (opts.realTime) t.clock.set(Date.now());
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme', settings);
  const ops = await signIn(t, OPERATOR);
  for (const [email, role] of [
    ['dev@acme.example', 'developer'],
    ['viewer@acme.example', 'viewer'],
  ] as const) {
    const res = await submit(ops, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email, role });
    expect(res.status).toBe(303);
  }
  const dev = await signIn(t, 'dev@acme.example');
  const viewer = await signIn(t, 'viewer@acme.example');
  const page = `/console/partners/${p.id}/webhooks`;
  return { t, p, ops, dev, viewer, page };
}

/** Enqueues a real message for `partnerId`, as a change would. */
async function enqueue<A extends WebhookAction>(t: TestApp, partnerId: string, input: EnqueueInput<A>) {
  return await t.db.transact(async (tx) => await t.deps.webhooks.enqueue(tx, partnerId, input));
}

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form its page does not show). */
async function csrfFor(t: TestApp, browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

const audit = (t: TestApp) => t.db.read(async (tx) => await tx.select().from(auditLog).orderBy(asc(auditLog.at), asc(auditLog.id)));
const messageIds = (html: string) => [...html.matchAll(/href="\/console\/partners\/[^/]+\/webhooks\/(msg_[0-9a-z]+)"/g)].map((m) => m[1]!);
/** The text of a page's HTML with hono's escapes read back. */
const unescaped = (html: string) => html.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('console webhooks: the page and the log', () => {
  it('shows the tab to every role, the endpoint, and the log newest first, a page at a time, filtered by state and kind', async () => {
    const { t, p, viewer, dev, page } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) {
      const unlock = { action: 'event.unlock' as const, resourceKey: 'show:tour-2026/show-3', data: { eventId: 'tour-2026', showId: 'show-3' } };
      ids.push((i === 3 ? await enqueue(t, p.id, unlock) : await enqueue(t, p.id, shield(`show-${i}`))).id);
      t.clock.advance(1_000);
    }
    // No webhookUrl: nothing is attempted; the messages wait for one.
    expect(await t.deps.webhooks.deliverDue()).toMatchObject({ attempted: 0 });
    const newest = [...ids].reverse();
    const waiting = await viewer.get(`${page}/${ids[0]}`);
    expect(waiting.text).toContain('Not sent: no endpoint URL is set. It goes out, in order, as soon as you save one.');
    expect(waiting.text).toContain('when an endpoint URL is set');

    const first = await viewer.get(page);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`href="/console/partners/${p.id}/webhooks" aria-current="page"`);
    expect(first.text).toContain('Delivery log');
    expect(messageIds(first.text)).toEqual(newest.slice(0, 25));
    // A viewer reads: no form to change anything, no test to send.
    expect(first.text).toContain('your role cannot change them');
    expect(first.text).not.toContain('Save endpoint');
    expect(first.text).not.toContain(`action="/console/partners/${p.id}/webhooks/test"`);
    const older = decoded(/<a href="([^"]*startingAfter=[^"]*)">Older messages<\/a>/.exec(first.text)![1]!);
    const second = await viewer.get(older);
    expect(messageIds(second.text)).toEqual(newest.slice(25));
    expect(second.text).toContain('Newest messages');
    expect(second.text).not.toContain('Older messages');

    const byKind = await dev.get(`${page}?action=event.unlock`);
    expect(messageIds(byKind.text)).toEqual([ids[3]]);
    expect(byKind.text).toContain('<option value="event.unlock" selected="">');
    const byState = await dev.get(`${page}?state=pending&action=ticketShield.updated`);
    expect(messageIds(byState.text)).toHaveLength(25);
    expect((await dev.get(`${page}?state=delivered`)).text).toContain('No message matches these filters.');
    // Unknown filters read as none; a cursor that is no message of the partner shows the newest, saying so.
    expect(messageIds((await dev.get(`${page}?state=lost&action=nope`)).text)).toHaveLength(25);
    const stale = await dev.get(`${page}?startingAfter=msg_unknown`);
    expect(stale.status).toBe(200);
    expect(stale.text).toContain('That page of the log does not exist');
    expect(messageIds(stale.text)).toEqual(newest.slice(0, 25));
    // In Spanish.
    expect((await dev.get(`${page}?lang=es`)).text).toContain('Registro de entregas');
  });

  it('lets a developer set the endpoint and the kinds it receives through the API’s schema, audited; a refused form answers every error with the typed values', async () => {
    const { t, p, dev, page } = await setup();
    const action = `${page}/endpoint`;
    const bad = await submit(dev, page, action, { webhookUrl: 'ftp://acme.example/hooks', webhookEvents: 'some' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('There is a problem');
    expect(bad.text).toContain('href="#f-webhookUrl"');
    expect(bad.text).toContain('Endpoint URL: must be an http(s) URL');
    expect(bad.text).toContain('href="#f-webhookEvents"');
    expect(bad.text).toContain('Kinds it receives: Choose at least one kind, or every kind.');
    expect(bad.text).toContain('value="ftp://acme.example/hooks"');
    const unknown = await submit(dev, page, action, new URLSearchParams({ webhookUrl: 'https://acme.example/hooks', webhookEvents: 'some', 'kind-listing.created': 'on', 'kind-order.shipped': 'on' }));
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('order.shipped is not a kind of webhook.');
    expect(unknown.text).toMatch(/<input type="checkbox" name="kind-listing.created" value="on" checked=""/);
    expect(await audit(t)).toHaveLength(2); // the two invitations

    const saved = await submit(dev, page, action, new URLSearchParams({ webhookUrl: ' https://acme.example/hooks ', webhookEvents: 'some', 'kind-listing.created': 'on', 'kind-ticket.update': 'on' }));
    expect(saved.status, saved.text.slice(0, 300)).toBe(303);
    expect(saved.location).toBe(`${page}?saved=endpoint#endpoint`);
    expect((await dev.get(saved.location!)).text).toContain('Endpoint saved.');
    const api = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect(api.body.data.settings).toMatchObject({ webhookUrl: 'https://acme.example/hooks', webhookEvents: ['listing.created', 'ticket.update'] });
    const entry = (await audit(t)).at(-1)!;
    expect(entry).toMatchObject({ action: 'partner.update', actorEmail: 'dev@acme.example', role: 'developer', partnerId: p.id, before: { 'settings.webhookUrl': null, 'settings.webhookEvents': null }, after: { 'settings.webhookUrl': 'https://acme.example/hooks' } });

    // Every kind again, and no endpoint at all.
    expect((await submit(dev, page, action, { webhookUrl: '', webhookEvents: 'all', 'kind-ticket.update': 'on' })).status).toBe(303);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings).toMatchObject({ webhookUrl: null, webhookEvents: null });
  });
});

describe('console webhooks: a message, resend and test events', () => {
  it('shows the request as sent and every attempt with what the endpoint answered (at most 1,024 characters); Resend queues it again, audited', async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200), { errorBody: `<html><body>${'Server error. '.repeat(200)}</body></html>`, okBody: '{"received":true}' });
    const { t, p, dev, page } = await setup({ webhookUrl: rx.url });
    const msg = await enqueue(t, p.id, shield('show-9'));
    await t.deps.webhooks.deliverDue();
    const failed = (await t.db.read(async (tx) => await tx.select().from(webhookAttempts).where(eq(webhookAttempts.messageId, msg.id))))[0]!;
    expect(failed.answer).toHaveLength(1024);

    const detail = await dev.get(`${page}/${msg.id}`);
    expect(detail.status).toBe(200);
    const text = unescaped(detail.text);
    expect(text).toContain(`<code>webhook-id</code></td><td><code>${msg.id}</code>`);
    expect(text).toContain('<code>ticketShield.updated</code>');
    expect(text).toContain(JSON.stringify(msg.payload, null, 2));
    expect(text).toContain(rx.url);
    expect(text).toContain('HTTP 500: &lt;html&gt;'.replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
    expect(text).toContain('Answer to attempt 1');
    expect(text).toContain(failed.answer!);
    expect(text).not.toContain(`${failed.answer!}Server`);
    expect(text).toContain(new Date(failed.nextAttemptAt!).getUTCFullYear().toString());

    const resend = await submit(dev, `${page}/${msg.id}`, `${page}/${msg.id}/resend`, {});
    expect(resend.status).toBe(303);
    expect(resend.location).toBe(`${page}/${msg.id}?saved=resent`);
    expect((await dev.get(resend.location!)).text).toContain('Queued again');
    const entry = (await audit(t)).at(-1)!;
    expect(entry).toMatchObject({ action: 'webhook.replay', actorEmail: 'dev@acme.example', role: 'developer', partnerId: p.id, target: msg.id, before: { nextAttemptAt: new Date(failed.nextAttemptAt!).toISOString() }, after: { nextAttemptAt: new Date(t.clock.now()).toISOString() } });
    await t.deps.webhooks.deliverDue();
    const after = unescaped((await dev.get(`${page}/${msg.id}`)).text);
    expect(after).toContain('delivered');
    expect(after).toContain('{"received":true}');
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([msg.id, msg.id]);
  });

  it('sends a test event of the chosen kind, signed like a real one, marked as a test in the log, audited as webhook.test; an unknown kind is refused', async () => {
    const rx = await receiver();
    const { t, p, dev, page } = await setup({ webhookUrl: rx.url, webhookEvents: ['event.unlock'] }, { realTime: true });
    const bad = await submit(dev, page, `${page}/test`, { kind: 'order.shipped' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Kind: order.shipped is not a kind of webhook.');
    expect(bad.text).toContain('href="#f-kind"');

    const sent = await submit(dev, page, `${page}/test`, { kind: 'payouts.delivered' });
    expect(sent.status).toBe(303);
    const id = /\/webhooks\/(msg_[0-9a-z]+)\?saved=test$/.exec(sent.location!)![1]!;
    const shown = await dev.get(sent.location!);
    expect(shown.text).toContain('Test event queued');
    expect(shown.text).toContain('A test event, sent from the console');
    const log = await dev.get(page);
    expect(log.text).toMatch(new RegExp(`${id}</code></a></td><td><code>payouts.delivered</code><strong> · test</strong>`));

    await t.deps.webhooks.deliverDue();
    expect(rx.received).toHaveLength(1);
    const req = rx.received[0]!;
    expect(req.headers['webhook-id']).toBe(id);
    expect(new Webhook(p.webhookSecret).verify(req.body, req.headers)).toEqual({ family: 'payouts', action: 'payouts.delivered', data: WEBHOOK_EXAMPLES['payouts.delivered'] });
    const row = (await t.db.read(async (tx) => await tx.select().from(webhookMessages).where(eq(webhookMessages.id, id))))[0]!;
    expect(row).toMatchObject({ state: 'delivered', resourceKey: `test:${id}` });
    const entry = (await audit(t)).at(-1)!;
    expect(entry).toMatchObject({ action: 'webhook.test', actorEmail: 'dev@acme.example', role: 'developer', partnerId: p.id, target: id, after: { action: 'payouts.delivered', state: 'pending' } });
  });
});

describe('console webhooks: who may do what', () => {
  it('answers 404 for an unknown message and another partner’s, 403 to a viewer’s change, the sign-in page when signed out, 403 without the form’s token; nothing audited', async () => {
    const { t, p, ops, dev, viewer, page } = await setup();
    const other = await t.partner('Other');
    const mine = await enqueue(t, p.id, shield());
    const theirs = await enqueue(t, other.id, shield());
    const before = await audit(t);

    expect((await dev.get(`${page}/msg_unknown`)).status).toBe(404);
    expect((await dev.get(`${page}/${theirs.id}`)).status).toBe(404);
    expect((await ops.get(`${page}/${theirs.id}`)).status).toBe(404);
    expect((await dev.get(`/console/partners/${other.id}/webhooks`)).status).toBe(404);
    expect((await dev.get(`/console/partners/${other.id}/webhooks/${theirs.id}`)).status).toBe(404);
    expect((await dev.get('/console/partners/ptr_unknown/webhooks')).status).toBe(404);
    for (const action of [`${page}/${theirs.id}/resend`, `${page}/msg_unknown/resend`, `/console/partners/${other.id}/webhooks/${theirs.id}/resend`]) {
      expect((await dev.post(action, { _csrf: await csrfFor(t, dev, action) })).status, action).toBe(404);
    }
    expect((await dev.post(`/console/partners/${other.id}/webhooks/test`, { _csrf: await csrfFor(t, dev, `/console/partners/${other.id}/webhooks/test`), kind: 'event.unlock' })).status).toBe(404);

    // A viewer reads the message, but may change nothing.
    const read = await viewer.get(`${page}/${mine.id}`);
    expect(read.status).toBe(200);
    expect(read.text).not.toContain('>Resend<');
    for (const [action, fields] of [
      [`${page}/endpoint`, { webhookUrl: 'https://viewer.example/hooks', webhookEvents: 'all' }],
      [`${page}/test`, { kind: 'event.unlock' }],
      [`${page}/${mine.id}/resend`, {}],
    ] as const) {
      const res = await viewer.post(action, { _csrf: await csrfFor(t, viewer, action), ...fields });
      expect(res.status, action).toBe(403);
      expect(res.text).toContain('Your role cannot do this here');
    }

    // Signed out: the sign-in page, which comes back here.
    const stranger = new TestBrowser(t.app);
    for (const path of [page, `${page}/${mine.id}`]) {
      const res = await stranger.get(path);
      expect(res.status).toBe(303);
      expect(res.location).toBe(`/console/sign-in?next=${encodeURIComponent(path)}&ended=1`);
    }
    // A form without its token (or with another form's) is refused before it is read.
    expect((await dev.post(`${page}/test`, { kind: 'event.unlock' })).status).toBe(403);
    expect((await dev.post(`${page}/${mine.id}/resend`, { _csrf: await csrfFor(t, dev, `${page}/test`) })).status).toBe(403);
    expect((await dev.post(`${page}/endpoint`, { webhookUrl: 'https://evil.example', webhookEvents: 'all' })).status).toBe(403);

    expect(await audit(t)).toEqual(before);
    const rows = await t.db.read(async (tx) => await tx.select().from(webhookMessages));
    expect(rows.map((r) => r.state).sort()).toEqual(['pending', 'pending']);
    expect((await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.webhookUrl).toBeNull();
  });
});
