import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { consoleSteps } from './console.steps.js';

/**
 * The console's events section in Chromium: an operator finds the demo's festival, disables a
 * category for its show and sees it vanish from the buy access layer, brings it back, and is
 * told every error of a refused rules form; each page checked (axe, no overflow at 390 px, no
 * CSP violation nor console error).
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

/** The categories of the festival's buy access layer, read as the demo's pages read them (public key, the demo's origin). */
async function festivalCategories(): Promise<string[]> {
  const res = await fetch(`${stack.serviceUrl}/v1/wrapper/accesslayer?type=buy&eventId=demo-festival&showId=fest-1`, { headers: { authorization: TEST_KEYS.public, origin: stack.demoUrl } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { class: string; categoriesList?: { categories: { ticketOptionId: string }[] } }[] };
  return body.data.find((c) => c.class === 'categoriesList')!.categoriesList!.categories.map((c) => c.ticketOptionId);
}

describe('the console’s events', () => {
  it('(E1) an operator disables a category of the festival: it vanishes from the buy access layer, and comes back once enabled', async () => {
    const partnerId = await sandboxId();
    expect(await festivalCategories()).toEqual(['fest-ga', 'fest-early']);
    const page = await person();
    await journey(page, 'console-events', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.waitForURL(/\/events$/);
      await expectSoundPage(page, { label: 'the events list' });
      await page.getByLabel('Search by title or id').fill('fest');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/\/events\?q=fest/);
      expect(await page.getByRole('link', { name: 'Aurora Orchestra: Winter Gala' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Demo Fest: Summer Nights' }).click();
      await page.waitForURL(/\/events\/demo-festival$/);
      await expectSoundPage(page, { label: 'the festival’s page' });

      await page.getByRole('button', { name: 'Disable in this show: General admission' }).click();
      await page.waitForURL(/saved=category/);
      await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Category updated');
      await expectSoundPage(page, { label: 'the festival after a change' });
      expect(await festivalCategories()).toEqual(['fest-early']);

      await page.getByRole('button', { name: 'Enable in this show: General admission' }).click();
      await page.waitForURL(/saved=category/);
      expect(await festivalCategories()).toEqual(['fest-ga', 'fest-early']);

      // A refused rules form: every error at once, the typed values kept.
      await page.getByLabel('Rule type').first().selectOption('maxSell');
      await page.getByLabel('Value').first().fill('{"maxTickets": 0}');
      await page.getByLabel('Rule type').nth(1).selectOption('qrUnlock');
      await page.getByLabel('Value').nth(1).fill('soon');
      await page.getByRole('button', { name: 'Apply rules' }).click();
      await expect.poll(() => page.locator('.error-summary').innerText()).toContain('Rule 2, Value: Enter a JSON object');
      expect(await page.locator('.error-summary').innerText()).toContain('Rule 1, Value: rules.maxTickets');
      expect(await page.getByLabel('Value').nth(1).inputValue()).toBe('soon');
      await expectSoundPage(page, { label: 'the refused rules form' });

      await page.getByRole('link', { name: 'Audit log' }).click();
      const audit = await page.locator('main').innerText();
      expect(audit).toContain('category.disable');
      expect(audit).toContain('category.enable');
    });
  });
});
