import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';

/**
 * The console's money in Chromium: an operator opens the money page from the console bar, reads
 * the ledger report and downloads the payouts as CSV, then the sandbox partner's Money tab; each
 * page checked (axe, no overflow at 390 px, no CSP violation nor console error).
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

describe('the console’s money', () => {
  it('(M1) an operator opens the money page, reads the ledger report and downloads the payouts as CSV', async () => {
    const page = await person();
    await journey(page, 'console-money', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.getByRole('link', { name: 'Money', exact: true }).first().click();
      await page.waitForURL(`${stack.serviceUrl}/console/money`);
      await expectSoundPage(page, { label: 'the money page' });
      await expect.poll(() => page.getByRole('heading', { name: 'Ledger report' }).count()).toBe(1);
      expect(await page.locator('main').innerText()).toContain('Nothing to reconcile');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the payouts as CSV' }).click()]);
      expect(download.suggestedFilename()).toMatch(/^payouts-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
      expect(csv.split('\r\n')[0]).toBe('id,partner_id,seller_id,listing_id,amount,currency,state,overdue,due_at,delivered_at,cancelled_at,transfer_ref,last_error,created_at');

      // A bad period: the page says why, by its field.
      await page.getByLabel('From (included)').fill('not a date');
      await page.getByRole('button', { name: 'Show' }).click();
      await expect.poll(() => page.locator('#errors').count()).toBe(1);
      await expectSoundPage(page, { label: 'the money page with a bad period' });

      await page.goto(`${stack.serviceUrl}/console/partners/${await sandboxId()}/money`);
      await expectSoundPage(page, { label: 'a partner’s Money tab' });
      expect(await page.getByRole('link', { name: 'Money', exact: true }).last().getAttribute('aria-current')).toBe('page');
    });
  });
});
