// jsQR is CommonJS whose module.exports also carries the function as `default` (what its types name).
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser, PHONE } from './browser.js';
import { consoleSteps } from './console.steps.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { EVENT, ticketCodeSteps } from './ticket-code.steps.js';
import { ANA } from './steps.js';

/**
 * The venue's scanner page in Chromium, against the running service: an operator makes a door
 * link for the show in the console; the door's phone opens it (the token leaves the address
 * bar); a fan's phone shows its rotating code, read off the screen as a camera would, and the
 * door types it (a handheld scanner types the code and Enter): IN, once. Then the network
 * goes: the door reloads from its service worker, checks a code with its kit, queues the
 * admission, and sends it once the service is back (the ticket admitted, dated when scanned).
 * Then the link is revoked in the console, and the door says so.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { rotatingShow, ticketFor } = ticketCodeSteps(() => stack);
const { consoleSignIn, sandboxId } = consoleSteps(() => stack);
// The door's own calls fail on purpose while the service is stopped.
const { person } = journeyBrowser();

/**
 * The holder's phone, signed in, showing the ticket's code: its current code read off the canvas
 * as a camera would, and the phone's clock (Playwright's) moved a step ahead for the next code.
 */
async function fanShowing(url: string): Promise<{ read: () => Promise<string>; shot: () => Promise<string>; nextStep: () => Promise<void> }> {
  const page = await person({ deviceScaleFactor: 2, expectedFailures: /\/tickets\/view\/[^/]+\/code(\?|$)/ });
  await page.setViewportSize(PHONE);
  await page.clock.install();
  await page.goto(url);
  await page.getByRole('link', { name: 'Sign in to show the code' }).click();
  await page.waitForURL(/\/login\?/);
  await page.getByRole('button', { name: ANA.name }).click();
  await page.waitForURL((u) => u.href.startsWith(url.split('?')[0]!));
  const canvas = page.locator('[data-code-canvas]');
  const read = async () => {
    await canvas.waitFor({ state: 'visible' });
    const png = PNG.sync.read(await canvas.screenshot());
    const found = jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height);
    expect(found, 'a QR code in the canvas').not.toBeNull();
    return found!.data;
  };
  /** The code as the screen shows it: a PNG, as a data: URL. */
  const shot = async () => {
    await canvas.waitFor({ state: 'visible' });
    return `data:image/png;base64,${(await canvas.screenshot()).toString('base64')}`;
  };
  const nextStep = async () => {
    const step = Number(await canvas.getAttribute('data-step'));
    await page.clock.fastForward(15_000);
    // The phone's clock also runs in real time: a boundary may pass before the jump, so a step or two on.
    await expect.poll(async () => Number(await canvas.getAttribute('data-step'))).toBeGreaterThan(step);
  };
  return { read, shot, nextStep };
}

/** The door types `text` as a handheld scanner does (the code, then Enter), and the verdict it shows. */
async function scanAtDoor(door: Page, text: string): Promise<{ verdict: string; text: string }> {
  const before = await door.locator('[data-door-log] li').count();
  await door.getByLabel('Scan or type the code').fill(text);
  await door.getByLabel('Scan or type the code').press('Enter');
  await expect.poll(() => door.locator('[data-door-log] li').count()).toBe(before + 1);
  const box = door.locator('[data-door-verdict]');
  return { verdict: (await box.getAttribute('data-verdict'))!, text: await box.innerText() };
}

const stat = (door: Page, name: string) => door.locator(`[data-door-${name}]`).innerText();

/** The console's event page of the rotating show, signed in as the operator. */
async function consoleShow(page: Page): Promise<void> {
  await consoleSignIn(page, TEST_KEYS.operatorEmail);
  await page.goto(`${stack.serviceUrl}/console/partners/${await sandboxId()}/events/${EVENT}`);
}

/** A door link of the rotating show named `name`, made in the console by the operator. */
async function doorLink(name: string): Promise<string> {
  const operator = await person();
  await consoleShow(operator);
  await operator.getByLabel(/^Door name/).fill(name);
  await operator.getByRole('button', { name: 'Make the door link' }).click();
  return await operator.getByLabel('Door link', { exact: true }).inputValue();
}

describe('the venue’s scanner page', () => {
  it('(D1) a door link made in the console checks codes at the door, online and offline, and stops when revoked', async () => {
    await rotatingShow();
    const operator = await person();
    const link = await journey(operator, 'door-make-link', async () => {
      await consoleShow(operator);
      await operator.getByLabel(/^Door name/).fill('North gate 3');
      await operator.getByRole('button', { name: 'Make the door link' }).click();
      const made = await operator.getByLabel('Door link', { exact: true }).inputValue();
      expect(made).toMatch(/\/door#door_[0-9A-Za-z]+$/);
      // Shown once: not in the address bar, not again on a reload.
      expect(operator.url()).not.toContain('door_');
      await expectSoundPage(operator, { label: 'the event page with a door link just made' });
      return made;
    });

    const door = await person({ expectedFailures: /\/v1\/door/ });
    await door.setViewportSize(PHONE);
    await journey(door, 'door-open', async () => {
      await door.goto(link);
      await expect.poll(() => door.locator('[data-door-of]').innerText()).toContain('North gate 3 · Gate Night, Night');
      expect(door.url()).toBe(`${stack.serviceUrl}/door`);
      await expect.poll(() => stat(door, 'kit-tickets')).toBe('0');
      await expectSoundPage(door, { label: 'the door ready to scan' });
    });

    // A fan at the gate: the code on their phone, typed in by the door's scanner.
    const fan1 = await fanShowing(await ticketFor('door-1', ANA.email));
    const code = await fan1.read();
    await journey(door, 'door-online', async () => {
      const first = await scanAtDoor(door, code);
      expect(first.verdict).toBe('in');
      expect(first.text).toContain('Admitted');
      expect(first.text).toContain('door-1');
      // A ticket without a seat says none (never the seat object itself).
      expect(first.text).not.toMatch(/Section|object/);
      // The same scan again (a double read): still in, said as such; a later code of the same ticket: no.
      expect((await scanAtDoor(door, code)).text).toContain('the same scan again');
      expect(await scanAtDoor(door, 'NOT-A-CODE')).toMatchObject({ verdict: 'no', text: expect.stringContaining('Not a ticket code') });
      expect((await stack.api('GET', '/v1/tickets/door-1')).body.data.state).toBe('ADMITTED');
      await expectSoundPage(door, { label: 'the door after a scan' });
    });

    // The network goes: the door keeps checking with its kit, and sends its admissions once back.
    const fan2 = await fanShowing(await ticketFor('door-2', ANA.email, { section: 'B', row: '4', seat: '11' }));
    // The kit the door holds must know the ticket: a refresh (as every 30 s) after its phone was certified.
    await door.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => stat(door, 'kit-tickets')).toBe('2');
    // The page's first load registered its worker, which keeps the page and its script: no reload needed first.
    await expect.poll(() => door.evaluate(async () => Boolean((await caches.match('/door')) && (await caches.match('/widgets/v1/door.js'))))).toBe(true);
    const code2 = await fan2.read();
    await stack.stopService();
    try {
      await journey(door, 'door-offline', async () => {
        await door.reload();
        await expect.poll(() => door.locator('[data-door-net]').getAttribute('data-net')).toBe('offline');
        const offline = await scanAtDoor(door, code2);
        expect(offline.verdict).toBe('in');
        expect(offline.text).toContain('offline');
        expect(offline.text).toContain('door-2 · Section B, row 4, seat 11');
        expect(await stat(door, 'waiting')).toBe('1');
        // The same scan again is a double read, still in; the ticket's next code (someone else with a copy?) is not.
        expect(await scanAtDoor(door, code2)).toMatchObject({ verdict: 'in', text: expect.stringContaining('the same scan again') });
        await fan2.nextStep();
        expect(await scanAtDoor(door, await fan2.read())).toMatchObject({ verdict: 'no', text: expect.stringContaining('Already admitted') });
        expect(await stat(door, 'waiting')).toBe('1');
        await expectSoundPage(door, { label: 'the door offline' });
      });
    } finally {
      await stack.startService();
    }
    await door.getByRole('button', { name: 'Send now' }).click();
    await expect.poll(() => stat(door, 'waiting')).toBe('0');
    await expect.poll(() => door.locator('[data-door-net]').getAttribute('data-net')).toBe('online');
    const synced = (await stack.api('GET', '/v1/tickets/door-2')).body.data;
    expect(synced.state).toBe('ADMITTED');

    // The link is revoked in the console: the door's next scan says so.
    await journey(operator, 'door-revoke', async () => {
      await operator.goto(`${stack.serviceUrl}/console/partners/${await sandboxId()}/events/${EVENT}`);
      await operator.getByRole('button', { name: 'Revoke the door link “North gate 3”' }).click();
      await expect.poll(() => operator.locator('[role=status]').first().innerText()).toMatch(/revoked/i);
    });
    await door.getByLabel('Scan or type the code').fill('ANYTHING');
    await door.getByLabel('Scan or type the code').press('Enter');
    await expect.poll(() => door.locator('[data-door-message]').innerText()).toContain('This door link does not work');
    expect(await door.locator('[data-door-scan]').isHidden()).toBe(true);
  });

  it('(D3) where the browser reads QR codes itself, the camera scans: the code in front of it is checked once, not at every frame', async () => {
    // Chromium on Linux has no BarcodeDetector and this machine no camera: both stood in for in
    // the page (a detector that reads what the test shows it, a camera that is a canvas), so
    // what is tested is the page's own part: offering the camera, reading frames, checking a
    // code once while it stays in view, and stopping.
    const link = await doorLink('South gate');
    const fan = await fanShowing(await ticketFor('door-3', ANA.email));
    const code = await fan.read();

    const door = await person();
    await door.addInitScript(() => {
      const w = window as unknown as { BarcodeDetector: unknown; shown: string; detections: number };
      w.shown = '';
      w.detections = 0;
      w.BarcodeDetector = class {
        static async getSupportedFormats() {
          return ['qr_code', 'ean_13'];
        }
        async detect() {
          w.detections += 1;
          return w.shown ? [{ rawValue: w.shown }] : [];
        }
      };
      navigator.mediaDevices.getUserMedia = async () => {
        const canvas = document.createElement('canvas');
        canvas.width = 320;
        canvas.height = 240;
        canvas.getContext('2d')!.fillRect(0, 0, 320, 240);
        return canvas.captureStream(5);
      };
    });
    await door.goto(link);
    await door.getByRole('button', { name: 'Use the camera' }).click();
    await expect.poll(() => door.locator('[data-door-video]').isVisible()).toBe(true);
    await door.evaluate((text) => ((window as unknown as { shown: string }).shown = text), code);
    await expect.poll(() => door.locator('[data-door-verdict]').getAttribute('data-verdict')).toBe('in');
    // The code stays in front of the camera for over 4 s: read at every frame, checked once.
    await expect.poll(() => door.evaluate(() => (window as unknown as { detections: number }).detections), { timeout: 10_000 }).toBeGreaterThan(20);
    expect(await door.locator('[data-door-log] li').count()).toBe(1);
    expect((await stack.api('GET', '/v1/tickets/door-3')).body.data.state).toBe('ADMITTED');
    await door.getByRole('button', { name: 'Stop the camera' }).click();
    expect(await door.locator('[data-door-video]').isHidden()).toBe(true);
    await expectSoundPage(door, { label: 'the door with its camera stopped' });
  });

  it('(D4) where the browser reads no QR code itself, the page decodes the camera’s frames with its own decoder, loaded then', async () => {
    // Chromium on Linux has no BarcodeDetector: the page's own decoder (door-qr.js, jsQR) reads
    // the frames. The camera is a canvas showing the fan's screen as a photo of it: the code's
    // PNG, on white, as a phone held up to the door's camera.
    const link = await doorLink('West gate');
    const fan = await fanShowing(await ticketFor('door-4', ANA.email));
    const photo = await fan.shot();

    const door = await person();
    const loaded: string[] = [];
    door.on('request', (r) => void (new URL(r.url()).pathname.startsWith('/widgets/v1/') && loaded.push(new URL(r.url()).pathname)));
    await door.addInitScript(() => {
      const w = window as unknown as { showing: string; frames: number };
      w.showing = '';
      // The frames the page decoded (it reads each one's pixels).
      w.frames = 0;
      const pixels = CanvasRenderingContext2D.prototype.getImageData;
      CanvasRenderingContext2D.prototype.getImageData = function (...args: Parameters<typeof pixels>) {
        w.frames += 1;
        return pixels.apply(this, args);
      };
      navigator.mediaDevices.getUserMedia = async () => {
        const canvas = document.createElement('canvas');
        canvas.width = 640;
        canvas.height = 480;
        const context = canvas.getContext('2d')!;
        const image = new Image();
        const draw = () => {
          context.fillStyle = '#fff';
          context.fillRect(0, 0, 640, 480);
          if (w.showing && image.src !== w.showing) image.src = w.showing;
          if (w.showing && image.complete && image.naturalWidth > 0) context.drawImage(image, 170, 90, 300, 300);
          requestAnimationFrame(draw);
        };
        draw();
        return canvas.captureStream(10);
      };
    });
    await door.goto(link);
    expect(await door.evaluate(() => 'BarcodeDetector' in window)).toBe(false);
    // The page imports the decoder only once the camera is used (its worker may fetch it before, to keep it offline).
    expect(loaded).not.toContain('/widgets/v1/door-qr.js');
    await door.getByRole('button', { name: 'Use the camera' }).click();
    await expect.poll(() => door.locator('[data-door-video]').isVisible()).toBe(true);
    await door.evaluate((url) => ((window as unknown as { showing: string }).showing = url), photo);
    await expect.poll(() => door.locator('[data-door-verdict]').getAttribute('data-verdict'), { timeout: 10_000 }).toBe('in');
    expect(loaded).toContain('/widgets/v1/door-qr.js');
    // The code stays in view for ten more frames read: checked once.
    const frames = () => door.evaluate(() => (window as unknown as { frames: number }).frames);
    const seen = await frames();
    await expect.poll(frames, { timeout: 10_000 }).toBeGreaterThan(seen + 10);
    expect(await door.locator('[data-door-log] li').count()).toBe(1);
    expect((await stack.api('GET', '/v1/tickets/door-4')).body.data.state).toBe('ADMITTED');
    await door.getByRole('button', { name: 'Stop the camera' }).click();
    expect(await door.locator('[data-door-video]').isHidden()).toBe(true);
  });

  it('(D2) without a link, or forgotten, the page says how to start', async () => {
    const page = await person();
    await page.goto(`${stack.serviceUrl}/door?lang=es`);
    await expect.poll(() => page.locator('[data-door-message]').innerText()).toContain('Abre el enlace de acceso');
    await expectSoundPage(page, { label: 'the door page without a link' });
  });
});
