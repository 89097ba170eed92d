import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { toIso } from '../../lib/clock.js';
import { createTestApp, OPERATOR_TOKEN } from '../../testing/harness.js';
import { sqlRows } from '../../testing/sql.js';
import { closeReceivers, enqueue, receiver, setup, shield } from '../../domain/webhooks/webhooks.testing.js';
import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS } from '../../domain/partners/partners.service.js';

afterEach(closeReceivers);

const rotatePath = (partnerId: string) => `/admin/v1/partners/${partnerId}/webhookSecret/rotate`;

describe('operator API: webhook secret rotation with a grace period', () => {
  it('signs every delivery with both secrets during the grace, each verifying with standardwebhooks, then with the new one only', async () => {
    const rx = await receiver();
    const { t, partner, svc } = await setup({ webhookUrl: rx.url });
    t.clock.set(Date.now()); // standardwebhooks checks the timestamp against the real time (5 minutes either way)

    const rotated = await t.request('POST', rotatePath(partner.id), { operator: true, body: { graceSeconds: 120 } });
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.body.data.webhookSecret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(fresh).not.toBe(partner.webhookSecret);
    expect(rotated.body.data.previousValidUntil).toBe(toIso(t.clock.now() + 120_000));

    await enqueue(t, svc, partner.id, shield('show-1'));
    expect((await svc.deliverDue()).delivered).toBe(1);
    const during = rx.received[0]!;
    const signatures = during.headers['webhook-signature']!.split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = { family: 'ticketShield', action: 'ticketShield.updated', data: { status: true, eventId: 'tour-2026', showId: 'show-1' } };
    // A partner that has switched, and one that has not yet, both accept the whole header.
    expect(new Webhook(fresh).verify(during.body, during.headers)).toEqual(payload);
    expect(new Webhook(partner.webhookSecret).verify(during.body, during.headers)).toEqual(payload);
    // Each signature is its own secret's: the new one first, then the previous one.
    const only = (signature: string) => ({ ...during.headers, 'webhook-signature': signature });
    expect(new Webhook(fresh).verify(during.body, only(signatures[0]!))).toEqual(payload);
    expect(new Webhook(partner.webhookSecret).verify(during.body, only(signatures[1]!))).toEqual(payload);
    expect(() => new Webhook(fresh).verify(during.body, only(signatures[1]!))).toThrow(/No matching signature/);
    expect(() => new Webhook(partner.webhookSecret).verify(during.body, only(signatures[0]!))).toThrow(/No matching signature/);
    expect(() => new Webhook('whsec_' + Buffer.alloc(32, 7).toString('base64')).verify(during.body, during.headers)).toThrow(/No matching signature/);

    // The grace ends on the injected clock: the old secret no longer signs.
    t.clock.advance(120_000);
    await enqueue(t, svc, partner.id, shield('show-2'));
    expect((await svc.deliverDue()).delivered).toBe(1);
    const after = rx.received[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(new Webhook(fresh).verify(after.body, after.headers)).toMatchObject({ data: { showId: 'show-2' } });
    expect(() => new Webhook(partner.webhookSecret).verify(after.body, after.headers)).toThrow(/No matching signature/);
  });

  it('takes a bare POST (a day of grace), answers the new secret once, and keeps only the two latest secrets signing', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const start = t.clock.now();

    const bare = await t.request('POST', rotatePath(p.id), { operator: true });
    expect(bare.status).toBe(200);
    expect(DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS).toBe(86_400);
    expect(bare.body.data.previousValidUntil).toBe(toIso(start + 86_400_000));
    const second: string = bare.body.data.webhookSecret;

    const row = () => t.deps.partners.get(p.id);
    expect(t.deps.partners.webhookSecret(await row())).toBe(second);
    expect(t.deps.partners.webhookSigningSecrets(await row(), start + 86_400_000 - 1)).toEqual([second, p.webhookSecret]);
    expect(t.deps.partners.webhookSigningSecrets(await row(), start + 86_400_000)).toEqual([second]);

    // Shown only in that answer: stored sealed, never read back.
    const read = await t.request('GET', `/admin/v1/partners/${p.id}`, { operator: true });
    expect(JSON.stringify(read.body)).not.toContain(second);
    const dump = JSON.stringify(await sqlRows(t.db, 'select * from partners'));
    for (const secret of [second, p.webhookSecret]) expect(dump).not.toContain(secret);

    // A rotation within the grace: the one it replaces becomes the previous one; the first stops.
    t.clock.advance(60_000);
    const third = await t.request('POST', rotatePath(p.id), { operator: true, body: { graceSeconds: 3600 } });
    expect(third.body.data.previousValidUntil).toBe(toIso(t.clock.now() + 3_600_000));
    expect(t.deps.partners.webhookSigningSecrets(await row(), t.clock.now())).toEqual([third.body.data.webhookSecret, second]);

    // Grace 0: the previous secret stops at once (as `keys/rotate` with kind webhookSecret does by default).
    const now = await t.request('POST', rotatePath(p.id), { operator: true, body: { graceSeconds: 0 } });
    expect(now.body.data.previousValidUntil).toBeNull();
    expect(t.deps.partners.webhookSigningSecrets(await row(), t.clock.now())).toEqual([now.body.data.webhookSecret]);
    const legacy = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'webhookSecret', graceSeconds: 60 } });
    expect(legacy.body.data.previousValidUntil).toBe(toIso(t.clock.now() + 60_000));
    expect(t.deps.partners.webhookSigningSecrets(await row(), t.clock.now())).toEqual([legacy.body.data.secret, now.body.data.webhookSecret]);
  });

  it('refuses an unknown partner (404), a missing or wrong operator token and partner keys (401), and a bad grace (400), changing nothing', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const unchanged = async () => expect(t.deps.partners.webhookSigningSecrets(await t.deps.partners.get(p.id), t.clock.now())).toEqual([p.webhookSecret]);

    const unknown = await t.request('POST', rotatePath('ptr_unknown'), { operator: true, body: { graceSeconds: 60 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('not_found');

    expect((await t.request('POST', rotatePath(p.id), { body: {} })).status).toBe(401);
    expect((await t.request('POST', rotatePath(p.id), { headers: { authorization: 'Bearer not-the-operator-token-000000' }, body: {} })).status).toBe(401);
    for (const key of [p.keys.private, p.keys.public, p.keys.channels]) {
      const res = await t.request('POST', rotatePath(p.id), { key: `Bearer ${key}`, body: {} });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('unauthorized');
    }
    const disabled = createTestApp({ operatorToken: null });
    const q = await disabled.partner();
    expect((await disabled.request('POST', rotatePath(q.id), { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` }, body: {} })).status).toBe(401);

    for (const graceSeconds of [-1, 1.5, '3600', null, 7 * 86_400 + 1, 1e308]) {
      const bad = await t.request('POST', rotatePath(p.id), { operator: true, body: { graceSeconds } });
      expect(bad.status, JSON.stringify(graceSeconds)).toBe(400);
      expect(bad.body.errors[0].path).toBe('graceSeconds');
    }
    const extra = await t.request('POST', rotatePath(p.id), { operator: true, body: { graceSeconds: 60, kind: 'private' } });
    expect(extra.status).toBe(400);
    expect(extra.body.errors[0].code).toBe('unknown_field');
    expect((await t.request('POST', rotatePath(p.id), { operator: true, raw: '[]' })).status).toBe(400);
    expect((await t.request('POST', rotatePath(p.id), { operator: true, raw: 'graceSeconds=60', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    await unchanged();

    // The longest grace is accepted.
    expect((await t.request('POST', rotatePath(p.id), { operator: true, body: { graceSeconds: 7 * 86_400 } })).status).toBe(200);
  });

  it('is in the OpenAPI document under Operator, with its body optional', async () => {
    const t = createTestApp();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, any>> };
    const op = doc.paths['/admin/v1/partners/{partnerId}/webhookSecret/rotate']!.post;
    expect(op).toMatchObject({ operationId: 'rotatePartnerWebhookSecret', tags: ['Operator'], security: [{ operatorToken: [] }] });
    expect(op.summary).toMatch(/grace/);
    expect(op.requestBody.required).toBe(false);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
  });
});
