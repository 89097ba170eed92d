import type { Lang } from '@resale/shared/lang';
import { defineMessages } from './i18n.js';

const sm = defineMessages({ section: 'Section', row: 'Row', seat: 'Seat' }, { section: 'Sector', row: 'Fila', seat: 'Asiento' });

/** Where a ticket is: any of section, row and seat (unseated tickets have none). */
export interface Place {
  section?: string | null | undefined;
  row?: string | null | undefined;
  seat?: string | null | undefined;
}

/**
 * A ticket's place in words, the same on every page and message: "Section A · Row 2 · Seat 7";
 * an empty string for an unseated ticket (callers then name its category).
 *
 * @example placeText({ section: 'Stalls', row: 'C', seat: '4' }, 'es') // 'Sector Stalls · Fila C · Asiento 4'
 */
export function placeText(p: Place, lang: Lang): string {
  return [p.section && `${sm(lang, 'section')} ${p.section}`, p.row && `${sm(lang, 'row')} ${p.row}`, p.seat && `${sm(lang, 'seat')} ${p.seat}`].filter(Boolean).join(' · ');
}

/**
 * How a fan knows a ticket: its category and, when seated, its place ("VIP · Section A · Row 2 ·
 * Seat 7"); never the platform's internal id.
 */
export function ticketName(category: string, p: Place, lang: Lang): string {
  // A section named as its category ("Stalls" of the category "Stalls") is said once.
  const section = p.section && p.section.trim().toLowerCase() === category.trim().toLowerCase() ? null : p.section;
  const place = placeText({ ...p, section }, lang);
  return place ? `${category} · ${place}` : category;
}
