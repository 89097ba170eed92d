import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSoundPage, journey, journeyBrowser } from './browser.js';
import { startStack, type Stack } from './stack.js';
import { ANA, CARLA, steps } from './steps.js';
import { movableClock, waitingListSteps, type WaitingListEntry } from './waitinglist.steps.js';

let stack: Stack;
const clock = movableClock();

beforeAll(async () => {
  // The service's clock reads the time this moves.
  stack = await startStack({ providers: { clockShift: clock.shift } });
});

afterAll(async () => {
  await stack?.stop();
});

const shared = steps(() => stack);
const { signIn, sell, pay } = shared;
const { enable, entryOf, seen, offerMail, offerMails } = waitingListSteps(() => stack, shared);

/** A fresh browser profile (its own cookies), as a second person on another computer; no CSP violation nor console error allowed. */
const { person } = journeyBrowser();

/** The festival's show (general admission): nothing of it is for sale on a fresh stack. */
const SHOW = { eventId: 'demo-festival', showId: 'fest-1' };
/** Fan A: joins first, in the browser. */
const DAN = { name: 'Dan Novak', email: 'dan@demo.test' };
/** Fan B: joins second, in the browser, signing in with the service on the way. */
const BEN = { name: 'Ben Okafor', email: 'ben@demo.test' };
/** Fan C: put in line third by the partner's server (the API). */
const C = ANA;
/** How long an offer holds its tickets (the shortest the API allows). */
const OFFER_MINUTES = 5;

/** What the journey's steps hand on to the next ones (the `it`s run in order, on one stack). */
const state: { market?: string; dan?: Page; ben?: Page; carla?: Page } = {};

/** What an earlier `it` of the journey left for the next ones (failing clearly when that one failed). */
function left<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: an earlier step of this journey did not get that far`);
  return value;
}

/** The text of the page's main region. */
const mainText = (page: Page) => page.locator('main').innerText();

/** The listing a publish just made, read from the sell page it lands on (`/sell/…/listings/lst_…?published=1`). */
function listingOf(page: Page): string {
  const id = /\/listings\/(lst_[^/?#]+)/.exec(page.url())?.[1];
  expect(id, page.url()).toBeDefined();
  return id!;
}

describe('the waiting list of a show', () => {
  it('(8a) the organiser turns the list on; fans join from the empty market, each told their place, the third through the partner’s server', async () => {
    // The organiser turns the show's list on: nobody in line yet.
    expect(await enable(SHOW, OFFER_MINUTES)).toMatchObject({ enabled: true, offerMinutes: OFFER_MINUTES, priceCap: 'RULES', waiting: 0 });

    const dan = (state.dan = await person());
    const market = (state.market = await journey(dan, 'waitinglist-join-a', async () => {
      await signIn(dan, DAN.name);
      await dan.goto(`${stack.demoUrl}/events/demo-festival`);
      const category = dan.locator('resale-categories-list li[data-ticket-option-id="fest-ga"]');
      await expect.poll(() => category.locator('[part~="quantity"]').innerText()).toBe('none for sale');
      // Nothing for sale: the category offers the waiting list instead of a dead, disabled
      // button, and the buy button says how many wait (nobody yet). The demo's server fetched
      // the access layer signed for Dan (Login Trust): the join link signs him in.
      const join = category.getByRole('link', { name: 'Join the waiting list' });
      const entry = await join.getAttribute('href');
      expect(entry).toMatch(new RegExp(`^${stack.serviceUrl.replace(/[.]/g, '\\.')}/market/ptr_[^?]+\\?.*ticketOptionId=fest-ga.*#waitinglist$`));
      expect(new URL(entry!).searchParams.get('oneTimeToken')).toBeTruthy();
      await expectSoundPage(dan, { label: 'the event page with the waiting list’s join' });
      await join.click();
      await dan.waitForURL(/\/market\/ptr_[^/]+\/demo-festival\?/);
      const text = await mainText(dan);
      expect(text).toContain('No tickets are for sale for this show right now.');
      // The waiting list, in place of the wishlist's "E-mail me when tickets appear".
      expect(text).not.toContain('Tell me when tickets appear');
      expect(text).not.toContain('fans waiting');
      expect(await dan.locator('#wl-title').innerText()).toBe('Join the waiting list');
      expect(await dan.getByRole('button', { name: 'Buy' }).count()).toBe(0);
      await expectSoundPage(dan, { label: 'the empty market with the waiting list’s join form' });

      await dan.getByLabel('Tickets', { exact: true }).fill('1');
      await dan.getByRole('button', { name: 'Join the waiting list' }).click();
      await dan.waitForURL(/[?&]waitinglist=joined/);
      const joined = await mainText(dan);
      expect(joined).toContain('Done: we will e-mail you as soon as tickets are held for you.');
      expect(joined).toContain('You are #1 in line for 1 ticket.');
      expect(joined).toContain('1 fan waiting');
      expect(await dan.getByRole('button', { name: 'Leave the waiting list' }).count()).toBe(1);
      expect(await dan.getByRole('button', { name: 'Join the waiting list' }).count()).toBe(0);
      await expectSoundPage(dan, { label: 'the market with the fan’s place in line' });
      // The show's market, without the one-time notice and the sign-in token.
      const url = new URL(dan.url());
      for (const p of ['waitinglist', 'oneTimeToken']) url.searchParams.delete(p);
      url.hash = '';
      return url.toString();
    }));
    expect(await entryOf(DAN.email, SHOW)).toMatchObject({ state: 'WAITING', position: 1, quantity: 1, offer: null });
    // Back on the partner's event page, the widgets tell Dan his place (the answer is signed for him).
    await dan.goto(`${stack.demoUrl}/events/demo-festival`);
    await expect.poll(() => dan.locator('resale-access-layer').getByText('You are #1 in line for 1 ticket.').count()).toBe(1);

    // Fan B opens the market by its address, signed in on the demo only: the join signs him in
    // with the service (the demo's Login Force) and joins him on the way back.
    const ben = (state.ben = await person());
    await journey(ben, 'waitinglist-join-b', async () => {
      await signIn(ben, BEN.name);
      // The partner's event page says how many fans wait, beside the join.
      await ben.goto(`${stack.demoUrl}/events/demo-festival`);
      await expect.poll(() => ben.locator('resale-access-layer').getByText('1 fan waiting').count()).toBe(1);
      await ben.goto(market);
      expect(await mainText(ben)).toContain('1 fan waiting');
      await ben.getByLabel('Tickets', { exact: true }).fill('1');
      await ben.getByRole('button', { name: 'Join the waiting list' }).click();
      await ben.waitForURL((u) => u.origin === stack.serviceUrl && u.searchParams.get('waitinglist') === 'joined', { timeout: 15_000 });
      const text = await mainText(ben);
      expect(text).toContain('Done: we will e-mail you as soon as tickets are held for you.');
      expect(text).toContain('You are #2 in line for 1 ticket.');
      expect(text).toContain('2 fans waiting');
    });
    expect(await entryOf(BEN.email, SHOW)).toMatchObject({ state: 'WAITING', position: 2, quantity: 1 });

    // Fan C is put in line by the partner's server, behind both.
    const joined = await stack.api('POST', '/v1/waitinglist/entries', { externalReferenceEventId: SHOW.eventId, showId: SHOW.showId, quantity: 1, together: false, user: C.email });
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    expect(joined.body.data).toMatchObject({ state: 'WAITING', position: 3, quantity: 1, user: { email: C.email } });
    await dan.goto(market);
    expect(await mainText(dan)).toContain('3 fans waiting');
    expect(await mainText(dan)).toContain('You are #1 in line for 1 ticket.');
  });

  it('(8b) a seller lists a ticket: it is held for the first fan, never on sale; her e-mail leads to a checkout of exactly that ticket, and she pays', async () => {
    const dan = left(state.dan, 'fan A’s browser');
    const ben = left(state.ben, 'fan B’s browser');
    const market = left(state.market, 'the market page');
    const danBefore = await seen(DAN.email);
    const carla = (state.carla = await person());
    const listing = await journey(carla, 'waitinglist-sell-1', async () => {
      await signIn(carla, CARLA.name);
      await sell(carla, 'dt-festival-0003', '35', CARLA.email);
      return listingOf(carla);
    });

    // Held for Dan, the first in line, in the publish's own transaction.
    const offered = await entryOf(DAN.email, SHOW);
    expect(offered.state).toBe('OFFERED');
    expect(offered.offer).toMatchObject({ state: 'LIVE', listingIds: [listing], quantity: 1 });
    const { message, link } = await offerMail(DAN.email, danBefore);
    expect(message.subject).toBe('Tickets for Demo Fest: Summer Nights are held for you');
    expect(message.text).toContain(`(${OFFER_MINUTES} minutes)`);
    expect(new URL(link).pathname).toBe(new URL(offered.offer!.checkoutUrl).pathname);
    // The fans behind her were not told anything.
    expect(await offerMails(BEN.email)).toEqual([]);
    expect(await offerMails(C.email)).toEqual([]);

    await journey(ben, 'waitinglist-held-for-a', async () => {
      // Never on public sale while it is held for her: the next fan sees an empty market.
      await ben.goto(market);
      const text = await mainText(ben);
      expect(text).toContain('No tickets are for sale for this show right now.');
      // A fan holding an offer is still in line (ahead of him) until she pays or lets it go.
      expect(text).toContain('You are #2 in line for 1 ticket.');
      expect(text).toContain('3 fans waiting');
      // Held for her, it goes to the next fan in line if she does not buy it (never back on sale).
      expect(text).toMatch(/1 ticket is held for a fan on the waiting list until \d\d:\d\d( CET)?: if they do not buy it, it goes to the next fan in line\./);
      expect(text).not.toContain('reserved by another fan');
      expect(await ben.getByRole('button', { name: 'Buy' }).count()).toBe(0);
    });

    await journey(dan, 'waitinglist-buy-a', async () => {
      // Her market page shows the offer: held until when, Buy, No thanks.
      await dan.goto(market);
      const banner = dan.locator('section.wl-offer');
      expect(await banner.locator('h2').innerText()).toBe('Tickets are held for you');
      expect(await banner.innerText()).toMatch(/1 ticket is held for you until \d\d:\d\d/);
      expect(await banner.getByRole('button', { name: 'No thanks' }).count()).toBe(1);
      expect(await banner.getByRole('link', { name: 'Buy' }).getAttribute('href')).toContain(offered.offer!.intentionId);
      await expectSoundPage(dan, { label: 'the market with the fan’s offer' });

      // The e-mail's link: the checkout of exactly the held ticket.
      await dan.goto(link);
      await dan.waitForURL(new RegExp(`/checkout/ptr_[^/]+/${offered.offer!.intentionId}\\?`));
      expect(await dan.locator('h1').innerText()).toBe('Checkout');
      const tickets = dan.locator('ul.summary-tickets li');
      expect(await tickets.count()).toBe(1);
      expect(await tickets.first().innerText()).toContain('General admission');
      expect(await mainText(dan)).toContain('Demo Fest: Summer Nights');
      await expectSoundPage(dan, { label: 'the checkout of the offer' });
      await pay(dan, '4242 4242 4242 4242');
      await dan.waitForURL(/\/done\?/);
      expect(await dan.locator('h1').innerText()).toBe('Thank you: the tickets are yours');
    });
    expect(await entryOf(DAN.email, SHOW)).toMatchObject({ state: 'CONVERTED', position: null, offer: null });

    // The very ticket Carla listed is Dan's now: the demo moved it on the signed ticket.update.
    await journey(dan, 'waitinglist-ticket-a', async () => {
      const mine = dan.locator('resale-sell-actions[data-resale-data="resale-entry-dt-festival-0003"]');
      await expect
        .poll(async () => {
          await dan.goto(`${stack.demoUrl}/my-tickets`);
          return mine.count();
        }, { timeout: 30_000, interval: 500 })
        .toBe(1);
    });
  });

  it('(8c) the next ticket is held for the second fan, who lets it run out: it passes to the fan behind, e-mailed in turn', async () => {
    const ben = left(state.ben, 'fan B’s browser');
    const carla = left(state.carla, 'the seller’s browser');
    const market = left(state.market, 'the market page');
    const benBefore = await seen(BEN.email);
    const cBefore = await seen(C.email);
    const listing = await journey(carla, 'waitinglist-sell-2', async () => {
      await sell(carla, 'dt-festival-0004', '35', CARLA.email);
      return listingOf(carla);
    });

    // Dan bought: Ben is first in line now, and the ticket is held for him.
    const offered = await entryOf(BEN.email, SHOW);
    expect(offered).toMatchObject({ state: 'OFFERED', offer: { state: 'LIVE', listingIds: [listing] } });
    const { link } = await offerMail(BEN.email, benBefore);
    expect(new URL(link).pathname).toBe(new URL(offered.offer!.checkoutUrl).pathname);
    expect(await entryOf(C.email, SHOW)).toMatchObject({ state: 'WAITING', position: 2, offer: null });

    await journey(ben, 'waitinglist-offer-b', async () => {
      await ben.goto(market);
      expect(await ben.locator('section.wl-offer h2').innerText()).toBe('Tickets are held for you');
      expect(await mainText(ben)).toContain('2 fans waiting');
    });

    // Ben does nothing. The service's clock moves past the end of his hold (no waiting): the
    // hold's expiry ends his offer and passes the ticket to the next fan in the same transaction.
    clock.advance(Date.parse(offered.offer!.expiresAt) - clock.now() + 1_000);
    let expired: WaitingListEntry | undefined;
    await expect
      .poll(async () => {
        expired = await entryOf(BEN.email, SHOW);
        return expired.state;
      }, { timeout: 20_000, interval: 250 })
      .toBe('EXPIRED');
    expect(expired).toMatchObject({ position: null, offer: null, endReason: 'timeout' });

    const passed = await entryOf(C.email, SHOW);
    expect(passed).toMatchObject({ state: 'OFFERED', offer: { state: 'LIVE', listingIds: [listing], quantity: 1 } });
    expect(passed.offer!.intentionId).not.toBe(offered.offer!.intentionId);
    const toC = await offerMail(C.email, cBefore);
    expect(toC.message.subject).toBe('Tickets for Demo Fest: Summer Nights are held for you');
    expect(new URL(toC.link).pathname).toBe(new URL(passed.offer!.checkoutUrl).pathname);
    // Ben was e-mailed one offer only.
    expect((await offerMails(BEN.email)).filter((m) => !benBefore.has(m.id))).toHaveLength(1);

    await journey(ben, 'waitinglist-expired-b', async () => {
      // His market page: out of the line, the join form back, the ticket held for the next fan.
      await ben.goto(market);
      const text = await mainText(ben);
      expect(await ben.locator('section.wl-offer').count()).toBe(0);
      expect(text).not.toContain('You are on the waiting list');
      expect(text).toContain('No tickets are for sale for this show right now.');
      expect(text).toContain('1 fan waiting');
      expect(await ben.getByRole('button', { name: 'Join the waiting list' }).count()).toBe(1);
      await expectSoundPage(ben, { label: 'the market after the fan’s offer ran out' });
    });
  });
});
