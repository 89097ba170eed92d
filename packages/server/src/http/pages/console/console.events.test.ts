import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLog } from '../../../domain/audit/audit.table.js';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { hashSecret } from '../../../lib/crypto.js';
import { inOrder } from '../../../lib/in-order.js';
import { createTestApp, type TestApp, type TestPartner } from '../../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody, ticketBody, withEvent } from '../../../testing/factories.js';
import { TestBrowser } from '../auth/auth.testing.js';
import { signIn, submit, withOperators } from './console.testing.js';

const OPERATOR = 'ops@resale.test';

/**
 * Partner Acme with event `tour` (show-1: price detail, opt-field and opt-vip with pt-early and
 * pt-standard; show-2: standard, opt-field and opt-vip), and partner Other with event
 * `other-tour`; the operator signed in.
 */
async function setup() {
  const t = createTestApp();
  await withOperators(t, OPERATOR);
  const p = await t.partner('Acme');
  const other = await t.partner('Other');
  await withEvent(t, p, eventBody('tour', { title: 'The Big Tour', shows: [priceDetailShowBody('show-1'), showBody('show-2', { date: '2026-06-01T21:00:00+02:00' })] }));
  await withEvent(t, other, eventBody('other-tour', { title: 'Secret tour' }));
  const ops = await signIn(t, OPERATOR);
  return { t, p, other, ops };
}

const page = (p: TestPartner, path = '') => `/console/partners/${p.id}/events${path}`;

/** Invites `email` to `partnerId` with `role` through the console, and signs them in. */
async function member(t: TestApp, ops: TestBrowser, partnerId: string, email: string, role: string): Promise<TestBrowser> {
  const res = await submit(ops, `/console/partners/${partnerId}/team`, `/console/partners/${partnerId}/team`, { email, role });
  expect(res.status, res.text.slice(0, 300)).toBe(303);
  return await signIn(t, email);
}

/** The CSRF token `browser`'s console session gives a form posting to `action` (for a form no page shows it). */
async function csrfFor(t: TestApp, browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}

/** The cells of the shows table's row of `showId` on an event page, as text. */
function showRow(html: string, showId: string): string[] {
  const at = html.indexOf(`<code>${showId}</code>`);
  const row = html.slice(html.lastIndexOf('<tr>', at), html.indexOf('</tr>', at));
  return [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
}

/** The audit log, oldest first (ids of one instant sort by creation). */
const audit = async (t: TestApp) => (await t.db.read(async (tx) => await tx.select().from(auditLog))).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** The categories of the buy access layer of a show of `tour`, read with the public key. */
async function buyCategories(t: TestApp, p: TestPartner, showId = 'show-1'): Promise<string[]> {
  const res = await t.request('GET', `/v1/wrapper/accesslayer?${new URLSearchParams({ type: 'buy', eventId: 'tour', showId })}`, { key: p.keys.public });
  expect(res.status).toBe(200);
  const list = (res.body.data as { class: string; categoriesList?: { categories: { ticketOptionId: string }[] } }[]).find((c) => c.class === 'categoriesList');
  return list!.categoriesList!.categories.map((c) => c.ticketOptionId);
}

/** The rules form's fields, row by row (`[ticketOptionId, priceTypeId, ruleType, value]`). */
function rulesForm(showId: string, rows: [string, string, string, string][]): Record<string, string> {
  const out: Record<string, string> = { showId };
  rows.forEach(([ticketOptionId, priceTypeId, ruleType, value], i) => Object.assign(out, { [`rules.${i}.ticketOptionId`]: ticketOptionId, [`rules.${i}.priceTypeId`]: priceTypeId, [`rules.${i}.ruleType`]: ruleType, [`rules.${i}.value`]: value }));
  return out;
}

describe('console events: the list', () => {
  it('lists the partner’s events (not another partner’s) with search by title or id, and pages of 50', async () => {
    const { t, p, ops } = await setup();
    const list = await ops.get(page(p));
    expect(list.status).toBe(200);
    expect(list.text).toContain(`<a href="/console/partners/${p.id}/events" aria-current="page">Events</a>`);
    expect(list.text).toContain(`href="/console/partners/${p.id}/events/tour"`);
    expect(list.text).toContain('The Big Tour');
    expect(list.text).not.toContain('Secret tour');
    expect((await ops.get(page(p, '?q=BIG'))).text).toContain('The Big Tour');
    expect((await ops.get(page(p, '?q=tou'))).text).toContain('The Big Tour');
    const none = await ops.get(page(p, '?q=100%25_'));
    expect(none.text).toContain('No event matches “100%_”.');
    expect(none.text).not.toContain('The Big Tour');

    await inOrder(
      Array.from({ length: 50 }, (_, i) => i),
      async (i) => expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody(`ev-${String(i).padStart(2, '0')}`, { title: `Concert ${i}` }) })).status).toBe(200),
    );
    const first = await ops.get(page(p));
    expect(first.text).toContain(`href="/console/partners/${p.id}/events?page=2"`);
    expect(first.text).not.toContain('The Big Tour');
    const second = await ops.get(page(p, '?page=2'));
    expect(second.text).toContain('The Big Tour');
    expect(second.text).toContain(`href="/console/partners/${p.id}/events"`);
    expect(second.text).not.toContain('?page=3');
    expect((await ops.get(page(p, '?page=-4'))).status).toBe(200);
  });

  it('shows a viewer the list and the event without a form; refuses another partner’s people (404) and sends the signed-out to sign in', async () => {
    const { t, p, other, ops } = await setup();
    const viewer = await member(t, ops, p.id, 'viewer@acme.example', 'viewer');
    expect((await viewer.get(page(p))).text).toContain('The Big Tour');
    const event = await viewer.get(page(p, '/tour'));
    expect(event.status).toBe(200);
    expect(event.text).toContain('your role cannot change it');
    expect(event.text).not.toContain('<form method="post" action="/console/partners');
    const stranger = await member(t, ops, other.id, 'cy@other.example', 'partner_admin');
    expect((await stranger.get(page(p))).status).toBe(404);
    expect((await stranger.get(page(p, '/tour'))).status).toBe(404);
    const out = await new TestBrowser(t.app).get(page(p, '/tour?show=show-2'));
    expect(out.status).toBe(303);
    expect(out.location).toBe(`/console/sign-in?next=${encodeURIComponent(`/console/partners/${p.id}/events/tour?show=show-2`)}&ended=1`);
  });
});

describe('console events: an event', () => {
  it('shows each show with its switches and counts (tickets, for sale, sold, leads), and one show’s categories and rules', async () => {
    const { t, p, ops } = await setup();
    const sync = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('f1', { orderId: 'o-1' }), ticketBody('f2', { orderId: 'o-1' }), ticketBody('v1', { ticketOptionId: 'opt-vip', priceTypeId: 'pt-standard', price: 120 }), ticketBody('x1', { showId: 'show-2' })] });
    expect(sync.status).toBe(200);
    const ticket = async (id: string) => await t.deps.tickets.get(t.db, p.id, id);
    const f1 = await ticket('f1');
    await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: f1.ownerPk, ticketPks: [f1.id, (await ticket('f2')).id], priceMinor: 4000 }));
    const v1 = await ticket('v1');
    const sold = await t.db.transact(async (tx) => await t.deps.listings.create(tx, p.id, { sellerPk: v1.ownerPk, ticketPks: [v1.id], priceMinor: 12000 }));
    await t.db.transact(async (tx) => {
      await t.deps.listings.reserve(tx, p.id, [sold.id], 'int_test');
      await t.deps.listings.markSold(tx, 'int_test');
    });
    expect((await t.request('POST', '/v1/marketdata/users', { key: p.keys.private, body: { type: 'WISHLIST', externalReferenceEventId: 'tour', showId: 'show-1', buyer: { email: 'fan@example.com' } } })).status).toBe(200);

    const res = await ops.get(page(p, '/tour'));
    expect(res.status).toBe(200);
    // Show, date, status, resale, ticketShield, tickets (not deleted), for sale, sold, leads.
    const one = showRow(res.text, 'show-1');
    expect(one[0]).toBe('Night show-1 show-1');
    expect(one.slice(2)).toEqual(['LIVE', expect.stringMatching(/^on Turn off/), expect.stringMatching(/^off Turn on/), '3', 'Listings: 1, tickets: 2', 'Listings: 1, tickets: 1', '1']);
    expect(showRow(res.text, 'show-2').slice(5)).toEqual(['1', 'Listings: 0, tickets: 0', 'Listings: 0, tickets: 0', '0']);
    // The first show in detail: its categories (both visible) and the form of rules.
    expect(res.text).toContain('Details of Night show-1');
    expect(res.text).toContain('<code>opt-vip</code>');
    expect(res.text.match(/<td>visible<\/td>/g)?.length).toBe(2);
    // The combinations of the price detail model are listed as GET /v1/rules lists them.
    const combos = await ops.get(page(p, '/tour?show=show-1'));
    expect(combos.text).toContain('{&quot;price&quot;:39}');
    const two = await ops.get(page(p, '/tour?show=show-2'));
    expect(two.text).toContain('Details of Night show-2');
    expect(two.text).toContain('No rules or combinations yet.');
    expect((await ops.get(page(p, '/tour?lang=es'))).text).toContain('Categorías en la capa de compra');
  });

  it('answers 404 for an unknown event, another partner’s event, an unknown show', async () => {
    const { t, p, ops } = await setup();
    expect((await ops.get(page(p, '/nope'))).status).toBe(404);
    expect((await ops.get(page(p, '/other-tour'))).status).toBe(404);
    expect((await ops.get(page(p, '/tour?show=show-9'))).status).toBe(404);
    for (const path of ['resale', 'ticket-shield']) {
      expect((await submit(ops, page(p, '/tour'), page(p, `/tour/${path}`), { showId: 'show-9', status: 'off' })).status, path).toBe(404);
      const foreign = page(p, `/other-tour/${path}`);
      expect((await ops.post(foreign, { _csrf: await csrfFor(t, ops, foreign), showId: 'show-1', status: 'off' })).status, path).toBe(404);
    }
    expect((await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-nope', op: 'disable-show' })).status).toBe(404);
    expect((await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-9', ticketOptionId: 'opt-vip', op: 'disable-show' })).status).toBe(404);
    expect((await submit(ops, page(p, '/tour'), page(p, '/tour/rules'), rulesForm('show-9', [['opt-field', '', 'maxSell', '{"maxTickets":4}']]))).status).toBe(404);
    const foreignRules = page(p, '/other-tour/rules');
    expect((await ops.post(foreignRules, { _csrf: await csrfFor(t, ops, foreignRules), ...rulesForm('show-1', [['opt-field', '', 'maxSell', '{"maxTickets":4}']]) })).status).toBe(404);
  });

  it('works for an event id that needs encoding in the path', async () => {
    const { t, p, ops } = await setup();
    await withEvent(t, p, eventBody('tour/2026 #1 ü%', { title: 'Odd id' }));
    const base = page(p, `/${encodeURIComponent('tour/2026 #1 ü%')}`);
    const res = await ops.get(base);
    expect(res.status).toBe(200);
    expect(res.text).toContain('Odd id');
    const off = await submit(ops, base, `${base}/resale`, { showId: 'show-1', status: 'off' });
    expect(off.status, off.text.slice(0, 300)).toBe(303);
    expect(off.location).toBe(`${base}?show=show-1&saved=resale#show`);
    expect((await t.request('GET', `/v1/events/${encodeURIComponent('tour/2026 #1 ü%')}`, { key: p.keys.private })).body.data.shows[0].resaleEnabled).toBe(false);
  });
});

describe('console events: changes', () => {
  it('switches resale of a show, then of every show, audited as event.resale.set', async () => {
    const { t, p, ops } = await setup();
    const off = await submit(ops, page(p, '/tour'), page(p, '/tour/resale'), { showId: 'show-1', status: 'off' });
    expect(off.status).toBe(303);
    expect(off.location).toBe(`${page(p, '/tour')}?show=show-1&saved=resale#show`);
    const after = await ops.get(off.location!);
    expect(after.text).toContain('Resale switched.');
    const shows = async () => Object.fromEntries((await t.request('GET', '/v1/events/tour', { key: p.keys.private })).body.data.shows.map((s: { showId: string; resaleEnabled: boolean }) => [s.showId, s.resaleEnabled]));
    expect(await shows()).toEqual({ 'show-1': false, 'show-2': true });
    // Nothing is for sale in the buy access layer of a show whose resale is off.
    const buy = await t.request('GET', '/v1/wrapper/accesslayer?type=buy&eventId=tour&showId=show-1', { key: p.keys.public });
    expect(buy.body.data.find((c: { class: string }) => c.class === 'buyButton').buyButton.callToAction.enabled).toBe(false);
    const allOff = await submit(ops, page(p, '/tour'), page(p, '/tour/resale'), { status: 'off' });
    expect(allOff.location).toBe(`${page(p, '/tour')}?saved=resale#shows`);
    expect(await shows()).toEqual({ 'show-1': false, 'show-2': false });
    await submit(ops, page(p, '/tour'), page(p, '/tour/resale'), { status: 'on' });
    expect(await shows()).toEqual({ 'show-1': true, 'show-2': true });
    const entries = (await audit(t)).filter((e) => e.action === 'event.resale.set');
    expect(entries.map((e) => [e.target, e.before, e.after])).toEqual([
      ['tour/show-1', { 'shows.show-1': true }, { 'shows.show-1': false }],
      ['tour', { 'shows.show-2': true }, { 'shows.show-2': false }],
      ['tour', { 'shows.show-1': false, 'shows.show-2': false }, { 'shows.show-1': true, 'shows.show-2': true }],
    ]);
    expect(entries[0]).toMatchObject({ actorKind: 'console', actorEmail: OPERATOR, role: 'operator', partnerId: p.id });
    expect((await submit(ops, page(p, '/tour'), page(p, '/tour/resale'), { showId: 'show-1', status: 'maybe' })).status).toBe(400);
  });

  it('switches ticketShield of a show through the operator’s switch, audited as partner.ticket_shield.set', async () => {
    const { t, p, ops } = await setup();
    const on = await submit(ops, page(p, '/tour'), page(p, '/tour/ticket-shield'), { showId: 'show-2', status: 'on' });
    expect(on.status).toBe(303);
    const after = await ops.get(on.location!);
    expect(after.text).toContain('Ticket protection switched.');
    expect(showRow(after.text, 'show-2')[4]).toMatch(/^on Turn off/);
    expect(showRow(after.text, 'show-1')[4]).toMatch(/^off Turn on/);
    const entry = (await audit(t)).find((e) => e.action === 'partner.ticket_shield.set')!;
    expect(entry).toMatchObject({ target: 'tour/show-2', before: { 'shows.show-2': false }, after: { 'shows.show-2': true }, actorEmail: OPERATOR });
  });

  it('disables a category for a show and for every show: it vanishes from the buy access layer and comes back once enabled; audited', async () => {
    const { t, p, ops } = await setup();
    expect(await buyCategories(t, p)).toEqual(['opt-field', 'opt-vip']);
    const off = await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'disable-show' });
    expect(off.status).toBe(303);
    expect(off.location).toBe(`${page(p, '/tour')}?show=show-1&saved=category#show`);
    expect((await ops.get(off.location!)).text).toContain('disabled in this show');
    expect(await buyCategories(t, p)).toEqual(['opt-field']);
    expect(await buyCategories(t, p, 'show-2')).toEqual(['opt-field', 'opt-vip']);
    // The setting through the operator API: the entry, the default components kept.
    const settings = async () => (await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.buyAccessLayer;
    expect(await settings()).toMatchObject({ buyButton: { visible: true }, categoriesList: { visible: true }, disabledTicketOptions: [{ eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip' }] });

    const everywhere = await submit(ops, page(p, '/tour?show=show-2'), page(p, '/tour/categories'), { showId: 'show-2', ticketOptionId: 'opt-field', op: 'disable-event' });
    expect(everywhere.status).toBe(303);
    expect(await buyCategories(t, p)).toEqual([]);
    expect(await buyCategories(t, p, 'show-2')).toEqual(['opt-vip']);
    expect((await ops.get(page(p, '/tour?show=show-1'))).text).toContain('disabled in every show');

    await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'enable-show' });
    expect(await buyCategories(t, p)).toEqual(['opt-vip']);
    await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-field', op: 'enable-event' });
    expect(await buyCategories(t, p)).toEqual(['opt-field', 'opt-vip']);
    expect(await buyCategories(t, p, 'show-2')).toEqual(['opt-field', 'opt-vip']);
    // Nothing disabled any more: the default set, as before.
    expect(await settings()).toMatchObject({ buyButton: { visible: true }, categoriesList: { visible: true }, disabledTicketOptions: [] });

    const entries = (await audit(t)).filter((e) => e.action.startsWith('category.'));
    expect(entries.map((e) => [e.action, e.target, e.before, e.after])).toEqual([
      ['category.disable', 'tour/show-1/opt-vip', { disabled: false }, { disabled: true }],
      ['category.disable', 'tour/*/opt-field', { disabled: false }, { disabled: true }],
      ['category.enable', 'tour/show-1/opt-vip', { disabled: true }, { disabled: false }],
      ['category.enable', 'tour/*/opt-field', { disabled: true }, { disabled: false }],
    ]);
    expect((await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'hide' })).status).toBe(404);
  });

  it('keeps the partner’s other buy access layer settings when it disables a category', async () => {
    const { t, p, ops } = await setup();
    const custom = { buyButton: { visible: false, ctaText: { en: 'Resale', es: 'Reventa' }, colors: { background: '#000000', text: '#ffffff' } }, disabledTicketOptions: [{ eventId: 'old', ticketOptionId: 'x' }] };
    expect((await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { buyAccessLayer: custom } } })).status).toBe(200);
    await submit(ops, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'disable-show' });
    const stored = (await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true })).body.data.settings.buyAccessLayer;
    expect(stored).toEqual({ ...custom, disabledTicketOptions: [...custom.disabledTicketOptions, { eventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip' }] });
  });

  it('adds and replaces rules and combinations as POST /v1/rules does, each change audited as rules.apply', async () => {
    const { t, p, ops } = await setup();
    const rules = async () => (await t.request('GET', '/v1/rules?externalReferenceEventId=tour&showId=show-1', { key: p.keys.private })).body.data.map(({ updatedAt: _u, ...r }: { updatedAt: string }) => r);
    const before = await rules();
    const added = await submit(
      ops,
      page(p, '/tour'),
      page(p, '/tour/rules'),
      rulesForm('show-1', [
        ['opt-field', '', 'maxSell', '{"maxTickets": 4}'],
        ['opt-vip', 'pt-early', 'COMBINATION', '{"price": 99.5, "description": "Early VIP"}'],
        ['opt-vip', 'pt-early', 'maxPriceSellConfig', '{"type": "PERCENTAGE", "value": 120}'],
      ]),
    );
    expect(added.status, added.text.slice(0, 2000)).toBe(303);
    expect(added.location).toBe(`${page(p, '/tour')}?show=show-1&saved=rules&n=3#show`);
    const shown = await ops.get(added.location!);
    expect(shown.text).toContain('Rules applied: 3.');
    expect(shown.text).toContain('{&quot;maxTickets&quot;:4}');
    expect(await rules()).toEqual([
      ...before.slice(0, 2),
      { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', ruleType: 'COMBINATION', price: 99.5, description: 'Early VIP' },
      before[2],
      { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 4 } },
      { externalReferenceEventId: 'tour', showId: 'show-1', ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', ruleType: 'maxPriceSellConfig', rules: { type: 'PERCENTAGE', value: 120 } },
    ]);
    const replaced = await submit(ops, page(p, '/tour'), page(p, '/tour/rules'), rulesForm('show-1', [['opt-field', '', 'maxSell', '{"maxTickets": 2}']]));
    expect(replaced.status).toBe(303);
    const entries = (await audit(t)).filter((e) => e.action === 'rules.apply');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ target: 'tour/show-1', partnerId: p.id, actorEmail: OPERATOR });
    expect(entries[0]!.after).toMatchObject({ 'rules.opt-field maxSell.rules.maxTickets': 4, 'rules.opt-vip+pt-early COMBINATION.price': 99.5 });
    expect(entries[1]).toMatchObject({ before: { 'rules.opt-field maxSell.rules.maxTickets': 4 }, after: { 'rules.opt-field maxSell.rules.maxTickets': 2 } });
  });

  it('refuses bad rules with every error at once, each on its row’s field, the typed values kept, nothing written', async () => {
    const { t, p, ops } = await setup();
    const rules = async () => (await t.request('GET', '/v1/rules?externalReferenceEventId=tour&showId=show-1', { key: p.keys.private })).body.data;
    const before = await rules();
    const bad = await submit(
      ops,
      page(p, '/tour'),
      page(p, '/tour/rules'),
      rulesForm('show-1', [
        ['opt-field', '', 'maxSell', '{"maxTickets": 0}'],
        ['opt-field', '', 'qrUnlock', '{"hoursBeforeShow": 1, "unlockAt": "2026-05-01T18:00:00+02:00"}'],
        ['opt-vip', '', 'platformFees', 'not <json>'],
      ]),
    );
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('There is a problem');
    expect(bad.text).toContain('href="#f-rules-0-value"');
    expect(bad.text).toContain('href="#f-rules-1-value"');
    expect(bad.text).toContain('href="#f-rules-2-value"');
    expect(bad.text).toContain('Rule 1, Value: rules.maxTickets is too small');
    expect(bad.text).toContain('must hold exactly one of hoursBeforeShow or unlockAt');
    expect(bad.text).toContain('Rule 3, Value: Enter a JSON object, such as {&quot;buyerPercent&quot;:8}.');
    expect(bad.text).toContain('value="{&quot;maxTickets&quot;: 0}"');
    expect(bad.text).toContain('value="not &lt;json&gt;"');
    expect(bad.text).toMatch(/<option value="platformFees" selected="">platformFees<\/option>/);
    expect(bad.text).toMatch(/<option value="opt-vip" selected="">/);

    // A row without type, deprecated fields, and a missing value: each said.
    const more = await submit(ops, page(p, '/tour'), page(p, '/tour/rules'), rulesForm('show-1', [['opt-field', '', '', '{"maxTickets": 2}'], ['opt-field', '', 'maxSell', '{"maxPriceSell": 3}'], ['opt-field', '', 'maxSell', '']]));
    expect(more.status).toBe(400);
    expect(more.text).toContain('Rule 1, Rule type: ruleType must be one of');
    expect(more.text).toContain('rules.maxPriceSell is deprecated');
    expect(more.text).toContain('Rule 3, Value: rules is required');
    // What only the service knows (a combination that does not exist) is said on its row too.
    const noCombo = await submit(ops, page(p, '/tour'), page(p, '/tour/rules'), rulesForm('show-1', [['opt-field', '', 'maxSell', '{"maxTickets": 2}'], ['opt-vip', 'pt-early', 'maxSell', '{"maxTickets": 2}']]));
    expect(noCombo.status).toBe(400);
    expect(noCombo.text).toContain('Rule 2, Price type: ');
    expect(noCombo.text).toContain('form no combination');
    const empty = await submit(ops, page(p, '/tour'), page(p, '/tour/rules'), rulesForm('show-1', []));
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('Fill in at least one rule');
    expect(await rules()).toEqual(before);
    expect((await audit(t)).filter((e) => e.action === 'rules.apply')).toEqual([]);
  });
});

describe('console events: who may change', () => {
  it('refuses every change of a viewer and a developer (403, before the form is read), a form without its CSRF token (403), the signed-out (sign-in)', async () => {
    const { t, p, ops } = await setup();
    const viewer = await member(t, ops, p.id, 'viewer@acme.example', 'viewer');
    const dev = await member(t, ops, p.id, 'dev@acme.example', 'developer');
    const before = await audit(t);
    const changes: [string, Record<string, string>][] = [
      ['resale', { showId: 'show-1', status: 'off' }],
      ['ticket-shield', { showId: 'show-1', status: 'on' }],
      ['categories', { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'disable-show' }],
      ['rules', rulesForm('show-1', [['opt-field', '', 'maxSell', '{"maxTickets":4}']])],
    ];
    for (const [path, fields] of changes) {
      const action = page(p, `/tour/${path}`);
      for (const who of [viewer, dev]) {
        const res = await who.post(action, { _csrf: await csrfFor(t, who, action), ...fields });
        expect(res.status, path).toBe(403);
        expect(res.text, path).toContain('Your role cannot do this here');
      }
      expect((await ops.post(action, fields)).status, path).toBe(403);
      expect((await ops.post(action, { ...fields, _csrf: 'forged' })).status, path).toBe(403);
      // Signed out, with a valid token of the browser's own (before sign-in): to the sign-in page.
      const out = new TestBrowser(t.app);
      await out.get('/console/sign-in');
      const signedOut = await out.post(action, { _csrf: csrfTokenFor(out.cookies.get('resale_console_csrf')!, action), ...fields });
      expect(signedOut.status, path).toBe(303);
      expect(signedOut.location, path).toBe('/console/sign-in?next=%2Fconsole&ended=1');
    }
    expect(await audit(t)).toEqual(before);
    expect(await buyCategories(t, p)).toEqual(['opt-field', 'opt-vip']);
    // A partner admin may.
    const admin = await member(t, ops, p.id, 'ana@acme.example', 'partner_admin');
    const ok = await submit(admin, page(p, '/tour'), page(p, '/tour/categories'), { showId: 'show-1', ticketOptionId: 'opt-vip', op: 'disable-show' });
    expect(ok.status).toBe(303);
    expect((await audit(t)).find((e) => e.action === 'category.disable')).toMatchObject({ actorEmail: 'ana@acme.example', role: 'partner_admin' });
  });
});
