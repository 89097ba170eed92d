import { describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/harness.js';
import { createMessagesService, type MessagesService } from '../../../domain/email/email.service.js';
import { mountMailbox } from '../../../domain/email/email.testing.js';

const PDF = Buffer.from('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj << >> endobj\n%%EOF\n', 'latin1');

/** A test app whose mailbox pages read `svc` (no SMTP: the development mailbox). */
function setup(overrides: Parameters<typeof createTestApp>[0] = {}): { t: TestApp; svc: MessagesService } {
  const t = createTestApp(overrides);
  const svc = createMessagesService(t.deps);
  mountMailbox(t, svc);
  return { t, svc };
}

async function html(t: TestApp, path: string): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await t.app.request(path);
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('development mailbox', () => {
  it('without SMTP marks messages sent and lists them, newest first, escaped, on the page and in JSON', async () => {
    const { t, svc } = setup();
    const first = await t.db.transact(async (tx) =>
      await svc.send(tx, { channel: 'email', to: 'ana@example.com', template: 'refund', lang: 'es', vars: { eventTitle: 'Rock & <Roll>', amount: { minor: 9100, currency: 'EUR' } } }),
    );
    t.clock.advance(1000);
    const second = await t.db.transact(async (tx) =>
      await svc.send(tx, { channel: 'sms', to: '+34612345678', template: 'oneTimePassword', lang: 'en', vars: { code: '246810', minutes: 10 } }),
    );
    expect(await svc.deliverDue()).toEqual({ sent: 2, retried: 0, failed: 0 });

    const page = await html(t, '/dev/mailbox');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body.startsWith('<!DOCTYPE html><html lang="en">')).toBe(true);
    expect(page.body).toContain('<h1>Development mailbox</h1>');
    expect(page.body).toContain('<th scope="col">Subject</th>');
    expect(page.body).toContain('Reembolso por Rock &amp; &lt;Roll&gt;');
    expect(page.body).not.toContain('<Roll>');
    expect(page.body).toContain(`href="/dev/mailbox/${first}"`);
    expect(page.body).toContain('+34612345678');
    expect(page.body.indexOf(second)).toBeLessThan(page.body.indexOf(first)); // newest first
    expect(page.body).toContain('<td>sent</td>');

    const json = await t.request('GET', '/dev/mailbox.json');
    expect(json.status).toBe(200);
    expect(json.body.errors).toBeNull();
    expect(json.body.data.map((m: { id: string }) => m.id)).toEqual([second, first]);
    expect(json.body.data[1]).toMatchObject({
      id: first,
      channel: 'email',
      to: 'ana@example.com',
      template: 'refund',
      lang: 'es',
      subject: 'Reembolso por Rock & <Roll>',
      state: 'sent',
      attempts: 1,
      sentAt: '2026-03-01T12:00:01.000Z',
      createdAt: '2026-03-01T12:00:00.000Z',
      attachments: [],
    });
    expect(json.body.data[0]).toMatchObject({ channel: 'sms', html: null, text: expect.stringContaining('246810') });

    const filtered = await t.request('GET', '/dev/mailbox.json?to=ANA@example.com');
    expect(filtered.body.data.map((m: { id: string }) => m.id)).toEqual([first]);
    const byPhone = await t.request('GET', `/dev/mailbox.json?to=${encodeURIComponent('+34 612 34 56 78')}`);
    expect(byPhone.body.data.map((m: { id: string }) => m.id)).toEqual([second]);
    expect((await t.request('GET', '/dev/mailbox.json?to=nobody@example.com')).body.data).toEqual([]);
    const filteredPage = await html(t, '/dev/mailbox?to=nobody%40example.com');
    expect(filteredPage.body).toContain('No messages to nobody@example.com yet.');
  });

  it('shows one message: text, HTML only inside a sandboxed iframe, attachments to download', async () => {
    const { t, svc } = setup();
    const evil = '<script>alert(1)</script>';
    const id = await t.db.transact(async (tx) =>
      await svc.send(tx, {
        channel: 'email',
        to: 'ana@example.com',
        template: 'ticketUnlocked',
        lang: 'en',
        vars: { eventTitle: evil, showTitle: 'Main "stage"', showDate: '2026-05-01T21:00:00+02:00', ticketUrl: 'https://resale.test/t/1?a=1&b=2' },
        attachments: [{ filename: 'entrada ñ (1).pdf', contentType: 'application/pdf', content: PDF }],
      }),
    );

    const page = await html(t, `/dev/mailbox/${id}`);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<script');
    expect(page.body).toContain('<h1 lang="en">Your ticket for &lt;script&gt;alert(1)&lt;/script&gt; is ready</h1>');
    // The message's HTML is an attribute value: escaped once more, and never markup of the page.
    expect(page.body).toMatch(/<iframe sandbox="" srcdoc="&lt;!DOCTYPE html&gt;/);
    expect(page.body).toContain('&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;');
    expect(page.body).toContain('Main &quot;stage&quot;');
    expect(page.body).toContain(`<pre lang="en">Your ticket for &lt;script&gt;`);
    expect(page.body).toContain(`href="/dev/mailbox/${id}/attachments/0"`);
    expect(page.body).toContain(`entrada ñ (1).pdf</a> (application/pdf, ${PDF.length} bytes)`);

    const res = await t.app.request(`/dev/mailbox/${id}/attachments/0`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="entrada _ _1_.pdf"; filename*=UTF-8''entrada%20%C3%B1%20%281%29.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);

    const json = await t.request('GET', '/dev/mailbox.json');
    expect(json.body.data[0].attachments).toEqual([
      { filename: 'entrada ñ (1).pdf', contentType: 'application/pdf', size: PDF.length, url: `/dev/mailbox/${id}/attachments/0` },
    ]);

    for (const path of [`/dev/mailbox/${id}/attachments/1`, `/dev/mailbox/${id}/attachments/x`, '/dev/mailbox/eml_unknown', '/dev/mailbox/eml_unknown/attachments/0']) {
      const missing = await t.request('GET', path);
      expect(missing.status).toBe(404);
      expect(missing.body.errors[0].code).toMatch(/not_found/);
    }
  });

  it('is not served in production (the 404 envelope)', async () => {
    const { t, svc } = setup({ env: 'production' });
    await t.db.transact(async (tx) => await svc.send(tx, { channel: 'email', to: 'ana@example.com', template: 'oneTimePassword', lang: 'en', vars: { code: '123456', minutes: 10 } }));
    for (const path of ['/dev/mailbox', '/dev/mailbox.json', '/dev/mailbox/eml_x', '/dev/mailbox/eml_x/attachments/0']) {
      const res = await t.request('GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ status: 404, data: null, errors: [{ code: 'route_not_found' }] });
    }
  });
});
