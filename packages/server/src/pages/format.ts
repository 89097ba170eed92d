/**
 * How hosted pages write instants: in the venue's time zone when it is known, else in UTC
 * said explicitly (Intl cannot combine `dateStyle` with `timeZoneName`).
 *
 * @example formatInstant(Date.parse('2026-05-01T19:00:00Z'), 'es', 'Europe/Madrid') // 'viernes, 1 de mayo de 2026, 21:00'
 */
export function formatInstant(ms: number, lang: string, timeZone?: string | null, style: 'full' | 'long' = 'full'): string {
  const text = new Intl.DateTimeFormat(lang, { dateStyle: style, timeStyle: 'short', timeZone: timeZone ?? 'UTC' }).format(ms);
  return timeZone ? text : `${text} UTC`;
}
