import { inflateRawSync } from 'node:zlib';
import { parseCsv, parseXlsx, type Sheet } from './sheet.read.js';

/**
 * A sheet received as bytes (the console's upload), before anything reads it as rows: its
 * format told by its content, never by its name, and the limits of a load (file size, size of
 * a workbook once unpacked, data rows), each refused with its own reason. `npm run import`
 * reads files by their extension (sheet.read.ts `readSheet`) and has no limits.
 */

/** The limits of a sheet received as bytes. */
export interface SheetLimits {
  /** Bytes of the file. */
  maxBytes: number;
  /** Data rows (blank rows not counted). */
  maxRows: number;
  /** Bytes of an .xlsx once unpacked (a small zip can hold a huge worksheet). */
  maxUnpackedBytes: number;
}

/** Why a sheet is refused before its rows are read. */
export type SheetRefusalReason =
  /** No bytes at all. */
  | 'empty'
  /** More than `maxBytes`. */
  | 'too_large'
  /** An .xlsx that unpacks to more than `maxUnpackedBytes`. */
  | 'unpacked_too_large'
  /** More than `maxRows` data rows. */
  | 'too_many_rows'
  /** Not a CSV nor an .xlsx workbook (an image, a PDF, a zip of something else …). */
  | 'wrong_type'
  /** An Excel 97–2003 workbook (.xls): save it as .xlsx or CSV. */
  | 'legacy_xls'
  /** Text, but not UTF-8 (UTF-16, Latin-1 …). */
  | 'not_utf8'
  /** A workbook protected by a password. */
  | 'encrypted';

/** A sheet refused before its rows are read (see {@link SheetRefusalReason}); `limit` and `actual` for the limits. */
export class SheetRefusal extends Error {
  constructor(
    readonly reason: SheetRefusalReason,
    message: string,
    readonly limit?: number,
    readonly actual?: number,
  ) {
    super(message);
    this.name = 'SheetRefusal';
  }
}

/** Magic numbers of files that are certainly not a sheet we read. */
const NOT_A_SHEET: { bytes: number[]; what: string }[] = [
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], what: 'a PNG image' },
  { bytes: [0xff, 0xd8, 0xff], what: 'a JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], what: 'a GIF image' },
  { bytes: [0x1f, 0x8b], what: 'a gzip archive' },
];
const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const startsWith = (data: Uint8Array, magic: number[]) => magic.every((b, i) => data[i] === b);

/**
 * The format of `data` by its content: an .xlsx is a zip holding a workbook (`xl/…`); a CSV is
 * UTF-8 text (no NUL byte). Anything else is refused with its reason.
 *
 * @throws SheetRefusal
 * @example sheetFormatOf(Buffer.from('eventId,showId\n')) // 'csv'
 */
export function sheetFormatOf(data: Uint8Array): Sheet['format'] {
  if (data.length === 0) throw new SheetRefusal('empty', 'The file is empty');
  if (startsWith(data, ZIP)) return 'xlsx';
  if (startsWith(data, OLE2)) throw new SheetRefusal('legacy_xls', 'This is an Excel 97–2003 workbook (.xls) or another Office file: save it as an Excel workbook (.xlsx) or as CSV UTF-8');
  const known = NOT_A_SHEET.find((m) => startsWith(data, m.bytes));
  if (known) throw new SheetRefusal('wrong_type', `This is ${known.what}, not a CSV or an Excel workbook (.xlsx)`);
  if ((data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff)) throw new SheetRefusal('not_utf8', 'This text is UTF-16: save the sheet as CSV UTF-8');
  if (data.includes(0)) throw new SheetRefusal('wrong_type', 'This is not a CSV (text) nor an Excel workbook (.xlsx)');
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new SheetRefusal('not_utf8', 'This text is not UTF-8: save the sheet as CSV UTF-8');
  }
  return 'csv';
}

/**
 * Reads a sheet received as bytes, within `limits`: the size first, then the format by content,
 * then (for a workbook) its size once unpacked, then the rows as `npm run import` reads them,
 * then their number.
 *
 * @throws SheetRefusal (a limit, the wrong type) or SheetReadError (a CSV or workbook that cannot be read)
 * @example const sheet = await readSheetBytes(upload, { maxBytes: 5_000_000, maxRows: 5_000, maxUnpackedBytes: 40 << 20 });
 */
export async function readSheetBytes(data: Buffer, limits: SheetLimits): Promise<Sheet> {
  if (data.length > limits.maxBytes) throw new SheetRefusal('too_large', `The file is larger than ${limits.maxBytes} bytes`, limits.maxBytes, data.length);
  const format = sheetFormatOf(data);
  if (format === 'xlsx') checkWorkbookZip(data, limits.maxUnpackedBytes);
  const sheet = format === 'csv' ? parseCsv(data) : await parseXlsx(data);
  if (sheet.rows.length > limits.maxRows) throw new SheetRefusal('too_many_rows', `The sheet has ${sheet.rows.length} data rows; at most ${limits.maxRows} are loaded at once`, limits.maxRows, sheet.rows.length);
  return sheet;
}

/**
 * Checks a zip before the workbook reader unpacks it: it must hold a workbook (`[Content_Types].xml`
 * and `xl/…`), no entry may be encrypted, and its entries, really inflated (never trusting the
 * sizes the zip declares), may not pass `maxUnpacked` bytes in all.
 *
 * @throws SheetRefusal
 */
function checkWorkbookZip(data: Buffer, maxUnpacked: number): void {
  const entries = zipEntries(data);
  const names = new Set(entries.map((e) => e.name));
  if (!names.has('[Content_Types].xml') || !entries.some((e) => e.name.startsWith('xl/'))) {
    throw new SheetRefusal('wrong_type', 'This zip file is not an Excel workbook (.xlsx)');
  }
  let unpacked = 0;
  for (const e of entries) {
    if (e.encrypted) throw new SheetRefusal('encrypted', 'The workbook is protected by a password: save it without one');
    const start = e.localOffset + 30;
    if (data.readUInt32LE(e.localOffset) !== 0x04034b50) throw new SheetRefusal('wrong_type', 'This zip file is damaged: it is not a readable Excel workbook (.xlsx)');
    const body = data.subarray(start + data.readUInt16LE(e.localOffset + 26) + data.readUInt16LE(e.localOffset + 28));
    const compressed = body.subarray(0, e.compressedSize);
    const budget = maxUnpacked - unpacked;
    let size: number;
    if (e.method === 0) size = compressed.length;
    else if (e.method === 8) {
      try {
        size = inflateRawSync(compressed, { maxOutputLength: Math.max(1, budget + 1) }).length;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') size = budget + 1;
        else throw new SheetRefusal('wrong_type', 'This zip file is damaged: it is not a readable Excel workbook (.xlsx)');
      }
    } else throw new SheetRefusal('wrong_type', 'This zip file is compressed in a way Excel does not write: it is not a readable Excel workbook (.xlsx)');
    unpacked += size;
    if (unpacked > maxUnpacked) throw new SheetRefusal('unpacked_too_large', `The workbook holds more than ${maxUnpacked} bytes once unpacked`, maxUnpacked);
  }
}

interface ZipEntry {
  name: string;
  method: number;
  encrypted: boolean;
  compressedSize: number;
  localOffset: number;
}

/** The entries of a zip's central directory (zip64 and multi-disk archives are refused: no workbook of a load is that big). */
function zipEntries(data: Buffer): ZipEntry[] {
  const damaged = () => new SheetRefusal('wrong_type', 'This zip file is damaged: it is not a readable Excel workbook (.xlsx)');
  // The end of central directory record: 22 bytes and a comment of up to 65,535.
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (data.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw damaged();
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw damaged();
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== 0x02014b50) throw damaged();
    const nameLength = data.readUInt16LE(at + 28);
    const localOffset = data.readUInt32LE(at + 42);
    if (localOffset + 30 > data.length) throw damaged();
    entries.push({
      name: data.toString('utf8', at + 46, at + 46 + nameLength),
      method: data.readUInt16LE(at + 10),
      encrypted: (data.readUInt16LE(at + 8) & 1) === 1,
      compressedSize: data.readUInt32LE(at + 20),
      localOffset,
    });
    at += 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
  }
  return entries;
}
