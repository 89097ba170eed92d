import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';

/**
 * The console's settings page in Chromium: the preview of the brand and of the buy banner
 * follows what an operator types, drawn by the hosted pages' own header and by the widget
 * itself, before anything is saved; then saving it brands the market. The page is checked as
 * every page is (axe, no overflow at 390 px, no CSP violation nor console error): the preview
 * runs the page script, the widgets and a fetch under the console's policy.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { consoleSignIn, admin, sandboxId } = consoleSteps(() => stack);
const { person } = journeyBrowser();

describe('the console’s settings preview', () => {
  it('(S1) an operator types a brand and a banner, sees both previewed live, and saves them', async () => {
    const partnerId = await sandboxId();
    const brandBefore = (await admin(`/admin/v1/partners/${partnerId}`)).data.settings.branding;
    const page = await person();
    await journey(page, 'console-settings-preview', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await page.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await expectSoundPage(page, { label: 'the settings with their preview' });
      const preview = page.locator('#preview');

      await page.getByLabel('Name fans know (blank: no branding)').fill('Demo Live Tickets');
      await page.getByLabel('Colour (#rrggbb, 4.5:1 against white)').fill('#5b21b6');
      await expect.poll(async () => await preview.locator('header.site .brand').textContent()).toContain('Demo Live Tickets');
      await expect.poll(async () => await preview.getByRole('link', { name: 'A link in the brand colour' }).evaluate((a) => getComputedStyle(a).color)).toBe('rgb(91, 33, 182)');

      const banner = {
        buyBanner: {
          visible: true,
          title: { en: 'Missed the on-sale?', es: '¿Te quedaste sin entrada?' },
          description: { en: 'Fans resell here at face value.', es: 'Los fans revenden aquí al precio original.' },
          ctaText: { en: 'See tickets', es: 'Ver entradas' },
          colors: { background: '#0b3d91', text: '#ffffff' },
        },
      };
      await page.getByLabel(/^Buy access layer/).fill(JSON.stringify(banner, null, 2));
      await expect.poll(async () => await preview.locator('resale-buy-banner').getByRole('heading').textContent()).toBe('Missed the on-sale?');
      await expect(preview.locator('resale-buy-banner').getByRole('link', { name: 'See tickets' }).isVisible()).resolves.toBe(true);
      // A broken JSON says why in the preview, and nothing was saved on the way.
      await page.getByLabel(/^Buy access layer/).fill('{ "buyBanner": ');
      await expect.poll(async () => await preview.textContent()).toContain('The buy access layer cannot be previewed');
      expect((await admin(`/admin/v1/partners/${partnerId}`)).data.settings.branding).toEqual(brandBefore);
      await expectSoundPage(page, { label: 'the settings preview after typing' });

      await page.getByLabel(/^Buy access layer/).fill(JSON.stringify(banner));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/saved=settings/);
      const saved = (await admin(`/admin/v1/partners/${partnerId}`)).data.settings;
      expect(saved.branding).toMatchObject({ displayName: 'Demo Live Tickets', color: '#5b21b6' });
      expect(saved.buyAccessLayer.buyBanner.title.en).toBe('Missed the on-sale?');
    });
  });
});
