import { inOrder } from '../../lib/in-order.js';
import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../context.js';
import { ApiError } from '../../lib/errors.js';
import { createTestApp, type TestApp } from '../../testing/harness.js';
import { ENGINE } from '../../db/engine.js';
import { sameDatabase } from '../../testing/postgres.js';
import { BACKOFF_MS, CLAIM_LEASE_MS, createMessagesService, MessagesService, type SendInput } from './email.service.js';
import { messages } from './email.table.js';
import { closedPort, leaves, parseMime, startSmtp, type TestSmtp } from './email.testing.js';
import { emailJob } from '../../jobs/email.job.js';
import type { Transport } from './email.transport.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n' + 'x'.repeat(300) + '\n\u00ff\u00fe binary\n%%EOF\n', 'latin1');

const unlocked: SendInput<'ticketUnlocked'> = {
  partnerId: null,
  channel: 'email',
  to: 'Buyer@Example.COM',
  template: 'ticketUnlocked',
  lang: 'en',
  vars: { eventTitle: 'Rock Night', showTitle: 'Main stage', showDate: '2026-05-01T21:00:00+02:00', ticketUrl: 'https://resale.test/t/tkt_1' },
};

const otp = (to: string): SendInput<'oneTimePassword'> => ({ channel: 'email', to, template: 'oneTimePassword', lang: 'es', vars: { code: '123456', minutes: 10 } });

const servers: TestSmtp[] = [];
const services: MessagesService[] = [];

async function smtp(port = 0): Promise<TestSmtp> {
  const s = await startSmtp(port);
  servers.push(s);
  return s;
}

function service(t: TestApp): MessagesService {
  const s = createMessagesService(t.deps);
  services.push(s);
  return s;
}

async function rows(t: TestApp) {
  return await t.db.select().from(messages);
}

afterEach(async () => {
  services.splice(0).forEach((s) => s.close());
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('messages: outbox and delivery', () => {
  it('stores nothing when the caller’s transaction rolls back, and a pending row when it commits', async () => {
    const server = await smtp();
    const t = createTestApp({ smtpUrl: server.url });
    const svc = service(t);
    await expect(t.db.transact(async (tx) => {
        await svc.send(tx, otp('a@example.com'));
        throw new Error('the change failed');
      })).rejects.toThrow('the change failed');
    expect(await rows(t)).toHaveLength(0);
    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 0 });
    expect(server.received).toHaveLength(0);

    const id = await t.db.transact(async (tx) => await svc.send(tx, otp('a@example.com')));
    expect(id).toMatch(/^eml_[0-9a-z]{26}$/);
    expect(await rows(t)).toMatchObject([{ id, state: 'pending', attempts: 0, nextAttemptAt: t.clock.now(), channel: 'email', template: 'oneTimePassword', lang: 'es' }]);
  });

  it('delivers over SMTP once, with subject, text, HTML and the PDF attachment', async () => {
    const server = await smtp();
    const t = createTestApp({ smtpUrl: server.url });
    const svc = service(t);
    const id = await t.db.transact(async (tx) =>
      await svc.send(tx, { ...unlocked, partnerId: 'ptr_x', attachments: [{ filename: 'ticket.pdf', contentType: 'application/pdf', content: PDF }] }),
    );

    expect(await svc.deliverDue()).toEqual({ sent: 1, retried: 0, failed: 0 });
    expect(server.received).toHaveLength(1);
    const mail = server.received[0]!;
    expect(mail.to).toEqual(['Buyer@example.com']);
    expect(mail.from).toBe('no-reply@resale.test');

    const root = parseMime(mail.raw);
    expect(root.headers.subject).toBe('Your ticket for Rock Night is ready');
    expect(root.headers['message-id']).toBe(`<${id}@resale.test>`);
    const parts = leaves(root);
    const text = parts.find((p) => p.headers['content-type']?.startsWith('text/plain'))!.body.toString('utf8');
    const html = parts.find((p) => p.headers['content-type']?.startsWith('text/html'))!.body.toString('utf8');
    const pdf = parts.find((p) => p.headers['content-disposition']?.startsWith('attachment'))!;
    expect(text).toContain('Rock Night – Main stage');
    expect(text).toContain('View your ticket: https://resale.test/t/tkt_1');
    expect(html).toContain('<h1 style="font-size:22px;margin:0 0 16px">Your ticket for Rock Night is ready</h1>');
    expect(html).toContain('href="https://resale.test/t/tkt_1"');
    expect(pdf.headers['content-type']).toMatch(/^application\/pdf/);
    expect(pdf.headers['content-disposition']).toContain('ticket.pdf');
    expect(pdf.body.equals(PDF)).toBe(true);

    const [row] = await rows(t);
    expect(row).toMatchObject({ id, partnerId: 'ptr_x', state: 'sent', attempts: 1, sentAt: t.clock.now(), nextAttemptAt: null, lastError: null });

    // Sent means sent: later rounds never send it again.
    t.clock.advance(24 * 3600_000);
    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 0 });
    expect(server.received).toHaveLength(1);
  });

  it('retries after the back-off when the SMTP server is down, and delivers once it is up', async () => {
    const port = await closedPort();
    const t = createTestApp({ smtpUrl: `smtp://127.0.0.1:${port}` });
    const svc = service(t);
    const id = await t.db.transact(async (tx) => await svc.send(tx, otp('b@example.com')));

    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 1, failed: 0 });
    let [row] = await rows(t);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, nextAttemptAt: t.clock.now() + BACKOFF_MS[0]! });
    expect(row!.lastError).toMatch(/ECONNREFUSED/);
    expect(row!.lastError!.length).toBeLessThanOrEqual(200);

    // Not due before the back-off has passed.
    t.clock.advance(BACKOFF_MS[0]! - 1);
    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 0 });

    const server = await smtp(port);
    t.clock.advance(1);
    expect(await svc.deliverDue()).toEqual({ sent: 1, retried: 0, failed: 0 });
    expect(server.received).toHaveLength(1);
    expect(parseMime(server.received[0]!.raw).headers['message-id']).toBe(`<${id}@resale.test>`);
    [row] = await rows(t);
    expect(row).toMatchObject({ state: 'sent', attempts: 2, lastError: null, nextAttemptAt: null });
  });

  it('marks a message failed after the last back-off, and never leaks SMTP credentials', async () => {
    const port = await closedPort();
    const t = createTestApp({ smtpUrl: `smtp://mailer:s3cr3t-passw0rd@127.0.0.1:${port}` });
    const svc = service(t);
    await t.db.transact(async (tx) => await svc.send(tx, otp('c@example.com')));

    for (const wait of BACKOFF_MS) {
      expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 1, failed: 0 });
      t.clock.advance(wait);
    }
    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 1 });
    const [row] = await rows(t);
    expect(row).toMatchObject({ state: 'failed', attempts: BACKOFF_MS.length + 1, nextAttemptAt: null });
    expect(row!.lastError).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(await rows(t))).not.toContain('s3cr3t-passw0rd');

    t.clock.advance(7 * 24 * 3600_000);
    expect(await svc.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 0 });
  });

  it('sends each message once when workers of two processes deliver at the same time', async () => {
    const server = await smtp();
    const t = createTestApp({ smtpUrl: server.url });
    // The second worker in another process (its own pool) on PostgreSQL; SQLite has one process.
    const other = ENGINE === 'postgres' ? sameDatabase(t.db) : t.db;
    const [a, b] = [service(t), service({ ...t, deps: { ...t.deps, db: other } } as TestApp)];
    const ids = await t.db.transact(async (tx) => await inOrder(Array.from({ length: 12 }, (_, i) => i), async (n) => await a.send(tx, otp(`user${n}@example.com`))));

    const reports = await Promise.all([a.deliverDue(), b.deliverDue(), a.deliverDue(), b.deliverDue()]);
    expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(12);
    expect(server.received).toHaveLength(12);
    const received = server.received.map((m) => parseMime(m.raw).headers['message-id']).sort();
    expect(received).toEqual(ids.map((id) => `<${id}@resale.test>`).sort());
    expect((await rows(t)).every((r) => r.state === 'sent' && r.attempts === 1)).toBe(true);
  });

  it('lets another worker take over a message whose worker died mid-send, after the claim lease', async () => {
    const t = createTestApp();
    let sent = 0;
    const hangs: Transport = { name: 'hangs', sendEmail: () => new Promise(() => {}) };
    const works: Transport = { name: 'works', sendEmail: async () => void sent++ };
    const dead = new MessagesService(t.db, t.clock, { transport: hangs });
    const alive = new MessagesService(t.db, t.clock, { transport: works });
    await t.db.transact(async (tx) => await dead.send(tx, otp('d@example.com')));

    void dead.deliverDue(); // claims, then never finishes (the process "crashed")
    expect(await alive.deliverDue()).toEqual({ sent: 0, retried: 0, failed: 0 });
    t.clock.advance(CLAIM_LEASE_MS);
    expect(await alive.deliverDue()).toEqual({ sent: 1, retried: 0, failed: 0 });
    expect(sent).toBe(1);
  });

  it('the email job delivers the due messages every 2 s', async () => {
    const server = await smtp();
    const t = createTestApp({ smtpUrl: server.url });
    const svc = service(t);
    await t.db.transact(async (tx) => await svc.send(tx, otp('job@example.com')));
    expect(emailJob).toMatchObject({ name: 'email', everyMs: 2000 });
    await emailJob.run({ ...t.deps, messages: svc } as AppDeps);
    expect(server.received).toHaveLength(1);
    expect((await rows(t))[0]!.state).toBe('sent');
  });

  it('sends SMS to the mailbox (never to SMTP), stored as E.164 with text only', async () => {
    const server = await smtp();
    const t = createTestApp({ smtpUrl: server.url });
    const svc = service(t);
    const id = await t.db.transact(async (tx) =>
      await svc.send(tx, { channel: 'sms', to: '+34 612 34 56 78', template: 'oneTimePassword', lang: 'en', vars: { code: '654321', minutes: 5 } }),
    );
    expect(await svc.deliverDue()).toEqual({ sent: 1, retried: 0, failed: 0 });
    expect(server.received).toHaveLength(0);
    const row = (await t.db.select().from(messages).where(eq(messages.id, id)).limit(1))[0]!;
    expect(row).toMatchObject({ channel: 'sms', to: '+34612345678', state: 'sent', html: null, attachments: [] });
    expect(row.text).toBe('654321 is your resale sign-in code. It expires in 5 minutes. Do not share it.');
  });

  it('refuses an invalid phone number or e-mail address with a 400 ApiError naming `to`, storing nothing', async () => {
    const t = createTestApp();
    const svc = service(t);
    const sms = (to: string) => async () =>
      await t.db.transact(async (tx) => await svc.send(tx, { channel: 'sms', to, template: 'oneTimePassword', lang: 'en', vars: { code: '111111', minutes: 5 } }));
    const email = (to: string) => async () => await t.db.transact(async (tx) => await svc.send(tx, otp(to)));

    for (const attempt of [sms('12345'), sms('+34 12'), sms('not a phone'), sms(''), email('not-an-email'), email('a@'), email('a b@example.com'), email('')]) {
      let error: unknown;
      try {
        await attempt();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).entries[0]).toMatchObject({ code: 'invalid_format', path: 'to' });
    }
    const withAttachment = async () =>
      await t.db.transact(async (tx) =>
        await svc.send(tx, {
          channel: 'sms',
          to: '+34612345678',
          template: 'oneTimePassword',
          lang: 'en',
          vars: { code: '111111', minutes: 5 },
          attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', content: PDF }],
        }),
      );
    await expect(withAttachment()).rejects.toThrow(ApiError);
    expect(await rows(t)).toHaveLength(0);
  });
});
