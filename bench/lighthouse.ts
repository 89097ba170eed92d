/**
 * Lighthouse (mobile, its default: a mid-range phone on slow 4G, simulated) on the pages a fan
 * meets on the way to a ticket: the demo partner's event page (the widgets), the service's market
 * page, its checkout and the secure ticket view. Target ≥ 95 in performance, accessibility and best
 * practices. Lighthouse 12 from npm drives Debian's Chromium (no browser download here).
 *
 * The browser is one persistent profile with a debugging port: Playwright signs the buyer in
 * and holds a ticket (the checkout needs a session and a hold), then Lighthouse opens each
 * page in the same profile without resetting its storage, so it sees what the fan sees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { startTestStack, TEST_KEYS } from '@resale/demo/testing';
import { freePort } from '@resale/server/testing';

const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const TARGET = 95;

export async function run(): Promise<Record<string, number>> {
  const stack = await startTestStack();
  const profile = mkdtempSync(join(tmpdir(), 'resale-lh-'));
  const port = await freePort();
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [`--remote-debugging-port=${port}`, '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  try {
    // A listing on the festival's market (through the channels API: no seller session needed).
    const listed = await fetch(`${stack.serviceUrl}/v1/channels/listings`, {
      method: 'POST',
      headers: { authorization: TEST_KEYS.channels, 'content-type': 'application/json' },
      body: JSON.stringify({ externalListingId: 'lh-1', externalReferenceEventId: 'demo-festival', showId: 'fest-1', ticketOptionId: 'fest-ga', priceTypeId: 'standard', quantity: 1, price: 36, currency: 'EUR' }),
    });
    if (listed.status !== 200) throw new Error(`channel listing: ${listed.status} ${await listed.text()}`);
    const page = await context.newPage();
    // Ben signs in on the demo, opens the market from the event page and holds the ticket.
    await page.goto(`${stack.demoUrl}/login`);
    await page.getByRole('button', { name: 'Ben Okafor' }).click();
    await page.waitForURL(`${stack.demoUrl}/`);
    const eventPage = `${stack.demoUrl}/events/demo-festival`;
    await page.goto(eventPage);
    await page.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]').getByRole('link').click();
    await page.waitForURL(/\/market\//);
    const marketPage = page.url();
    await page.getByRole('button', { name: 'Buy' }).first().click();
    await page.waitForURL((u) => /\/checkout\//.test(u.pathname) || u.searchParams.has('listingIds'));
    if (!/\/checkout\//.test(page.url())) {
      await page.getByRole('button', { name: 'Reserve and pay' }).click();
      await page.waitForURL(/\/checkout\//);
    }
    const checkoutPage = page.url();
    await page.close();
    // A ticket's secure view (ticketShield), as its holder opens it from My tickets.
    const view = await fetch(`${stack.serviceUrl}/v1/tickets/dt-gala-a5/url`, { headers: { authorization: TEST_KEYS.private } });
    if (view.status !== 200) throw new Error(`ticket view URL: ${view.status} ${await view.text()}`);
    const ticketPage = ((await view.json()) as { data: string }).data;

    const figures: Record<string, number> = {};
    console.log(`lighthouse (mobile): performance / accessibility / best practices, target ≥ ${TARGET}`);
    for (const [name, url] of [['demo event page', eventPage], ['market', marketPage], ['checkout', checkoutPage], ['ticket view', ticketPage]] as const) {
      const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES], disableStorageReset: true });
      if (!result) throw new Error(`no Lighthouse result for ${url}`);
      const scores = CATEGORIES.map((c) => Math.round((result.lhr.categories[c]?.score ?? 0) * 100));
      CATEGORIES.forEach((c, i) => (figures[`${name} ${c}`] = scores[i]!));
      const failing = Object.values(result.lhr.audits)
        .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'manual' && a.scoreDisplayMode !== 'notApplicable')
        .map((a) => a.id);
      console.log(`  ${name.padEnd(16)} ${scores.join(' / ')}${scores.some((s) => s < TARGET) ? '   BELOW TARGET' : ''}${failing.length ? `   (audits below 0.9: ${failing.join(', ')})` : ''}`);
    }
    return figures;
  } finally {
    await context.close();
    await stack.stop();
    rmSync(profile, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
