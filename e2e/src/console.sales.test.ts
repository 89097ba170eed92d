import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { ANA, steps } from './steps.js';

/**
 * The console's sales tab in Chromium: Ana sells her demo festival ticket, Ben buys it, and an
 * operator finds the resale by the buyer's e-mail and reads its timeline (listed, reserved,
 * paid with the card, the ledger, the partner's ticket.update delivered, the payout
 * scheduled); each page checked (axe, no overflow at 390 px, no CSP violation nor console
 * error).
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { signIn, sell, reserve, pay } = steps(() => stack);
const { consoleSignIn, sandboxId } = consoleSteps(() => stack);
const { person } = journeyBrowser();

const BEN = { name: 'Ben Okafor', email: 'ben@demo.test' };

describe('the console’s sales', () => {
  it('(S1) an operator finds a resale by the buyer’s e-mail and reads its timeline', async () => {
    // Ana sells her festival ticket on the demo (€38.50, €42.35 with the buyer's fee); Ben buys it.
    const seller = await person();
    await journey(seller, 'console-sales-sell', async () => {
      await signIn(seller, ANA.name);
      await sell(seller, 'dt-festival-0001', '38.50', ANA.email);
    });
    const fan = await person();
    await journey(fan, 'console-sales-buy', async () => {
      await signIn(fan, BEN.name);
      await fan.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = fan.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      await category.getByRole('link', { name: 'See tickets' }).click();
      await fan.waitForURL(/\/market\/ptr_[^/]+\/demo-festival\?/);
      await reserve(fan, fan.getByRole('button', { name: 'Buy' }));
      await fan.waitForURL(/\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/);
      await pay(fan, '4242 4242 4242 4242');
      await fan.waitForURL(/\/done\?/);
    });
    const orderId = /\/checkout\/ptr_[^/]+\/(bi_[^/?]+)\//.exec(fan.url())?.[1];
    expect(orderId, fan.url()).toBeTruthy();

    const page = await person();
    await journey(page, 'console-sales', async () => {
      const partnerId = await sandboxId();
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await page.getByRole('link', { name: 'Sales' }).click();
      await page.waitForURL(/\/sales$/);
      await expectSoundPage(page, { label: 'the sales page' });

      // Found by the buyer's e-mail.
      await page.getByLabel('Ticket id, e-mail or order').fill(BEN.email.toUpperCase());
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/sales\?q=/);
      const row = page.locator('tr', { has: page.getByRole('link', { name: orderId! }) });
      expect(await row.innerText()).toContain(BEN.email);
      expect(await row.innerText()).toContain('€42.35');
      await expectSoundPage(page, { label: 'the sales found by e-mail' });

      // Its timeline, the partner's ticket.update delivered by the outbox.
      await page.getByRole('link', { name: orderId! }).click();
      await page.waitForURL(new RegExp(`/sales/${orderId}$`));
      await expect
        .poll(
          async () => {
            await page.reload();
            return await page.locator('#timeline ~ .table-wrap').innerText();
          },
          { timeout: 30_000, interval: 500 },
        )
        .toContain('Webhook ticket.update delivered to the partner');
      const text = await page.locator('#timeline ~ .table-wrap').innerText();
      for (const step of ['Listed by', `Reserved by ${BEN.email}`, 'Paid €42.35 with card •••• 4242', 'Ledger: the sale booked', 'Payout of', 'scheduled for']) expect(text).toContain(step);
      // Operators may refund it (after a fresh code); nothing is refunded here.
      expect(await page.getByRole('button', { name: 'Refund €42.35' }).count()).toBe(1);
      await expectSoundPage(page, { label: 'a resale’s timeline' });

      // The webhook's entry opens its message in the webhooks tab.
      await page.locator('#timeline ~ .table-wrap').getByRole('link', { name: /message msg_/ }).first().click();
      await page.waitForURL(/\/webhooks\/msg_[0-9a-z]+$/);
      expect(await page.locator('main').innerText()).toContain('ticket.update');
      await expectSoundPage(page, { label: 'the ticket.update message' });
    });
  });
});
