import { isLang, type Lang } from '@resale/shared/lang';
import type { Context } from 'hono';

/**
 * Localisation of the hosted pages (`en`, `es`).
 *
 * - `t(lang, key, vars?)` translates the shared strings below (page chrome and the notices
 *   every module needs: not found, expired form, too many requests, …).
 * - A module keeps its own strings beside its pages with `defineMessages(en, es)`: the
 *   Spanish dictionary must have exactly the keys of the English one (checked by the type
 *   system), so a missing translation does not compile. Nobody needs to edit this file to
 *   add page copy.
 * - `{name}` placeholders are replaced from `vars`; values are plain text (hono/jsx
 *   escapes them when rendered).
 * - `pageLang(c, fallback)` picks the language: the `lang` query parameter when it is a
 *   supported one, else the fallback (the partner's `defaultLang`), else `en`.
 *
 * @example
 * const m = defineMessages({ hello: 'Hello {name}' }, { hello: 'Hola {name}' });
 * m('es', 'hello', { name: 'Ana' }); // 'Hola Ana'
 * t(pageLang(c, partner.settings.defaultLang), 'notFoundTitle');
 */


/** A translator of one dictionary. */
export type Translator<K extends string> = (lang: Lang, key: K, vars?: Record<string, string | number>) => string;


/** `{name}` placeholders replaced from `vars`; an unknown placeholder is left as written. */
function interpolate(text: string, vars: Record<string, string | number> | undefined): string {
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/**
 * A translator over an English dictionary and its Spanish twin (same keys, enforced).
 *
 * @example
 * const m = defineMessages({ title: 'Sell your ticket' }, { title: 'Vende tu entrada' });
 * m('es', 'title');
 */
export function defineMessages<const E extends Record<string, string>>(en: E, es: { [K in keyof E]: string }): Translator<Extract<keyof E, string>> {
  const dictionaries: Record<Lang, Record<string, string>> = { en, es };
  return (lang, key, vars) => interpolate(dictionaries[lang]?.[key] ?? en[key] ?? key, vars);
}

const COMMON_EN = {
  serviceName: 'Official resale',
  skipToContent: 'Skip to content',
  back: 'Go back',
  continue: 'Continue',
  notFoundTitle: 'Page not found',
  notFoundText: 'The link is wrong or the page no longer exists.',
  formExpiredTitle: 'This form has expired',
  formExpiredText: 'For your security the form could not be accepted. Go back, reload the page and try again.',
  tooManyTitle: 'Too many attempts',
  tooManyText: 'Please wait {minutes} min and try again.',
  tooManyRequestsTitle: 'Too many requests',
  tooManyRequestsText: 'Too many requests came from your connection. Please wait {seconds} s and try again.',
  errorTitle: 'Something went wrong',
  errorText: 'Please try again in a few minutes.',
  unavailableTitle: 'Temporarily unavailable',
  unavailableText: 'We could not check your tickets with the ticketing site right now. Please try again in a few minutes.',
  backTo: 'Back to {name}',
  officialResaleOf: 'The official resale of {name}',
  footerService: 'Official resale for ticketing platforms',
  help: 'Help',
  terms: 'Terms of resale',
  footerLinks: 'Help and terms',
} as const;

const COMMON_ES: { [K in keyof typeof COMMON_EN]: string } = {
  serviceName: 'Reventa oficial',
  skipToContent: 'Saltar al contenido',
  back: 'Volver',
  continue: 'Continuar',
  notFoundTitle: 'Página no encontrada',
  notFoundText: 'El enlace no es correcto o la página ya no existe.',
  formExpiredTitle: 'Este formulario ha caducado',
  formExpiredText: 'Por tu seguridad no hemos podido aceptar el formulario. Vuelve atrás, recarga la página e inténtalo de nuevo.',
  tooManyTitle: 'Demasiados intentos',
  tooManyText: 'Espera {minutes} min y vuelve a intentarlo.',
  tooManyRequestsTitle: 'Demasiadas solicitudes',
  tooManyRequestsText: 'Han llegado demasiadas solicitudes desde tu conexión. Espera {seconds} s y vuelve a intentarlo.',
  errorTitle: 'Algo ha salido mal',
  errorText: 'Vuelve a intentarlo dentro de unos minutos.',
  unavailableTitle: 'No disponible en este momento',
  unavailableText: 'Ahora mismo no podemos comprobar tus entradas con la web de venta. Vuelve a intentarlo dentro de unos minutos.',
  backTo: 'Volver a {name}',
  officialResaleOf: 'La reventa oficial de {name}',
  footerService: 'Reventa oficial para plataformas de venta de entradas',
  help: 'Ayuda',
  terms: 'Condiciones de la reventa',
  footerLinks: 'Ayuda y condiciones',
};

/** Keys of the shared dictionary. */
export type CommonKey = keyof typeof COMMON_EN;

/**
 * Translates a shared string.
 *
 * @example t('es', 'tooManyText', { minutes: 5 }) // 'Espera 5 min y vuelve a intentarlo.'
 */
export const t: Translator<CommonKey> = defineMessages(COMMON_EN, COMMON_ES);

/**
 * The language of a page: `?lang=` when supported, else `fallback` (normally the partner's
 * `defaultLang`) when supported, else `en`.
 */
export function pageLang(c: Context<any, any, any>, fallback?: string | null): Lang {
  const q = c.req.query('lang');
  if (isLang(q)) return q;
  return isLang(fallback) ? fallback : 'en';
}
