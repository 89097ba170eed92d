import type { Lang } from '@resale/shared/lang';
import { settingsPatchSchema, type PartnerSettings, type PartnerSettingsPatch } from '../../../domain/partners/partners.settings.js';

/**
 * The partner settings form of the console: which settings it shows, in which sections, how a
 * typed value becomes the API's value, and the API's own schema (`settingsPatchSchema`, the
 * one `PATCH /admin/v1/partners/{id}` validates with) to check them, every error at once.
 */

/**
 * How a setting is typed: numbers, URLs and texts in one input; `secret` write-only (the form
 * never shows it: blank keeps the stored one, a value replaces it); `json` a whole component's
 * configuration as JSON in a text area (blank: the API's null), checked by the same schema as
 * the API's; `choice` one of the field's `options`, in a select. (The webhook kinds are chosen
 * on the webhooks page, with the endpoint.)
 */
type Kind = 'int' | 'number' | 'optionalInt' | 'optionalUrl' | 'text' | 'lang' | 'secret' | 'json' | 'choice';

/** One field of the form: its setting's dotted path, how it is typed, its label. */
export interface SettingField {
  /** The setting's path in the patch (`fees.buyerPercent`), also the form field's name. */
  name: string;
  kind: Kind;
  label: Record<Lang, string>;
  /** Only an operator changes it (fees and capacity are the operator's terms); others read it. */
  operatorOnly?: boolean;
  /** A `choice`'s values, each with its label (the schema still checks what is sent). */
  options?: readonly { value: string; label: Record<Lang, string> }[];
}

/** A section of the form. */
export interface SettingSection {
  id: 'timing' | 'admission' | 'fees' | 'holds' | 'platform' | 'api' | 'branding' | 'components';
  title: Record<Lang, string>;
  fields: SettingField[];
}

const f = (name: string, kind: Kind, en: string, es: string, operatorOnly = false): SettingField => ({ name, kind, label: { en, es }, ...(operatorOnly ? { operatorOnly } : {}) });

/** The sections of the settings form, in order (allowed origins have their own form: developers change them). */
export const SETTING_SECTIONS: readonly SettingSection[] = [
  {
    id: 'timing',
    title: { en: 'Timing', es: 'Tiempos' },
    fields: [
      f('qrLockHoursBeforeShow', 'number', 'QR codes unlock (hours before the show)', 'Los QR se desbloquean (horas antes de la función)'),
      f('buyIntentionTtlSeconds', 'int', 'Checkout hold (seconds)', 'Reserva del pago (segundos)'),
      f('oneTimeTokenTtlSeconds', 'int', 'One-time token lifetime (seconds)', 'Vida de un token de un solo uso (segundos)'),
      f('payoutDelayDays', 'int', 'Payout after the show (days)', 'Pago tras la función (días)'),
    ],
  },
  {
    id: 'admission',
    title: { en: 'Admission at the door (ticketShield shows)', es: 'Acceso en la puerta (funciones con ticketShield)' },
    fields: [
      {
        ...f('admissionCodes.venueScans', 'choice', 'Code the venue scans', 'Código que lee la puerta'),
        options: [
          { value: 'partner', label: { en: 'Your own QR (ticketAccess.locator)', es: 'Vuestro QR (ticketAccess.locator)' } },
          { value: 'rotating', label: { en: 'The rotating code bound to the holder', es: 'El código rotativo ligado al titular' } },
        ],
      },
      f('admissionCodes.rotationSeconds', 'int', 'Seconds per rotating code (5 to 60)', 'Segundos por código rotativo (de 5 a 60)'),
    ],
  },
  {
    id: 'fees',
    title: { en: 'Fees', es: 'Comisiones' },
    fields: [
      f('fees.buyerPercent', 'number', 'Buyer fee (%)', 'Comisión del comprador (%)', true),
      f('fees.buyerFixedMinor', 'int', 'Buyer fixed fee (minor units)', 'Comisión fija del comprador (unidades menores)', true),
      f('fees.sellerPercent', 'number', 'Seller fee (%)', 'Comisión del vendedor (%)', true),
      f('fees.sellerFixedMinor', 'int', 'Seller fixed fee (minor units)', 'Comisión fija del vendedor (unidades menores)', true),
    ],
  },
  {
    id: 'holds',
    title: { en: 'Hold limits', es: 'Límites de reservas' },
    fields: [
      f('holdLimits.perBuyer', 'int', 'Live checkouts per buyer', 'Pagos abiertos por comprador', true),
      f('holdLimits.ticketsPerBuyerPerShow', 'int', 'Tickets held per buyer and show', 'Entradas reservadas por comprador y función', true),
      f('holdLimits.perClientAddress', 'int', 'Live checkouts per client address', 'Pagos abiertos por dirección de cliente', true),
    ],
  },
  {
    id: 'platform',
    title: { en: 'Partner platform', es: 'Plataforma del partner' },
    fields: [
      f('ownershipUrl', 'optionalUrl', 'Ownership endpoint', 'Endpoint de titularidad'),
      f('loginUrl', 'optionalUrl', 'Sign-in page (Login Force)', 'Página de acceso (Login Force)'),
      f('siteUrl', 'optionalUrl', 'The partner’s site (the pages’ way back)', 'Web del partner (la vuelta desde las páginas)'),
      f('webhookUrl', 'optionalUrl', 'Webhook endpoint', 'Endpoint de webhooks'),
      f('eventsFeedUrl', 'optionalUrl', 'Events feed', 'Feed de eventos'),
      f('cancelledFeedUrl', 'optionalUrl', 'Cancellations feed', 'Feed de cancelaciones'),
      f('feedPollSeconds', 'int', 'Feed polling (seconds)', 'Consulta de feeds (segundos)'),
      f('platformSecret', 'secret', 'Platform secret (signs our calls to the platform; write-only, blank keeps it)', 'Secreto de la plataforma (firma nuestras llamadas; solo escritura, vacío lo conserva)'),
    ],
  },
  {
    id: 'api',
    title: { en: 'Language and API', es: 'Idioma y API' },
    fields: [
      f('defaultLang', 'lang', 'Default language (en or es)', 'Idioma por defecto (en o es)'),
      f('rateLimitPerMinute', 'optionalInt', 'API requests per minute (blank: the service default; 0: no limit)', 'Peticiones por minuto a la API (vacío: el valor del servicio; 0: sin límite)', true),
    ],
  },
  {
    id: 'branding',
    title: { en: 'Branding of the hosted pages', es: 'Marca de las páginas alojadas' },
    fields: [
      f('branding.displayName', 'text', 'Name fans know (blank: no branding)', 'Nombre que conocen los fans (vacío: sin marca)'),
      f('branding.logoUrl', 'text', 'Logo (https URL)', 'Logo (URL https)'),
      f('branding.color', 'text', 'Colour (#rrggbb, 4.5:1 against white)', 'Color (#rrggbb, 4,5:1 sobre blanco)'),
      f('branding.supportUrl', 'text', 'Help page', 'Página de ayuda'),
      f('branding.termsUrl', 'text', 'Resale terms', 'Condiciones de la reventa'),
    ],
  },
  {
    id: 'components',
    title: { en: 'Components of the access layers (JSON)', es: 'Componentes de las capas de acceso (JSON)' },
    fields: [
      f('buyAccessLayer', 'json', 'Buy access layer: banner, modal, button, categories, map, disabled ticket options (blank: the default set)', 'Capa de compra: banner, modal, botón, categorías, mapa, opciones desactivadas (vacío: el conjunto por defecto)'),
      f('sellBanner', 'json', 'Sell banner of My tickets (blank: none)', 'Banner de venta de Mis entradas (vacío: ninguno)'),
    ],
  },
];

/** Every field of the settings form, by name. */
export const SETTING_FIELDS: ReadonlyMap<string, SettingField> = new Map(SETTING_SECTIONS.flatMap((s) => s.fields.map((x) => [x.name, x] as const)));

function read(settings: PartnerSettings, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), settings);
}

/** The form's values for stored settings (what the inputs show before anything is typed). */
export function settingsFormValues(settings: PartnerSettings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of SETTING_FIELDS.values()) {
    const v = read(settings, field.name);
    if (field.kind === 'secret') out[field.name] = '';
    else if (field.kind === 'json') out[field.name] = v === null || v === undefined ? '' : JSON.stringify(v, null, 2);
    else out[field.name] = v === null || v === undefined ? '' : Array.isArray(v) ? v.join('\n') : String(v);
  }
  return out;
}

/** The allowed origins as the textarea shows them, one per line. */
export function originsFormValue(settings: PartnerSettings): string {
  return settings.allowedOrigins.join('\n');
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const messages = {
  number: { en: 'Enter a number.', es: 'Escribe un número.' },
  int: { en: 'Enter a whole number.', es: 'Escribe un número entero.' },
  json: { en: 'Not valid JSON', es: 'No es un JSON válido' },
  jsonObject: { en: 'Enter a JSON object ({ … }), or leave it blank.', es: 'Escribe un objeto JSON ({ … }) o déjalo vacío.' },
} as const;

/** The deepest a component's JSON may nest (its schema nests 4 levels): deeper is refused before it is read further. */
const MAX_JSON_DEPTH = 8;

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return depth;
  let deepest = depth + 1;
  for (const v of Object.values(value)) deepest = Math.max(deepest, depthOf(v, depth + 1));
  return deepest;
}

/**
 * The field an error of the API's schema at `path` belongs to (the longest field name that is
 * `path` or a prefix of it), and what remains of the path, said before the message
 * (`buyBanner.colors.background: must be a hex colour`).
 */
function fieldOfIssue(path: string): { key: string; rest: string } {
  if (SETTING_FIELDS.has(path)) return { key: path, rest: '' };
  let best = '';
  for (const name of SETTING_FIELDS.keys()) if (path.startsWith(`${name}.`) && name.length > best.length) best = name;
  if (best) return { key: best, rest: path.slice(best.length + 1) };
  // A branding without its name: said on the name.
  if (path === 'branding') return { key: 'branding.displayName', rest: '' };
  if (path.startsWith('allowedOrigins')) return { key: 'allowedOrigins', rest: '' };
  return { key: path, rest: '' };
}

/**
 * A settings patch from the typed form values of `fields` (the ones this person may change),
 * checked with the API's schema: `{ patch }`, or `{ errors }` keyed by field name with every
 * error at once (a value that is not a number, then what the schema refuses).
 */
export function settingsPatchFromForm(
  form: Record<string, string>,
  fields: readonly SettingField[],
  lang: Lang,
): { ok: true; patch: PartnerSettingsPatch } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const patch: Record<string, unknown> = {};
  const set = (path: string, value: unknown) => {
    const keys = path.split('.');
    let o = patch;
    for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
    o[keys[keys.length - 1]!] = value;
  };
  let branding = false;
  for (const field of fields) {
    const typed = (form[field.name] ?? '').trim();
    if (field.name.startsWith('branding.')) {
      branding = true;
      if (typed !== '') set(field.name, typed);
      continue;
    }
    switch (field.kind) {
      case 'secret':
        // Blank keeps the stored secret: the form never shows it, so an untouched field says nothing.
        if (typed !== '') set(field.name, typed);
        break;
      case 'json': {
        if (typed === '') {
          set(field.name, null);
          break;
        }
        let value: unknown;
        try {
          value = JSON.parse(typed);
        } catch (err) {
          errors[field.name] = `${messages.json[lang]}: ${err instanceof Error ? err.message : String(err)}`;
          break;
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value) || depthOf(value) > MAX_JSON_DEPTH) errors[field.name] = messages.jsonObject[lang];
        else set(field.name, value);
        break;
      }
      case 'int':
      case 'number':
      case 'optionalInt': {
        if (typed === '' && field.kind === 'optionalInt') {
          set(field.name, null);
          break;
        }
        if (!NUMBER.test(typed)) {
          errors[field.name] = messages[field.kind === 'number' ? 'number' : 'int'][lang];
          break;
        }
        const n = Number(typed);
        if (field.kind !== 'number' && !Number.isInteger(n)) errors[field.name] = messages.int[lang];
        else set(field.name, n);
        break;
      }
      case 'optionalUrl':
        set(field.name, typed === '' ? null : typed);
        break;
      default:
        set(field.name, typed);
    }
  }
  // Branding is all or nothing: no name means no branding (the pages show the partner's name).
  if (branding) {
    const b = patch.branding as Record<string, unknown> | undefined;
    patch.branding = b && typeof b.displayName === 'string' ? b : b === undefined ? null : b;
  }
  const parsed = settingsPatchSchema.safeParse(patch);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const { key, rest } = fieldOfIssue(issue.path.map(String).join('.'));
      // Every problem of a component's JSON at once (one line each); one per other field.
      const said = rest ? `${rest}: ${issue.message}` : issue.message;
      if (SETTING_FIELDS.get(key)?.kind === 'json' && errors[key]) errors[key] += `; ${said}`;
      else errors[key] ??= said;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, patch: parsed.data! };
}

/** The allowed origins typed one per line, checked with the API's schema (each line's error on the field, with its line number). */
export function originsPatchFromForm(typed: string): { ok: true; patch: PartnerSettingsPatch } | { ok: false; error: string } {
  const lines = typed.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const parsed = settingsPatchSchema.safeParse({ allowedOrigins: lines });
  if (parsed.success) return { ok: true, patch: parsed.data };
  const messages = parsed.error.issues.map((issue) => {
    const line = issue.path[1];
    return typeof line === 'number' ? `${lines[line]}: ${issue.message}` : issue.message;
  });
  return { ok: false, error: messages.join('; ') };
}

/** The settings that say where the service sends people, data or trust: the partner platform's URLs (and its site, where fans are sent back). */
const DESTINATIONS = ['ownershipUrl', 'loginUrl', 'siteUrl', 'webhookUrl', 'eventsFeedUrl', 'cancelledFeedUrl'] as const;

/**
 * Whether `patch` moves a destination of `current` (the platform's ownership, sign-in, webhook or
 * feed URL): such a change asks for a fresh code first, as a change of where money goes does,
 * because whoever controls those URLs decides who owns tickets and who learns of their sale.
 */
export function changesDestinations(current: PartnerSettings, patch: PartnerSettingsPatch): boolean {
  // A new platform secret too: it is what the platform trusts our calls by (like a key, shown to nobody).
  return patch.platformSecret !== undefined || DESTINATIONS.some((k) => patch[k] !== undefined && patch[k] !== current[k]);
}
