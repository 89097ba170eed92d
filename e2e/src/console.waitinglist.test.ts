import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';

/**
 * A show's waiting list in the console, in Chromium: the festival's line filled through the
 * partner API, then an operator opens it from the event page, reads the line, is told every
 * error of a refused settings form (the typed values kept), saves the settings, downloads the
 * history as CSV and finds the change in the audit log; each page checked (axe, no overflow at
 * 390 px, no CSP violation nor console error).
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

const SHOW = { externalReferenceEventId: 'demo-festival', showId: 'fest-1' };

/** A call of the partner API with the sandbox's private key; its status checked. */
async function partnerApi(method: 'PUT' | 'POST', path: string, body: unknown, status: number): Promise<void> {
  const res = await fetch(`${stack.serviceUrl}${path}`, { method, headers: { authorization: TEST_KEYS.private, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBe(status);
}

describe('the console’s waiting list', () => {
  it('(W1) an operator reads the festival’s line, is told every error of a refused form, saves the settings and downloads the history', async () => {
    const partnerId = await sandboxId();
    await partnerApi('PUT', '/v1/waitinglist/settings', { ...SHOW, enabled: true, priceCap: 'RULES' }, 200);
    for (const [user, quantity] of [['ana@demo.test', 2], ['ben@demo.test', 1], ['dan@demo.test', 4]] as const) {
      await partnerApi('POST', '/v1/waitinglist/entries', { ...SHOW, user, quantity, together: false }, 201);
    }
    const page = await person();
    await journey(page, 'console-waitinglist', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}/events/demo-festival`);
      expect(await page.locator('main').innerText()).toContain('On: 3 fans in the line.');
      await page.getByRole('link', { name: 'See the waiting list' }).click();
      await page.waitForURL(/\/shows\/fest-1\/waiting-list$/);
      await expectSoundPage(page, { label: 'the festival’s waiting list' });
      const line = page.getByRole('table').first();
      expect(await line.locator('tbody tr').count()).toBe(3);
      expect(await line.locator('tbody tr').first().innerText()).toMatch(/^1\s+ana@demo\.test\s+2\s+any\s+waiting/);

      // A refused form: every error at once, each linked to its field, the typed values kept.
      await page.getByLabel('Offer window (minutes)').fill('4');
      await page.getByLabel('Quiet from').fill('25:00');
      await page.getByRole('button', { name: 'Save the waiting list settings' }).click();
      await expect.poll(() => page.locator('.error-summary').innerText()).toContain('Offer window (minutes): Enter a whole number of minutes from 5 to 1440.');
      const summary = await page.locator('.error-summary').innerText();
      expect(summary).toContain('Quiet from: Enter a time of day as HH:MM');
      expect(summary).toContain('Quiet until: Enter both times, or neither.');
      expect(await page.getByLabel('Quiet from').inputValue()).toBe('25:00');
      await expectSoundPage(page, { label: 'the refused settings form' });

      await page.getByLabel('Offer window (minutes)').fill('20');
      await page.getByLabel('Quiet from').fill('22:00');
      await page.getByLabel('Quiet until').fill('08:00');
      await page.getByLabel('Face value', { exact: false }).check();
      await page.getByRole('button', { name: 'Save the waiting list settings' }).click();
      await page.waitForURL(/saved=1/);
      await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Waiting list settings saved.');
      expect(await page.getByLabel('Quiet until').inputValue()).toBe('08:00');
      await expectSoundPage(page, { label: 'the waiting list after saving' });

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the whole history (CSV)' }).click()]);
      expect(download.suggestedFilename()).toBe(`waitinglist-${partnerId}-demo-festival-fest-1.csv`);
      const csv = readFileSync((await download.path())!, 'utf8').replace(/^\uFEFF/, '').split('\r\n');
      expect(csv[0]).toBe('seq,at,kind,entryId,entrySeq,offerId,userId,email,phone,ticketOptionId,quantity,together,listingIds,reason');
      expect(csv.filter((l) => l.includes(',joined,'))).toHaveLength(3);

      await page.getByRole('link', { name: 'Audit log' }).click();
      expect(await page.locator('main').innerText()).toContain('waitinglist.settings.set');
    });
  });
});
