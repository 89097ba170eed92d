import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { consoleSteps } from './console.steps.js';

/**
 * The console's webhooks tab in Chromium: the sandbox partner's endpoint pointed at a local
 * server that fails, a webhook that failed there resent from the delivery log once the server
 * is fixed, and what arrives checked against the sandbox's signing secret; each page checked
 * (axe, no overflow at 390 px, no CSP violation nor console error).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { consoleSignIn, sandboxId } = consoleSteps(() => stack);
const { person } = journeyBrowser();

/** One request the partner's endpoint got, and the status it answered. */
interface Received {
  headers: Record<string, string>;
  body: string;
  answered: number;
}

/** The partner's webhook endpoint on loopback: answers `status()` (with a body saying why), records every request. */
async function endpoint(status: () => number): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const flat = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = status();
      received.push({ headers: flat(req.headers), body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered, { 'content-type': 'application/json' });
      res.end(answered === 200 ? '{"received":true}' : '{"error":"our database is down"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/resale`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('the console’s webhooks', () => {
  it('(W1) a webhook that failed at the partner’s endpoint is resent from the log once the endpoint is fixed, and arrives signed', async () => {
    const partnerId = await sandboxId();
    let status = 500;
    const partner = await endpoint(() => status);
    try {
      const page = await person();
      await journey(page, 'console-webhooks', async () => {
        await consoleSignIn(page, TEST_KEYS.operatorEmail);
        await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
        await page.getByRole('link', { name: 'Webhooks' }).click();
        await page.waitForURL(/\/webhooks$/);
        await expectSoundPage(page, { label: 'the webhooks page' });

        // A URL that is no URL is refused, saying why; then the endpoint is the local server.
        await page.getByLabel('Endpoint URL').fill('partner.example/hooks');
        await page.getByRole('button', { name: 'Save endpoint' }).click();
        await expect.poll(() => page.locator('.error-summary').innerText()).toContain('Endpoint URL: must be an http(s) URL');
        await expectSoundPage(page, { label: 'the refused endpoint form' });
        await page.getByLabel('Endpoint URL').fill(partner.url);
        await page.getByRole('button', { name: 'Save endpoint' }).click();
        await page.waitForURL(/saved=endpoint/);
        await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Endpoint saved.');

        // A webhook goes out (a test event of a listing) and fails: the endpoint answers 500.
        await page.locator('#f-kind').selectOption('listing.created');
        await page.getByRole('button', { name: 'Send a test event' }).click();
        await page.waitForURL(/\/webhooks\/msg_[0-9a-z]+\?saved=test/);
        const messageId = /\/webhooks\/(msg_[0-9a-z]+)/.exec(page.url())![1]!;
        await expect
          .poll(
            async () => {
              await page.reload();
              return await page.locator('main').innerText();
            },
            { timeout: 15_000 },
          )
          .toContain('HTTP 500');
        expect(await page.getByLabel(/Answer to attempt 1/).inputValue()).toBe('{"error":"our database is down"}');
        await expectSoundPage(page, { label: 'a message that failed' });

        // The developer finds the message in the log; the partner fixes its endpoint; the message is resent.
        await page.getByRole('link', { name: 'Back to the delivery log' }).click();
        await page.locator('#f-log-action').selectOption('listing.created');
        await page.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(/action=listing.created/);
        await expectSoundPage(page, { label: 'the delivery log' });
        const row = page.locator('tr', { has: page.getByRole('link', { name: messageId }) });
        expect(await row.innerText()).toContain('test');
        await page.getByRole('link', { name: messageId }).click();
        status = 200;
        const before = partner.received.length;
        await page.getByRole('button', { name: 'Resend' }).click();
        await page.waitForURL(/saved=resent/);
        await expect.poll(() => page.getByText('Queued again').count()).toBe(1);

        // It arrives, signed with the sandbox's secret, with the same webhook-id.
        await expect.poll(() => partner.received.slice(before).filter((r) => r.answered === 200).length, { timeout: 15_000 }).toBeGreaterThan(0);
        const arrived = partner.received.slice(before).find((r) => r.answered === 200)!;
        expect(arrived.headers['webhook-id']).toBe(messageId);
        const body = new Webhook(TEST_KEYS.webhookSecret).verify(arrived.body, arrived.headers) as { action: string; data: { listingId: string } };
        expect(body).toMatchObject({ family: 'listing', action: 'listing.created', data: { listingId: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' } });
        expect(() => new Webhook(`whsec_${Buffer.from('another secret, not the sandbox one').toString('base64')}`).verify(arrived.body, arrived.headers)).toThrow();
        await expect
          .poll(
            async () => {
              await page.reload();
              return await page.locator('textarea[id^=f-answer-]').last().inputValue();
            },
            { timeout: 15_000 },
          )
          .toBe('{"received":true}');
        expect(await page.locator('main').innerText()).toMatch(/State\s+delivered/);
        await expectSoundPage(page, { label: 'a message resent and delivered' });
      });
    } finally {
      await partner.close();
    }
  });
});
