import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { ledgerDaily, ledgerTotals, type LedgerDay } from '../../../domain/ledger/ledger.queries.js';
import { payoutCounts } from '../../../domain/payouts/payouts.queries.js';
import { ticketJobBacklog } from '../../../domain/tickets/tickets.queries.js';
import { webhookAttemptStats } from '../../../domain/webhooks/webhooks.queries.js';
import { loadPartnerList, type PartnerItem } from './console.partners.load.js';

/** The periods the overview offers, in days. */
export const OVERVIEW_PERIODS = [7, 30, 90] as const;
export type OverviewPeriod = (typeof OVERVIEW_PERIODS)[number];

const DAY_MS = 86_400_000;

/** One currency's resales in the period, with a point per day (days without one count zero). */
export interface CurrencySeries {
  currency: string;
  resales: number;
  volumeMinor: number;
  feesMinor: number;
  refunds: number;
  days: LedgerDay[];
}

/** Everything the overview shows for a period and a partner (or every partner, for operators). */
export interface OverviewModel {
  partners: PartnerItem[];
  /** The partner shown, or null for every partner (operators only). */
  partnerId: string | null;
  days: OverviewPeriod;
  from: number;
  to: number;
  currencies: CurrencySeries[];
  payouts: { due: number; overdue: number; failing: number };
  webhooks: { attempts: number; failed: number };
  queue: { count: number; oldestAt: number | null };
}

/**
 * The overview's model, or null when the person may not see the partner asked for. A partner's
 * people see one of their partners (the first when none is named); operators every partner or
 * one. The period ends now and starts at the UTC midnight `days` days before, so every bar of a
 * chart is a whole day but today's.
 */
export async function loadOverview(deps: Pick<AppDeps, 'db' | 'clock'>, session: ConsoleSession, query: { partnerId?: string | undefined; days?: string | undefined }): Promise<OverviewModel | null> {
  const partners = await loadPartnerList(deps, session, '');
  const asked = query.partnerId?.trim() || null;
  const partnerId = asked ?? (session.user.operator ? null : (partners[0]?.id ?? null));
  if (partnerId !== null && !can(session, 'read', partnerId)) return null;
  const days = (OVERVIEW_PERIODS as readonly number[]).includes(Number(query.days)) ? (Number(query.days) as OverviewPeriod) : 30;
  // `to` is exclusive: what happened at this very instant counts.
  const to = deps.clock.now() + 1;
  const from = Math.floor(to / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  // A partner's person without a partner sees nothing (they have no access left to anything).
  if (partnerId === null && !session.user.operator) return { partners, partnerId, days, from, to, currencies: [], payouts: { due: 0, overdue: 0, failing: 0 }, webhooks: { attempts: 0, failed: 0 }, queue: { count: 0, oldestAt: null } };
  const scope = partnerId ?? undefined;
  return await deps.db.read(async (tx) => {
    const period = { from, to, partnerId: scope };
    const daily = await ledgerDaily(tx, period);
    const totals = await ledgerTotals(tx, period);
    const currencies = [...new Set([...daily.map((d) => d.currency), ...totals.map((t) => t.currency)])].sort().map((currency) => {
      const mine = daily.filter((d) => d.currency === currency);
      const filled: LedgerDay[] = [];
      for (let day = from; day < to; day += DAY_MS) filled.push(mine.find((d) => d.day === day) ?? { day, currency, resales: 0, volumeMinor: 0, feesMinor: 0 });
      return {
        currency,
        resales: mine.reduce((n, d) => n + d.resales, 0),
        volumeMinor: mine.reduce((n, d) => n + d.volumeMinor, 0),
        feesMinor: mine.reduce((n, d) => n + d.feesMinor, 0),
        refunds: totals.find((t) => t.currency === currency)?.journals.refund_paid ?? 0,
        days: filled,
      };
    });
    return {
      partners,
      partnerId,
      days,
      from,
      to,
      currencies,
      payouts: await payoutCounts(tx, to, scope),
      webhooks: await webhookAttemptStats(tx, period),
      queue: await ticketJobBacklog(tx, scope),
    };
  });
}
