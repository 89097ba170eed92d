import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { eventBody, priceDetailShowBody, showBody } from '../../testing/factories.js';
import { rules as rulesTable } from '../../domain/rules/rules.table.js';

/** An app with one partner and the event 'tour-2026': show-1 in the price-detail model, show-2 standard. */
async function setup() {
  const t = createTestApp();
  const p = await t.partner();
  const ev = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour-2026', { shows: [priceDetailShowBody('show-1'), showBody('show-2')] }) });
  expect(ev.status).toBe(200);
  const post = (body: unknown, key: string = p.keys.public) => t.request('POST', '/v1/rules', { key, body });
  return { t, p, post };
}

function item(ruleType: string, rules: unknown, extra: Record<string, unknown> = {}) {
  return { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId: 'opt-field', ruleType, rules, ...extra };
}

function combination(ticketOptionId: string, priceTypeId: string, price: number | string) {
  return { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId, priceTypeId, ruleType: 'COMBINATION', price };
}

type Entry = { code: string; path?: string; message: string; in?: string };
const paths = (errors: Entry[]) => errors.map((e) => `${e.code} ${e.path ?? ''}`);

describe('POST /v1/rules: deprecated fields', () => {
  it.each([
    ['maxPriceSell', { rules: { maxPriceSell: 100 } }, '0.rules.maxPriceSell', /maxPriceSellConfig/],
    ['minPriceSell', { rules: { minPriceSell: 10 } }, '0.rules.minPriceSell', /minPriceSellConfig/],
    ['superswap', { rules: { superswap: true } }, '0.rules.superswap', /superSwapConfig.*superSwapUnlock/],
    ['superswapInit', { rules: { superswapInit: 24 } }, '0.rules.superswapInit', /superSwapUnlock/],
    ['maxPriceSell on the item', { maxPriceSell: 100 }, '0.maxPriceSell', /maxPriceSellConfig/],
    ['superswap on the item', { superswap: { enabled: true } }, '0.superswap', /superSwapConfig/],
  ])('answers deprecated_field for %s, not unknown_field', async (_name, extra, path, replacement) => {
    const { post } = await setup();
    const res = await post([{ ...item('maxSell', { maxTickets: 2 }), ...extra }]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ code: 'deprecated_field', path, in: 'body' });
    expect(res.body.errors[0].message).toMatch(new RegExp(`^${path.replace(/\./g, '\\.')} is deprecated`));
    expect(res.body.errors[0].message).toMatch(replacement);
  });

  it('answers deprecated_field for ruleType ticketShield, naming the item', async () => {
    const { post, t } = await setup();
    const res = await post([item('maxSell', { maxTickets: 2 }), item('qrUnlock', { hoursBeforeShow: 3 }), item('ticketShield', { enabled: true })]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ code: 'deprecated_field', path: '2.ruleType', in: 'body', message: expect.stringMatching(/^2\.ruleType is deprecated: .*operator.*per event or show/) }]);
    expect(await t.db.select().from(rulesTable)).toEqual([]);
  });

  it('answers a deprecated ruleType (maxPriceSell) with deprecated_field too', async () => {
    const { post } = await setup();
    const res = await post([item('maxPriceSell', { value: 3 })]);
    expect(res.body.errors[0]).toMatchObject({ code: 'deprecated_field', path: '0.ruleType' });
  });

  it('lists every deprecated field of every item', async () => {
    const { post } = await setup();
    const res = await post([item('maxSell', { maxTickets: 2, minPriceSell: 1, maxPriceSell: 5 }), item('maxSell', { maxTickets: 2 }), item('superSwapConfig', { superswapInit: 4 })]);
    expect(paths(res.body.errors)).toEqual(['deprecated_field 0.rules.minPriceSell', 'deprecated_field 0.rules.maxPriceSell', 'deprecated_field 2.rules.superswapInit']);
  });
});

describe('POST /v1/rules: shape of the request', () => {
  it('refuses more than 100 items, and an empty array', async () => {
    const { post, t } = await setup();
    const many = Array.from({ length: 101 }, () => item('maxSell', { maxTickets: 2 }));
    const res = await post(many);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ code: 'out_of_range', message: 'the request must hold at most 100 item(s)', in: 'body' }]);
    expect((await post(many.slice(0, 100))).status).toBe(200);
    expect((await post([])).body.errors[0]).toMatchObject({ code: 'out_of_range' });
    expect((await post({ ruleType: 'maxSell' })).body.errors[0]).toMatchObject({ code: 'invalid_type' });
    expect(await t.db.select().from(rulesTable)).toHaveLength(1);
  });

  it('refuses items that are not objects, and a deeply nested body, without a 500', async () => {
    const { post, t } = await setup();
    const res = await post([null, 3, item('maxSell', { maxTickets: 2 })]);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['invalid_type 0', 'invalid_type 1']);
    const deep = `[{"externalReferenceEventId":"tour-2026","showId":"show-1","ticketOptionId":"opt-field","ruleType":"maxSell","rules":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}}]`;
    const nested = await t.request('POST', '/v1/rules', { key: (await t.partner('Deep')).keys.private, raw: deep });
    expect(nested.status).toBe(400);
  });

  it('refuses items for another event or show, naming the item', async () => {
    const { post } = await setup();
    const res = await post([
      item('maxSell', { maxTickets: 2 }),
      item('maxSell', { maxTickets: 2 }, { externalReferenceEventId: 'tour-other' }),
      item('maxSell', { maxTickets: 2 }),
      item('maxSell', { maxTickets: 2 }, { showId: 'show-2' }),
    ]);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['invalid_value 1.externalReferenceEventId', 'invalid_value 3.showId']);
    expect(res.body.errors[1].message).toMatch(/^3\.showId must be 'show-1' as in item 0/);
  });

  it('refuses an unknown or missing ruleType', async () => {
    const { post } = await setup();
    const res = await post([item('maxsell', { maxTickets: 2 }), { ...item('x', {}), ruleType: undefined }, item('maxSell', { maxTickets: 2 }, { ruleType: 7 })]);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['invalid_value 0.ruleType', 'missing_field 1.ruleType', 'invalid_type 2.ruleType']);
    expect(res.body.errors[0].message).toMatch(/^0\.ruleType must be one of "COMBINATION", "qrUnlock"/);
  });

  it.each([
    ['a missing rules object', item('maxSell', undefined), ['missing_field 0.rules']],
    ['a missing field', item('maxSell', {}), ['missing_field 0.rules.maxTickets']],
    ['a wrong type', item('maxSell', { maxTickets: '3' }), ['invalid_type 0.rules.maxTickets']],
    ['a decimal count', item('maxSell', { maxTickets: 2.5 }), ['invalid_type 0.rules.maxTickets']],
    ['an unknown field', item('maxSell', { maxTickets: 2, colour: 'red' }), ['unknown_field 0.rules.colour']],
    ['an unknown field on the item', { ...item('maxSell', { maxTickets: 2 }), note: 'x' }, ['unknown_field 0.note']],
    ['a count out of range', item('maxSell', { maxTickets: 1001 }), ['out_of_range 0.rules.maxTickets']],
    ['hours out of range', item('superSwapUnlock', { hoursBeforeShow: 721 }), ['out_of_range 0.rules.hoursBeforeShow']],
    ['negative hours', item('qrUnlock', { hoursBeforeShow: -1 }), ['out_of_range 0.rules.hoursBeforeShow']],
    ['both qrUnlock fields', item('qrUnlock', { hoursBeforeShow: 3, unlockAt: '2026-05-01T18:00:00Z' }), ['invalid_value 0.rules']],
    ['no qrUnlock field', item('qrUnlock', {}), ['invalid_value 0.rules']],
    ['an instant without offset', item('qrUnlock', { unlockAt: '2026-05-01T18:00:00' }), ['invalid_format 0.rules.unlockAt']],
    ['a non-boolean flag', item('superSwapConfig', { enabled: 'yes' }), ['invalid_type 0.rules.enabled']],
    ['empty platformFees', item('platformFees', {}), ['invalid_value 0.rules']],
    ['a fee percent over 50', item('platformFees', { sellerPercent: 51 }), ['out_of_range 0.rules.sellerPercent']],
    ['a negative fixed fee', item('platformFees', { buyerFixed: -1 }), ['out_of_range 0.rules.buyerFixed']],
    ['an unknown price rule type', item('fixedListingPrice', { type: 'RELATIVE', value: 3 }), ['invalid_value 0.rules.type']],
    ['a negative price rule value', item('maxPriceSellConfig', { type: 'PERCENTAGE', value: -3 }), ['out_of_range 0.rules.value']],
    ['a COMBINATION without priceTypeId', { ...combination('opt-vip', 'x', 10), priceTypeId: undefined }, ['missing_field 0.priceTypeId']],
    ['a COMBINATION without price', { ...combination('opt-vip', 'pt-early', 10), price: undefined }, ['missing_field 0.price']],
    ['a non-numeric COMBINATION price', combination('opt-vip', 'pt-early', 'ten'), ['invalid_format 0.price']],
    ['a COMBINATION price of another type', combination('opt-vip', 'pt-early', true as never), ['invalid_value 0.price']],
    ['a COMBINATION with rules', { ...combination('opt-vip', 'pt-early', 10), rules: {} }, ['unknown_field 0.rules']],
    ['a negative COMBINATION price', combination('opt-vip', 'pt-early', -10), ['out_of_range 0.price']],
    ['a missing ticketOptionId', { ...item('maxSell', { maxTickets: 2 }), ticketOptionId: undefined }, ['missing_field 0.ticketOptionId']],
  ])('refuses %s, naming the path', async (_name, body, expected) => {
    const { post, t } = await setup();
    const res = await post([body]);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(expected);
    expect(await t.db.select().from(rulesTable)).toEqual([]);
  });

  it('refuses amounts with more decimals than the currency allows', async () => {
    const { post } = await setup();
    expect((await post([item('minPriceSellConfig', { type: 'ABSOLUTE', value: 10.005 })])).body.errors).toEqual([
      { code: 'invalid_value', path: '0.rules.value', in: 'body', message: '0.rules.value has more decimals than EUR allows (2)' },
    ]);
    expect(paths((await post([item('platformFees', { buyerFixed: 0.001 })])).body.errors)).toEqual(['invalid_value 0.rules.buyerFixed']);
    expect(paths((await post([combination('opt-vip', 'pt-early', '9.999')])).body.errors)).toEqual(['invalid_value 0.price']);
    // A percentage may have any decimals.
    expect((await post([item('minPriceSellConfig', { type: 'PERCENTAGE', value: 33.333 })])).status).toBe(200);
  });
});

describe('POST /v1/rules: references', () => {
  it('answers 404 for an unknown event and an unknown show', async () => {
    const { post } = await setup();
    const event = await post([item('maxSell', { maxTickets: 2 }, { externalReferenceEventId: 'ghost' })]);
    expect(event.status).toBe(404);
    expect(event.body).toEqual({ status: 404, data: null, errors: [{ code: 'not_found', message: "No event 'ghost' was found" }] });
    const show = await post([item('maxSell', { maxTickets: 2 }, { showId: 'show-9' })]);
    expect(show.status).toBe(404);
    expect(show.body.errors[0]).toEqual({ code: 'not_found', message: "No show 'show-9' was found" });
  });

  it("answers another partner's event exactly as an unknown one", async () => {
    const owner = await setup();
    const stranger = await owner.t.partner('Other Tickets');
    const body = [item('maxSell', { maxTickets: 2 })];
    const foreign = await owner.post(body, stranger.keys.public);
    const foreignRead = await owner.t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-1', { key: stranger.keys.private });

    const empty = createTestApp();
    const nobody = await empty.partner('Other Tickets');
    const unknown = await empty.request('POST', '/v1/rules', { key: nobody.keys.public, body });
    const unknownRead = await empty.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-1', { key: nobody.keys.private });

    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
    expect(foreignRead.status).toBe(404);
    expect(foreignRead.body).toEqual(unknownRead.body);
    expect(await owner.t.db.select().from(rulesTable)).toEqual([]);
  });

  it('answers 400 for an unknown ticket option or price type, naming the item', async () => {
    const { post } = await setup();
    const option = await post([item('maxSell', { maxTickets: 2 }), item('maxSell', { maxTickets: 2 }, { ticketOptionId: 'opt-nope' })]);
    expect(option.status).toBe(400);
    expect(option.body.errors).toEqual([
      { code: 'invalid_value', path: '1.ticketOptionId', in: 'body', message: "1.ticketOptionId 'opt-nope' is not a ticket option of show 'show-1'" },
    ]);
    // A ticket option of another show of the same event is unknown here too.
    const otherShow = await post([item('maxSell', { maxTickets: 2 }, { showId: 'show-2', ticketOptionId: 'opt-nope' })]);
    expect(paths(otherShow.body.errors)).toEqual(['invalid_value 0.ticketOptionId']);
    const ruleType = await post([item('maxSell', { maxTickets: 2 }, { priceTypeId: 'pt-nope' })]);
    expect(paths(ruleType.body.errors)).toEqual(['invalid_value 0.priceTypeId']);
    const combo = await post([combination('opt-vip', 'pt-nope', 10)]);
    expect(combo.status).toBe(400);
    expect(paths(combo.body.errors)).toEqual(['invalid_value 0.priceTypeId']);
    const comboOption = await post([combination('opt-nope', 'pt-early', 10)]);
    expect(paths(comboOption.body.errors)).toEqual(['invalid_value 0.ticketOptionId']);
  });

  it('answers 400 for a priceTypeId that forms no combination, unless created earlier in the request', async () => {
    const { post } = await setup();
    // opt-vip + pt-early is not a combination of the event.
    const res = await post([item('maxSell', { maxTickets: 2 }, { ticketOptionId: 'opt-vip', priceTypeId: 'pt-early' })]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_value', path: '0.priceTypeId', message: expect.stringMatching(/form no combination/) });
    // A standard-model show has no price types at all.
    const standard = await post([item('maxSell', { maxTickets: 2 }, { showId: 'show-2', priceTypeId: 'pt-early' })]);
    expect(paths(standard.body.errors)).toEqual(['invalid_value 0.priceTypeId']);

    const ok = await post([combination('opt-vip', 'pt-early', 100), item('maxSell', { maxTickets: 2 }, { ticketOptionId: 'opt-vip', priceTypeId: 'pt-early' })]);
    expect(ok.status).toBe(200);
  });

  it('writes nothing when the third item of a batch fails', async () => {
    const { t, p, post } = await setup();
    const res = await post([
      item('maxSell', { maxTickets: 2 }),
      combination('opt-vip', 'pt-early', 99),
      item('qrUnlock', { hoursBeforeShow: 3 }, { ticketOptionId: 'opt-nope' }),
    ]);
    expect(res.status).toBe(400);
    expect(paths(res.body.errors)).toEqual(['invalid_value 2.ticketOptionId']);

    const read = await t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-1', { key: p.keys.public });
    expect(read.body.data.filter((d: { ruleType: string }) => d.ruleType !== 'COMBINATION')).toEqual([]);
    expect(read.body.data.some((d: { ticketOptionId: string; priceTypeId?: string }) => d.ticketOptionId === 'opt-vip' && d.priceTypeId === 'pt-early')).toBe(false);
    const ev = await t.request('GET', '/v1/events/tour-2026', { key: p.keys.private });
    expect(ev.body.data.shows[0].combinations).toHaveLength(3);
    expect(await t.db.select().from(rulesTable)).toEqual([]);
  });

  it('refuses a minimum above the maximum of the same scope and type, and writes nothing', async () => {
    const { t, post } = await setup();
    expect((await post([item('maxPriceSellConfig', { type: 'ABSOLUTE', value: 50 })])).status).toBe(200);
    const res = await post([item('maxSell', { maxTickets: 3 }), item('minPriceSellConfig', { type: 'ABSOLUTE', value: 60 })]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        code: 'invalid_value',
        path: '1.rules.value',
        in: 'body',
        message: "1.rules.value: the minPriceSellConfig of ticket option 'opt-field' (ABSOLUTE 60 EUR) would exceed its maxPriceSellConfig (ABSOLUTE 50 EUR)",
      },
    ]);
    expect((await t.db.select().from(rulesTable)).map((r) => r.ruleType)).toEqual(['maxPriceSellConfig']);

    // PERCENTAGE in one request, on a combination scope; another scope is independent.
    const pct = await post([
      item('minPriceSellConfig', { type: 'PERCENTAGE', value: 130 }, { priceTypeId: 'pt-early' }),
      item('maxPriceSellConfig', { type: 'PERCENTAGE', value: 120 }, { priceTypeId: 'pt-early' }),
    ]);
    expect(pct.status).toBe(400);
    expect(pct.body.errors[0]).toMatchObject({ path: '1.rules.value', message: expect.stringMatching(/combination 'opt-field' \+ 'pt-early' \(PERCENTAGE 130\)/) });
    expect((await post([item('minPriceSellConfig', { type: 'PERCENTAGE', value: 130 }, { priceTypeId: 'pt-standard' })])).status).toBe(200);
  });
});

describe('GET /v1/rules: errors', () => {
  it('needs the event and show, and knows the ticket option', async () => {
    const { t, p } = await setup();
    const missing = await t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026', { key: p.keys.public });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ code: 'missing_field', path: 'showId', in: 'query', message: 'showId is required' }]);
    const option = await t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-1&ticketOptionId=opt-nope', { key: p.keys.public });
    expect(option.status).toBe(400);
    expect(option.body.errors[0]).toMatchObject({ code: 'invalid_value', path: 'ticketOptionId', in: 'query' });
    expect((await t.request('GET', '/v1/rules?externalReferenceEventId=ghost&showId=show-1', { key: p.keys.public })).status).toBe(404);
    expect((await t.request('GET', '/v1/rules?externalReferenceEventId=tour-2026&showId=show-9', { key: p.keys.public })).status).toBe(404);
  });
});
