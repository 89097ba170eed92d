import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody } from '../../testing/factories.js';
import { effectiveRules } from '../../domain/rules/rules.service.js';
import { rules as rulesTable } from '../../domain/rules/rules.table.js';

const AT = '2026-03-01T12:00:00.000Z';

/** An app with one partner and the event 'tour-2026': show-1 in the price-detail model, show-2 standard. */
async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  const ev = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour-2026', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }) });
  expect(ev.status).toBe(200);
  const post = (body: unknown, key: string = p.keys.private) => t.request('POST', '/v1/rules', { key, body });
  const get = (query: string, key: string = p.keys.private) => t.request('GET', `/v1/rules?${query}`, { key });
  return { t, p, post, get };
}

/** A rules item of show-1 of 'tour-2026'. */
function item(ruleType: string, rules: unknown, extra: Record<string, unknown> = {}) {
  return { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId: 'opt-field', ruleType, rules, ...extra };
}

function combination(ticketOptionId: string, priceTypeId: string, price: number | string, extra: Record<string, unknown> = {}) {
  return { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId, priceTypeId, ruleType: 'COMBINATION', price, ...extra };
}

const ref = { externalReferenceEventId: 'tour-2026', showId: 'show-1' };

describe('POST /v1/rules and GET /v1/rules', () => {
  it.each(['public', 'private'] as const)('accepts every rule type with the %s key and reads them back', async (kind) => {
    const { p, post, get } = await setup();
    const key = p.keys[kind];
    const res = await post(
      [
        combination('opt-vip', 'pt-early', '99.90', { description: 'VIP early' }),
        item('qrUnlock', { hoursBeforeShow: 3 }),
        item('qrUnlock', { unlockAt: '2026-05-01T18:00:00+02:00' }, { ticketOptionId: 'opt-vip' }),
        item('superSwapUnlock', { hoursBeforeShow: 48 }),
        item('superSwapConfig', { enabled: true }),
        item('maxSell', { maxTickets: 4 }),
        item('platformFees', { buyerPercent: 8, buyerFixed: 1.5 }),
        item('maxPriceSellConfig', { type: 'PERCENTAGE', value: 120 }, { priceTypeId: 'pt-early' }),
        item('minPriceSellConfig', { type: 'ABSOLUTE', value: 20.5 }, { priceTypeId: 'pt-early' }),
        // Scoped to the combination created by item 0 of this same request.
        item('fixedListingPrice', { type: 'PERCENTAGE', value: 100 }, { ticketOptionId: 'opt-vip', priceTypeId: 'pt-early' }),
      ],
      key,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeNull();
    const vipEarly = { ...ref, ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', ruleType: 'COMBINATION', price: 99.9, description: 'VIP early', updatedAt: AT };
    const field = { ...ref, ticketOptionId: 'opt-field' };
    const stored = {
      qrField: { ...field, ruleType: 'qrUnlock', rules: { hoursBeforeShow: 3 }, updatedAt: AT },
      qrVip: { ...ref, ticketOptionId: 'opt-vip', ruleType: 'qrUnlock', rules: { unlockAt: '2026-05-01T16:00:00.000Z' }, updatedAt: AT },
      swapUnlock: { ...field, ruleType: 'superSwapUnlock', rules: { hoursBeforeShow: 48 }, updatedAt: AT },
      swapConfig: { ...field, ruleType: 'superSwapConfig', rules: { enabled: true, reissueTicketAccess: true, allowAfterQrUnlock: false }, updatedAt: AT },
      maxSell: { ...field, ruleType: 'maxSell', rules: { maxTickets: 4 }, updatedAt: AT },
      fees: { ...field, ruleType: 'platformFees', rules: { buyerPercent: 8, buyerFixed: 1.5 }, updatedAt: AT },
      maxPrice: { ...field, priceTypeId: 'pt-early', ruleType: 'maxPriceSellConfig', rules: { type: 'PERCENTAGE', value: 120 }, updatedAt: AT },
      minPrice: { ...field, priceTypeId: 'pt-early', ruleType: 'minPriceSellConfig', rules: { type: 'ABSOLUTE', value: 20.5 }, updatedAt: AT },
      fixed: { ...ref, ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', ruleType: 'fixedListingPrice', rules: { type: 'PERCENTAGE', value: 100 }, updatedAt: AT },
    };
    expect(res.body.data).toEqual([
      vipEarly,
      stored.qrField,
      stored.qrVip,
      stored.swapUnlock,
      stored.swapConfig,
      stored.maxSell,
      stored.fees,
      stored.maxPrice,
      stored.minPrice,
      stored.fixed,
    ]);

    const all = await get('externalReferenceEventId=tour-2026&showId=show-1', key);
    expect(all.status).toBe(200);
    const combo = (ticketOptionId: string, priceTypeId: string, price: number) => ({ ...ref, ticketOptionId, priceTypeId, ruleType: 'COMBINATION', price, updatedAt: AT });
    // Combinations first (the event's three and the new one), then rules by ticket option, option scope first.
    expect(all.body.data).toEqual([
      combo('opt-field', 'pt-early', 39),
      combo('opt-field', 'pt-standard', 45.5),
      vipEarly,
      combo('opt-vip', 'pt-standard', 120),
      stored.qrField,
      stored.swapUnlock,
      stored.swapConfig,
      stored.maxSell,
      stored.fees,
      stored.maxPrice,
      stored.minPrice,
      stored.qrVip,
      stored.fixed,
    ]);

    const vip = await get('externalReferenceEventId=tour-2026&showId=show-1&ticketOptionId=opt-vip', key);
    expect(vip.body.data).toEqual([vipEarly, combo('opt-vip', 'pt-standard', 120), stored.qrVip, stored.fixed]);
    const other = await get('externalReferenceEventId=tour-2026&showId=show-2', key);
    expect(other.body).toEqual({ status: 200, data: [], errors: null });
  });

  it('stores fixed fees and absolute prices in minor units and answers major units', async () => {
    const { t, post } = await setup();
    const res = await post([item('platformFees', { sellerFixed: 0.5, sellerPercent: 4.5 }), item('maxPriceSellConfig', { type: 'ABSOLUTE', value: 80.25 })]);
    expect(res.status).toBe(200);
    const rows = await t.db.select().from(rulesTable);
    expect(rows.find((r) => r.ruleType === 'platformFees')!.rules).toEqual({ sellerPercent: 4.5, sellerFixedMinor: 50 });
    expect(rows.find((r) => r.ruleType === 'maxPriceSellConfig')!.rules).toEqual({ type: 'ABSOLUTE', amountMinor: 8025 });
    expect(res.body.data.map((d: { rules: unknown }) => d.rules)).toEqual([{ sellerPercent: 4.5, sellerFixed: 0.5 }, { type: 'ABSOLUTE', value: 80.25 }]);
  });

  it('refuses the channels key (403) and a missing key (401)', async () => {
    const { p, post, get, t } = await setup();
    const body = [item('maxSell', { maxTickets: 2 })];
    const channels = await post(body, p.keys.channels);
    expect(channels.status).toBe(403);
    expect(channels.body.errors[0].code).toBe('forbidden_key_kind');
    expect((await get('externalReferenceEventId=tour-2026&showId=show-1', p.keys.channels)).status).toBe(403);
    const none = await t.request('POST', '/v1/rules', { body });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: 401, data: null, errors: [{ code: 'unauthorized' }] });
    expect((await t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-1')).status).toBe(401);
    expect(await t.db.select().from(rulesTable)).toEqual([]);
  });

  it('creates a combination and updates the price of an existing one (seen on the event)', async () => {
    const { p, post, t } = await setup();
    const res = await post([combination('opt-vip', 'pt-early', 99), combination('opt-field', 'pt-early', '35.00', { description: 'Early field' })]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { ...ref, ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', ruleType: 'COMBINATION', price: 99, updatedAt: AT },
      { ...ref, ticketOptionId: 'opt-field', priceTypeId: 'pt-early', ruleType: 'COMBINATION', price: 35, description: 'Early field', updatedAt: AT },
    ]);
    const ev = await t.request('GET', '/v1/events/tour-2026', { key: p.keys.private });
    const show = ev.body.data.shows.find((s: { showId: string }) => s.showId === 'show-1');
    expect(show.combinations).toEqual(
      expect.arrayContaining([
        { ticketOptionId: 'opt-vip', priceTypeId: 'pt-early', price: 99 },
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-early', price: 35, description: 'Early field' },
        { ticketOptionId: 'opt-field', priceTypeId: 'pt-standard', price: 45.5 },
      ]),
    );
    expect(show.combinations).toHaveLength(4);

    // An update without description keeps the stored one.
    t.clock.advance(60_000);
    const again = await post([combination('opt-field', 'pt-early', 36)]);
    expect(again.body.data[0]).toMatchObject({ price: 36, description: 'Early field', updatedAt: '2026-03-01T12:01:00.000Z' });
  });

  it('merges superSwapConfig: an omitted flag keeps its stored value', async () => {
    const { post, get } = await setup();
    const first = await post([item('superSwapConfig', { allowAfterQrUnlock: true })]);
    expect(first.body.data[0].rules).toEqual({ enabled: false, reissueTicketAccess: true, allowAfterQrUnlock: true });
    const second = await post([item('superSwapConfig', { enabled: true, reissueTicketAccess: false })]);
    expect(second.body.data[0].rules).toEqual({ enabled: true, reissueTicketAccess: false, allowAfterQrUnlock: true });
    const third = await post([item('superSwapConfig', {})]);
    expect(third.body.data[0].rules).toEqual({ enabled: true, reissueTicketAccess: false, allowAfterQrUnlock: true });
    // A combination scope starts from the defaults, not from the ticket option's rule.
    const combo = await post([item('superSwapConfig', { enabled: true }, { priceTypeId: 'pt-standard' })]);
    expect(combo.body.data[0].rules).toEqual({ enabled: true, reissueTicketAccess: true, allowAfterQrUnlock: false });
    const read = await get('externalReferenceEventId=tour-2026&showId=show-1&ticketOptionId=opt-field');
    expect(read.body.data.filter((d: { ruleType: string }) => d.ruleType === 'superSwapConfig')).toHaveLength(2);
  });

  it('replaces a rule posted again: one row per ticket option, scope and type', async () => {
    const { t, post, get } = await setup();
    await post([item('maxSell', { maxTickets: 4 }), item('platformFees', { buyerPercent: 8, sellerPercent: 3 })]);
    t.clock.advance(1000);
    const res = await post([item('maxSell', { maxTickets: 2 }), item('platformFees', { buyerFixed: 2 }), item('maxSell', { maxTickets: 6 }, { priceTypeId: 'pt-early' })]);
    expect(res.status).toBe(200);
    const read = await get('externalReferenceEventId=tour-2026&showId=show-1&ticketOptionId=opt-field');
    const rulesOnly = read.body.data.filter((d: { ruleType: string }) => d.ruleType !== 'COMBINATION');
    expect(rulesOnly).toEqual([
      { ...ref, ticketOptionId: 'opt-field', ruleType: 'maxSell', rules: { maxTickets: 2 }, updatedAt: '2026-03-01T12:00:01.000Z' },
      // platformFees is replaced whole, not merged.
      { ...ref, ticketOptionId: 'opt-field', ruleType: 'platformFees', rules: { buyerFixed: 2 }, updatedAt: '2026-03-01T12:00:01.000Z' },
      { ...ref, ticketOptionId: 'opt-field', priceTypeId: 'pt-early', ruleType: 'maxSell', rules: { maxTickets: 6 }, updatedAt: '2026-03-01T12:00:01.000Z' },
    ]);
    expect(await t.db.select().from(rulesTable)).toHaveLength(3);
  });

  it('effectiveRules: a combination-scoped rule wins over the option-scoped rule of the same type', async () => {
    const { t, p, post } = await setup();
    const res = await post([
      item('maxSell', { maxTickets: 4 }),
      item('qrUnlock', { hoursBeforeShow: 6 }),
      item('maxSell', { maxTickets: 2 }, { priceTypeId: 'pt-early' }),
      item('superSwapConfig', { enabled: true }, { priceTypeId: 'pt-early' }),
    ]);
    expect(res.status).toBe(200);
    const { show } = await t.deps.events.findShow(t.db, p.id, 'tour-2026', 'show-1');
    const option = await t.deps.events.findTicketOption(t.db, show.id, 'opt-field');
    const early = await t.deps.events.findPriceType(t.db, show.id, 'pt-early');
    const standard = await t.deps.events.findPriceType(t.db, show.id, 'pt-standard');

    const combo = await effectiveRules(t.db, show.id, option.id, early.id);
    expect(combo.maxSell).toEqual({ scope: 'combination', rules: { maxTickets: 2 }, updatedAt: Date.parse(AT) });
    expect(combo.qrUnlock).toEqual({ scope: 'ticketOption', rules: { hoursBeforeShow: 6 }, updatedAt: Date.parse(AT) });
    expect(combo.superSwapConfig?.rules).toEqual({ enabled: true, reissueTicketAccess: true, allowAfterQrUnlock: false });
    expect(Object.keys(combo).sort()).toEqual(['maxSell', 'qrUnlock', 'superSwapConfig']);

    const optionOnly = await effectiveRules(t.db, show.id, option.id, null);
    expect(optionOnly.maxSell?.rules.maxTickets).toBe(4);
    expect(optionOnly.superSwapConfig).toBeUndefined();
    expect((await effectiveRules(t.db, show.id, option.id, standard.id)).maxSell).toEqual({ scope: 'ticketOption', rules: { maxTickets: 4 }, updatedAt: Date.parse(AT) });
    expect(await t.deps.rules.effective(t.db, show.id, option.id, early.id)).toEqual(combo);
  });

  it('accepts min and max price limits moved together in one request, and of different types', async () => {
    const { post } = await setup();
    expect((await post([item('maxPriceSellConfig', { type: 'ABSOLUTE', value: 50 }), item('minPriceSellConfig', { type: 'ABSOLUTE', value: 50 })])).status).toBe(200);
    // The stored max (50) is below the new min (60), but the same request raises the max.
    expect((await post([item('minPriceSellConfig', { type: 'ABSOLUTE', value: 60 }), item('maxPriceSellConfig', { type: 'ABSOLUTE', value: 70 })])).status).toBe(200);
    // PERCENTAGE against ABSOLUTE is not compared.
    expect((await post([item('minPriceSellConfig', { type: 'PERCENTAGE', value: 500 })])).status).toBe(200);
  });

  it('documents both operations in the OpenAPI document', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[]; security: unknown[] }>>;
      components: { schemas: Record<string, { description?: string }> };
    };
    const ops = doc.paths['/v1/rules']!;
    expect(ops.post!.operationId).toBe('upsertRules');
    expect(ops.get!.operationId).toBe('listRules');
    expect(ops.post!.tags).toEqual(['Rules']);
    expect(ops.post!.security).toEqual([{ publicKey: [] }, { privateKey: [] }]);
    for (const name of ['RulesRequest', 'RuleItem', 'RulesResponse', 'QrUnlockRules', 'SuperSwapConfigRules', 'MaxSellRules', 'PlatformFeesRules', 'MaxPriceSellConfigRules', 'CombinationRuleItem']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.components.schemas.SuperSwapConfigRules!.description).toMatch(/PARTIAL/);
  });
});

describe('the retired path /v1/events/rules', () => {
  it('answers 410 endpoint_moved naming /v1/rules, with a Link header, and writes nothing', async () => {
    const { t, p } = await setup();
    const body = [item('maxSell', { maxTickets: 2 })];
    const post = await t.request('POST', '/v1/events/rules', { key: p.keys.private, body });
    expect(post.status).toBe(410);
    expect(post.body).toEqual({ status: 410, data: null, errors: [{ code: 'endpoint_moved', message: '/v1/events/rules was replaced by POST /v1/rules (same key, same fields)' }] });
    expect(post.headers.get('link')).toBe('</v1/rules>; rel="successor-version"');
    expect(await t.db.select().from(rulesTable)).toEqual([]);
    // Authentication first, as everywhere.
    expect((await t.request('POST', '/v1/events/rules', { body })).status).toBe(401);
    expect((await t.request('POST', '/v1/events/rules', { key: p.keys.channels, body })).status).toBe(403);
    const get = await t.request('GET', '/v1/events/rules', { key: p.keys.private });
    expect(get.status).toBe(410);
    expect(get.body.errors[0].message).toContain('GET /v1/rules');
  });

  it('still reads an event that is really called "rules"', async () => {
    const { t, p } = await setup();
    expect((await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('rules') })).status).toBe(200);
    const res = await t.request('GET', '/v1/events/rules', { key: p.keys.private });
    expect(res.status).toBe(200);
    expect(res.body.data.externalReferenceId).toBe('rules');
  });

  it('is in the OpenAPI document, deprecated', async () => {
    const { t } = await setup();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { deprecated?: boolean; responses: Record<string, unknown> }>> };
    expect(doc.paths['/v1/events/rules']!.post!.deprecated).toBe(true);
    expect(Object.keys(doc.paths['/v1/events/rules']!.post!.responses)).toContain('410');
  });
});
