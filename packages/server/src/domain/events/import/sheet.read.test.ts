import ExcelJS from 'exceljs';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../testing/temp-dir.js';
import { describe, expect, it } from 'vitest';
import { parseCsv, parseXlsx, readSheet, SheetReadError, sheetFormat } from './sheet.read.js';

describe('parseCsv', () => {
  it('reads a comma file with quoted fields holding commas, quotes and line breaks', () => {
    const sheet = parseCsv('eventId,eventTitle,eventDescription\ntour,"Rock, pop","Say ""hi""\nsecond line"\nsolo,Solo,\n');
    expect(sheet.headers).toEqual(['eventId', 'eventTitle', 'eventDescription']);
    expect(sheet.rows).toEqual([
      { row: 2, cells: ['tour', 'Rock, pop', 'Say "hi"\nsecond line'] },
      { row: 3, cells: ['solo', 'Solo', ''] },
    ]);
    expect(sheet.decimalComma).toBe(false);
  });

  it('detects `;` as delimiter (Excel in comma-decimal locales) and drops the BOM', () => {
    const sheet = parseCsv('\ufeffeventId;price;eventTitle\r\ntour;45,50;"A; B, C"\r\n');
    expect(sheet.headers).toEqual(['eventId', 'price', 'eventTitle']);
    expect(sheet.rows).toEqual([{ row: 2, cells: ['tour', '45,50', 'A; B, C'] }]);
    expect(sheet.decimalComma).toBe(true);
  });

  it('numbers rows as the spreadsheet does: blank lines are rows, a quoted line break is not', () => {
    const sheet = parseCsv('a,b\n\n"x\ny",1\n,\n2,3\n');
    expect(sheet.rows).toEqual([
      { row: 3, cells: ['x\ny', '1'] },
      { row: 5, cells: ['2', '3'] },
    ]);
  });

  it('fails with the row where the CSV breaks', () => {
    const err = (() => {
      try {
        parseCsv('a,b\n1,2\n"open,3\n');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SheetReadError);
    expect((err as SheetReadError).row).toBe(3);
    expect((err as SheetReadError).message).toMatch(/cannot be read/);
  });

  it('fails on an empty file', () => {
    expect(() => parseCsv('')).toThrow(/row 1 must hold the column headers/);
  });
});

describe('parseXlsx', () => {
  async function workbook(rows: ExcelJS.CellValue[][]): Promise<Buffer> {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('first');
    for (const r of rows) ws.addRow(r);
    wb.addWorksheet('second').addRow(['ignored']);
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  it('reads the first worksheet with Excel types: dates, numbers, booleans, formulas, rich text', async () => {
    const date = new Date(Date.UTC(2026, 4, 1, 21, 0));
    const data = await workbook([
      ['eventId', 'showDate', 'price', 'resaleEnabled', 'stock', 'eventTitle'],
      ['tour', date, 45.5, true, { formula: '2*10', result: 20 }, { richText: [{ text: 'Big ' }, { text: 'Tour', font: { bold: true } }] }],
      [],
      [null, null, null, null, null, '  '],
      [1001, '2026-05-01T21:00:00+02:00', '39.00', 'no', null, { text: 'link', hyperlink: 'https://x.example' }],
    ]);
    const sheet = await parseXlsx(data);
    expect(sheet.headers).toEqual(['eventId', 'showDate', 'price', 'resaleEnabled', 'stock', 'eventTitle']);
    expect(sheet.rows).toEqual([
      { row: 2, cells: ['tour', date, 45.5, true, 20, 'Big Tour'] },
      { row: 5, cells: [1001, '2026-05-01T21:00:00+02:00', '39.00', 'no', null, 'link'] },
    ]);
  });

  it('fails on a file that is not a workbook', async () => {
    await expect(parseXlsx(Buffer.from('not a zip'))).rejects.toBeInstanceOf(SheetReadError);
  });
});

describe('readSheet', () => {
  it('reads by extension and refuses others', async () => {
    const dir = tempDir('resale-sheet');
    writeFileSync(join(dir, 'a.CSV'), 'eventId\ntour\n');
    expect((await readSheet(join(dir, 'a.CSV'))).rows).toEqual([{ row: 2, cells: ['tour'] }]);
    expect(sheetFormat('x.xlsx')).toBe('xlsx');
    expect(sheetFormat('x.xls')).toBeNull();
    await expect(readSheet(join(dir, 'a.json'))).rejects.toThrow(/only .csv and .xlsx/);
  });
});
