/**
 * Dates of a sheet. The API wants ISO 8601 with an offset; spreadsheets hold wall-clock
 * times without one (a real Excel date is a local time with no zone, and operators type
 * `2026-05-01 21:00`). Such a time is read in the event's IANA time zone, which is
 * exact across daylight-saving changes, instead of in the zone of the machine that runs
 * the import.
 */

import type { WallTime } from '../../../lib/zoned-time.js';

const WITH_OFFSET = /(?:[zZ]|[+-]\d{2}:?\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Whether `text` carries its own offset (`Z`, `+02:00`, `-0500`). */
export function hasOffset(text: string): boolean {
  return WITH_OFFSET.test(text.trim());
}

/** A local `YYYY-MM-DD HH:MM[:SS]` (or with `T`), or null when `text` is not one. */
export function parseLocal(text: string): WallTime | null {
  const m = LOCAL.exec(text.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => (v === undefined ? 0 : Number(v))) as [number, number, number, number, number, number];
  return { year, month, day, hour, minute, second };
}

/**
 * The wall time an Excel date stands for. exceljs gives a real date cell as the Date
 * whose UTC fields are the time shown in the cell.
 */
export function wallOfExcelDate(d: Date): WallTime {
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() };
}

/** An Excel serial day number (days since 1899-12-30) as the Date exceljs would give. */
export function excelSerialToDate(serial: number): Date {
  return new Date(Date.UTC(1899, 11, 30) + Math.round(serial * 86_400_000));
}
