import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { servePage, startStack, TEST_KEYS, type Stack } from './stack.js';
import { ANA, CARLA, STEP_UP_LINK, steps } from './steps.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const { signIn, sell, publish, mailbox, stepUp, reserve, pagesDuring, pay } = steps(() => stack);

/** A committed page's kind, for the journeys' page counts. */
const kindOf = (url: string) => (/\/checkout\/ptr_[^/]+\/bi_[^/?]+\/done/.test(url) ? 'receipt' : /\/checkout\//.test(url) ? 'checkout' : /\/market\//.test(url) ? 'market' : new URL(url).pathname);

/** A fresh browser profile (its own cookies), as a second person on another computer; no CSP violation nor console error allowed. */
const { person } = journeyBrowser();

describe('sell on the demo My tickets page', () => {
  it('(1) a seller clicks Sell, sets a price within the rules, publishes and sees FOR_SALE', async () => {
    const page = await person();
    await journey(page, 'sell', async () => {
      await signIn(page, ANA.name);
      await page.goto(`${stack.demoUrl}/my-tickets`);
      const actions = page.locator('resale-sell-actions[data-resale-data="resale-entry-dt-festival-0001"]');
      await expect.poll(() => actions.locator('[part~="status"]').getAttribute('data-status')).toBe('SELLABLE');
      await actions.getByRole('link', { name: /sell/i }).click();
      await page.waitForURL(/\/sell\/ptr_[^/]+\/ticket\/dt-festival-0001/);
      await expectSoundPage(page, { label: 'the sell page' });
      await page.getByLabel(/price per ticket/i).fill('38.50');
      // Enter in the price calculates (the form's default action), whatever buttons follow.
      await page.getByLabel(/price per ticket/i).press('Enter');
      await expect.poll(() => page.locator('main').innerText()).toContain('You receive');
      expect(await page.getByLabel(/price per ticket/i).inputValue()).toBe('38.50');
      // Ana arrived through a sign-in link (an autologin token): no payout fields until she
      // confirms it's her with a code sent to her own e-mail.
      expect(await page.getByLabel('Account holder').count()).toBe(0);
      expect(await page.getByLabel('IBAN').count()).toBe(0);
      const changedBefore = (await mailbox(ANA.email)).filter((m) => m.template === 'payoutDetailsChanged').length;
      await page.getByRole('button', { name: STEP_UP_LINK }).click();
      await stepUp(page, ANA.email, (label) => expectSoundPage(page, { label }));
      await page.waitForURL(/\/sell\/ptr_[^/]+\/ticket\/dt-festival-0001/);
      // The price she typed came back with the form.
      expect(await page.getByLabel(/price per ticket/i).inputValue()).toBe('38.50');
      // €38.50 is above the €35 face value: she confirms she means it.
      expect(await page.locator('main').innerText()).toContain('Face value: €35.00.');
      await page.getByLabel(/publish it anyway/).check();
      await page.getByLabel('Account holder').fill('Ana García');
      await page.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.waitForURL(/published=1/);
      // The change of where her money goes is confirmed to her own address.
      await expect.poll(async () => (await mailbox(ANA.email)).filter((m) => m.template === 'payoutDetailsChanged').length).toBe(changedBefore + 1);
      const changed = (await mailbox(ANA.email)).find((m) => m.template === 'payoutDetailsChanged')!;
      expect(changed.channel).toBe('email');
      expect(changed.subject).toBe('Your payout details were changed');
      expect(changed.text).toContain('3000 (Ana García)');
      await page.goto(`${stack.demoUrl}/my-tickets`);
      await expect.poll(() => actions.locator('[part~="status"]').getAttribute('data-status')).toBe('FOR_SALE');
      await expectSoundPage(page, { label: 'My tickets' });
    });
  });
});

describe('buy from the demo event page', () => {
  it('(2) a buyer sees quantity and floor price, reserves in the market (pick to paid in two pages), finds their hold on the event page while another fan sees it reserved, pays, and the demo gets the signed ticket.update', async () => {
    const page = await person();
    await journey(page, 'buy', async () => {
      await signIn(page, 'Ben Okafor');
      await page.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = page.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      expect(await category.locator('[part~="name"]').innerText()).toBe('General admission');
      expect(await category.locator('[part~="price"]').innerText()).toBe('from €42.35');
      await expectSoundPage(page, { label: 'the demo event page' });
      await category.getByRole('link', { name: 'See tickets' }).click();
      await page.waitForURL(/\/market\/ptr_[^/]+\/demo-festival\?/);
      await expect.poll(() => page.locator('main').innerText()).toContain('€42.35 per ticket, fees included');
      await expectSoundPage(page, { label: 'the market page' });
      // Another fan has the event page open meanwhile: its stock is live (the widgets' stream).
      const other = await person();
      await signIn(other, 'Dan Novak');
      await other.goto(`${stack.demoUrl}/events/demo-festival`);
      const theirs = other.locator('resale-categories-list li[data-ticket-option-id="fest-ga"] [part~="quantity"]');
      await expect.poll(() => theirs.innerText()).toBe('1 ticket');
      // The demo hands the widgets the access layer signed for Ben (Login Trust): See tickets
      // signed him in with the service on the way, so Buy holds at once and opens the checkout.
      // From the pick to paid in two pages: the checkout, then the receipt.
      const toCheckout = await pagesDuring(page, async () => {
        expect(await reserve(page, page.getByRole('button', { name: 'Buy' }))).toBe('direct');
      });
      await page.waitForURL(/\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/);
      await expectSoundPage(page, { label: 'the checkout page' });
      const checkout = new URL(page.url()).pathname;

      // His own hold never hides his ticket: back on the event page (the demo hands the widgets
      // the access layer signed for Ben), the category says it is his and leads back to pay.
      await page.goto(`${stack.demoUrl}/events/demo-festival`);
      const hold = category.locator('[part~="your-hold"]');
      await expect.poll(() => hold.count()).toBe(1);
      expect(await hold.locator('[part~="your-hold-title"]').innerText()).toMatch(/^You have 1 ticket reserved \(\d+:\d\d left\)$/);
      expect(await hold.getByRole('link', { name: 'Release it' }).count()).toBe(1);
      // The other fan's page heard of the hold without a reload (the live stream: the public
      // stock cannot tell whose), and on a reload (signed for Dan) it is another fan's.
      await expect.poll(() => theirs.innerText(), { timeout: 10_000 }).toMatch(/^1 ticket reserved in a checkout — may be back at \d\d:\d\d$/);
      await other.reload();
      await expect.poll(() => theirs.innerText()).toMatch(/^1 ticket reserved by another fan — may be back at \d\d:\d\d$/);
      expect(await other.locator('resale-categories-list li[data-ticket-option-id="fest-ga"] [part~="your-hold"]').count()).toBe(0);
      await expectSoundPage(other, { label: 'the event page while another fan holds the ticket' });
      await hold.getByRole('link', { name: 'Continue to checkout' }).click();
      await page.waitForURL((u) => u.pathname === checkout);
      await expectSoundPage(page, { label: 'the event page’s way back to the checkout' });

      const toReceipt = await pagesDuring(page, async () => {
        await pay(page, '4242 4242 4242 4242');
        await page.waitForURL(/\/done\?/);
      });
      expect([...toCheckout, ...toReceipt].map(kindOf)).toEqual(['checkout', 'receipt']);
      // Sold: the other fan's open page says so without a reload.
      await expect.poll(() => theirs.innerText(), { timeout: 10_000 }).toBe('none for sale');
      await other.close();
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

  it('(3) a declined card keeps the hold: the buyer tries another card on the same checkout and gets the receipt', async () => {
    const seller = await person();
    const buyer = await person();
    await journey(seller, 'declined-sell', async () => {
      await signIn(seller, CARLA.name);
      await sell(seller, 'dt-festival-0003', '36', CARLA.email);
    });
    await journey(buyer, 'declined-buy', async () => {
      await signIn(buyer, 'Dan Novak');
      await buyer.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = buyer.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('1 ticket');
      await category.getByRole('link', { name: 'See tickets' }).click();
      expect(await reserve(buyer, buyer.getByRole('button', { name: 'Buy' }))).toBe('direct');
      await buyer.waitForURL(/\/checkout\//);
      const checkout = new URL(buyer.url()).pathname;
      // A field error keeps what was typed and says where.
      await buyer.getByLabel('Card number').fill('4242 4242 4242 4242');
      await buyer.getByLabel('Expiry date (MM/YY)').fill('1320');
      await buyer.getByRole('button', { name: /^Pay / }).click();
      await expect.poll(() => buyer.locator('#expiry').getAttribute('aria-invalid')).toBe('true');
      expect(await buyer.getByLabel('Card number').inputValue()).toBe('4242 4242 4242 4242');
      await expectSoundPage(buyer, { label: 'the checkout with a field error' });
      await pay(buyer, '4000 0000 0000 0002');
      await expect.poll(() => buyer.locator('main').innerText()).toContain('declined');
      // Still his: the same checkout, the ticket held (the event page counts none for sale).
      expect(new URL(buyer.url()).pathname).toBe(checkout);
      await expectSoundPage(buyer, { label: 'the declined page' });
      expect(await buyer.getByLabel('Card number').count()).toBe(1);
      await pay(buyer, '4242 4242 4242 4242');
      await buyer.waitForURL(/\/done\?/);
      const receipt = await buyer.locator('main').innerText();
      expect(receipt).toMatch(/•••• 4242|4242/);
      // The receipt links the secure ticket view, which opens.
      await buyer.locator('a[href*="/tickets/view/"]').first().click();
      await buyer.waitForURL(/\/tickets\/view\//);
      await expectSoundPage(buyer, { label: 'the ticket view from the receipt' });
    });
  });
});

describe('the demo’s “Try it” in one browser', () => {
  it('(7) a seller signs out of the partner site and out of the resale pages; the next person buys, with a way back to the partner throughout', async () => {
    const page = await person();
    await journey(page, 'one-browser', async () => {
      await signIn(page, CARLA.name);
      await sell(page, 'dt-festival-0004', '37', CARLA.email);
      // The partner's sign-out goes through the service's: the resale pages forget Carla too.
      await page.goto(`${stack.demoUrl}/`);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${stack.demoUrl}/`);
      await signIn(page, 'Ben Okafor');
      await page.goto(`${stack.demoUrl}/events/demo-festival`);
      const see = page.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]').getByRole('link', { name: 'See tickets' });
      // The widget sends the fan to the market with the partner page to come back to.
      await expect.poll(async () => new URL((await see.getAttribute('href'))!).searchParams.get('returnTo')).toBe(`${stack.demoUrl}/events/demo-festival`);
      await see.click();
      await page.waitForURL(/\/market\//);
      const back = page.locator('header a.back');
      expect(await back.innerText()).toBe('Back to Demo Tickets');
      expect(await back.getAttribute('href')).toBe(`${stack.demoUrl}/events/demo-festival`);
      // Carla's session with the service ended with her sign-out, and See tickets (signed for Ben
      // by the demo) signed Ben in: his press holds for Ben (as Carla it would have been refused
      // as her own listing).
      expect(await reserve(page, page.getByRole('button', { name: 'Buy' }).first())).toBe('direct');
      expect(await page.locator('main').innerText()).not.toContain(CARLA.email);
      expect(await page.locator('header a.back').getAttribute('href')).toBe(`${stack.demoUrl}/events/demo-festival`);
      await pay(page, '4242 4242 4242 4242');
      await page.waitForURL(/\/done\?/);
      expect(await page.locator('header a.back').getAttribute('href')).toBe(`${stack.demoUrl}/events/demo-festival`);
      await expectSoundPage(page, { label: 'the receipt' });
    });
  });
});

describe('the seat map on the demo event page', () => {
  it('(4) hovering a seat shows its tooltip; picking seats goes to their checkout and the receipt in two pages', async () => {
    const seller = await person();
    const buyer = await person();
    await journey(seller, 'seatmap-sell', async () => {
      await signIn(seller, CARLA.name);
      await sell(seller, 'dt-gala-c4', '62', CARLA.email);
      await sell(seller, 'dt-gala-c5', '64', CARLA.email);
    });
    await journey(buyer, 'seatmap-buy', async () => {
      await signIn(buyer, 'Ben Okafor');
      await buyer.goto(`${stack.demoUrl}/events/demo-gala`);
      const map = buyer.locator('resale-seat-map');
      const seat = (n: string) => map.locator(`[part~="chart"] [data-section="Stalls"][data-row="C"][data-seat="${n}"]`);
      await expect.poll(() => seat('4').getAttribute('role')).toBe('button');
      await expectSoundPage(buyer, { label: 'the event page with the seat map' });

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
      // Continue holds the pick and opens the checkout: Ben is not signed in with the service
      // yet, so the demo's sign-in (Login Force, answering at once) comes in between, no page.
      const checkout = /\/checkout\/ptr_[^/]+\/bi_[^/?]+\?/;
      const toCheckout = await pagesDuring(buyer, async () => {
        await map.locator('a[part~="continue"]').click();
        await buyer.waitForURL(checkout);
      });
      expect(toCheckout.map(kindOf)).toEqual(['checkout']);
      const items = await buyer.locator('main li').allInnerTexts();
      expect(items.join('\n')).toMatch(/Section Stalls · Row C · Seat 4/);
      expect(items.join('\n')).toMatch(/Section Stalls · Row C · Seat 5/);
      expect(await buyer.locator('header a.back').getAttribute('href')).toBe(`${stack.demoUrl}/events/demo-gala`);
      const toReceipt = await pagesDuring(buyer, async () => {
        await pay(buyer, '4242 4242 4242 4242');
        await buyer.waitForURL(/\/done\?/);
      });
      expect(toReceipt.map(kindOf)).toEqual(['receipt']);
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
      await expectSoundPage(page, { label: 'the open modal' });
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
  it('(6) passes axe: seller hub or show, ticket, order, listing, step-up, payout, market, ticket view, sign-in by code, notices', async () => {
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
      await publish(page, null, 'Ana García', ana);
      // Her payout page asks for a fresh step-up first (she came through sign-in links): the
      // crawl lands on the step-up page, goes through it and comes back to the payout form.
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
        let here = page.url();
        if (!here.startsWith(stack.serviceUrl)) continue;
        /** axe once per kind of page. */
        const check = async (kind: string) => {
          if (checked.has(kind)) return;
          checked.add(kind);
          await expectSoundPage(page, { label: kind });
        };
        if (template(here) === '/auth/step-up') {
          // The step-up page and its code page are pages a fan reaches too; after the code the
          // browser is back where it was going (the payout form, for 2 hours).
          await stepUp(page, ana, () => check(template(page.url())));
          here = page.url();
          expect(here.startsWith(stack.serviceUrl), here).toBe(true);
        }
        await check(template(here));
        const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
        // Pages only: not the downloads (the ticket's PDF, its calendar file).
        for (const link of links) if (/\/(sell|market|checkout|tickets\/view)\//.test(new URL(link).pathname) && link.startsWith(stack.serviceUrl) && !/\.(pdf|ics)$/.test(new URL(link).pathname)) queue.push(link);
      }
      for (const expected of ['/sell/:id/order/:ref', '/sell/:id/ticket/:ref', '/sell/:id/payout', '/auth/step-up', '/auth/step-up/verify', '/sell/:id/listings/:id', '/market/:id/demo-gala', '/tickets/view/:id']) {
        expect([...checked], expected).toContain(expected);
      }
      // The hub lists shows when the seller's tickets span several; with one show left (the
      // earlier journeys sold Ana's festival ticket) it forwards to that show's page.
      expect([...checked].filter((c) => c === '/sell/:id/start' || c === '/sell/:id/show/:id').length).toBeGreaterThan(0);

      // Notices: an unknown ticket, and a form whose CSRF token no longer matches.
      await page.goto(`${stack.serviceUrl}/sell/${partnerId}/ticket/no-such-ticket`);
      await expectSoundPage(page, { label: 'the not-found notice' });
      await page.goto(`${stack.serviceUrl}/sell/${partnerId}/payout`);
      // Still stepped up from the crawl: the payout form itself, not the step-up page.
      expect(template(page.url())).toBe('/sell/:id/payout');
      expect(await page.getByLabel('Account holder').count()).toBe(1);
      expect(await page.getByLabel('IBAN').count()).toBe(1);
      await page.locator('input[name="_csrf"]').first().evaluate((el) => ((el as HTMLInputElement).value = 'expired'));
      await page.locator('form[action*="/payout"] button[type="submit"]').first().click();
      await expect.poll(() => page.locator('h1').textContent()).toMatch(/expired/i);
      await expectSoundPage(page, { label: 'the form-expired notice' });

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
      await expectSoundPage(fresh, { label: 'the sign-in page' });
      await fresh.getByLabel(/e-mail|email/i).first().fill(ana);
      await fresh.locator('form button[type="submit"]').first().click();
      await expect.poll(() => fresh.locator('input[name="code"]').count()).toBe(1);
      await expectSoundPage(fresh, { label: 'the code page' });
    });
  });
});
