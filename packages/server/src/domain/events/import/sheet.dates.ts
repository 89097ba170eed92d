/**
 * Dates of a sheet. The API wants ISO 8601 with an offset; spreadsheets hold wall-clock
 * times without one (a real Excel date is a local time with no zone, and operators type
 * `2026-05-01 21:00`). Such a time is read in the event's IANA time zone, which is
 * exact across daylight-saving changes, instead of in the zone of the machine that runs
 * the import.
 */

const WITH_OFFSET = /(?:[zZ]|[+-]\d{2}:?\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** A wall-clock time: what a clock on the venue's wall shows. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

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

/** Whether `tz` is an IANA time zone the runtime knows. */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The instant a wall time stands for in `timeZone`, as ISO 8601 with that zone's offset
 * at the instant. A time skipped by a daylight-saving change moves forward by the gap,
 * as clocks do.
 *
 * @example zonedIso({ year: 2026, month: 5, day: 1, hour: 21, minute: 0, second: 0 }, 'Europe/Madrid') // '2026-05-01T21:00:00+02:00'
 */
export function zonedIso(wall: WallTime, timeZone: string): string {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The offset at a first guess, then at the instant that guess gives: right on both sides
  // of a daylight-saving change.
  const at = asUtc - offsetAt(asUtc - offsetAt(asUtc, timeZone), timeZone);
  const offset = offsetAt(at, timeZone);
  return `${new Date(at + offset).toISOString().slice(0, 19)}${formatOffset(offset)}`;
}

function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instant));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(instant / 1000) * 1000;
}

function formatOffset(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
