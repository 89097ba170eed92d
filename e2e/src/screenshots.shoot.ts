import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launch, PHONE } from './browser.js';
import { startStack, TEST_KEYS, type Stack } from './stack.js';
import { ANA, CARLA, steps } from './steps.js';
import { EVENT, ticketCodeSteps } from './ticket-code.steps.js';
// jsQR is CommonJS whose module.exports also carries the function as `default` (what its types name).
import jsqr from 'jsqr';
import { PNG } from 'pngjs';

/**
 * `npm run screenshots`: the service and the demo on loopback, walked as a seller and a buyer
 * would, each page and widget state saved full-page at 1280×800 and 390×844 as
 * `screenshots/<nn>-<name>-<width>.png`. A shot that overflows sideways at 390 px is listed at
 * the end (the journeys fail on it; here it is reported so every shot still gets taken).
 */
const OUT = fileURLToPath(new URL('../../screenshots', import.meta.url));
const SIZES = [{ width: 1280, height: 800 }, PHONE] as const;

let stack: Stack;
let browser: Browser;
const { signIn, sell, reserve, pay, mailbox } = steps(() => stack);
const { rotatingShow, ticketFor } = ticketCodeSteps(() => stack);
const overflowing: string[] = [];
const failed: string[] = [];
let n = 0;

/**
 * One part of the walk. A part that fails is reported at the end and the walk goes on with the
 * next (each starts from its own page), so one broken step still leaves every other shot.
 */
async function stage(name: string, steps: () => Promise<void>): Promise<void> {
  try {
    await steps();
  } catch (err) {
    failed.push(`${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
}

beforeAll(async () => {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  stack = await startStack();
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** Saves the page as it is now at both sizes (`name` carries its place in the walk: `04-sell-ticket`). */
async function shoot(page: Page, name: string): Promise<void> {
  n += 1;
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.waitForTimeout(150);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (size.width === PHONE.width && wide > 0) overflowing.push(`${name}: ${wide}px too wide`);
    await page.screenshot({ path: join(OUT, `${name}-${size.width}.png`), fullPage: true });
  }
  await page.setViewportSize(SIZES[0]);
}

async function person(): Promise<Page> {
  const context = await browser.newContext({ viewport: SIZES[0] });
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

it('renders every page and widget state', async () => {
  const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
  const visitor = await person();
  const seller = await person();
  const buyer = await person();
  await stage('service pages', async () => {
    await visitor.goto(`${stack.serviceUrl}/`);
    await shoot(visitor, '01-service-landing');
    await visitor.goto(`${stack.serviceUrl}/market/nobody/nothing`);
    await shoot(visitor, '02-notice-not-found');
  });

  // A seller: My tickets on the demo, the sell page, its money table, the confirmation above
  // face value, the published listing and its removal.
  await stage('seller', async () => {
    await signIn(seller, ANA.name);
    await seller.goto(`${stack.demoUrl}/my-tickets`);
    await seller.locator('resale-sell-actions').first().locator('[part~="status"]').waitFor();
    await shoot(seller, '03-demo-my-tickets');
    await seller.locator('resale-sell-actions[data-resale-data="resale-entry-dt-festival-0001"]').getByRole('link', { name: /sell/i }).click();
    await seller.waitForURL(/\/sell\//);
    await shoot(seller, '04-sell-ticket');
    await seller.getByLabel(/price per ticket/i).fill('300');
    await seller.getByLabel(/price per ticket/i).press('Enter');
    await seller.waitForLoadState('load');
    await shoot(seller, '05-sell-preview-above-face');
    await sell(seller, 'dt-festival-0001', '36', ANA.email);
    await shoot(seller, '06-sell-published-listing');
    await seller.getByRole('button', { name: /remove/i }).first().click();
    await seller.waitForLoadState('load');
    await shoot(seller, '07-sell-remove-confirmation');
  });
  await stage('more listings', async () => {
    await sell(seller, 'dt-gala-a5', '60', ANA.email);
    await signIn(seller, CARLA.name);
    await sell(seller, 'dt-gala-c4', '62', CARLA.email);
    await sell(seller, 'dt-gala-c5', '64', CARLA.email);
    await sell(seller, 'dt-festival-0003', '36', CARLA.email);
  });

  // A buyer: the demo's event pages with the widgets, the market, the checkout and its
  // errors, a declined card, the receipt, the ticket.
  await stage('partner pages', async () => {
    await signIn(buyer, 'Ben Okafor');
    await buyer.goto(`${stack.demoUrl}/`);
    await shoot(buyer, '08-demo-home');
    await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
    await buyer.locator('resale-categories-list li').first().waitFor();
    await shoot(buyer, '09-demo-event-categories');
    await buyer.goto(`${stack.demoUrl}/events/demo-gala`);
    await buyer.locator('resale-seat-map [part~="chart"]').waitFor();
    await shoot(buyer, '10-demo-event-seat-map');
  });
  await stage('checkout', async () => {
    await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
    await buyer.locator('resale-categories-list').getByRole('link').first().click();
    await buyer.waitForURL(/\/market\//);
    await shoot(buyer, '11-market');
    const marketUrl = buyer.url();
    await reserve(buyer, buyer.getByRole('button', { name: 'Buy' }).first());
    await shoot(buyer, '12-checkout');
    // Back on the market while the hold lasts: the buyer's own hold, with the way back to pay.
    const checkoutUrl = buyer.url();
    await buyer.goto(marketUrl);
    await shoot(buyer, '12b-market-own-hold');
    // And on the partner's event page (the demo hands the widgets the access layer signed for Ben).
    await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
    await buyer.locator('resale-categories-list [part~="your-hold"]').waitFor();
    await shoot(buyer, '12c-demo-event-own-hold');
    await buyer.goto(checkoutUrl);
    await buyer.getByRole('button', { name: /^Pay / }).click();
    await buyer.waitForLoadState('load');
    await shoot(buyer, '13-checkout-field-errors');
    await pay(buyer, '4000 0000 0000 0002');
    await buyer.waitForLoadState('load');
    await shoot(buyer, '14-checkout-declined');
    if (!/\/checkout\//.test(buyer.url())) throw new Error('a declined card left the checkout');
    await pay(buyer, '4242 4242 4242 4242');
    await buyer.waitForURL(/\/done\?/);
    await shoot(buyer, '15-checkout-receipt');
    await buyer.locator('a[href*="/tickets/view/"]').first().click();
    await buyer.waitForURL(/\/tickets\/view\//);
    await shoot(buyer, '16-ticket-view-locked');
  });

  // The market of the seated show with its map, and the ticket view of a ticket its holder has put on sale.
  await stage('seat map and ticket view', async () => {
    const entry = (await stack.api('GET', `/v1/marketplace/buyingflow/url/entrypoint?${q({ externalReferenceEventId: 'demo-gala', showId: 'gala-1', returnTo: `${stack.demoUrl}/events/demo-gala` })}`)).body.data as string;
    await buyer.goto(entry);
    await buyer.locator('resale-seat-map').first().waitFor();
    await buyer.waitForTimeout(500);
    await shoot(buyer, '17-market-seat-map');
    const view = (await stack.api('GET', '/v1/tickets/dt-gala-a5/url')).body.data as string;
    await buyer.goto(view);
    await shoot(buyer, '18-ticket-view-listed');
  });

  // Sign-in by a one-time code, for a partner without a login page of its own.
  await stage('sign-in by code', async () => {
    const created = await fetch(`${stack.serviceUrl}/admin/v1/partners`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEYS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Code Sign-in Tickets' }),
    });
    const codePartner = ((await created.json()) as { data: { partner: { id: string } } }).data.partner.id;
    const fresh = await person();
    await fresh.goto(`${stack.serviceUrl}/auth/otp?${q({ p: codePartner })}`);
    await shoot(fresh, '19-sign-in-by-code');
  });

  // The operator's console page, and the sandbox partner's pages in it (the door's stage makes a door link there).
  let ops!: Page;
  let base = '';
  // The console, as the operator: sign-in, the overview after the sales above, a partner's tabs, a refused form, the audit log.
  await stage('console', async () => {
    ops = await person();
    await ops.goto(`${stack.serviceUrl}/console`);
    await shoot(ops, '20-console-sign-in');
    await ops.getByLabel('Work e-mail').fill(TEST_KEYS.operatorEmail);
    await ops.getByRole('button', { name: 'Send me a code' }).click();
    await ops.waitForURL(/\/console\/sign-in\/code/);
    let code: string | undefined;
    for (let i = 0; i < 50 && !code; i++) {
      const sent = (await mailbox(TEST_KEYS.operatorEmail)).find((m) => m.template === 'consoleCode');
      code = sent ? /\b(\d{6})\b/.exec(sent.text)?.[1] : undefined;
      if (!code) await ops.waitForTimeout(100);
    }
    await shoot(ops, '21-console-code');
    await ops.getByLabel('Code').fill(code!);
    await ops.getByRole('button', { name: 'Sign in' }).click();
    await ops.waitForURL(`${stack.serviceUrl}/console`);
    await shoot(ops, '22-console-overview');
    await ops.goto(`${stack.serviceUrl}/console/partners`);
    await shoot(ops, '23-console-partners');
    // A partner of a name that exists already: the console asks before making a second one.
    await ops.getByLabel('Name', { exact: true }).fill('sandbox');
    await ops.getByRole('button', { name: 'Create' }).click();
    await ops.getByLabel('Create another partner named “sandbox”').waitFor();
    await shoot(ops, '23b-console-partners-twin');
    await ops.goto(`${stack.serviceUrl}/console/partners`);
    // The sandbox: the demo's partner, with its events, sales and webhooks.
    const partnerHref = await ops.getByRole('link', { name: 'sandbox', exact: true }).getAttribute('href');
    base = `${stack.serviceUrl}${partnerHref}`;
    await ops.goto(base);
    await shoot(ops, '24-console-settings');
    await ops.getByLabel('QR codes unlock (hours before the show)').fill('soon');
    await ops.getByLabel('Colour (#rrggbb, 4.5:1 against white)').fill('#ffff00');
    await ops.getByRole('button', { name: 'Save' }).click();
    await ops.waitForLoadState('load');
    await shoot(ops, '25-console-settings-errors');
    // A door of the gala's show, made through its form: the answer shows its link once, and the event page below lists it.
    await stage('console door', async () => {
      await ops.goto(`${base}/events/demo-gala`);
      await ops.getByLabel('Door name (1 to 60 characters)').fill('North gate 3');
      await ops.getByRole('button', { name: 'Make the door link' }).click();
      await ops.waitForLoadState('load');
      await ops.getByLabel('Door link', { exact: true }).waitFor();
      await shoot(ops, '30-console-event-door-link');
      // The same name again (the form sent twice): refused at its field, the typed name kept.
      await ops.getByLabel('Door name (1 to 60 characters)').fill('north gate 3');
      await ops.getByRole('button', { name: 'Make the door link' }).click();
      await ops.waitForLoadState('load');
      await ops.locator('#f-label-error').waitFor();
      await shoot(ops, '30b-console-event-door-name-taken');
    });
    for (const [tab, name] of [['/developers', '26-console-developers'], ['/team', '27-console-team'], ['/webhooks', '28-console-webhooks'], ['/events', '29-console-events'], ['/events/demo-gala', '30-console-event'], ['/load', '31-console-manual-load'], ['/sales', '34-console-sales'], ['/money', '35-console-money'], ['/risk', '36-console-risk']] as const) {
      await ops.goto(`${base}${tab}`);
      await shoot(ops, name);
    }
    // A refused rotation (checked before any step-up): the form again with what was typed.
    await ops.goto(`${base}/developers`);
    await ops.getByLabel('Key', { exact: true }).selectOption('webhookSecret');
    await ops.getByLabel('Grace (hours)').fill('a week');
    await ops.getByRole('button', { name: 'Rotate' }).click();
    await ops.getByText('Enter 0 to 168 hours.').first().waitFor();
    await shoot(ops, '26b-console-developers-rotation-errors');
    await ops.goto(`${base}/webhooks`);
    const messages = ops.locator('a[href*="/webhooks/msg_"]');
    const message = (await messages.count()) > 0 ? await messages.first().getAttribute('href') : null;
    if (message) {
      await ops.goto(`${stack.serviceUrl}${message}`);
      await shoot(ops, '32-console-webhook-message');
    }
    await ops.goto(`${stack.serviceUrl}/console/audit`);
    await shoot(ops, '33-console-audit');
    await ops.goto(`${stack.serviceUrl}/console/money`);
    await shoot(ops, '37-console-operators-money');
    await ops.goto(`${stack.serviceUrl}/console/account`);
    await shoot(ops, '38-console-account');
    // A show's waiting list: the festival's line filled through the partner API (a listing on sale is offered to it), then the page and a refused form.
    const show = { externalReferenceEventId: 'demo-festival', showId: 'fest-1' };
    const partnerApi = async (method: 'PUT' | 'POST', path: string, body: unknown) =>
      await fetch(`${stack.serviceUrl}${path}`, { method, headers: { authorization: TEST_KEYS.private, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await partnerApi('PUT', '/v1/waitinglist/settings', { ...show, enabled: true, offerMinutes: 20, quietHours: { start: '23:00', end: '08:00' }, priceCap: 'FACE_VALUE' });
    for (const [user, quantity] of [['dan@demo.test', 2], ['ana@demo.test', 1], ['ben@demo.test', 1], ['carla@demo.test', 4]] as const) await partnerApi('POST', '/v1/waitinglist/entries', { ...show, user, quantity, together: false });
    await ops.goto(`${base}/events/demo-festival/shows/fest-1/waiting-list`);
    await shoot(ops, '39-console-waiting-list');
    await ops.getByLabel('Offer window (minutes)').fill('4');
    await ops.getByLabel('Quiet from').fill('25:00');
    await ops.getByRole('button', { name: 'Save the waiting list settings' }).click();
    await ops.waitForLoadState('load');
    await shoot(ops, '40-console-waiting-list-errors');
  });

  // The rotating code: the view before the holder signs in, the code drawn on the phone, and the same ticket opened on a second phone.
  await stage('rotating code', async () => {
    await rotatingShow();
    const url = await ticketFor('gate-shot', ANA.email);
    const holder = await person();
    await holder.goto(url);
    await shoot(holder, '41-ticket-view-code-sign-in');
    await holder.getByRole('link', { name: 'Sign in to show the code' }).click();
    await holder.getByRole('button', { name: ANA.name }).click();
    await holder.locator('[data-code-canvas]').waitFor({ state: 'visible' });
    await shoot(holder, '42-ticket-view-rotating-code');
    const second = await person();
    await second.goto(url);
    await second.getByRole('link', { name: 'Sign in to show the code' }).click();
    await second.getByRole('button', { name: ANA.name }).click();
    await second.getByRole('button', { name: 'Show the code on this phone' }).waitFor();
    await shoot(second, '43-ticket-view-code-elsewhere');
  });

  // The venue's scanner page: a door link of the rotating show made in the console, opened on the door's device, a fan's code typed in, then a code refused.
  await stage('door', async () => {
    await ops.goto(`${base}/events/${EVENT}`);
    await ops.getByLabel('Door name (1 to 60 characters)').fill('North gate 3');
    await ops.getByRole('button', { name: 'Make the door link' }).click();
    const link = await ops.getByLabel('Door link', { exact: true }).inputValue();
    const door = await person();
    await door.goto(link);
    await door.locator('[data-door-scan]').waitFor({ state: 'visible' });
    await shoot(door, '44-door-ready');
    const fan = await person();
    await fan.goto(await ticketFor('door-shot', ANA.email, { section: 'B', row: '4', seat: '11' }));
    await fan.getByRole('link', { name: 'Sign in to show the code' }).click();
    await fan.getByRole('button', { name: ANA.name }).click();
    const canvas = fan.locator('[data-code-canvas]');
    await canvas.waitFor({ state: 'visible' });
    const png = PNG.sync.read(await canvas.screenshot());
    const text = jsqr.default(new Uint8ClampedArray(png.data), png.width, png.height)!.data;
    const type = async (code: string) => {
      await door.getByLabel('Scan or type the code').fill(code);
      await door.getByLabel('Scan or type the code').press('Enter');
      await door.locator('[data-door-verdict][data-verdict=in], [data-door-verdict][data-verdict=no]').waitFor();
    };
    await type(text);
    await shoot(door, '45-door-admitted');
    await type('KNAAAAB');
    await door.locator('[data-door-verdict][data-verdict=no]').waitFor();
    await shoot(door, '46-door-refused');
  });

  console.log(`${n} pages × ${SIZES.length} sizes in ${OUT}`);
  if (overflowing.length > 0) console.log(`Overflowing at ${PHONE.width} px:\n  ${overflowing.join('\n  ')}`);
  if (failed.length > 0) console.log(`Parts that failed (their remaining shots are missing):\n  ${failed.join('\n  ')}`);
  expect(failed).toEqual([]);
});
