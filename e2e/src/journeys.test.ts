import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectNoAxeViolations, journey, launch } from './browser.js';
import { servePage, startStack, TEST_KEYS, type Stack } from './stack.js';

let stack: Stack;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  stack = await startStack();
  browser = await launch();
});

afterEach(() => {
  // Every page (demo, service, widgets) works under its strict policy: nothing blocked.
  expect(cspViolations.splice(0)).toEqual([]);
});

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await stack?.stop();
});

/** Console messages of every page that report a Content-Security-Policy violation. */
const cspViolations: string[] = [];

/** A fresh browser profile (its own cookies), as a second person on another computer. */
async function person(): Promise<Page> {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  contexts.push(context);
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/content security policy/i.test(m.text())) cspViolations.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

async function signIn(page: Page, name: string): Promise<void> {
  await page.goto(`${stack.demoUrl}/login`);
  await page.getByRole('button', { name }).click();
  await page.waitForURL(`${stack.demoUrl}/`);
}

describe('sell on the demo My tickets page', () => {
  it('(1) a seller clicks Sell, sets a price within the rules, publishes and sees FOR_SALE', async () => {
    const page = await person();
    await journey(page, 'sell', async () => {
      await signIn(page, 'Ana García');
      await page.goto(`${stack.demoUrl}/my-tickets`);
      const actions = page.locator('resale-sell-actions[data-resale-data="resale-entry-dt-festival-0001"]');
      await expect.poll(() => actions.locator('[part~="status"]').getAttribute('data-status')).toBe('SELLABLE');
      await actions.getByRole('link', { name: /sell/i }).click();
      await page.waitForURL(/\/sell\/ptr_[^/]+\/ticket\/dt-festival-0001/);
      await expectNoAxeViolations(page, { label: 'the sell page' });
      await page.getByLabel(/price per ticket/i).fill('38.50');
      await page.getByLabel('Account holder').fill('Ana García');
      await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.waitForURL(/published=1/);
      await page.goto(`${stack.demoUrl}/my-tickets`);
      await expect.poll(() => actions.locator('[part~="status"]').getAttribute('data-status')).toBe('FOR_SALE');
      await expectNoAxeViolations(page, { label: 'My tickets' });
    });
  });
});

/** Sells a ticket through the demo My tickets page and the hosted sell page (journey 1's steps). */
async function sell(page: Page, ticketId: string, price: string): Promise<void> {
  await page.goto(`${stack.demoUrl}/my-tickets`);
  const actions = page.locator(`resale-sell-actions[data-resale-data="resale-entry-${ticketId}"]`);
  await actions.getByRole('link', { name: /sell/i }).click();
  await publish(page, price, 'Seller');
}

/** On the hosted sell page: the price (else the one the page proposes), the payout account when asked, Publish. */
async function publish(page: Page, price: string | null, holderName: string): Promise<void> {
  if (price !== null) await page.getByLabel(/price per ticket/i).fill(price);
  const holder = page.getByLabel('Account holder');
  // The payout account is asked once per seller.
  if (await holder.count()) {
    await holder.fill(holderName);
    await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
  }
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.waitForURL(/published=1/);
}

describe('buy from the demo event page', () => {
  it('(2) a buyer sees quantity and floor price, reserves in the market, pays, and the demo gets the signed ticket.update', async () => {
    const page = await person();
    await journey(page, 'buy', async () => {
      await signIn(page, 'Ben Okafor');
      await page.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = page.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      expect(await category.locator('[part~="name"]').innerText()).toBe('General admission');
      expect(await category.locator('[part~="price"]').innerText()).toBe('from €42.35');
      await expectNoAxeViolations(page, { label: 'the demo event page' });
      await category.getByRole('link', { name: 'See tickets' }).click();
      await page.waitForURL(/\/market\/ptr_[^/]+\/demo-festival\?/);
      await expect.poll(() => page.locator('main').innerText()).toContain('€42.35 per ticket, fees included');
      await expectNoAxeViolations(page, { label: 'the market page' });
      await page.getByRole('button', { name: 'Buy' }).click();
      // Login Force: the checkout sends the browser to the demo's sign-in, which (Ben being signed
      // in there) comes straight back with a one-time token.
      await page.waitForURL(/\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/);
      await expectNoAxeViolations(page, { label: 'the checkout page' });
      await pay(page, '4242 4242 4242 4242');
      await page.waitForURL(/\/done\?/);
      expect(await page.locator('h1').innerText()).toBe('Thank you: the tickets are yours');

      // The outbox delivers ticket.update to the demo, which verifies it and moves the ticket.
      const resale = page.locator('li.delivery', { has: page.locator('h2', { hasText: 'ticket.update' }) });
      await expect
        .poll(async () => {
          await page.goto(`${stack.demoUrl}/webhooks`);
          return resale.count();
        }, { timeout: 30_000, interval: 500 })
        .toBe(1);
      expect(await resale.locator('dd.ok').innerText()).toBe('signature verified');
      expect(await resale.locator('pre').textContent()).toContain('dt-festival-0001');
      await page.goto(`${stack.demoUrl}/my-tickets`);
      await expect.poll(() => page.locator('resale-sell-actions[data-resale-data="resale-entry-dt-festival-0001"]').count()).toBe(1);
      expect(await page.locator('main').innerText()).toContain('DT-FESTIVAL-0001');
    });
  });

  it('(3) a declined card leaves the listing available again', async () => {
    const seller = await person();
    const buyer = await person();
    await journey(seller, 'declined-sell', async () => {
      await signIn(seller, 'Carla Rossi');
      await sell(seller, 'dt-festival-0003', '36');
    });
    await journey(buyer, 'declined-buy', async () => {
      await signIn(buyer, 'Dan Novak');
      await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = buyer.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      await category.getByRole('link', { name: 'See tickets' }).click();
      await buyer.getByRole('button', { name: 'Buy' }).click();
      await buyer.waitForURL(/\/checkout\//);
      await pay(buyer, '4000 0000 0000 0002');
      await expect.poll(() => buyer.locator('main').innerText()).toContain('declined');
      await expectNoAxeViolations(buyer, { label: 'the declined page' });
      // Released at once: the event page counts it again and the market sells it again.
      await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      expect(await category.getByRole('link', { name: 'See tickets' }).count()).toBe(1);
    });
  });
});

/** Fills the sandbox card form and pays. */
async function pay(page: Page, card: string): Promise<void> {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry date (MM/YY)').fill('12/30');
  await page.getByLabel('Security code').fill('123');
  await page.getByRole('button', { name: /^Pay / }).click();
}

describe('the seat map on the demo event page', () => {
  it('(4) hovering a seat shows its tooltip; picking seats reaches checkout', async () => {
    const seller = await person();
    const buyer = await person();
    await journey(seller, 'seatmap-sell', async () => {
      await signIn(seller, 'Carla Rossi');
      await sell(seller, 'dt-gala-c4', '62');
      await sell(seller, 'dt-gala-c5', '64');
    });
    await journey(buyer, 'seatmap-buy', async () => {
      await signIn(buyer, 'Ben Okafor');
      await buyer.goto(`${stack.demoUrl}/events/demo-gala`);
      const map = buyer.locator('resale-seat-map');
      const seat = (n: string) => map.locator(`[part~="chart"] [data-section="Stalls"][data-row="C"][data-seat="${n}"]`);
      await expect.poll(() => seat('4').getAttribute('role')).toBe('button');
      await expectNoAxeViolations(buyer, { label: 'the event page with the seat map' });

      await seat('4').hover();
      const tooltip = map.locator('[part~="tooltip"]');
      await expect.poll(() => tooltip.isVisible()).toBe(true);
      expect(await tooltip.innerText()).toMatch(/Row C.*Seat 4.*€68\.20/s);
      // Placed by floating-ui next to the seat, not at the page's corner.
      const [tip, box] = [await tooltip.boundingBox(), await seat('4').boundingBox()];
      expect(Math.abs(tip!.x + tip!.width / 2 - (box!.x + box!.width / 2))).toBeLessThan(40);

      // C4 alone would strand C5 (C3 and C6 are not for sale): Continue waits for both.
      await seat('4').click();
      await expect.poll(() => map.locator('[part~="message"]').innerText()).toContain('single empty seat');
      expect(await map.locator('button[part~="continue"]').isDisabled()).toBe(true);
      await seat('5').click();
      await expect.poll(() => map.locator('[part~="message"]').count()).toBe(0);
      await map.locator('a[part~="continue"]').click();

      await buyer.waitForURL(/listingIds=/);
      expect(await buyer.locator('main').innerText()).toContain('Your selection');
      await buyer.getByRole('button', { name: 'Reserve and pay' }).click();
      await buyer.waitForURL(/\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/);
      const items = await buyer.locator('main li').allInnerTexts();
      expect(items.join('\n')).toMatch(/Stalls · C · 4/);
      expect(items.join('\n')).toMatch(/Stalls · C · 5/);
    });
  });
});

describe('the buy modal', () => {
  it('(5) traps focus, closes with Escape and gives focus back', async () => {
    const page = await person();
    // A partner page of its own on loopback (Chrome's local-network rules let only a page from
    // a local address load the service's script), under a strict policy: only that script.
    const fixture = await servePage({
      'content-security-policy': `default-src 'none'; script-src ${stack.serviceUrl}; img-src 'self'`,
    }, `<!doctype html><html lang="en"><head><title>Event</title><script type="module" src="${stack.serviceUrl}/widgets/v1/resale.js"></script></head>
<body><main><h1>Event</h1><button id="opener">Tickets</button><p><a href="#after">After</a></p><resale-buy-modal manual></resale-buy-modal></main></body></html>`);
    const url = fixture.url;
    await journey(page, 'modal', async () => {
      await page.goto(url);
      // Polled with evaluate: waitForFunction would need eval, which this page's policy forbids.
      await expect.poll(() => page.evaluate(() => customElements.get('resale-buy-modal') !== undefined)).toBe(true);
      await page.evaluate(() => {
        const modal = document.querySelector('resale-buy-modal') as HTMLElement & { component: unknown };
        modal.component = {
          type: 'modal',
          class: 'buyModal',
          buyModal: { visible: true, title: 'Sold out? Not quite.', description: 'Fans resell here.', image: `${location.origin}/banner.png`, callToAction: { text: 'See tickets', url: 'https://resale.example/market', enabled: true } },
        };
      });
      await page.locator('#opener').focus();
      await page.evaluate(() => (document.querySelector('resale-buy-modal') as HTMLElement & { show(): void }).show());
      const modal = page.locator('resale-buy-modal');
      await expect.poll(() => modal.getAttribute('open')).toBe('');
      await expectNoAxeViolations(page, { label: 'the open modal' });
      /** Where focus is: a part name inside the modal, or the light-DOM element's id. */
      const focused = () => page.evaluate(() => {
        const host = document.querySelector('resale-buy-modal')!;
        const inner = host.shadowRoot?.activeElement;
        return document.activeElement === host && inner ? `modal:${inner.getAttribute('part')}` : (document.activeElement?.id ?? document.activeElement?.tagName);
      });
      expect(await focused()).toBe('modal:close');
      const seen = new Set<string>();
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press('Tab');
        seen.add(String(await focused()));
      }
      for (let i = 0; i < 3; i++) {
        await page.keyboard.press('Shift+Tab');
        seen.add(String(await focused()));
      }
      expect([...seen].every((f) => f.startsWith('modal:')), [...seen].join(', ')).toBe(true);
      expect(seen.size).toBeGreaterThan(1);
      await page.keyboard.press('Escape');
      await expect.poll(() => modal.getAttribute('open')).toBeNull();
      expect(await focused()).toBe('opener');
    }).finally(() => fixture.close());
  });
});

describe('every page of the service a fan reaches', () => {
  it('(6) passes axe: seller hub or show, ticket, order, listing, payout, market, ticket view, sign-in by code, notices', async () => {
    const page = await person();
    await journey(page, 'pages', async () => {
      const ana = 'ana@demo.test';
      const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
      // Signed entry URLs (the partner vouches for Ana), as the demo's buttons would open them.
      const entries = [
        (await stack.api('GET', `/v1/marketplace/smartPublish?${q({ email: ana })}`)).body.data,
        (await stack.api('GET', `/v1/marketplace/sellingflow/url/order/entrypoint?${q({ orderId: 'ord-1001', 'loginTrust[user]': ana })}`)).body.data,
        (await stack.api('GET', `/v1/marketplace/sellingflow/url/entrypoint?${q({ ticketId: 'dt-gala-a5', 'loginTrust[user]': ana })}`)).body.data,
        (await stack.api('GET', `/v1/marketplace/buyingflow/url/entrypoint?${q({ externalReferenceEventId: 'demo-gala', showId: 'gala-1', returnTo: `${stack.demoUrl}/`, 'loginTrust[user]': ana })}`)).body.data,
        (await stack.api('GET', '/v1/tickets/dt-gala-a5/url')).body.data,
      ] as string[];
      expect(entries.every((u) => typeof u === 'string' && u.startsWith(stack.serviceUrl)), entries.join(' ')).toBe(true);
      const partnerId = /\/(ptr_[0-9a-z]+)\//.exec(entries[0]!)![1]!;
      // Ana publishes a ticket at the price the page proposes, so that her listing has a page too.
      await page.goto(entries[2]!);
      await publish(page, null, 'Ana García');
      entries.push(page.url(), `${stack.serviceUrl}/sell/${partnerId}/payout`);

      /** A page's template: its path with ids left out, so each kind of page is checked once. */
      const template = (url: string) => new URL(url).pathname.replace(/(ptr|lst|bi|shw|tkt|pay)_[\w.-]+/g, ':id').replace(/\/(dt-[\w-]+|ord-\d+)/g, '/:ref');
      const checked = new Set<string>();
      const queue = [...entries];
      const seen = new Set<string>();
      while (queue.length > 0 && seen.size < 30) {
        const url = queue.shift()!;
        if (seen.has(url)) continue;
        seen.add(url);
        await page.goto(url);
        const here = page.url();
        if (!here.startsWith(stack.serviceUrl)) continue;
        if (!checked.has(template(here))) {
          checked.add(template(here));
          await expectNoAxeViolations(page, { label: template(here) });
        }
        const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
        for (const link of links) if (/\/(sell|market|checkout|tickets\/view)\//.test(new URL(link).pathname) && link.startsWith(stack.serviceUrl) && !link.endsWith('.pdf')) queue.push(link);
      }
      for (const expected of ['/sell/:id/order/:ref', '/sell/:id/ticket/:ref', '/sell/:id/payout', '/sell/:id/listings/:id', '/market/:id/demo-gala', '/tickets/view/:id']) {
        expect([...checked], expected).toContain(expected);
      }
      // The hub lists shows when the seller's tickets span several; with one show left (the
      // earlier journeys sold Ana's festival ticket) it forwards to that show's page.
      expect([...checked].filter((c) => c === '/sell/:id/start' || c === '/sell/:id/show/:id').length).toBeGreaterThan(0);

      // Notices: an unknown ticket, and a form whose CSRF token no longer matches.
      await page.goto(`${stack.serviceUrl}/sell/${partnerId}/ticket/no-such-ticket`);
      await expectNoAxeViolations(page, { label: 'the not-found notice' });
      await page.goto(`${stack.serviceUrl}/sell/${partnerId}/payout`);
      await page.locator('input[name="_csrf"]').first().evaluate((el) => ((el as HTMLInputElement).value = 'expired'));
      await page.locator('form[action*="/payout"] button[type="submit"]').first().click();
      await expect.poll(() => page.locator('h1').textContent()).toMatch(/expired/i);
      await expectNoAxeViolations(page, { label: 'the form-expired notice' });

      // Sign-in by a one-time code, for a partner without a login page of its own (the demo has
      // one): the identifier form, then the code form.
      const created = await fetch(`${stack.serviceUrl}/admin/v1/partners`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEYS.operator}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Code Sign-in Tickets' }),
      });
      expect(created.status).toBe(201);
      const codePartner = ((await created.json()) as { data: { partner: { id: string } } }).data.partner.id;
      const fresh = await person();
      await fresh.goto(`${stack.serviceUrl}/auth/otp?${q({ p: codePartner })}`);
      await expectNoAxeViolations(fresh, { label: 'the sign-in page' });
      await fresh.getByLabel(/e-mail|email/i).first().fill(ana);
      await fresh.locator('form button[type="submit"]').first().click();
      await expect.poll(() => fresh.locator('input[name="code"]').count()).toBe(1);
      await expectNoAxeViolations(fresh, { label: 'the code page' });
    });
  });
});
