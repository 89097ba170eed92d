import type { Lang } from '@resale/shared/lang';
import type { Permission } from '../../../domain/console/console.service.js';
import { servicePaths } from '../../../lib/urls.js';

/**
 * The sections of a partner in the console, each a tab of the partner's pages: defined once
 * here, read by the tabs (console.view.tsx) and by the tests that walk every page as every role.
 * A section's page answers who may `read` the partner; what they may change there is the page's.
 */
export interface PartnerSection {
  id: 'settings' | 'developers' | 'team' | 'webhooks' | 'events' | 'load' | 'risk' | 'sales' | 'money';
  /** The path under `/console/partners/:partnerId` (`''`: the partner's own page). */
  path: string;
  label: Record<Lang, string>;
  /** Who sees the tab (and may open the page). */
  permission: Permission;
}

/** In the order of a partner's day: its settings, its events, what sold and the money, then the developers' and the team's tabs. */
export const PARTNER_SECTIONS: readonly PartnerSection[] = [
  { id: 'settings', path: '', label: { en: 'Settings', es: 'Ajustes' }, permission: 'read' },
  { id: 'events', path: '/events', label: { en: 'Events', es: 'Eventos' }, permission: 'read' },
  { id: 'sales', path: '/sales', label: { en: 'Sales', es: 'Ventas' }, permission: 'read' },
  { id: 'money', path: '/money', label: { en: 'Money', es: 'Dinero' }, permission: 'read' },
  { id: 'risk', path: '/risk', label: { en: 'Risk', es: 'Riesgo' }, permission: 'read' },
  { id: 'load', path: '/load', label: { en: 'Manual load', es: 'Carga manual' }, permission: 'administer' },
  { id: 'webhooks', path: '/webhooks', label: { en: 'Webhooks', es: 'Webhooks' }, permission: 'read' },
  { id: 'developers', path: '/developers', label: { en: 'Developers', es: 'Desarrolladores' }, permission: 'read' },
  { id: 'team', path: '/team', label: { en: 'Team', es: 'Equipo' }, permission: 'read' },
];

/** The console's address of a partner's section. */
export function sectionHref(partnerId: string, section: Pick<PartnerSection, 'path'> = PARTNER_SECTIONS[0]!): string {
  return servicePaths.consolePartner(partnerId, section.path);
}
