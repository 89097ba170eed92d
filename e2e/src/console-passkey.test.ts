import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { start } from '@resale/server/start';
import { freePort } from '@resale/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { consoleSteps } from './console.steps.js';
import type { Stack } from './stack.js';

/**
 * Passkeys in the console, in Chromium with its virtual authenticator (WebAuthn through the
 * DevTools protocol: a platform authenticator that keeps discoverable credentials and verifies
 * its user). WebAuthn refuses an IP address as the relying party's id, and the shared stack
 * serves the service on 127.0.0.1, so this journey starts the service alone, on
 * http://localhost:<port> (a secure context, as https is): its PUBLIC_BASE_URL, hence its RP ID,
 * is `localhost`.
 */

const OPERATOR = 'operator@passkeys.test';
let dir: string;
let service: { stop(): Promise<void> } | undefined;
let serviceUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'resale-passkeys-'));
  // The address must be known before the start (it is the RP ID): a free port, and another one
  // should something take it between the probe and the listen.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    serviceUrl = `http://localhost:${port}`;
    try {
      service = await start({
        NODE_ENV: 'test',
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: serviceUrl,
        DATABASE_PATH: join(dir, 'resale.sqlite'),
        SECRET_KEY: 'passkeys-test-secret-key-0000000000000000',
        LOG_LEVEL: 'silent',
        OPERATOR_EMAILS: OPERATOR,
      });
      return;
    } catch (err) {
      if (attempt >= 5 || !String((err as { code?: string }).code ?? err).includes('EADDRINUSE')) throw err;
    }
  }
});

afterAll(async () => {
  await service?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The console's steps need only the service's address (the sign-in form, the mailbox).
const { consoleSignIn, mailbox } = consoleSteps(() => ({ serviceUrl }) as Stack);
const { person } = journeyBrowser();

/** Gives the page's browser a virtual platform authenticator that verifies its user; answers the authenticator's id. */
async function virtualAuthenticator(page: Page): Promise<{ credentials(): Promise<number> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length };
}

/** On the confirmation page: sends the code, reads it from the mailbox, enters it. */
async function confirmWithCode(page: Page): Promise<void> {
  await page.waitForURL(/\/console\/confirm\?/);
  await expectSoundPage(page, { label: 'the confirmation page' });
  const before = new Set((await mailbox(OPERATOR)).map((m) => m.id));
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.waitForURL(/\/console\/confirm\/code/);
  let code: string | undefined;
  await expect
    .poll(async () => {
      const sent = (await mailbox(OPERATOR)).find((m) => !before.has(m.id) && m.template === 'consoleCode');
      code = sent ? /\b(\d{6})\b/.exec(sent.text)?.[1] : undefined;
      return code;
    })
    .toBeTruthy();
  await page.getByLabel('Code').fill(code!);
  await page.getByRole('button', { name: 'Confirm' }).click();
}

describe('console passkeys', () => {
  it('(P1) an operator signs in by code, adds a passkey, signs out and back in with it; adding another asks a fresh code; removing it signs that session out', async () => {
    const page = await person();
    const authenticator = await virtualAuthenticator(page);
    await journey(page, 'console-passkey', async () => {
      await consoleSignIn(page, OPERATOR);
      await page.getByRole('link', { name: 'Your account' }).click();
      await page.waitForURL(`${serviceUrl}/console/account`);
      await expectSoundPage(page, { label: 'the account page' });
      await page.getByRole('link', { name: 'Add a passkey' }).click();
      // Signed in by a code a moment ago: that code is fresh, so no second one is asked yet.
      await page.waitForURL(`${serviceUrl}/console/account/passkeys/new`);
      await expect.poll(() => page.getByRole('button', { name: 'Create the passkey' }).isVisible()).toBe(true);
      await expectSoundPage(page, { label: 'the page that adds a passkey' });
      await page.getByLabel('Name').fill('Virtual key');
      await page.getByRole('button', { name: 'Create the passkey' }).click();
      await page.waitForURL(/\/console\/account\?added=/);
      await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Passkey “Virtual key” added.');
      expect(await authenticator.credentials()).toBe(1);
      await expectSoundPage(page, { label: 'the account page with a passkey' });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/console\/sign-in\?signed-out=1/);
      await expect.poll(() => page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).toBe(true);
      await expectSoundPage(page, { label: 'the sign-in page with its passkey button' });
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.waitForURL(`${serviceUrl}/console`);
      expect(await page.locator('.console-bar').innerText()).toContain(`Signed in as ${OPERATOR}`);

      // A passkey is not a fresh code: adding a way in asks for one.
      await page.goto(`${serviceUrl}/console/account/passkeys/new`);
      await confirmWithCode(page);
      await page.waitForURL(`${serviceUrl}/console/account/passkeys/new`);
      await expect.poll(() => page.getByRole('button', { name: 'Create the passkey' }).isVisible()).toBe(true);

      await page.goto(`${serviceUrl}/console/account`);
      await page.getByLabel('New name of “Virtual key”').fill('Laptop key');
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.waitForURL(/\/console\/account\?renamed=1/);
      expect(await page.locator('main').innerText()).toContain('Laptop key');
      await page.getByRole('button', { name: 'Remove “Laptop key”' }).click();
      // This session was signed in with that passkey: it ends with it.
      await page.waitForURL(/\/console\/sign-in\?signed-out=1/);
      // The browser still holds the credential; the service no longer knows it.
      await expect.poll(() => page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible()).toBe(true);
      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.waitForURL(/\/console\/sign-in\/passkey/);
      expect(await page.locator('[role=alert]').first().innerText()).toContain('That passkey is not known here');
      await expectSoundPage(page, { label: 'the refused passkey' });
    });
  });
});
