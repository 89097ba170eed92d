import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import type { ConsoleRole } from '../../../domain/console/console.model.js';
import { partnerById, searchPartners } from '../../../domain/partners/partners.queries.js';
import { isSandboxPartner, type PartnerRow, type RotatableKind } from '../../../domain/partners/partners.service.js';
import { originsFormValue, settingsFormValues, SETTING_SECTIONS, type SettingField } from './console.settings-form.js';

/** A partner in a list: its id, name, and the person's role there (operators: `operator`). */
export interface PartnerItem {
  id: string;
  name: string;
  role: 'operator' | ConsoleRole;
  createdAt: number;
}

/** How many partners the operator's list shows at once (the search narrows it). */
export const PARTNER_PAGE_SIZE = 100;

/** The partners a person may open: an operator's every partner (matching `q`, by name or id), another's their memberships. */
export async function loadPartnerList(deps: Pick<AppDeps, 'db'>, session: ConsoleSession, q: string): Promise<PartnerItem[]> {
  if (!session.user.operator) return session.memberships.map((m) => ({ id: m.partnerId, name: m.partnerName, role: m.role, createdAt: m.createdAt }));
  const term = q.trim().slice(0, 200);
  const rows = await deps.db.read(async (tx) => await searchPartners(tx, term, PARTNER_PAGE_SIZE));
  return rows.map((p) => ({ id: p.id, name: p.name, role: 'operator' as const, createdAt: p.createdAt }));
}

/** One member of a partner's team, as the team table shows them. */
export interface TeamMember {
  membershipId: string;
  email: string;
  role: ConsoleRole;
  lastSignInAt: number | null;
}

/** Everything the partner page shows, and what this person may change there. */
export interface PartnerPageModel {
  partner: PartnerRow;
  role: 'operator' | ConsoleRole;
  values: Record<string, string>;
  origins: string;
  /** The settings fields this person may change (the others are shown read-only). */
  editable: ReadonlySet<string>;
  mayDevelop: boolean;
  /** What each key kind is now, sent back by the rotation form (null for who may not rotate). */
  keyVersions: Record<RotatableKind, string> | null;
  mayAdminister: boolean;
  team: TeamMember[];
  /** Whether the partner is the sandbox, whose market may be reset (flows/sandbox-reset.ts). */
  sandbox: boolean;
  /** The payment provider's name: `sandbox` takes the test cards of SANDBOX_CARDS. */
  paymentProvider: string;
}

/** The settings fields `session` may change at a partner: none for viewers and developers, all but the operator's terms for partner admins, all for operators. */
export function editableFields(session: ConsoleSession, partnerId: string): SettingField[] {
  if (!can(session, 'administer', partnerId)) return [];
  return SETTING_SECTIONS.flatMap((s) => s.fields).filter((f) => session.user.operator || !f.operatorOnly);
}

/**
 * The partner page's model, or null when the person may not see the partner (unknown, or
 * another partner's: the same answer, so ids tell nothing).
 */
export async function loadPartnerPage(deps: Pick<AppDeps, 'db' | 'consoleAccess' | 'payments' | 'partners'>, session: ConsoleSession, partnerId: string): Promise<PartnerPageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(async (tx) => {
    const partner = await partnerById(tx, partnerId);
    if (!partner) return null;
    const team = (await deps.consoleAccess.team(tx, partnerId)).map(({ membership, user }) => ({ membershipId: membership.id, email: user.email, role: membership.role, lastSignInAt: user.lastSignInAt }));
    return {
      partner,
      role: session.user.operator ? 'operator' : session.memberships.find((m) => m.partnerId === partnerId)!.role,
      values: settingsFormValues(partner.settings),
      origins: originsFormValue(partner.settings),
      editable: new Set(editableFields(session, partnerId).map((f) => f.name)),
      mayDevelop: can(session, 'develop', partnerId),
      keyVersions: can(session, 'develop', partnerId) ? await deps.partners.keyVersionsIn(tx, partnerId) : null,
      mayAdminister: can(session, 'administer', partnerId),
      team,
      sandbox: isSandboxPartner(partner),
      paymentProvider: deps.payments.provider.name,
    };
  });
}
