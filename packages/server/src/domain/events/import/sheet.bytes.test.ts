import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readSheetBytes, SheetRefusal, sheetFormatOf, type SheetLimits } from './sheet.bytes.js';
import { SheetReadError } from './sheet.read.js';

const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../../docs/samples');
const CSV = readFileSync(resolve(SAMPLES, 'events.csv'));
const XLSX = readFileSync(resolve(SAMPLES, 'events.xlsx'));
const LIMITS: SheetLimits = { maxBytes: 5_000_000, maxRows: 5_000, maxUnpackedBytes: 40 << 20 };

/** A zip of `entries` (deflated unless `stored`), with the general-purpose flags given. */
function zip(entries: { name: string; data: Buffer; stored?: boolean; flags?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.stored ? e.data : deflateRawSync(e.data);
    const name = Buffer.from(e.name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(e.flags ?? 0, 6);
    head.writeUInt16LE(e.stored ? 0 : 8, 8);
    head.writeUInt32LE(crc32(e.data), 14);
    head.writeUInt32LE(body.length, 18);
    head.writeUInt32LE(e.data.length, 22);
    head.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(e.flags ?? 0, 8);
    dir.writeUInt16LE(e.stored ? 0 : 8, 10);
    dir.writeUInt32LE(crc32(e.data), 16);
    dir.writeUInt32LE(body.length, 20);
    dir.writeUInt32LE(e.data.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(head, name, body);
    central.push(dir, name);
    offset += head.length + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function refusalOf(fn: () => unknown): SheetRefusal {
  try {
    fn();
  } catch (err) {
    if (err instanceof SheetRefusal) return err;
    throw err;
  }
  throw new Error('not refused');
}

async function refusalOfAsync(p: Promise<unknown>): Promise<SheetRefusal | SheetReadError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof SheetRefusal || err instanceof SheetReadError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('the format of an upload, by its content', () => {
  it('reads a CSV and an .xlsx whatever their names would say', async () => {
    expect(sheetFormatOf(CSV)).toBe('csv');
    expect(sheetFormatOf(XLSX)).toBe('xlsx');
    expect((await readSheetBytes(CSV, LIMITS)).rows).toHaveLength(9);
    expect((await readSheetBytes(XLSX, LIMITS)).rows).toHaveLength(9);
    expect(sheetFormatOf(Buffer.from('\ufeffeventId;showId\n'))).toBe('csv');
  });

  it('refuses what is not a sheet, each with its reason', () => {
    const cases: [Buffer, string, RegExp][] = [
      [Buffer.alloc(0), 'empty', /empty/],
      [Buffer.from('%PDF-1.7\n…'), 'wrong_type', /a PDF/],
      [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), 'wrong_type', /a PNG image/],
      [Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]), 'legacy_xls', /\.xls/],
      [Buffer.from('eventId,\0showId\n'), 'wrong_type', /not a CSV/],
      [Buffer.from('\ufffeeventId', 'utf16le'), 'not_utf8', /UTF-16/],
      [Buffer.from('eventId,eventTitle\ntour,Caf\xe9\n', 'latin1'), 'not_utf8', /not UTF-8/],
    ];
    for (const [data, reason, message] of cases) {
      const refusal = refusalOf(() => sheetFormatOf(data));
      expect(refusal.reason, String(message)).toBe(reason);
      expect(refusal.message).toMatch(message);
    }
  });

  it('refuses a zip that is no workbook, a protected workbook and a damaged zip', async () => {
    const notWorkbook = zip([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet'), stored: true }]);
    expect(await refusalOfAsync(readSheetBytes(notWorkbook, LIMITS))).toMatchObject({ reason: 'wrong_type', message: 'This zip file is not an Excel workbook (.xlsx)' });
    const locked = zip([
      { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
      { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>'), flags: 1 },
    ]);
    expect(await refusalOfAsync(readSheetBytes(locked, LIMITS))).toMatchObject({ reason: 'encrypted' });
    expect(await refusalOfAsync(readSheetBytes(XLSX.subarray(0, XLSX.length - 30), LIMITS))).toMatchObject({ reason: 'wrong_type', message: expect.stringMatching(/damaged/) });
  });

  it('tells a CSV that cannot be read, with its row', async () => {
    const err = await refusalOfAsync(readSheetBytes(Buffer.from('eventId,showId\ne1,s1\n"open,s2\n'), LIMITS));
    expect(err).toBeInstanceOf(SheetReadError);
    expect((err as SheetReadError).row).toBe(3);
  });
});

describe('the limits of an upload', () => {
  it('refuses a file over the size limit before reading it', async () => {
    expect(await refusalOfAsync(readSheetBytes(CSV, { ...LIMITS, maxBytes: CSV.length - 1 }))).toMatchObject({ reason: 'too_large', limit: CSV.length - 1, actual: CSV.length });
    expect((await readSheetBytes(CSV, { ...LIMITS, maxBytes: CSV.length })).rows).toHaveLength(9);
  });

  it('refuses more data rows than the limit (blank rows not counted)', async () => {
    const csv = Buffer.from(`eventId,showId,ticketOptionId\n${Array.from({ length: 6 }, (_, i) => `e,s,o${i}\n,,\n`).join('')}`);
    expect((await readSheetBytes(csv, { ...LIMITS, maxRows: 6 })).rows).toHaveLength(6);
    expect(await refusalOfAsync(readSheetBytes(csv, { ...LIMITS, maxRows: 5 }))).toMatchObject({ reason: 'too_many_rows', limit: 5, actual: 6 });
    expect(await refusalOfAsync(readSheetBytes(XLSX, { ...LIMITS, maxRows: 8 }))).toMatchObject({ reason: 'too_many_rows', actual: 9 });
  });

  it('refuses a workbook that unpacks to more than the limit, by inflating it rather than trusting the sizes it declares', async () => {
    expect(await refusalOfAsync(readSheetBytes(XLSX, { ...LIMITS, maxUnpackedBytes: 2_000 }))).toMatchObject({ reason: 'unpacked_too_large', limit: 2_000 });
    // 50 MB of zeros in a few kilobytes, declaring a size of 10 bytes.
    const bomb = zip([
      { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
      { name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(50 * 1024 * 1024) },
    ]);
    bomb.writeUInt32LE(10, bomb.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    expect(bomb.length).toBeLessThan(100_000);
    expect(await refusalOfAsync(readSheetBytes(bomb, LIMITS))).toMatchObject({ reason: 'unpacked_too_large' });
  });
});
