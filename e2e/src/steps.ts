import type { Frame, Locator, Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import type { Stack } from './stack.js';

/**
 * Steps a person takes across the demo and the service, shared by the journeys and by
 * `npm run screenshots`: sign in on the demo, sell through the hosted sell page (with its
 * step-up), reserve from the market (Login Force included), pay with a sandbox card.
 * `stackOf` is read at each call (the stack starts in a `beforeAll`).
 */

/** The demo users these journeys act as (demo/src/catalog.ts). */
export const ANA = { name: 'Ana García', email: 'ana@demo.test' };
export const CARLA = { name: 'Carla Rossi', email: 'carla@demo.test' };

/** The sell page's button to the step-up, in place of the payout fields (it carries the typed price along). */
export const STEP_UP_LINK = 'Confirm it’s you and add payout details';

/** A message in the service's development mailbox (`GET /dev/mailbox.json`, email.pages.tsx). */
export interface MailboxMessage {
  id: string;
  channel: 'email' | 'sms';
  to: string;
  template: string;
  subject: string;
  text: string;
  createdAt: string;
}

/** The steps, bound to the running stack. */
export function steps(stackOf: () => Stack) {
  async function signIn(page: Page, name: string): Promise<void> {
    await page.goto(`${stackOf().demoUrl}/login`);
    await page.getByRole('button', { name }).click();
    await page.waitForURL(`${stackOf().demoUrl}/`);
  }

  /** Sells a ticket through the demo My tickets page and the hosted sell page (journey 1's steps). */
  async function sell(page: Page, ticketId: string, price: string, email: string): Promise<void> {
    await page.goto(`${stackOf().demoUrl}/my-tickets`);
    const actions = page.locator(`resale-sell-actions[data-resale-data="resale-entry-${ticketId}"]`);
    await actions.getByRole('link', { name: /sell/i }).click();
    await publish(page, price, 'Seller', email);
  }

  /**
   * On the hosted sell page: the price (else the one the page proposes), the payout account when
   * asked, Publish. A seller who came through a sign-in link sees a step-up link instead of the
   * payout fields: the code from her mailbox first, then back to the form (with the price she
   * typed) and the fields.
   */
  async function publish(page: Page, price: string | null, holderName: string, email: string): Promise<void> {
    if (price !== null) await page.getByLabel(/price per ticket/i).fill(price);
    const holder = page.getByLabel('Account holder');
    const stepUpLink = page.getByRole('button', { name: STEP_UP_LINK });
    if ((await holder.count()) === 0 && (await stepUpLink.count()) > 0) {
      const form = page.url();
      await stepUpLink.click();
      await stepUp(page, email);
      expect(new URL(page.url()).pathname).toBe(new URL(form).pathname);
      // The price typed before the step-up comes back with the form.
      if (price !== null) expect(await page.getByLabel(/price per ticket/i).inputValue()).toBe(price);
      expect(await holder.count()).toBe(1);
    }
    // The payout account is asked once per seller.
    if (await holder.count()) {
      await holder.fill(holderName);
      await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
    }
    await page.getByRole('button', { name: 'Publish' }).click();
    // Above face value the page asks the seller to confirm first (the IBAN is typed again: the page never echoes it).
    const confirm = page.getByLabel(/publish it anyway/);
    // Whichever comes first; the other wait's outcome is swallowed (it may time out later).
    await Promise.race([page.waitForURL(/published=1/).catch(() => undefined), confirm.waitFor().catch(() => undefined)]);
    if (!/published=1/.test(page.url())) {
      expect(await page.locator('main').innerText()).toContain('the face value of');
      await confirm.check();
      if (await holder.count()) await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.waitForURL(/published=1/);
    }
  }

  /** What the service sent to `to` (no SMTP here: it keeps every message), newest first. */
  async function mailbox(to: string): Promise<MailboxMessage[]> {
    const res = await fetch(`${stackOf().serviceUrl}/dev/mailbox.json?${new URLSearchParams({ to })}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: MailboxMessage[] }).data;
  }

  /**
   * On the step-up page (`/auth/step-up?p=…&returnTo=…`): checks it says where the code goes,
   * sends the code, reads it from `email`'s mailbox, enters it and comes back to `returnTo`.
   * `check` runs on the step-up page and on the code page (journey 1 and 6 run axe there).
   */
  async function stepUp(page: Page, email: string, check?: (label: string) => Promise<void>): Promise<void> {
    await page.waitForURL(/\/auth\/step-up\?/);
    const returnTo = new URL(page.url()).searchParams.get('returnTo');
    expect(returnTo, 'the step-up page knows where to come back to').toBeTruthy();
    expect(await page.locator('h1').innerText()).toBe('Confirm it’s you');
    // Where the code goes, masked: the first letter and the domain of the seller's own e-mail.
    expect(await page.locator('main').innerText()).toContain(`${email[0]}•••${email.slice(email.indexOf('@'))}`);
    await check?.('the step-up page');
    const before = new Set((await mailbox(email)).map((m) => m.id));
    await page.getByRole('button', { name: 'Send me the code' }).click();
    await page.waitForURL(/\/auth\/step-up\/verify\?/);
    const code = page.getByLabel('6-digit code');
    expect(await code.count()).toBe(1);
    await check?.('the step-up code page');
    let sent: MailboxMessage | undefined;
    await expect
      .poll(async () => {
        sent = (await mailbox(email)).find((m) => !before.has(m.id) && m.template === 'stepUpCode');
        return sent !== undefined;
      }, { timeout: 10_000, interval: 200 })
      .toBe(true);
    expect(sent!.channel).toBe('email');
    const digits = /\b(\d{6})\b/.exec(sent!.text)?.[1];
    expect(digits, sent!.text).toBeDefined();
    await code.fill(digits!);
    await page.getByRole('button', { name: 'Confirm' }).click();
    const back = new URL(returnTo!, stackOf().serviceUrl);
    await page.waitForURL((u) => u.origin === stackOf().serviceUrl && u.pathname === back.pathname);
  }

  /**
   * Presses a Buy (or "Reserve and pay") button on the hosted market page and reaches checkout.
   * Holds are never anonymous: without a session with the service the press holds nothing and
   * goes to sign in (for the demo, Login Force: its /login page, the person being signed in
   * there, comes straight back with a one-time token), and the Buy continues on the way back:
   * the pick is held and the checkout opens, never the market again (the fan presses once).
   * With a session the press goes straight to checkout. Answers which way it went.
   */
  async function reserve(page: Page, button: Locator): Promise<'direct' | 'via sign-in'> {
    const checkout = /\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/;
    const picked = (await button.locator('xpath=ancestor::form[1]').locator('input[name="listingId"]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value))).sort();
    expect(picked.length, 'the pressed form carries its listings').toBeGreaterThan(0);
    // Every navigation request of the page, redirects included (a sign-in that answers at once never commits a page).
    const visited: string[] = [];
    const onNav = (request: Request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) visited.push(request.url());
    };
    page.on('request', onNav);
    try {
      await button.click();
      await page.waitForURL(checkout, { timeout: 15_000 });
      await page.waitForLoadState('load');
      // Between the press and the checkout: at most the sign-in, never the market page again.
      const pages = visited.filter((url) => !checkout.test(url));
      expect(pages.filter((url) => /\/market\/ptr_[^/]+\/[^/?]+(\?|$)/.test(url)), 'no market page between Buy and the checkout').toEqual([]);
      return pages.some((url) => /\/login|\/auth\//.test(url)) ? 'via sign-in' : 'direct';
    } finally {
      page.off('request', onNav);
    }
  }

  /**
   * The pages a fan waits for while `work` runs: each document the main frame commits, in order
   * (redirects commit none, so a sign-in that answers at once with a token is no page). The
   * journeys count them to hold the path from a pick to the receipt to its target.
   */
  async function pagesDuring(page: Page, work: () => Promise<void>): Promise<string[]> {
    const committed: string[] = [];
    const onCommit = (frame: Frame) => {
      if (frame === page.mainFrame()) committed.push(frame.url());
    };
    page.on('framenavigated', onCommit);
    try {
      await work();
      await page.waitForLoadState('load');
    } finally {
      page.off('framenavigated', onCommit);
    }
    return committed;
  }

  /** Fills the sandbox card form and pays. */
  async function pay(page: Page, card: string): Promise<void> {
    await page.getByLabel('Card number').fill(card);
    await page.getByLabel('Expiry date (MM/YY)').fill('12/30');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: /^Pay / }).click();
  }
  return { signIn, sell, publish, mailbox, stepUp, reserve, pagesDuring, pay };
}

/** The steps' functions. */
export type Steps = ReturnType<typeof steps>;
