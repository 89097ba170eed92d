import { LANGS } from '@resale/shared/lang';
import { describe, expect, it } from 'vitest';
import { escapeHtml, formatter, pickLang, renderMessage, TEMPLATE_NAMES, type TemplateName, type TemplateVars } from './email.templates.js';

/** Sample variables of every template, with distinctive values to find in the output. */
const SAMPLES: { [K in TemplateName]: TemplateVars[K] } = {
  codeMoved: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', showDate: '2026-05-01T21:00:00+02:00', movedAt: '2026-05-01T18:42:00+02:00', ticketUrl: 'https://resale.test/t/tkt_1?x=1&y=2', timeZone: 'Europe/Madrid' },
  ticketUnlocked: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', showDate: '2026-05-01T21:00:00+02:00', ticketUrl: 'https://resale.test/t/tkt_1?x=1&y=2' },
  listingSold: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', amount: { minor: 4550, currency: 'EUR' }, payoutDate: '2026-06-15' },
  delistNotice: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', reason: 'Venue capacity changed' },
  oneTimePassword: { code: '493817', minutes: 10 },
  stepUpCode: { code: '271828', minutes: 10 },
  consoleCode: { code: '161803', minutes: 10, purpose: 'sign_in' },
  consoleInvitation: { partnerName: 'Acme Tickets', role: 'developer', consoleUrl: 'https://resale.test/console?lang=en' },
  payoutScheduled: { amount: { minor: 12000, currency: 'EUR' }, payoutDate: '2026-06-15' },
  payoutDetailsChanged: { accountHint: '3000', holderName: 'Ana García' },
  refund: { eventTitle: 'Aurora Tour', amount: '€91.00' },
  purchaseConfirmed: {
    eventTitle: 'Aurora Tour',
    showTitle: 'Madrid night',
    showDate: '2026-05-01T21:00:00+02:00',
    venue: 'Arena Norte, Madrid',
    amount: { minor: 10010, currency: 'EUR' },
    orderReference: 'bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
    tickets: [
      { option: 'Field', section: 'A', row: '1', seat: '4', url: 'https://resale.test/tickets/view/tkt_1.sig1' },
      { option: 'Field', section: 'A', row: '1', seat: '5', url: 'https://resale.test/tickets/view/tkt_2.sig2' },
    ],
    receiptUrl: 'https://resale.test/checkout/ptr_1/bi_01jd8x3k4f5g6h7j8k9m0n1p2q/done?lang=en',
  },
  waitingListOffer: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', showDate: '2026-05-01T21:00:00+02:00', tickets: [{ option: 'Stalls', section: 'A', row: '3', seat: '7' }, { option: 'Stalls', section: 'A', row: '3', seat: '8' }], amount: { minor: 11000, currency: 'EUR' }, expiresAt: '2026-04-20T18:42:00+02:00', minutes: 15, checkoutUrl: 'https://resale.test/checkout/ptr_1/bi_1?lang=en&oneTimeToken=ott_x', timeZone: 'Europe/Madrid' },
  wishlistAvailable: { eventTitle: 'Aurora Tour', showTitle: 'Madrid night', showDate: '2026-05-01T21:00:00+02:00', marketUrl: 'https://resale.test/market/ptr_1/aurora?showId=s1&lang=en', ticketOptionTitle: 'Field' },
};

/** What each template must show, per language (formatted with Intl). */
const EXPECTED: Record<TemplateName, Record<'en' | 'es', string[]>> = {
  codeMoved: {
    en: ['Aurora Tour', 'Madrid night', '1 May 2026', '18:42', 'moved to another phone', 'https://resale.test/t/tkt_1?x=1&y=2'],
    es: ['Aurora Tour', 'Madrid night', '1 de mayo de 2026', '18:42', 'otro móvil', 'https://resale.test/t/tkt_1?x=1&y=2'],
  },
  ticketUnlocked: {
    en: ['Aurora Tour', 'Madrid night', '1 May 2026', '21:00', 'https://resale.test/t/tkt_1?x=1&y=2'],
    es: ['Aurora Tour', 'Madrid night', '1 de mayo de 2026', '21:00', 'https://resale.test/t/tkt_1?x=1&y=2'],
  },
  listingSold: { en: ['Aurora Tour', 'Madrid night', '€45.50', '15 June 2026'], es: ['Aurora Tour', 'Madrid night', '45,50 €', '15 de junio de 2026'] },
  delistNotice: { en: ['Aurora Tour', 'Madrid night', 'Venue capacity changed'], es: ['Aurora Tour', 'Madrid night', 'Venue capacity changed'] },
  oneTimePassword: { en: ['493817', '10 minutes'], es: ['493817', '10 minutos'] },
  stepUpCode: { en: ['271828', '10 minutes', 'payout details'], es: ['271828', '10 minutos', 'datos de cobro'] },
  consoleCode: { en: ['161803', '10 minutes', 'console sign-in code'], es: ['161803', '10 minutos', 'acceso a la consola'] },
  consoleInvitation: { en: ['Acme Tickets', 'developer', 'https://resale.test/console?lang=en'], es: ['Acme Tickets', 'developer', 'https://resale.test/console?lang=en'] },
  payoutScheduled: { en: ['€120.00', '15 June 2026'], es: ['120,00 €', '15 de junio de 2026'] },
  payoutDetailsChanged: { en: ['ending in 3000', 'Ana García', 'did not make this change'], es: ['termina en 3000', 'Ana García', 'no has hecho este cambio'] },
  refund: { en: ['Aurora Tour', '€91.00'], es: ['Aurora Tour', '€91.00'] },
  purchaseConfirmed: {
    en: [
      'Aurora Tour',
      'Madrid night',
      'You bought 2 tickets for',
      'Arena Norte, Madrid',
      '€100.10',
      '1 May 2026',
      'Order reference: bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
      'Ticket 1 of 2: Section A · Row 1 · Seat 4: https://resale.test/tickets/view/tkt_1.sig1',
      'Ticket 2 of 2: Section A · Row 1 · Seat 5: https://resale.test/tickets/view/tkt_2.sig2',
      'Your receipt: https://resale.test/checkout/ptr_1/',
    ],
    es: [
      'Aurora Tour',
      'Madrid night',
      'Has comprado 2 entradas para',
      'Arena Norte, Madrid',
      '100,10 €',
      '1 de mayo de 2026',
      'Referencia del pedido: bi_01jd8x3k4f5g6h7j8k9m0n1p2q',
      'Entrada 1 de 2: Sector A · Fila 1 · Asiento 4: https://resale.test/tickets/view/tkt_1.sig1',
      'Tu recibo: https://resale.test/checkout/ptr_1/',
    ],
  },
  waitingListOffer: {
    en: ['Aurora Tour', 'Madrid night', '2 tickets', '€110.00', '18:42', '15 minutes', 'Buy your tickets: https://resale.test/checkout/ptr_1/bi_1?lang=en&oneTimeToken=ott_x'],
    es: ['Aurora Tour', 'Madrid night', '2 entradas', '110,00 €', '18:42', '15 minutos', 'Comprar tus entradas: https://resale.test/checkout/ptr_1/bi_1?lang=en&oneTimeToken=ott_x'],
  },
  wishlistAvailable: {
    en: ['Aurora Tour', 'Madrid night', '(Field)', '1 May 2026', 'See the tickets: https://resale.test/market/ptr_1/aurora?showId=s1&lang=en'],
    es: ['Aurora Tour', 'Madrid night', '(Field)', '1 de mayo de 2026', 'Ver las entradas: https://resale.test/market/ptr_1/aurora?showId=s1&lang=en'],
  },
};

/** Intl separates with no-break spaces (U+00A0, U+202F); compare with plain ones. */
const plain = (s: string | null) => (s ?? '').replace(/[\u00a0\u202f]/g, ' ');

const BAD_OUTPUT = /undefined|null|NaN|\[object|\$\{/;

describe('message templates', () => {
  it('has the templates the other modules use', () => {
    expect([...TEMPLATE_NAMES].sort()).toEqual(['codeMoved', 'consoleCode', 'consoleInvitation', 'delistNotice', 'listingSold', 'oneTimePassword', 'payoutDetailsChanged', 'payoutScheduled', 'purchaseConfirmed', 'refund', 'stepUpCode', 'ticketUnlocked', 'waitingListOffer', 'wishlistAvailable']);
  });

  for (const name of TEMPLATE_NAMES) {
    it(`renders ${name} in en and es, e-mail and SMS, with every placeholder filled`, () => {
      const out = Object.fromEntries(
        LANGS.map((lang) => [lang, { email: renderMessage(name, lang, SAMPLES[name]), sms: renderMessage(name, lang, SAMPLES[name], 'sms') }]),
      ) as Record<'en' | 'es', { email: ReturnType<typeof renderMessage>; sms: ReturnType<typeof renderMessage> }>;

      for (const lang of LANGS) {
        const { email, sms } = out[lang];
        for (const part of [email.subject, email.text, email.html ?? '', sms.subject, sms.text]) {
          expect(part).not.toMatch(BAD_OUTPUT);
          expect(part.length).toBeGreaterThan(5);
        }
        for (const value of EXPECTED[name][lang]) expect(plain(email.text)).toContain(value);
        expect(email.html).toContain(`<html lang="${lang}">`);
        expect(email.html).not.toMatch(/<img|<script|src=/i);
        expect(sms.html).toBeNull();
        expect(sms.text).not.toContain('\n');
        expect(sms.text.length).toBeLessThan(200);
        expect(email.subject).not.toMatch(/[\r\n]/);
      }
      expect(out.en.email.subject).not.toBe(out.es.email.subject);
      expect(out.en.email.text).not.toBe(out.es.email.text);
      expect(out.en.sms.text).not.toBe(out.es.sms.text);
    });
  }

  it('tells the holder of a rotating code to open the ticket on the phone (no screenshot, no printout, no PDF), in en and es', () => {
    const vars = { ...SAMPLES.ticketUnlocked, rotationSeconds: 15 };
    const en = plain(renderMessage('ticketUnlocked', 'en', vars).text);
    const es = plain(renderMessage('ticketUnlocked', 'es', vars).text);
    expect(en).toContain('its code changes every 15 seconds and only works on the phone that shows it, so a screenshot or a printout will not get you in');
    expect(es).toContain('su código cambia cada 15 segundos y solo vale en el móvil que lo muestra');
    for (const text of [en, es]) {
      expect(text).not.toMatch(/PDF|QR/);
      expect(text).toContain('https://resale.test/t/tkt_1?x=1&y=2');
    }
    // Without it, the QR code and its PDF, as before.
    expect(plain(renderMessage('ticketUnlocked', 'en', SAMPLES.ticketUnlocked).text)).toContain('with its QR code');
    expect(() => renderMessage('ticketUnlocked', 'en', { ...SAMPLES.ticketUnlocked, rotationSeconds: 61 })).toThrow();
  });

  it('puts the one-time code in the SMS text', () => {
    expect(renderMessage('oneTimePassword', 'es', { code: '123456', minutes: 10 }, 'sms').text).toBe(
      '123456 es tu código de acceso a la reventa. Caduca en 10 minutos. No lo compartas.',
    );
    expect(renderMessage('oneTimePassword', 'en', { code: '123456', minutes: 1 }, 'sms').text).toContain('1 minute.');
  });

  it('leaves the optional delist reason out when absent', () => {
    const { text } = renderMessage('delistNotice', 'en', { eventTitle: 'A', showTitle: 'B' });
    expect(text).not.toMatch(/Reason/);
    expect(renderMessage('delistNotice', 'es', { eventTitle: 'A', showTitle: 'B', reason: null }).text).not.toMatch(/Motivo/);
  });

  it('says the purchase in proper plural, names an unseated ticket by its option, and never writes "ticket(s)"', () => {
    const one = { ...SAMPLES.purchaseConfirmed, venue: null, tickets: [{ option: 'General field', url: 'https://resale.test/tickets/view/tkt_3.sig3' }] };
    const en = renderMessage('purchaseConfirmed', 'en', one);
    expect(en.text).toContain('You bought 1 ticket for Aurora Tour – Madrid night (');
    expect(en.text).toContain('Your ticket: General field: https://resale.test/tickets/view/tkt_3.sig3');
    expect(en.html).toContain('href="https://resale.test/tickets/view/tkt_3.sig3"');
    const es = renderMessage('purchaseConfirmed', 'es', one);
    expect(es.text).toContain('Has comprado 1 entrada para');
    expect(es.text).toContain('Tu entrada: General field');
    for (const r of [en, es, renderMessage('purchaseConfirmed', 'en', SAMPLES.purchaseConfirmed), renderMessage('purchaseConfirmed', 'es', SAMPLES.purchaseConfirmed)]) expect(r.text).not.toMatch(/\(s\)/);
    expect(renderMessage('purchaseConfirmed', 'en', { ...one, tickets: [{ option: 'Box', seat: '12', url: 'https://resale.test/v' }] }).text).toContain('Your ticket: Seat 12:');
    expect(renderMessage('purchaseConfirmed', 'es', SAMPLES.purchaseConfirmed, 'sms').text).toContain('Pedido bi_01jd8x3k4f5g6h7j8k9m0n1p2q');
  });

  it('takes whatever the ticket and event APIs accept (a long section, venue and city), so a purchase never fails on its e-mail', () => {
    const long = { ...SAMPLES.purchaseConfirmed, venue: `${'v'.repeat(200)}, ${'c'.repeat(200)}`, tickets: [{ option: 'o'.repeat(200), section: 's'.repeat(100), row: 'r'.repeat(50), seat: 'n'.repeat(50), url: 'https://resale.test/v' }] };
    expect(renderMessage('purchaseConfirmed', 'en', long).text).toContain('s'.repeat(100));
  });

  it('refuses a purchase e-mail without a ticket, with a ticket link that is not http(s), or with an odd order reference', () => {
    expect(() => renderMessage('purchaseConfirmed', 'en', { ...SAMPLES.purchaseConfirmed, tickets: [] })).toThrow(/tickets/);
    expect(() => renderMessage('purchaseConfirmed', 'en', { ...SAMPLES.purchaseConfirmed, tickets: [{ option: 'Field', url: 'javascript:alert(1)' }] })).toThrow(/tickets\.0\.url/);
    expect(() => renderMessage('purchaseConfirmed', 'en', { ...SAMPLES.purchaseConfirmed, orderReference: '<b>' })).toThrow(/orderReference/);
  });

  it('leaves the wishlist option out when absent, and refuses a market link that is not http(s)', () => {
    const { text } = renderMessage('wishlistAvailable', 'en', { ...SAMPLES.wishlistAvailable, ticketOptionTitle: null });
    expect(text).toContain('Tickets for Aurora Tour – Madrid night');
    expect(text).not.toMatch(/Tickets \(|\(\)/);
    expect(() => renderMessage('wishlistAvailable', 'es', { ...SAMPLES.wishlistAvailable, marketUrl: 'javascript:alert(1)' })).toThrow(/marketUrl/);
  });

  it('escapes every interpolated value in the HTML part, never in the text part', () => {
    const evil = '<script>alert("x")</script> & \'co\'';
    const r = renderMessage('ticketUnlocked', 'en', { ...SAMPLES.ticketUnlocked, eventTitle: evil, showTitle: '<img src=x onerror=alert(1)>' });
    expect(r.html).not.toContain('<script');
    expect(r.html).not.toContain('<img');
    expect(r.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;');
    expect(r.html).toContain('href="https://resale.test/t/tkt_1?x=1&amp;y=2"');
    expect(r.text).toContain(evil);
    expect(r.subject).toBe(`Your ticket for ${evil} is ready`);
    const delist = renderMessage('delistNotice', 'es', { eventTitle: 'A', showTitle: 'B', reason: '</p><script>x()</script>' });
    expect(delist.html).not.toContain('<script');
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('refuses variables that do not fit, instead of mailing "undefined" or a javascript: link', () => {
    expect(() => renderMessage('ticketUnlocked', 'en', { ...SAMPLES.ticketUnlocked, ticketUrl: 'javascript:alert(1)' })).toThrow(/ticketUrl/);
    expect(() => renderMessage('ticketUnlocked', 'en', { ...SAMPLES.ticketUnlocked, showDate: 'tomorrow' })).toThrow(/showDate/);
    expect(() => renderMessage('listingSold', 'en', { ...SAMPLES.listingSold, eventTitle: undefined as unknown as string })).toThrow(/eventTitle/);
    expect(() => renderMessage('oneTimePassword', 'en', { code: '12345', minutes: 10 })).toThrow(/code/);
    expect(() => renderMessage('nope' as TemplateName, 'en', {} as never)).toThrow(/Unknown message template/);
  });

  it('formats dates and money with Intl for the language', () => {
    const en = formatter('en');
    const es = formatter('es');
    expect(plain(en.money({ minor: 1999, currency: 'EUR' }))).toBe('€19.99');
    expect(plain(es.money({ minor: 1999, currency: 'EUR' }))).toBe('19,99 €');
    expect(plain(es.money({ minor: 1500, currency: 'JPY' }))).toMatch(/^1\.?500\s(JPY|¥)$/); // no minor digits
    expect(plain(en.money('  $5  '))).toBe('$5');
    expect(plain(en.date('2026-06-15'))).toBe('15 June 2026');
    expect(plain(es.date('2026-06-15'))).toBe('15 de junio de 2026');
    // The wall time of the offset written in the instant (the venue's), or of the given zone.
    expect(plain(es.dateTime('2026-05-01T21:00:00+02:00'))).toBe('viernes, 1 de mayo de 2026, 21:00');
    expect(plain(es.dateTime('2026-05-01T19:00:00Z', 'Europe/Madrid'))).toBe('viernes, 1 de mayo de 2026, 21:00 CEST');
    expect(plain(en.dateTime('2026-05-01T19:00:00Z', 'Europe/Madrid'))).toBe('Friday, 1 May 2026 at 21:00 CEST');
    expect(plain(en.dateTime('2026-05-01T19:00:00Z'))).toMatch(/1 May 2026.*19:00 UTC$/);
    expect(plain(es.minutes(5))).toBe('5 minutos');
  });

  it('picks the template language from a requested one', () => {
    expect(pickLang('es-AR')).toBe('es');
    expect(pickLang('EN')).toBe('en');
    expect(pickLang('fr')).toBe('en');
    expect(pickLang(undefined)).toBe('en');
  });
});
