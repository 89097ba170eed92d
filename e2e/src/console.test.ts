import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { servePage, startStack, TEST_KEYS, type Stack } from './stack.js';
import { consoleSteps } from './console.steps.js';

/**
 * The console in Chromium, as operators and partners' people use it: signing in with a code
 * from the mailbox, each page checked (axe, no overflow at 390 px, no CSP violation nor console
 * error), and what a change does read back through the API or seen on a partner's page.
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

describe('the console', () => {
  it('(C1) an operator signs in, creates a partner, sets its QR lock hours and reads them back through the API', async () => {
    const page = await person();
    await journey(page, 'console-operator', async () => {
      await consoleSignIn(page, TEST_KEYS.operatorEmail);
      await expectSoundPage(page, { label: 'the console home' });
      await page.getByRole('link', { name: 'Partners' }).first().click();
      await expectSoundPage(page, { label: 'the partners page' });
      await page.getByLabel('Name', { exact: true }).fill('Acme Tickets');
      await page.getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => page.locator('h1').innerText()).toBe('Keys of Acme Tickets');
      await expectSoundPage(page, { label: 'the new keys' });
      const privateKey = (await page.locator('code.secret').first().innerText()).trim();
      expect(privateKey).toMatch(/^sk_/);
      await page.getByRole('link', { name: 'Go to the partner' }).click();
      const partnerId = /\/console\/partners\/(ptr_[^/?#]+)/.exec(page.url())![1]!;
      await expectSoundPage(page, { label: 'the partner settings' });
      await page.getByLabel('QR codes unlock (hours before the show)').fill('48');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(/saved=settings/);
      await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Saved.');
      expect((await admin(`/admin/v1/partners/${partnerId}`)).data.settings.qrLockHoursBeforeShow).toBe(48);
      // The key shown once works.
      expect((await fetch(`${stack.serviceUrl}/v1/events/none`, { headers: { authorization: privateKey } })).status).toBe(404);
      await page.getByRole('link', { name: 'Audit log' }).click();
      await expectSoundPage(page, { label: 'the audit log' });
      expect(await page.locator('main').innerText()).toContain('partner.update');
    });
  });

  it('(C2) a partner developer signs in and allows their origin: the README’s minimal embed renders on a page of that origin; a viewer’s change is refused', async () => {
    const partnerId = await sandboxId();
    const operator = await person();
    await journey(operator, 'console-invite', async () => {
      await consoleSignIn(operator, TEST_KEYS.operatorEmail);
      await operator.goto(`${stack.serviceUrl}/console/partners/${partnerId}/team`);
      await expectSoundPage(operator, { label: 'the team page' });
      await operator.getByLabel('Work e-mail').fill('dev@demo.test');
      await operator.getByLabel('Role', { exact: true }).selectOption('developer');
      await operator.getByRole('button', { name: 'Invite' }).click();
      await operator.waitForURL(/saved=invited/);
      await operator.getByLabel('Work e-mail').fill('viewer@demo.test');
      await operator.getByLabel('Role', { exact: true }).selectOption('viewer');
      await operator.getByRole('button', { name: 'Invite' }).click();
      await operator.waitForURL(/saved=invited/);
    });

    const embed = (url: string) =>
      `<!doctype html><html lang="en"><head><title>Event</title><script type="module" src="${stack.serviceUrl}/widgets/v1/resale.js"></script></head>
<body><main><h1>Demo Fest</h1><resale-access-layer event-id="demo-festival" show-id="fest-1" lang="en" public-key="${TEST_KEYS.public}"></resale-access-layer><p>${url}</p></main></body></html>`;
    const site = await servePage({ 'content-security-policy': `default-src 'none'; script-src ${stack.serviceUrl}; connect-src ${stack.serviceUrl}; img-src 'self' data:` }, embed('partner page'));
    const origin = new URL(site.url).origin;
    try {
      const dev = await person();
      await journey(dev, 'console-developer', async () => {
        // Before: the service refuses the page's origin (the element would stay empty there).
        const refused = await fetch(`${stack.serviceUrl}/v1/wrapper/accesslayer?type=buy&eventId=demo-festival&showId=fest-1`, { headers: { authorization: TEST_KEYS.public, origin } });
        expect(refused.status).toBe(403);
        await consoleSignIn(dev, 'dev@demo.test');
        await dev.goto(`${stack.serviceUrl}/console/partners/${partnerId}/developers`);
        await expectSoundPage(dev, { label: 'the developers page' });
        const origins = dev.getByLabel('Origins');
        await origins.fill(`${await origins.inputValue()}\n${origin}`);
        await dev.getByRole('button', { name: 'Save origins' }).click();
        await dev.waitForURL(/saved=origins/);
        await dev.goto(site.url);
        // Playwright's locators pierce the widgets' shadow roots: the categories list shows the show's options.
        await expect.poll(() => dev.locator('resale-access-layer').getByText('General admission').count(), { timeout: 10_000 }).toBe(1);
      });
    } finally {
      await site.close();
    }

    const viewer = await person();
    await journey(viewer, 'console-viewer', async () => {
      await consoleSignIn(viewer, 'viewer@demo.test');
      await viewer.goto(`${stack.serviceUrl}/console/partners/${partnerId}`);
      await expectSoundPage(viewer, { label: 'the settings a viewer reads' });
      expect(await viewer.getByRole('button', { name: 'Save' }).count()).toBe(0);
      // A viewer who forges the developers' form is refused, and nothing changes.
      await viewer.goto(`${stack.serviceUrl}/console/partners/${partnerId}/developers`);
      expect(await viewer.getByRole('button', { name: 'Save origins' }).count()).toBe(0);
      const before = (await admin(`/admin/v1/partners/${partnerId}`)).data.settings.allowedOrigins;
      // The form's own token, posted with the viewer's cookies (the page's policy allows no fetch).
      const action = `/console/partners/${partnerId}/origins`;
      const csrf = await viewer.locator(`form[action="${action}"] input[name=_csrf]`).getAttribute('value');
      const status = (await viewer.context().request.post(`${stack.serviceUrl}${action}`, { form: { _csrf: csrf!, allowedOrigins: 'https://viewer.example' }, maxRedirects: 0 })).status();
      expect(status).toBe(403);
      expect((await admin(`/admin/v1/partners/${partnerId}`)).data.settings.allowedOrigins).toEqual(before);
    });
  });
});
