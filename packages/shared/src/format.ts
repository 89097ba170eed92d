/**
 * How dates are written wherever a fan reads them (hosted pages, ticket PDFs, e-mails, and the
 * demo partner site, which imports this file so both sides read the same):
 * - in the venue's time zone, its short name written after the time ("19:00 CET"), because a
 *   fan may read the page from another zone; an instant of unknown zone is written in UTC, said;
 * - in the page's language with one locale per language: `en` is written as en-GB (day before
 *   month, 24-hour clock: the markets are European and a 24-hour time cannot be misread),
 *   `es` as es-ES.
 *
 * @example formatInstant(Date.parse('2027-01-19T18:00:00Z'), 'en', 'Europe/Madrid') // 'Tuesday, 19 January 2027 at 19:00 CET'
 * @example formatInstant(Date.parse('2027-01-19T18:00:00Z'), 'es', 'Europe/Madrid', 'long') // '19 de enero de 2027, 19:00 CET'
 */
export function formatInstant(ms: number, lang: string, timeZone?: string | null, style: 'full' | 'long' = 'full'): string {
  return new Intl.DateTimeFormat(localeOf(lang), {
    ...(style === 'full' ? { weekday: 'long' } : {}),
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: timeZone ?? 'UTC',
    timeZoneName: 'short',
  }).format(ms);
}

/**
 * A time of day (no date) with its zone's short name: for moments within the next minutes or
 * hours, such as when a hold ends.
 *
 * @example formatTime(Date.parse('2027-01-19T18:10:00Z'), 'en', 'Europe/Madrid') // '19:10 CET'
 */
export function formatTime(ms: number, lang: string, timeZone?: string | null): string {
  return new Intl.DateTimeFormat(localeOf(lang), { hour: '2-digit', minute: '2-digit', timeZone: timeZone ?? 'UTC', timeZoneName: 'short' }).format(ms);
}

/**
 * A calendar day (no time), in the venue's time zone when known.
 *
 * @example formatDay(Date.parse('2027-01-26T00:00:00Z'), 'es', 'UTC') // '26 de enero de 2027'
 */
export function formatDay(ms: number, lang: string, timeZone?: string | null): string {
  return new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'long', timeZone: timeZone ?? 'UTC' }).format(ms);
}

/** The locale a page language is written in (see the module comment). */
export function localeOf(lang: string): string {
  return lang === 'es' ? 'es-ES' : lang === 'en' ? 'en-GB' : lang;
}

/** Bytes as people read them, in decimal units (`5 MB`, `192 KB`): the sizes of uploads and limits. */
export function formatBytes(n: number, lang: string): string {
  const number = (x: number) => new Intl.NumberFormat(localeOf(lang), { maximumFractionDigits: 1 }).format(x);
  return n >= 1_000_000 ? `${number(n / 1_000_000)} MB` : `${number(Math.ceil(n / 1000))} KB`;
}
