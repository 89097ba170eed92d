import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { tickets } from '../../../domain/tickets/tickets.table.js';
import { createTestApp } from '../../../testing/harness.js';
import { eventBody, showBody, ticketBody } from '../../../testing/factories.js';
import { PAGE_SCRIPT_PATH } from '../page-script.js';

/**
 * Show at 16:00 UTC; the partner's default unlocks the QR at 13:00; the test clock starts at 12:00.
 * The show has the factory's one image (`poster.jpg`, a main one) unless `images` says otherwise.
 */
async function setup(configuration: Record<string, unknown> = {}, title = 'The Big Tour 2026', images?: unknown[]) {
  const t = createTestApp();
  const p = await t.partner();
  const show = showBody('show-1', { date: '2026-03-01T16:00:00Z', configuration, ...(images ? { images } : {}) });
  const created = await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tour', { title, shows: [show] }) });
  expect(created.status).toBe(200);
  await t.request('POST', '/v1/sync/tickets', {
    key: p.keys.private,
    body: [
      ticketBody('code-1', { ticketAccess: { type: 'OTHER', locator: 'ZX-99-CODE' }, orderId: 'WC-4411', section: 'A', row: '3', seat: '12' }),
      ticketBody('url-1', { ticketAccess: { type: 'URL', locator: 'https://partner.example/qr/url-1.png' } }),
    ],
  });
  const url = async (id: string) => new URL((await t.request('GET', `/v1/tickets/${id}/url`, { key: p.keys.private })).body.data as string);
  const page = async (u: URL, query = '') => {
    const res = await t.app.request(u.pathname + query);
    return { status: res.status, html: await res.text(), headers: res.headers };
  };
  return { t, p, url, page };
}

describe('secure ticket view', () => {
  it('keeps the QR out of the page until the unlock moment, then shows it', async () => {
    const { t, url, page } = await setup();
    const u = await url('code-1');
    const before = await page(u);
    expect(before.status).toBe(200);
    expect(before.html).toContain('<html lang="en">');
    expect(before.html).toContain('Your QR code unlocks on');
    expect(before.html).not.toContain('<svg');
    expect(before.html).not.toContain('ZX-99-CODE');
    expect(before.html).not.toContain('ticket.pdf');
    expect(before.headers.get('cache-control')).toBe('no-store');
    expect(before.headers.get('referrer-policy')).toBe('no-referrer');
    expect(before.headers.get('content-security-policy')).toMatch(/default-src 'none'.*style-src 'sha256-/);

    t.clock.set('2026-03-01T13:00:00Z');
    const after = await page(u);
    expect(after.html).toContain('<svg');
    expect(after.html).toContain('role="img" aria-label="QR code of ticket code-1"');
    expect(after.html).toContain('ZX-99-CODE');
    // The ticket as a fan knows it, said once: category and place, its holder; not the platform's id as a field.
    expect(after.html).toContain('<p class="ticket-place">General field · Section A · Row 3 · Seat 12</p>');
    expect(after.html).toContain('<dt>Holder</dt><dd>fan@example.com</dd>');
    expect(after.html).not.toContain('<dt>Ticket</dt>');
    const pdf = await t.app.request(`${u.pathname}/ticket.pdf`);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    const img = await page(await url('url-1'));
    expect(img.html).toContain('<img src="https://partner.example/qr/url-1.png"');
  });

  it('refuses a code that cannot fit in a QR code, and shows one stored before that limit as text, PDF included', async () => {
    const { t, p, url, page } = await setup();
    const tooLong = 'é'.repeat(1166); // 2,332 bytes in UTF-8: one more than the largest QR code holds
    const res = await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('long-1', { externalReferenceEventId: 'tour', showId: 'show-1', ticketAccess: { type: 'OTHER', locator: tooLong } })] });
    expect(JSON.stringify(res.body)).toContain('must fit in a QR code when type is API or OTHER: at most 2331 bytes in UTF-8');
    expect(JSON.stringify(res.body)).toContain('ticketAccess.locator');

    // Stored before the limit existed: the view and the PDF still work, with the code as text.
    await t.db.transact((tx) => tx.update(tickets).set({ ticketAccess: { type: 'OTHER', locator: tooLong } }).where(eq(tickets.ticketId, 'code-1')));
    t.clock.set('2026-03-01T13:00:00Z');
    const u = await url('code-1');
    const view = await page(u);
    expect(view.status).toBe(200);
    expect(view.html).not.toContain('<svg');
    expect(view.html).toContain(tooLong);
    const pdf = await t.app.request(`${u.pathname}/ticket.pdf`);
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('follows the will-call policy: OPTIONAL beside the QR, MANDATORY without any QR', async () => {
    const optional = await setup({ redemption: { policy: 'OPTIONAL', instructions: 'Box office at gate 2' } });
    optional.t.clock.set('2026-03-01T13:00:00Z');
    const o = await optional.page(await optional.url('code-1'));
    expect(o.html).toContain('WC-4411');
    expect(o.html).toContain('Box office at gate 2');
    expect(o.html).toContain('<svg');

    const mandatory = await setup({ redemption: { policy: 'MANDATORY', instructions: 'Bring your ID', hoursBeforeShow: 2 } });
    const early = await mandatory.page(await mandatory.url('code-1'));
    expect(early.html).not.toContain('WC-4411');
    mandatory.t.clock.set('2026-03-01T14:00:00Z');
    const m = await mandatory.page(await mandatory.url('code-1'));
    expect(m.html).toContain('WC-4411');
    expect(m.html).toContain('Bring your ID');
    expect(m.html).toContain('Collect your tickets at the box office');
    expect(m.html).not.toContain('<svg');
    expect(m.html).not.toContain('ZX-99-CODE');

    // MANDATORY for a ticket without an order number: the pick-up details and the instructions.
    const noOrder = await mandatory.page(await mandatory.url('url-1'));
    expect(noOrder.html).toContain('Collect your tickets at the box office with the details below.');
    expect(noOrder.html).toContain('<h3>Box office pick-up</h3>');
    expect(noOrder.html).toContain('<strong class="willcall">url-1</strong>');
    expect(noOrder.html).toContain('<dd>fan@example.com</dd>');
    expect(noOrder.html).toContain('Bring your ID');
    expect(noOrder.html).not.toContain('url-1.png');
    const pdf = await mandatory.t.app.request(`${(await mandatory.url('url-1')).pathname}/ticket.pdf`);
    expect(pdf.status).toBe(200);
  });

  it('says plainly when a ticket is used, and stops working when it changes hands', async () => {
    const { t, p, url, page } = await setup();
    const u = await url('code-1');
    await t.request('POST', '/v1/tickets/code-1/eventAdmission', { key: p.keys.private });
    t.clock.set('2026-03-01T13:00:00Z');
    const used = await page(u);
    expect(used.html).toContain('This ticket has been used.');
    expect(used.html).not.toContain('<svg');

    const u2 = await url('url-1');
    await t.request('PUT', '/v1/tickets/url-1', { key: p.keys.private, body: { buyer: 'buyer@example.com' } });
    const gone = await page(u2);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain('This ticket link does not work');
    expect((await page(new URL('http://x/tickets/view/tkt_made.up'))).status).toBe(404);
    expect((await page(new URL(`http://x${u2.pathname}/ticket.pdf`))).status).toBe(404);
  });

  it('writes times in UTC, said so, when the venue has no time zone', async () => {
    const t = createTestApp();
    const p = await t.partner();
    await t.request('POST', '/v1/events', { key: p.keys.private, body: eventBody('tz', { location: { city: 'Madrid' }, shows: [showBody('show-1', { date: '2026-03-01T16:00:00Z' })] }) });
    await t.request('POST', '/v1/sync/tickets', { key: p.keys.private, body: [ticketBody('z1', { externalReferenceEventId: 'tz' })] });
    const url = new URL((await t.request('GET', '/v1/tickets/z1/url', { key: p.keys.private })).body.data as string);
    const html = await (await t.app.request(url.pathname)).text();
    expect(html).toContain('Sunday, 1 March 2026 at 16:00 UTC');
  });

  it('is localised and escapes every partner string', async () => {
    const { url, page } = await setup({}, '<script>alert(1)</script> & Friends');
    const es = await page(await url('code-1'), '?lang=es');
    expect(es.html).toContain('<html lang="es">');
    expect(es.html).toContain('Tu código QR se desbloquea');
    expect(es.html).not.toContain('<script>alert(1)</script>');
    expect(es.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Friends');
  });
});

describe('secure ticket view: the ticket card', () => {
  /** The banner's tag in a page, or null. */
  const banner = (html: string) => /<img class="ticket-banner"[^>]*>/.exec(html)?.[0] ?? null;

  it('opens with the show’s main picture as a decorative banner, then the event, when, where, the place, holder and state', async () => {
    const { url, page } = await setup({}, undefined, [
      { url: 'https://cdn.example/img/side.jpg', kind: 'secondary' },
      { url: 'https://cdn.example/img/nft.png', kind: 'nft' },
      { url: 'https://cdn.example/img/main.jpg', kind: 'main' },
    ]);
    const { html } = await page(await url('code-1'));
    expect(banner(html)).toBe('<img class="ticket-banner" src="https://cdn.example/img/main.jpg" alt="" width="1000" height="400" loading="eager" decoding="async" referrerpolicy="no-referrer"/>');
    // Read as a ticket, top to bottom, all on one card.
    const order = ['<article class="card ticket"', '<img class="ticket-banner"', '<h1 id="ticket-h">The Big Tour 2026</h1>', 'Night show-1 · <time datetime="2026-03-01T16:00:00.000Z">Sunday, 1 March 2026 at 17:00 CET</time>', '<p class="ticket-venue">Arena Norte, Madrid</p>', '<p class="ticket-place">General field · Section A · Row 3 · Seat 12</p>', '<dt>Holder</dt><dd>fan@example.com</dd>', '<dt>Status</dt><dd>Valid</dd>', '<section class="ticket-access"', '</article>'];
    const at = order.map((part) => html.indexOf(part));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('falls back to the first picture of any kind, shows none without one, and never an http one (the page’s policy allows https only)', async () => {
    const secondary = await setup({}, undefined, [{ url: 'https://cdn.example/img/second.jpg', kind: 'secondary' }, { url: 'https://cdn.example/img/third.jpg', kind: 'secondary' }]);
    expect(banner((await secondary.page(await secondary.url('code-1'))).html)).toContain('src="https://cdn.example/img/second.jpg"');

    const none = await setup({}, undefined, []);
    const bare = await none.page(await none.url('code-1'));
    expect(bare.html).not.toContain('<img');
    expect(bare.html).toContain('<h1 id="ticket-h">The Big Tour 2026</h1>');

    const plain = await setup({}, undefined, [{ url: 'http://cdn.example/img/main.jpg', kind: 'main' }]);
    expect(banner((await plain.page(await plain.url('code-1'))).html)).toBeNull();
  });

  it('escapes the picture’s address in its attribute', async () => {
    const { url, page } = await setup({}, undefined, [{ url: 'https://cdn.example/img/a.jpg?w=1200&h=400&t="x"<y>', kind: 'main' }]);
    const { html } = await page(await url('code-1'));
    expect(banner(html)).toContain('src="https://cdn.example/img/a.jpg?w=1200&amp;h=400&amp;t=&quot;x&quot;&lt;y&gt;"');
    expect(html).not.toContain('t="x"');
  });
});

describe('secure ticket view: the locked QR’s countdown', () => {
  it('counts down from the server’s now to the unlock with the pages’ script, and offers the page again at the end', async () => {
    const { t, url, page } = await setup();
    const u = await url('code-1');
    const before = await page(u);
    const csp = before.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(before.html).toContain(`<script src="${PAGE_SCRIPT_PATH}" defer></script>`);
    expect(before.html).toContain(
      [
        '<div class="countdown unlock" data-countdown="2026-03-01T13:00:00.000Z" data-countdown-now="2026-03-01T12:00:00.000Z" data-countdown-format="long"',
        'data-countdown-day-one="{n} day" data-countdown-day-other="{n} days"',
        'data-countdown-one="Your QR code unlocks in {n} minute" data-countdown-other="Your QR code unlocks in {n} minutes" data-countdown-ended="Your QR code is ready.">',
      ].join(' '),
    );
    // Without script: the unlock moment only; the clock and the way on wait for the script.
    expect(before.html).toContain('<p class="countdown-left" data-countdown-reveal="true" hidden="">');
    expect(before.html).toContain('<p class="countdown-until">Your QR code unlocks on Sunday, 1 March 2026 at 14:00 CET. We will e-mail you when it is ready.</p>');
    expect(before.html).toContain(`<p class="countdown-ended" data-countdown-on-end="true" hidden=""><strong>Your QR code is ready.</strong> <a class="button" href="${u.pathname}?lang=en">Show my ticket</a></p>`);

    // The server's now is the injectable clock's, read as the page is.
    t.clock.set('2026-03-01T12:30:00Z');
    expect((await page(u)).html).toContain('data-countdown="2026-03-01T13:00:00.000Z" data-countdown-now="2026-03-01T12:30:00.000Z"');

    const es = await page(u, '?lang=es');
    expect(es.html).toContain('data-countdown-day-one="{n} día" data-countdown-day-other="{n} días"');
    expect(es.html).toContain(`<a class="button" href="${u.pathname}?lang=es">Mostrar mi entrada</a>`);
  });

  it('has no countdown, and loads no script, once unlocked or for a ticket that is not locked', async () => {
    const { t, url, page } = await setup();
    const u = await url('code-1');
    t.clock.set('2026-03-01T13:00:00Z');
    const after = await page(u);
    expect(after.html).toContain('<svg');
    expect(after.html).not.toContain(' data-countdown="');
    expect(after.html).not.toContain('<script');

    // Listed (not locked): its notice, no countdown.
    const listed = await setup();
    await listed.t.request('POST', '/v1/tickets/code-1/eventAdmission', { key: listed.p.keys.private });
    const used = await listed.page(await listed.url('code-1'));
    expect(used.html).toContain('This ticket has been used.');
    expect(used.html).not.toContain(' data-countdown="');
  });
});

describe('secure ticket view: add to calendar', () => {
  it('offers the show as an .ics file: start in UTC, three hours, the venue, the ticket named once, the way back to the view; nothing secret', async () => {
    const { t, url, page } = await setup();
    const u = await url('code-1');
    const view = await page(u);
    expect(view.html).toContain(`<a href="${u.pathname}/event.ics?lang=en">Add to calendar</a>`);
    expect((await page(u, '?lang=es')).html).toContain('Añadir al calendario');

    t.clock.set('2026-03-01T13:00:00Z'); // unlocked: the code is on the page, never in the file
    const res = await t.app.request(`${u.pathname}/event.ics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="event.ics"');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const ics = (await res.text()).replace(/\r\n[ \t]/g, ''); // unfolded (RFC 5545, 3.1)
    expect(ics).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(ics).toContain('BEGIN:VEVENT');
    expect(ics).toContain('DTSTART:20260301T160000Z');
    expect(ics).toContain('DURATION:PT3H');
    expect(ics).toContain('SUMMARY:The Big Tour 2026 · Night show-1');
    expect(ics).toContain('LOCATION:Arena Norte\\, Madrid');
    expect(ics).toContain('UID:ticket-code-1@resale');
    expect(ics).toContain(`URL:${u.href}`);
    expect(ics).toContain('Section A · Row 3 · Seat 12');
    expect(ics).not.toContain('ZX-99-CODE');
    expect(ics).toContain('END:VCALENDAR');

    // A link that does not work: the page that says so, no file.
    const gone = await t.app.request('/tickets/view/nothing.here/event.ics');
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('text/html');
  });
});
