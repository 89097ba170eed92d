import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { answerChecker, type Doc } from '../../testing/openapi-schema.js';

/**
 * The checker behind every test's `t.request` (testing/harness.ts): each answer a route test
 * reads is checked against its operation's documented response, and a test file with an
 * answer that does not match fails. Here: that the checker sees what it must.
 */
describe('answers against the OpenAPI document', () => {
  async function checker() {
    const t = createTestApp();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as Doc;
    return { t, check: answerChecker(doc) };
  }

  it('accepts a real answer and refuses one that differs from its schema', async () => {
    const { t, check } = await checker();
    const p = await t.partner();
    const res = await t.request('GET', '/v1/rules?externalReferenceEventId=nope&showId=s', { key: p.keys.private });
    expect(res.status).toBe(404);
    expect(check('GET', '/v1/rules', 404, res.body, 'application/json')).toBeNull();
    const partner = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect(check('GET', `/admin/v1/partners/${p.id}`, 200, partner.body, 'application/json')).toBeNull();
    // The operator's answer of a partner, with a setting it does not have.
    const wrong = { ...partner.body, data: { ...partner.body.data, settings: { ...partner.body.data.settings, surprise: 1 } } };
    expect(check('GET', `/admin/v1/partners/${p.id}`, 200, wrong, 'application/json')).toMatchObject({ operation: 'GET /admin/v1/partners/{partnerId}', status: 200 });
  });

  it('refuses an undocumented status and skips what reaches no operation', async () => {
    const { check } = await checker();
    expect(check('GET', '/v1/tickets/t-1', 418, {}, 'application/json')?.problem).toMatch(/status 418 is not documented/);
    expect(check('GET', '/no/such/path', 404, {}, 'application/json')).toBeNull();
    // The most literal template wins, as in the router.
    expect(check('POST', '/v1/tickets/batch/eventAdmission', 200, { status: 200, data: 'x', errors: null }, 'application/json')?.operation).toBe('POST /v1/tickets/batch/eventAdmission');
  });
});
