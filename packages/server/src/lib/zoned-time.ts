/**
 * Wall-clock times in IANA time zones, for what people state in local time: a sheet's show
 * dates (domain/events/import), a waiting list's quiet hours (domain/waitinglist). Built on
 * `Intl.DateTimeFormat` (the runtime's own zone data); kept here rather than a date library
 * because these four functions are all the service needs and they are exact across
 * daylight-saving changes (tested).
 */

/** A wall-clock time: what a clock on the venue's wall shows (month 1–12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
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
  const at = zonedInstant(wall, timeZone);
  const offset = offsetAt(at, timeZone);
  return `${new Date(at + offset).toISOString().slice(0, 19)}${formatOffset(offset)}`;
}

/**
 * The instant (epoch ms) a wall time stands for in `timeZone`; a time skipped by a
 * daylight-saving change moves forward by the gap, as clocks do.
 *
 * @example zonedInstant({ year: 2026, month: 5, day: 1, hour: 21, minute: 0, second: 0 }, 'Europe/Madrid') // Date.parse('2026-05-01T19:00:00Z')
 */
export function zonedInstant(wall: WallTime, timeZone: string): number {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  // The offset at a first guess, then at the instant that guess gives: right on both sides
  // of a daylight-saving change.
  return asUtc - offsetAt(asUtc - offsetAt(asUtc, timeZone), timeZone);
}

/**
 * What a wall clock in `timeZone` shows at `instant` (epoch ms).
 *
 * @example wallTimeAt(Date.parse('2026-05-01T19:00:00Z'), 'Europe/Madrid') // { year: 2026, month: 5, day: 1, hour: 21, minute: 0, second: 0 }
 */
export function wallTimeAt(instant: number, timeZone: string): WallTime {
  const at = new Date(Math.floor(instant / 1000) * 1000 + offsetAt(instant, timeZone));
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate(), hour: at.getUTCHours(), minute: at.getUTCMinutes(), second: at.getUTCSeconds() };
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
