/**
 * Regenerates docs/samples/events.xlsx from docs/samples/events.csv, so the two samples
 * always describe the same events. The workbook holds what a spreadsheet operator would
 * type: real Excel dates (venue wall-clock time, read with the `timezone` column),
 * numbers for prices and stock, text elsewhere.
 *
 * Run from packages/server: `npx tsx src/domain/events/import/make-sample-xlsx.ts`
 */
import ExcelJS from 'exceljs';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { columnOf } from './sheet.layout.js';
import { parseCsv, type CellValue } from './sheet.read.js';

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../docs/samples');

/** Builds the workbook of a CSV sample. */
export function sampleWorkbook(csv: string): ExcelJS.Workbook {
  const sheet = parseCsv(csv);
  const workbook = new ExcelJS.Workbook();
  // Fixed metadata, so a regenerated workbook differs from the committed one only in its zip timestamps.
  workbook.creator = 'resale make-sample-xlsx';
  workbook.created = new Date(Date.UTC(2026, 0, 1));
  workbook.modified = workbook.created;
  const ws = workbook.addWorksheet('events');
  ws.addRow(sheet.headers);
  ws.getRow(1).font = { bold: true };
  for (const { cells } of sheet.rows) {
    ws.addRow(sheet.headers.map((h, i) => typed(h, cells[i] ?? null)));
  }
  sheet.headers.forEach((h, i) => {
    const column = ws.getColumn(i + 1);
    column.width = Math.max(12, h.length + 2);
    if (columnOf(h)?.kind === 'date') {
      column.numFmt = 'yyyy-mm-dd hh:mm';
      column.width = 18;
    }
  });
  return workbook;
}

function typed(header: string, cell: CellValue): CellValue {
  if (typeof cell !== 'string' || cell.trim() === '') return null;
  switch (columnOf(header)?.kind) {
    case 'date':
      // The wall-clock part: Excel dates carry no zone; the timezone column gives it back.
      return new Date(`${cell.slice(0, 19)}Z`);
    case 'decimal':
    case 'integer':
    case 'number':
      return Number(cell);
    default:
      return cell;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const workbook = sampleWorkbook(readFileSync(resolve(SAMPLES, 'events.csv'), 'utf8'));
  await workbook.xlsx.writeFile(resolve(SAMPLES, 'events.xlsx'));
  console.log(`wrote ${resolve(SAMPLES, 'events.xlsx')}`);
}
