import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp } from '../../../testing/harness.js';
import { eventBody } from '../../../testing/factories.js';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfFor, signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** The partner's platform on a real loopback port: its events feed answers `body`. */
async function feedServer(body: unknown): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/feed/events`;
}

describe('console feeds panel (the events tab)', () => {
  it('shows where the feeds are read from and their last polls; polling now applies the feed and names the skipped item', async () => {
    const t = createTestApp();
    await withOperators(t, OPERATOR);
    const url = await feedServer([eventBody('feed-tour', { title: 'Tour from the feed' }), { externalReferenceId: 'broken' }]);
    const p = await t.partner('Acme', { eventsFeedUrl: url });
    const ops = await signIn(t, OPERATOR);
    const page = `/console/partners/${p.id}/events`;
    const before = await ops.get(page);
    expect(before.status).toBe(200);
    expect(before.text).toContain('Events feed');
    expect(before.text).toContain(`<code>${url}</code>`);
    expect(before.text).toContain('Cancellations feed');
    expect(before.text).toContain('not configured');
    expect(before.text).toContain('not polled yet');
    expect(before.text).toContain('No poll yet.');

    const polled = await submit(ops, page, `/console/partners/${p.id}/feeds/poll`, {});
    expect(polled.status).toBe(303);
    const after = await ops.get(polled.location!);
    expect(after.text).toContain('Polled: 1 applied, 1 skipped, 0 failed.');
    expect(after.text).toContain('Tour from the feed');
    expect(after.text).toMatch(/Last poll: [^<]+: 1 applied, 1 skipped/);
    expect(after.text).toContain('broken');
    const [entry] = await t.db.read(async (tx) => await tx.select().from(auditLog));
    expect(entry).toMatchObject({ action: 'feeds.poll', actorEmail: OPERATOR, partnerId: p.id });
  });

  it('says so when no feed is configured, and shows a viewer the panel without the button (another partner’s not at all)', async () => {
    const t = createTestApp();
    await withOperators(t, OPERATOR);
    const p = await t.partner('Acme');
    const other = await t.partner('Other');
    const ops = await signIn(t, OPERATOR);
    const page = `/console/partners/${p.id}/events`;
    expect((await ops.get(page)).text).not.toContain('Poll the feeds now');
    const poll = `/console/partners/${p.id}/feeds/poll`;
    const none = await ops.post(poll, { _csrf: await csrfFor(t, ops, poll) });
    expect(none.location).toContain('polled=none');
    expect((await ops.get(none.location!)).text).toContain('No feed is configured: set their addresses in Settings first.');

    expect((await submit(ops, `/console/partners/${p.id}/team`, `/console/partners/${p.id}/team`, { email: 'vi@acme.example', role: 'viewer' })).status).toBe(303);
    const viewer = await signIn(t, 'vi@acme.example');
    const seen = await viewer.get(page);
    expect(seen.text).toContain('Events feed');
    expect(seen.text).not.toContain('Poll the feeds now');
    // (A viewer's poll with a valid form is refused in console.roles.test.ts, with every action.)
    expect((await viewer.get(`/console/partners/${other.id}/events`)).status).toBe(404);
    expect((await t.db.read(async (tx) => await tx.select().from(auditLog))).map((e) => e.action)).not.toContain('feeds.poll');
  });
});
