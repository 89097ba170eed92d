import { describe, expect, it } from 'vitest';
import { createTestApp } from './testing/harness.js';
import { capturedLogger } from './testing/logs.js';
import { eventBody } from './testing/factories.js';
import { sqlExec } from './testing/sql.js';

describe('HTTP surface', () => {
  it('answers unknown paths with the envelope and 404', async () => {
    const t = createTestApp();
    const res = await t.request('GET', '/v1/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ status: 404, data: null, errors: [{ code: 'route_not_found', message: 'No endpoint GET /v1/nothing' }] });
    expect(res.headers.get('request-id')).toMatch(/^req_/);
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const t = createTestApp();
    const res = await t.request('DELETE', '/admin/v1/partners');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, GET');
    expect(res.body.errors[0].code).toBe('method_not_allowed');
  });

  it('refuses a body over the limit with 413 in the envelope', async () => {
    const t = createTestApp({ maxBodyBytes: 2048 });
    const res = await t.request('POST', '/admin/v1/partners', { operator: true, body: { name: 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, data: null, errors: [{ code: 'payload_too_large' }] });
  });

  it('refuses malformed JSON and non-JSON bodies clearly', async () => {
    const t = createTestApp();
    const bad = await t.request('POST', '/admin/v1/partners', { operator: true, raw: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toEqual({ code: 'invalid_json', message: 'The body is not valid JSON' });
    const form = await t.request('POST', '/admin/v1/partners', { operator: true, raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.body.errors[0].code).toBe('unsupported_media_type');
  });

  it('serves the OpenAPI 3.1 document and the reference page', async () => {
    const t = createTestApp();
    const doc = await t.app.request('/v1/openapi.json');
    expect(doc.status).toBe(200);
    const json = (await doc.json()) as { openapi: string; paths: Record<string, Record<string, { operationId?: string; tags?: string[]; summary?: string }>> };
    expect(json.openapi).toBe('3.1.0');
    for (const [path, ops] of Object.entries(json.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.operationId, `${method} ${path}`).toBeTruthy();
        expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
        expect(op.summary, `${method} ${path}`).toBeTruthy();
      }
    }
    const docs = await t.app.request('/docs');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/v1/openapi.json');
  });
});


describe('logs', () => {
  it('write one line per request with its id, and never keys, query strings or bodies', async () => {
    const { logger, lines, text } = capturedLogger();
    const t = createTestApp({}, { logger });
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('secret-tour', { description: 'fan@example.com' }) });
    const res = await t.request('GET', '/v1/events/secret-tour?loginTrust[user]=fan@example.com&oneTimeToken=tok_123', { key: `Bearer ${p.keys.private}` });
    const all = text();
    expect(lines).toHaveLength(2);
    const entry = lines[1]!;
    expect(entry).toMatchObject({ msg: 'request', method: 'GET', path: '/v1/events/secret-tour', status: 200, partnerId: p.id, requestId: res.headers.get('request-id') });
    for (const secret of [p.keys.private, 'fan@example.com', 'tok_123', 'loginTrust']) expect(all).not.toContain(secret);
  });

  it('log an unexpected error with its stack but answer without it', async () => {
    const { logger, text } = capturedLogger();
    const t = createTestApp({}, { logger });
    const p = await t.partner();
    await sqlExec(t.db, 'drop table combinations');
    const res = await t.request('GET', '/v1/events/anything', { key: p.keys.private });
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('x') });
    const failed = await t.request('GET', '/v1/events/x', { key: p.keys.private });
    expect(res.status).toBe(404);
    expect(failed.status).toBe(500);
    expect(failed.body.errors[0].code).toBe('internal_error');
    expect(JSON.stringify(failed.body)).not.toMatch(/combinations|SQL|sqlite|\.ts/i);
    expect(text()).toMatch(/no such table: combinations|relation \\"combinations\\" does not exist/);
  });
});
