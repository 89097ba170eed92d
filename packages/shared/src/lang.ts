/**
 * The languages the service speaks: every hosted page, e-mail, SMS and widget is written in
 * each of them, and a request or a partner's default picks one (anything else falls back to
 * English where it is read).
 */
export const LANGS = ['en', 'es'] as const;

/** One of {@link LANGS}. */
export type Lang = (typeof LANGS)[number];

/**
 * True when `value` is one of {@link LANGS}.
 *
 * @example isLang('es') // true
 * @example isLang('fr') // false
 */
export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}
