import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { formatInstant } from '@resale/shared/format';
import type { TicketView } from './tickets.view.js';

/**
 * DejaVu Sans, read once: PDF's standard Helvetica only has the Western European letters
 * (WinAnsi), so "Łukasz", a Greek or a Cyrillic title came out as wrong glyphs. DejaVu covers
 * Latin in full, Greek, Cyrillic, Hebrew and Arabic letters (not CJK or emoji: those show as
 * empty boxes, while the secure view in the browser shows every script). pdfkit embeds only the
 * glyphs a ticket uses, a few kilobytes.
 */
let bodyFont: Buffer | undefined;
function font(): Buffer {
  bodyFont ??= readFileSync(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'));
  return bodyFont;
}

/**
 * The ticket as a PDF (the unlock e-mail's attachment). It carries the QR only when the
 * view may show it; a ticket whose access is a URL to the partner's QR image carries the
 * link to the secure view instead (we never re-encode someone else's QR).
 */
export async function ticketPdf(view: TicketView, viewUrl: string, lang: 'en' | 'es'): Promise<Buffer> {
  const L = lang === 'es'
    ? { ticket: 'Entrada', seat: 'Asiento', row: 'Fila', section: 'Sector', open: 'Abre tu entrada en', willCall: 'Número de recogida', pickUp: 'Recogida en taquilla' }
    : { ticket: 'Ticket', seat: 'Seat', row: 'Row', section: 'Section', open: 'Open your ticket at', willCall: 'Will-call number', pickUp: 'Box office pick-up' };
  const doc = new PDFDocument({ size: 'A5', margin: 36, info: { Title: `${view.eventTitle} — ${L.ticket}`, Producer: 'resale' } });
  doc.registerFont('body', font()).font('body');
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));

  const when = formatInstant(view.startsAt, lang, view.timeZone);
  doc.fontSize(18).text(view.eventTitle);
  doc.moveDown(0.3).fontSize(12).text(view.showTitle).text(when).text(view.venue);
  doc.moveDown(0.6).fontSize(11).text(view.optionTitle);
  const seat = [
    view.seating.section && `${L.section} ${view.seating.section}`,
    view.seating.row && `${L.row} ${view.seating.row}`,
    view.seating.seat && `${L.seat} ${view.seating.seat}`,
  ].filter(Boolean);
  if (seat.length) doc.text(seat.join(' · '));
  doc.moveDown(0.3).fontSize(9).fillColor('#444').text(`${L.ticket} ${view.ticketId}`).fillColor('#000');
  if (view.willCall?.number) doc.moveDown(0.6).fontSize(12).text(`${L.willCall}: ${view.willCall.number}`);
  else if (view.willCall?.pickUp) doc.moveDown(0.6).fontSize(12).text(`${L.pickUp}: ${[view.willCall.pickUp.ticketId, view.willCall.pickUp.holder].filter(Boolean).join(' · ')}`);
  if (view.willCall?.instructions) doc.moveDown(0.3).fontSize(10).text(view.willCall.instructions);
  if (view.qr?.kind === 'svg' && view.code) {
    const png = await QRCode.toBuffer(view.code, { type: 'png', margin: 1, width: 480, errorCorrectionLevel: 'M' });
    doc.moveDown(0.8).image(png, { fit: [200, 200], align: 'center' });
  } else {
    doc.moveDown(0.8).fontSize(11).text(`${L.open} ${viewUrl}`, { link: viewUrl, underline: true });
  }
  doc.end();
  return done;
}
