import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestPartner, freePort, startTestService, type TestService } from '../testing/service.js';
import { createResaleClient, unwrap } from './index.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = `${PACKAGE}examples/quickstart.ts`;

/** Runs the example with tsx, as a partner would: its exit code and what it printed. */
async function runExample(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], { cwd: PACKAGE, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr };
}

describe('examples/quickstart.ts', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('runs against the real service: event, tickets, both access layers and a real webhook', async () => {
    const port = await freePort();
    const partner = await createTestPartner(service, { webhookUrl: `http://127.0.0.1:${port}/hooks/resale` });
    const run = await runExample({
      RESALE_BASE_URL: service.baseUrl,
      RESALE_KEY: partner.keys.private,
      RESALE_CHANNELS_KEY: partner.keys.channels,
      RESALE_WEBHOOK_SECRET: partner.webhookSecret,
      RESALE_WEBHOOK_PORT: String(port),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const eventId = /^event created: (quickstart-\d+) \(evt_\w+\)$/m.exec(run.stdout)?.[1];
    expect(eventId, run.stdout).toBeDefined();
    expect(run.stdout).toContain('tickets synced: 2 created, 0 rejected');
    expect(run.stdout).toContain('sell access layer: t-1 SELLABLE');
    expect(run.stdout).toContain('sell access layer: t-2 SELLABLE');
    expect(run.stdout).toMatch(/^buy access layer: .*buyButton/m);
    const listingId = /^channel listing: (lst_\w+) ACTIVE$/m.exec(run.stdout)?.[1];
    expect(listingId, run.stdout).toBeDefined();
    expect(run.stdout).toContain(`webhook verified: listing.created ${listingId} ACTIVE`);

    // What the example wrote is there, read back with the client.
    const resale = createResaleClient({ baseUrl: service.baseUrl, key: partner.keys.private });
    const { data: event } = unwrap(await resale.getEvent({ params: { path: { externalReferenceId: eventId! } } }));
    expect(event.title).toBe('Quickstart Live');
    expect(event.shows.map((s) => s.showId)).toEqual(['show-1']);
    for (const ticketId of ['t-1', 't-2']) {
      const { data: ticket } = unwrap(await resale.getTicket({ params: { path: { ticketId } } }));
      expect(ticket.externalReferenceEventId).toBe(eventId);
    }
    // And the service recorded the webhook as delivered.
    const operator = createResaleClient({ baseUrl: service.baseUrl, key: service.operatorToken });
    await vi.waitFor(
      async () => {
        const { data: messages } = unwrap(await operator.listPartnerWebhooks({ params: { path: { partnerId: partner.partner.id }, query: { action: 'listing.created' } } }));
        expect(messages.map((m) => m.state)).toEqual(['delivered']);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('is in the README verbatim', () => {
    const readme = readFileSync(`${PACKAGE}README.md`, 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks, 'README.md must hold examples/quickstart.ts in a ```ts block').toContain(readFileSync(EXAMPLE, 'utf8'));
  });
});
