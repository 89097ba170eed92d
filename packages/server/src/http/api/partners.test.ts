import { sqlRows } from '../../testing/sql.js';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createTestApp, OPERATOR_TOKEN } from '../../testing/harness.js';
import { ENGINE } from '../../db/engine.js';
import { sameDatabase } from '../../testing/postgres.js';
import { apiKeys, partners } from '../../domain/partners/partners.table.js';
import { hashSecret } from '../../lib/crypto.js';

describe('operator API: partners', () => {
  it('creates a partner and shows its three keys and webhook secret once', async () => {
    const t = createTestApp();
    const res = await t.request('POST', '/admin/v1/partners', { operator: true, body: { name: 'Acme', settings: { qrLockHoursBeforeShow: 5 } } });
    expect(res.status).toBe(201);
    expect(res.body.errors).toBeNull();
    const { partner, keys, webhookSecret } = res.body.data;
    expect(partner.id).toMatch(/^ptr_[0-9a-z]{26}$/);
    expect(partner.settings.qrLockHoursBeforeShow).toBe(5);
    expect(partner.settings.buyIntentionTtlSeconds).toBe(600);
    expect(keys.private).toMatch(/^sk_[0-9A-Za-z]{43}$/);
    expect(keys.public).toMatch(/^pk_[0-9A-Za-z]{43}$/);
    expect(keys.channels).toMatch(/^sk_ch_[0-9A-Za-z]{43}$/);
    expect(webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);

    // Stored only as hashes; the plain keys appear nowhere in the database.
    const rows = await t.db.select().from(apiKeys).where(eq(apiKeys.partnerId, partner.id));
    expect(rows.map((r) => r.hash).sort()).toEqual([keys.private, keys.public, keys.channels].map(hashSecret).sort());
    const dump = JSON.stringify((await sqlRows(t.db, 'select * from api_keys'))) + JSON.stringify(await t.db.select().from(partners));
    for (const secret of [keys.private, keys.public, keys.channels, webhookSecret]) expect(dump).not.toContain(secret);

    const read = await t.request('GET', `/admin/v1/partners/${partner.id}`, { operator: true });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(keys.private);
    expect(read.body.data.settings.platformSecretSet).toBe(false);
  });

  it('refuses without the operator token, with a wrong one, and with a partner key', async () => {
    const t = createTestApp();
    const p = await t.partner();
    expect((await t.request('GET', '/admin/v1/partners')).status).toBe(401);
    const wrong = await t.request('GET', '/admin/v1/partners', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors[0].code).toBe('unauthorized');
    expect((await t.request('GET', '/admin/v1/partners', { key: `Bearer ${p.keys.private}` })).status).toBe(401);
    expect((await t.request('GET', '/admin/v1/partners', { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).status).toBe(200);
  });

  it('is disabled when no operator token is configured', async () => {
    const t = createTestApp({ operatorToken: null });
    const res = await t.request('GET', '/admin/v1/partners', { headers: { authorization: 'Bearer ' } });
    expect(res.status).toBe(401);
    expect(res.body.errors[0].message).toMatch(/disabled/);
  });

  it('updates settings, keeps the ones not sent, rejects unknown settings and bad values', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const upd = await t.request('PATCH', `/admin/v1/partners/${p.id}`, {
      operator: true,
      body: { settings: { webhookUrl: 'https://partner.example/hooks', fees: { sellerPercent: 7 }, platformSecret: 'a-very-secret-header-value' } },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.data.settings.webhookUrl).toBe('https://partner.example/hooks');
    expect(upd.body.data.settings.fees).toEqual({ buyerPercent: 10, buyerFixedMinor: 0, sellerPercent: 7, sellerFixedMinor: 0 });
    expect(upd.body.data.settings.platformSecretSet).toBe(true);
    expect(JSON.stringify(upd.body)).not.toContain('a-very-secret-header-value');
    expect(t.deps.partners.platformSecret(await t.deps.partners.get(p.id))).toBe('a-very-secret-header-value');

    const unknown = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { colour: 'red' } } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ code: 'unknown_field', message: 'settings.colour is not a known field', path: 'settings.colour', in: 'body' }]);

    const bad = await t.request('PATCH', `/admin/v1/partners/${p.id}`, {
      operator: true,
      body: { settings: { webhookUrl: 'javascript:alert(1)', feedPollSeconds: 'often', qrLockHoursBeforeShow: -1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['settings.feedPollSeconds', 'settings.qrLockHoursBeforeShow', 'settings.webhookUrl']);
    // Nothing half-written.
    expect((await t.deps.partners.get(p.id)).settings.qrLockHoursBeforeShow).toBe(3);

    const cleared = await t.request('PATCH', `/admin/v1/partners/${p.id}`, { operator: true, body: { settings: { webhookUrl: null } } });
    expect(cleared.body.data.settings.webhookUrl).toBeNull();
    expect((await t.request('PATCH', '/admin/v1/partners/ptr_unknown', { operator: true, body: { name: 'x' } })).status).toBe(404);
  });

  it('rotates a key: the old one stops at once, or after the grace period', async () => {
    const t = createTestApp();
    const p = await t.partner();
    const event = '/v1/events/nothing-here';
    expect((await t.request('GET', event, { key: p.keys.private })).status).toBe(404);

    const r1 = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'private', graceSeconds: 60 } });
    expect(r1.status).toBe(200);
    expect(r1.body.data.previousValidUntil).toBe('2026-03-01T12:01:00.000Z');
    const newKey = r1.body.data.secret;
    expect((await t.request('GET', event, { key: p.keys.private })).status).toBe(404); // still valid in the grace period
    expect((await t.request('GET', event, { key: newKey })).status).toBe(404);
    t.clock.advance(60_000);
    expect((await t.request('GET', event, { key: p.keys.private })).status).toBe(401);
    expect((await t.request('GET', event, { key: newKey })).status).toBe(404);

    const r2 = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'private' } });
    expect((await t.request('GET', event, { key: newKey })).status).toBe(401);
    expect((await t.request('GET', event, { key: r2.body.data.secret })).status).toBe(404);

    const wh = await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'webhookSecret' } });
    expect(wh.body.data.secret).toMatch(/^whsec_/);
    expect(t.deps.partners.webhookSecret(await t.deps.partners.get(p.id))).toBe(wh.body.data.secret);
    expect((await t.request('POST', `/admin/v1/partners/${p.id}/keys/rotate`, { operator: true, body: { kind: 'master' } })).status).toBe(400);
  });

  it('keeps the sandbox partner at exactly the configured keys across restarts', async () => {
    const t = createTestApp();
    const keys = { private: 'sk_sandbox_aaaaaaaaaaaaaaaa', public: 'pk_sandbox_bbbbbbbbbbbbbbbb', channels: 'sk_ch_sandbox_cccccccccccc' };
    const first = await t.deps.partners.ensureSandbox({ keys, settings: { ownershipUrl: 'http://127.0.0.1:9/owned' } });
    expect(await t.deps.partners.authenticate(keys.private)).toMatchObject({ kind: 'private', partner: { id: first.id } });
    expect((await t.deps.partners.authenticate(keys.channels))?.kind).toBe('channels');
    const changed = { ...keys, private: 'sk_sandbox_dddddddddddddddd' };
    const second = await t.deps.partners.ensureSandbox({ keys: changed, webhookSecret: 'whsec_c2FuZGJveC1zZWNyZXQtMDAwMDAwMDA=', settings: {} });
    expect(second.id).toBe(first.id);
    expect(second.settings.ownershipUrl).toBe('http://127.0.0.1:9/owned');
    expect(await t.deps.partners.authenticate(keys.private)).toBeNull();
    expect((await t.deps.partners.authenticate(changed.private))?.partner.id).toBe(first.id);
    expect(t.deps.partners.webhookSecret(second)).toBe('whsec_c2FuZGJveC1zZWNyZXQtMDAwMDAwMDA=');
  });

  it('makes one sandbox partner when several processes start at once', async () => {
    const t = createTestApp();
    // Three processes' handles on the database (PostgreSQL); SQLite has one process.
    const others = ENGINE === 'postgres' ? [sameDatabase(t.db), sameDatabase(t.db)] : [];
    const apps = [t, ...others.map((db) => createTestApp({}, { db }))];
    const keys = { private: 'sk_sandbox_aaaaaaaaaaaaaaaa', public: 'pk_sandbox_bbbbbbbbbbbbbbbb', channels: 'sk_ch_sandbox_cccccccccccc' };
    const made = await Promise.all(apps.map((app) => app.deps.partners.ensureSandbox({ keys, settings: {} })));
    expect(new Set(made.map((p) => p.id)).size).toBe(1);
    expect(await t.db.select().from(partners).where(eq(partners.name, 'sandbox'))).toHaveLength(1);
    expect(await t.db.select().from(apiKeys).where(eq(apiKeys.partnerId, made[0]!.id))).toHaveLength(3);
  });

  it('applies the sandbox initial settings only when it creates the partner, so operator changes survive restarts', async () => {
    const t = createTestApp();
    const keys = { private: 'sk_sandbox_aaaaaaaaaaaaaaaa', public: 'pk_sandbox_bbbbbbbbbbbbbbbb', channels: 'sk_ch_sandbox_cccccccccccc' };
    const initialSettings = { buyAccessLayer: { integratedMap: { allowOrphanTicketSelection: false }, disabledTicketOptions: [] } };
    const first = await t.deps.partners.ensureSandbox({ keys, settings: {}, initialSettings });
    expect(first.settings.buyAccessLayer).toEqual(initialSettings.buyAccessLayer);
    const patched = await t.request('PATCH', `/admin/v1/partners/${first.id}`, { operator: true, body: { settings: { buyAccessLayer: null } } });
    expect(patched.status).toBe(200);
    const again = await t.deps.partners.ensureSandbox({ keys, settings: {}, initialSettings });
    expect(again.settings.buyAccessLayer).toBeNull();
  });
});
