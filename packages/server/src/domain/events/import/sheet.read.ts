import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';

/**
 * Reads a manual-load file into rows of cells, nothing more: CSV with csv-parse, .xlsx
 * with exceljs (never hand-written parsers: quoting, BOMs and Excel's types are where
 * hand-written ones break). What the cells mean is sheet.to-events.ts's business.
 */

/** A cell as read: CSV cells are text; Excel cells keep their type (real dates, numbers). */
export type CellValue = string | number | boolean | Date | null;

export interface SheetRow {
  /** Row number as the spreadsheet shows it: the header is row 1. */
  row: number;
  cells: CellValue[];
}

export interface Sheet {
  format: 'csv' | 'xlsx';
  headers: string[];
  /** Rows after the header; wholly blank rows are left out (their numbers are kept by the others). */
  rows: SheetRow[];
  /** A `;`-separated CSV writes decimals with a comma (45,50), as the spreadsheets that produce it do. */
  decimalComma: boolean;
}

/** The file cannot be read as a sheet at all (broken quoting, not an xlsx …). */
export class SheetReadError extends Error {
  constructor(
    message: string,
    /** The row where reading stopped, when known. */
    readonly row?: number,
  ) {
    super(message);
    this.name = 'SheetReadError';
  }
}

/** The formats by extension; anything else is a usage error of the caller. */
export function sheetFormat(path: string): Sheet['format'] | null {
  const ext = extname(path).toLowerCase();
  return ext === '.csv' ? 'csv' : ext === '.xlsx' ? 'xlsx' : null;
}

/** Reads a .csv or .xlsx file. @throws SheetReadError */
export async function readSheet(path: string): Promise<Sheet> {
  const format = sheetFormat(path);
  if (format === null) throw new SheetReadError(`${path}: only .csv and .xlsx files can be imported`);
  const data = await readFile(path);
  return format === 'csv' ? parseCsv(data) : parseXlsx(data);
}

const DELIMITERS = [',', ';'] as const;

/**
 * Parses CSV text: UTF-8 with or without BOM, `,` or `;` as delimiter (the one that
 * splits the header into more columns; Excel writes `;` where the decimal separator is a
 * comma), fields quoted with `"` (delimiters and line breaks inside quotes are text).
 *
 * @example parseCsv('eventId;showId\ntour;s1\n').rows[0].cells // ['tour', 's1']
 */
export function parseCsv(data: Buffer | string): Sheet {
  const delimiter = detectDelimiter(data);
  let records: { record: string[]; info: { records: number } }[];
  try {
    // With `info`, each record comes with where it was read (its record number).
    records = parse(data, { bom: true, delimiter, relax_column_count: true, info: true }) as unknown as typeof records;
  } catch (err) {
    const e = err as Error & { records?: number };
    // csv-parse counts the records it finished; the broken one is the next.
    throw new SheetReadError(`The CSV cannot be read: ${e.message}`, e.records !== undefined ? e.records + 1 : undefined);
  }
  const [head, ...body] = records;
  if (!head) throw new SheetReadError('The file is empty: row 1 must hold the column headers', 1);
  return {
    format: 'csv',
    headers: head.record.map((h) => h.trim()),
    rows: body.map(({ record, info }) => ({ row: info.records, cells: record })).filter((r) => !isBlankRow(r.cells)),
    decimalComma: delimiter === ';',
  };
}

function detectDelimiter(data: Buffer | string): string {
  let best: string = DELIMITERS[0];
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    try {
      const [header] = parse(data, { bom: true, delimiter, to_line: 1, relax_column_count: true, relax_quotes: true }) as string[][];
      const count = header?.length ?? 0;
      if (count > bestCount) [best, bestCount] = [delimiter, count];
    } catch {
      // Not this delimiter; the real parse reports what is wrong.
    }
  }
  return best;
}

/**
 * Parses the first worksheet of an .xlsx workbook: header in row 1, data below. Cells keep
 * their Excel type; formulas give their cached result, rich text and hyperlinks their text.
 */
export async function parseXlsx(data: Buffer): Promise<Sheet> {
  const workbook = new ExcelJS.Workbook();
  try {
    // exceljs's typings predate Node's generic Buffer; the bytes are what it wants.
    await workbook.xlsx.load(data as unknown as ArrayBuffer);
  } catch (err) {
    throw new SheetReadError(`The workbook cannot be read: ${(err as Error).message}`);
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new SheetReadError('The workbook has no worksheet');
  const headerRow = sheet.getRow(1);
  const headers: string[] = [];
  for (let c = 1; c <= headerRow.cellCount; c++) {
    const v = excelValue(headerRow.getCell(c).value);
    headers.push(v === null ? '' : (v instanceof Date ? v.toISOString() : String(v)).trim());
  }
  while (headers.length > 0 && headers[headers.length - 1] === '') headers.pop();
  if (headers.length === 0) throw new SheetReadError('The worksheet is empty: row 1 must hold the column headers', 1);
  const rows: SheetRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, n) => {
    if (n === 1) return;
    const cells: CellValue[] = [];
    for (let c = 1; c <= Math.max(row.cellCount, headers.length); c++) cells.push(excelValue(row.getCell(c).value));
    if (!isBlankRow(cells)) rows.push({ row: n, cells });
  });
  return { format: 'xlsx', headers, rows, decimalComma: false };
}

function excelValue(v: ExcelJS.CellValue): CellValue {
  if (v === null || v === undefined) return null;
  if (v instanceof Date || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('formula' in v || 'sharedFormula' in v) return excelValue((v.result ?? null) as ExcelJS.CellValue);
  if ('hyperlink' in v) return excelValue(v.text as ExcelJS.CellValue);
  if ('error' in v) return String(v.error);
  return null;
}

function isBlankRow(cells: readonly CellValue[]): boolean {
  return cells.every((c) => c === null || (typeof c === 'string' && c.trim() === ''));
}
