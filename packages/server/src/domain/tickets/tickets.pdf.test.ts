import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ticketPdf } from './tickets.pdf.js';
import type { TicketView } from './tickets.view.js';

/** Every stream of a PDF, inflated where it is compressed. */
function streams(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const out: string[] = [];
  for (const m of text.matchAll(/stream\r?\n/g)) {
    const start = m.index! + m[0].length;
    const end = text.indexOf('endstream', start);
    const raw = pdf.subarray(start, end);
    try {
      out.push(inflateSync(raw).toString('latin1'));
    } catch {
      out.push(raw.toString('latin1'));
    }
  }
  return out;
}

const view = (title: string) =>
  ({
    eventTitle: title,
    showTitle: 'Night',
    startsAt: Date.parse('2026-06-01T20:00:00Z'),
    timeZone: 'Europe/Madrid',
    venue: 'Arena Norte',
    optionTitle: 'Pista',
    seating: { section: 'A', row: '1', seat: '2' },
    ticketId: 't-1',
    willCall: null,
    qr: { kind: 'svg', svg: '' },
    code: 'ABC-123',
  }) as unknown as TicketView;

describe('ticket PDF', () => {
  it('embeds a font with the letters of every European script, not the WinAnsi-only Helvetica', async () => {
    const pdf = await ticketPdf(view('Łukasz Żółć · Ελληνικά · Кириллица'), 'http://resale.test/tickets/view/x', 'es');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdf.toString('latin1');
    expect(/\/BaseFont \/[A-Z]{6}\+DejaVuSans/.test(text), 'an embedded DejaVu Sans subset').toBe(true);
    expect(text.includes('Helvetica'), 'the standard Helvetica').toBe(false);
    // The embedded subset maps its glyphs back to Ł, Ε (Greek) and К (Cyrillic).
    const cmap = streams(pdf).find((s) => s.includes('begincmap'))!;
    for (const code of ['0141', '0395', '041a']) expect(cmap.toLowerCase(), code).toContain(`<${code}>`);
  });

  it('stays small: only the glyphs used are embedded', async () => {
    const pdf = await ticketPdf(view('The Big Tour 2026'), 'http://resale.test/tickets/view/x', 'en');
    expect(pdf.length).toBeLessThan(60_000);
  });
});
