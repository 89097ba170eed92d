import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';

const good = (over: Record<string, any> = {}) => ({
  customer: {
    id: 'user-1',
    firstName: 'Ana',
    lastName: 'García',
    address: { country: 'ES' },
    createdAt: '2025-01-01T00:00:00Z',
    email: { address: 'ana@example.com', verified: true },
    phone: { number: '+34600111222', verified: true },
    ...over.customer,
  },
  device: { userId: 'user-1', sessionId: 'sess-1', ...over.device },
  transaction: {
    id: over.txId ?? 'tx-1',
    amount: 50,
    currency: 'EUR',
    action: 'resale_purchase',
    cardData: { bin: '424242', last4Digits: '4242', firstName: 'Ana', lastName: 'García', billingAddress: { country: 'ES' } },
    ...over.transaction,
  },
});

function signals(res: any) {
  const all = [...res.detailed.customer_risk.signals, ...res.detailed.transaction_risk.signals];
  return Object.fromEntries(all.map((s: { name: string; result: string }) => [s.name, s.result]));
}

describe('POST /v1/risk/evaluate', () => {
  it('answers low for a verified, consistent customer, in the spec’s shape', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const res = await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: good() });
    expect(res.status).toBe(200);
    expect(res.body.data.overall_risk).toBe('low');
    expect(res.body.data.detailed.customer_risk.signals.map((s: { name: string }) => s.name)).toEqual(['addressRiskLevel', 'emailDomainLevel', 'emailLevel', 'phoneLevel', 'manualReview']);
    expect(signals(res.body.data)).toMatchObject({ addressRiskLevel: 'low', emailDomainLevel: 'low', emailLevel: 'low', phoneLevel: 'low', manualReview: 'false' });
  });

  it('raises each signal for what it sees', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const ev = async (body: unknown) => (await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body })).body.data;
    expect(signals(await ev(good({ customer: { email: { address: 'x@mailinator.com', verified: true } } })))).toMatchObject({ emailDomainLevel: 'high' });
    expect((await ev(good({ customer: { email: { address: 'x@mailinator.com', verified: true } } }))).overall_risk).toBe('high');
    expect(signals(await ev(good({ customer: { email: { address: 'a@example.com', verified: false } } })))).toMatchObject({ emailLevel: 'medium', manualReview: 'true' });
    expect(signals(await ev(good({ customer: { phone: { number: '+3412', verified: true } } })))).toMatchObject({ phoneLevel: 'high' });
    expect(signals(await ev(good({ customer: { phone: { number: '+4915112345678', verified: true } } })))).toMatchObject({ phoneLevel: 'medium' });
    expect(signals(await ev(good({ transaction: { cardData: { firstName: 'Ana', lastName: 'García', billingAddress: { country: 'FR' } } } })))).toMatchObject({ addressRiskLevel: 'medium' });
    expect(signals(await ev(good({ transaction: { cardData: { firstName: 'Luis', lastName: 'Pérez' } } })))).toMatchObject({ cardNameMatch: 'medium' });
    expect(signals(await ev(good({ customer: { id: 'new', createdAt: '2026-03-01T11:00:00Z' } })))).toMatchObject({ accountAge: 'medium' });
  });

  it('counts velocity per customer, device and card, and compares the amount with the customer’s history', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const ev = async (body: unknown) => (await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body })).body.data;
    for (let i = 0; i < 3; i++) expect(signals(await ev(good({ txId: `v${i}` }))).velocity).toBe('low');
    expect(signals(await ev(good({ txId: 'v3' }))).velocity).toBe('medium');
    t.clock.advance(2 * 3_600_000);
    expect(signals(await ev(good({ txId: 'v4' }))).velocity).toBe('low');
    expect(signals(await ev(good({ txId: 'big', transaction: { amount: 400 } }))).amountVsHistory).toBe('medium');
    expect(signals(await ev(good({ txId: 'huge', transaction: { amount: 5000 } }))).amountVsHistory).toBe('high');
  });

  it('refuses requests without a customer identity or transaction fields, and the wrong keys', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const noWho = await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: { customer: {}, transaction: { id: 't', amount: 1, currency: 'EUR' } } });
    expect(noWho.body.errors[0]).toMatchObject({ path: 'customer', message: expect.stringMatching(/customer.id or customer.email/) });
    const noTx = await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: { customer: { id: 'u' }, transaction: { amount: -1, currency: 'EURO', action: 'steal' } } });
    expect(noTx.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['transaction.action', 'transaction.amount', 'transaction.currency', 'transaction.id']);
    expect((await t.request('POST', '/v1/risk/evaluate', { key: p.keys.public, body: good() })).status).toBe(403);
  });
});

describe('POST /v1/risk/feedback', () => {
  it('a chargeback makes the customer, card or device high later; a rejection medium; other partners unaffected', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const other = await t.partner('Other');
    await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: good({ txId: 'tx-cb' }) });
    const fb = await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: 'tx-cb', userId: 'user-1', result: 'chargeback' } });
    expect(fb.body.data).toEqual({ recorded: true, matchedEvaluation: true });
    // Same card, another customer and device: still high.
    const sameCard = await t.request('POST', '/v1/risk/evaluate', { key: p.keys.private, body: good({ txId: 'tx-2', customer: { id: 'user-2' }, device: { userId: 'user-2', sessionId: 's2' } }) });
    expect(sameCard.body.data.overall_risk).toBe('high');
    expect(signals(sameCard.body.data).previousFeedback).toBe('high');
    const elsewhere = await t.request('POST', '/v1/risk/evaluate', { key: other.keys.private, body: good({ txId: 'tx-3' }) });
    expect(elsewhere.body.data.overall_risk).toBe('low');

    await t.request('POST', '/v1/risk/feedback', { key: other.keys.private, body: { transactionId: 'unknown', userId: 'user-9@example.com', result: 'rejected' } });
    const rejected = await t.request('POST', '/v1/risk/evaluate', { key: other.keys.private, body: good({ txId: 'tx-4', customer: { id: undefined, email: { address: 'USER-9@example.com', verified: true } }, device: {}, transaction: { cardData: undefined } }) });
    expect(signals(rejected.body.data).previousFeedback).toBe('medium');
    expect((await t.request('POST', '/v1/risk/feedback', { key: p.keys.private, body: { transactionId: 't', userId: 'u', result: 'maybe' } })).status).toBe(400);
  });
});
