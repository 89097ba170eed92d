// jsQR is CommonJS whose module.exports also carries the function as `default` (what its types name).
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCode } from '@resale/shared/admission-code';
import { expectSoundPage, journey, journeyBrowser, PHONE } from './browser.js';
import { startStack, type Stack } from './stack.js';
import { EVENT, ticketCodeSteps } from './ticket-code.steps.js';
import { ANA, CARLA } from './steps.js';

/**
 * The rotating code on a phone, in Chromium against the running service and the demo partner:
 * the holder opens the ticket from its link, signs in (the partner's Login Force) and the page
 * draws a QR that changes every step; the test reads the QR off the screen (a screenshot of the
 * canvas, decoded with jsQR as a camera would) and scans it at the door (POST
 * /v1/tickets/admission/verify). Then without the service: the page reloads from its service
 * worker and still draws valid codes from the phone's keys. Then a transfer: the seller's page
 * drops the code, the buyer's shows a new one, and a forwarded link shows none.
 *
 * The phone's clock is Playwright's (installed on the page, fast-forwarded a step instead of
 * waiting 15 s): the page makes codes at the service's time, so a step ahead of the service is
 * still within the door's window.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { rotatingShow, ticketFor, viewUrl } = ticketCodeSteps(() => stack);
// The page's own status checks fail on purpose here: the service stopped, the ticket resold.
const { person } = journeyBrowser();
const phone = () => person({ deviceScaleFactor: 2, expectedFailures: /\/tickets\/view\/[^/]+\/code(\?|$)/ });

/** The QR on the page, read off a screenshot of its canvas as a camera would: its text and the step the page drew. */
async function readQr(page: Page): Promise<{ text: string; step: number }> {
  const canvas = page.locator('[data-code-canvas]');
  await canvas.waitFor({ state: 'visible' });
  const step = Number(await canvas.getAttribute('data-step'));
  const png = PNG.sync.read(await canvas.screenshot());
  const found = jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(found, 'a QR code in the canvas').not.toBeNull();
  return { text: found!.data, step };
}

/** The door: a scan of `text` (the partner's private key). */
async function scan(text: string) {
  const res = await stack.api('POST', '/v1/tickets/admission/verify', { text, externalReferenceEventId: EVENT, showId: 'night-1' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { valid: boolean; reason: string; repeat: boolean; ticket: { ticketId: string } | null };
}

const status = (page: Page) => page.locator('[data-code-status]');

describe('the rotating code on the holder’s phone', () => {
  it('(R1) the holder signs in from the link; the page draws a code that changes each step, and the door admits it once', async () => {
    await rotatingShow();
    const url = await ticketFor('gate-1', ANA.email);
    const page = await phone();
    await page.setViewportSize(PHONE);
    await page.clock.install();
    await journey(page, 'ticket-code-sign-in', async () => {
      await page.goto(url);
      const text = await page.locator('main').innerText();
      // Never the partner's static QR nor its code, and no PDF of a code that must move.
      expect(await page.content()).not.toContain('STATIC-gate-1');
      expect(text).not.toContain('Download the ticket');
      expect(text).toContain('It changes every 15 seconds');
      await expect.poll(() => status(page).innerText()).toContain('Sign in to show your ticket’s code');
      await expectSoundPage(page, { label: 'the ticket view before sign-in' });
      // The partner's Login Force: its sign-in page, then back here with a session of the service.
      await page.getByRole('link', { name: 'Sign in to show the code' }).click();
      await page.waitForURL(/\/login\?/);
      await page.getByRole('button', { name: ANA.name }).click();
      await page.waitForURL((u) => u.href.startsWith(url.split('?')[0]!));
    });

    const first = await journey(page, 'ticket-code-first', async () => {
      const read = await readQr(page);
      expect(await page.locator('[data-code-sign-in]').isHidden()).toBe(true);
      await expect.poll(() => status(page).isHidden()).toBe(true);
      await expectSoundPage(page, { label: 'the ticket view with its rotating code' });
      return read;
    });
    const parsed = parseCode(first.text);
    expect(parsed.ok && parsed.code.step).toBe(first.step);

    // A step later the page shows another code (the phone's clock moved, not the test's wait).
    // The phone's clock also runs in real time, so a step boundary may pass between the first
    // read and the jump: the page then shows a step or two on, both within the door's window.
    await page.clock.fastForward(15_000);
    await expect.poll(async () => Number(await page.locator('[data-code-canvas]').getAttribute('data-step'))).toBeGreaterThan(first.step);
    const second = await readQr(page);
    expect(second.step - first.step).toBeLessThanOrEqual(2);
    expect(second.text).not.toBe(first.text);

    // The door: the newest code admits; the one before it (a screenshot passed on) is refused.
    expect(await scan(second.text)).toMatchObject({ valid: true, reason: 'admitted', repeat: false, ticket: { ticketId: 'gate-1' } });
    expect(await scan(first.text)).toMatchObject({ valid: false, reason: 'already_admitted' });
    // The page's next check hears the ticket was used: the code goes.
    await page.clock.fastForward(20_000);
    await expect.poll(() => status(page).innerText()).toBe('This ticket shows no code now.');
    expect(await page.locator('[data-code-canvas]').isHidden()).toBe(true);
  });

  it('(R2) without the service, a reload still shows the page and valid codes from the phone’s own keys', async () => {
    const url = await ticketFor('gate-2', ANA.email);
    const page = await phone();
    await page.setViewportSize(PHONE);
    await journey(page, 'ticket-code-offline', async () => {
      await page.goto(url);
      await page.getByRole('link', { name: 'Sign in to show the code' }).click();
      await page.waitForURL(/\/login\?/);
      await page.getByRole('button', { name: ANA.name }).click();
      await page.waitForURL((u) => u.href.startsWith(url.split('?')[0]!));
      const online = await readQr(page);
      // The service worker controls the view once it has loaded (its first load registers it).
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      await page.reload();
      await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
      await readQr(page);

      await stack.stopService();
      try {
        await page.reload();
        expect(await page.locator('h1').innerText()).toBe('Gate Night');
        const offline = await readQr(page);
        await expect.poll(() => status(page).innerText()).toBe('You are offline: the code still works.');
        const code = parseCode(offline.text);
        const before = parseCode(online.text);
        expect(code.ok && before.ok && code.code.serial === before.code.serial && code.code.epoch === before.code.epoch).toBe(true);
        await expectSoundPage(page, { label: 'the ticket view offline' });
      } finally {
        await stack.startService();
      }
      // Back online, the code the phone drew offline a moment ago admits.
      const now = await readQr(page);
      expect(await scan(now.text)).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'gate-2' } });
    });
  });

  it('(R3) a transfer: the seller’s page drops the code, the buyer’s shows a new one, and a forwarded link shows none', async () => {
    const url = await ticketFor('gate-3', ANA.email);
    const seller = await phone();
    await seller.clock.install();
    await seller.goto(url);
    await seller.getByRole('link', { name: 'Sign in to show the code' }).click();
    await seller.getByRole('button', { name: ANA.name }).click();
    await seller.waitForURL((u) => u.href.startsWith(url.split('?')[0]!));
    const sellers = await readQr(seller);

    // The partner gives the ticket to Carla (a transfer, as a resale does).
    expect((await stack.api('PUT', '/v1/tickets/gate-3', { buyer: CARLA.email })).status).toBe(200);
    await journey(seller, 'ticket-code-seller', async () => {
      await seller.clock.fastForward(20_000);
      await expect.poll(() => status(seller).innerText()).toBe('This ticket is no longer yours to show: its code was removed from this phone.');
      expect(await seller.locator('[data-code-canvas]').isHidden()).toBe(true);
    });
    expect(await scan(sellers.text)).toMatchObject({ valid: false });

    const buyerUrl = await viewUrl('gate-3');
    // Ana forwards Carla's link to a friend? The link alone shows no code: it asks to sign in.
    const friend = await phone();
    await friend.goto(buyerUrl);
    await expect.poll(() => status(friend).innerText()).toContain('Sign in to show your ticket’s code');
    expect(await friend.locator('[data-code-canvas]').isHidden()).toBe(true);

    const buyer = await phone();
    await journey(buyer, 'ticket-code-buyer', async () => {
      await buyer.goto(buyerUrl);
      await buyer.getByRole('link', { name: 'Sign in to show the code' }).click();
      await buyer.getByRole('button', { name: CARLA.name }).click();
      await buyer.waitForURL((u) => u.href.startsWith(buyerUrl.split('?')[0]!));
      const code = parseCode((await readQr(buyer)).text);
      const old = parseCode(sellers.text);
      expect(code.ok && old.ok && code.code.epoch > old.code.epoch).toBe(true);
    });
    expect(await scan((await readQr(buyer)).text)).toMatchObject({ valid: true, reason: 'admitted', ticket: { ticketId: 'gate-3' } });
  });

  it('(R4) two tabs of one phone opening the code at once certify it once: no move, no e-mail', async () => {
    const url = await ticketFor('gate-4', ANA.email);
    const first = await phone();
    await first.goto(url);
    await first.getByRole('link', { name: 'Sign in to show the code' }).click();
    await first.getByRole('button', { name: ANA.name }).click();
    await first.waitForURL((u) => u.href.startsWith(url.split('?')[0]!));
    await readQr(first);
    // The same browser (its session, its storage), a second tab and a reload of the first, together.
    const second = await first.context().newPage();
    await Promise.all([second.goto(url), first.reload()]);
    const [a, b] = [parseCode((await readQr(first)).text), parseCode((await readQr(second)).text)];
    expect(a.ok && b.ok && a.code.epoch === 1 && b.code.epoch === 1).toBe(true);
    const mail = (await (await fetch(`${stack.serviceUrl}/dev/mailbox.json?${new URLSearchParams({ to: ANA.email })}`)).json()) as { data: { template: string }[] };
    expect(mail.data.filter((m) => m.template === 'codeMoved')).toEqual([]);
  });
});
