import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { consoleSteps } from './console.steps.js';

/**
 * The console's manual load in Chromium: an operator uploads a sheet with one bad row (refused,
 * the row and its cell named, nothing written), uploads it corrected, reads the preview and
 * applies it; each page checked (axe, no overflow at 390 px, no CSP violation nor console
 * error), and the events read back through the API.
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

/** A sheet of two events (ids of this journey's own), one show each, two ticket options; `currency` on the fourth row. */
function sheet(currency: string): string {
  return [
    'eventId,eventTitle,timezone,venueName,city,country,showId,showDate,ticketOptionId,ticketOptionName,price,currency',
    'e2e-load-rock,Rock Night,Europe/Madrid,Sala Sur,Sevilla,ES,rock-1,2026-10-01 21:00,stalls,Stalls,25.00,EUR',
    'e2e-load-rock,Rock Night,Europe/Madrid,Sala Sur,Sevilla,ES,rock-1,2026-10-01 21:00,balcony,Balcony,18.00,EUR',
    `e2e-load-jazz,Jazz Night,Europe/Madrid,Moll de la Fusta,Barcelona,ES,jazz-1,2026-10-02T20:30:00+02:00,ga,General admission,30.00,${currency}`,
    'e2e-load-jazz,Jazz Night,Europe/Madrid,Moll de la Fusta,Barcelona,ES,jazz-1,2026-10-02T20:30:00+02:00,table,Table for two,55.00,EUR',
    '',
  ].join('\n');
}

/** The event `id` of the sandbox through the API (its private key): the status. */
async function eventStatus(id: string): Promise<number> {
  return (await fetch(`${stack.serviceUrl}/v1/events/${id}`, { headers: { authorization: TEST_KEYS.private } })).status;
}

describe('the console’s manual load', () => {
  it('(L1) a sheet with one bad row is refused with its row and cell named, then corrected, previewed and applied', async () => {
    const partnerId = await sandboxId();
    const page = await person();
    await journey(page, 'console-manual-load', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await page.getByRole('link', { name: 'Manual load' }).click();
      await page.waitForURL(/\/load$/);
      await expectSoundPage(page, { label: 'the manual load tab' });

      await page.getByLabel('Sheet (CSV or .xlsx)').setInputFiles({ name: 'events.csv', mimeType: 'text/csv', buffer: Buffer.from(sheet('EUX')) });
      await page.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.locator('#errors h2').innerText()).toBe('The sheet has 1 problem(s)');
      await expectSoundPage(page, { label: 'a sheet refused for one bad row' });
      const problem = page.locator('#problems tbody tr');
      expect(await problem.count()).toBe(1);
      expect(await problem.locator('td').allInnerTexts()).toEqual(['4', 'currency', 'e2e-load-jazz', "currency must be an ISO 4217 currency code such as EUR (found 'EUX')"]);
      expect(await eventStatus('e2e-load-rock')).toBe(404);

      await page.getByLabel('Sheet (CSV or .xlsx)').setInputFiles({ name: 'events.csv', mimeType: 'text/csv', buffer: Buffer.from(sheet('EUR')) });
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.waitForURL(/\/load\/mld_[^/?]+$/);
      await expect.poll(() => page.locator('h2#load').innerText()).toBe('Preview of events.csv');
      await expectSoundPage(page, { label: 'the preview' });
      expect(await page.locator('main').innerText()).toContain('Nothing has been written yet');
      expect(await eventStatus('e2e-load-rock')).toBe(404);

      await page.getByRole('button', { name: 'Apply 2 event(s)' }).click();
      await page.waitForURL(/\?done=1$/);
      await expect.poll(() => page.locator('[role=status]').first().innerText()).toContain('Applied: 2 event(s) created, 0 updated.');
      await expectSoundPage(page, { label: 'the applied load' });
      expect(await eventStatus('e2e-load-rock')).toBe(200);
      expect(await eventStatus('e2e-load-jazz')).toBe(200);

      await page.getByRole('link', { name: 'Audit log' }).click();
      expect(await page.locator('main').innerText()).toContain('load.apply');
    });
  });
});
