import type { Lang } from '@resale/shared/lang';
import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { LEDGER_ACCOUNTS } from '../../../domain/ledger/ledger.accounts.js';
import { ledgerTotals, type CurrencyTotals } from '../../../domain/ledger/ledger.queries.js';
import { LedgerQuerySchema } from '../../../domain/ledger/ledger.schemas.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { listPayoutsWithSellers, PAYOUT_STATES, payoutCounts, type PayoutListQuery } from '../../../domain/payouts/payouts.queries.js';
import { PAYOUTS_PAGE_MAX } from '../../../domain/payouts/payouts.schemas.js';
import { payoutOverdue, type PayoutRow } from '../../../domain/payouts/payouts.service.js';
import { reconcilePeriod, type PeriodReconciliation } from '../../../flows/ledger-reconciliation.js';
import { toIso } from '../../../lib/clock.js';
import { ApiError } from '../../../lib/errors.js';
import { currencyDigits } from '../../../lib/money.js';
import { loadPartnerList, type PartnerItem } from './console.partners.load.js';
import { mm } from './console.money.messages.js';

/**
 * What the money pages show and export, read for one person: a partner's (its Money tab) or
 * the deployment's, every partner or one (the operators' money page). Payouts come from the
 * operator API's own query (`listPayoutsWithSellers`), the ledger report from `ledgerTotals`,
 * the reconciliation from `reconcilePeriod`: the same figures as `/admin/v1`. No HTTP here
 * beyond the query's fields.
 */

/** Payouts per page of the payouts table. */
export const MONEY_PAGE_SIZE = 50;
/** Overdue payouts listed at the top of the page (the oldest first; their count says how many in all). */
export const OVERDUE_SHOWN = 50;
/** The most rows a payouts CSV holds: a longer export is cut there (narrow the period). */
export const CSV_MAX_ROWS = 100_000;
/** The period shown when none is asked for: the last 30 days, today included (UTC). */
export const DEFAULT_PERIOD_DAYS = 30;

const DAY_MS = 86_400_000;

/** A payout's state, or `overdue` (SCHEDULED or SENDING past their date), to filter the payouts by; null: every payout. */
export type PayoutFilter = PayoutRow['state'] | 'overdue' | null;

/** The period form as typed (or as defaulted). */
export interface PeriodForm {
  from: string;
  to: string;
}

/** A period: from (inclusive) to (exclusive), clock ms. */
export interface Period {
  from: number;
  to: number;
}

/** The period read from the query: the period and how to show it, or every error by field (`from`, `to`) with what was typed. */
export type PeriodResult = { ok: true; period: Period; typed: PeriodForm } | { ok: false; errors: Record<string, string>; typed: PeriodForm };

/** A date (`2026-11-01`, midnight UTC) or an ISO 8601 date-time with an offset (the API's form) as clock ms; null when it is neither. */
export function instantOf(value: string): number | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00.000Z`);
    return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value ? ms : null;
  }
  if (!LedgerQuerySchema.shape.from.safeParse(value).success) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** An instant as the period form shows it: the date at midnight UTC, else the full instant. */
export function instantText(ms: number): string {
  const iso = toIso(ms);
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/**
 * The period of the query (`from`, `to`: dates or date-times with an offset, `to` excluded),
 * the last {@link DEFAULT_PERIOD_DAYS} days for what is left blank; refused when a value is
 * neither or when `to` is not after `from`.
 */
export function periodOf(q: { from?: string | undefined; to?: string | undefined }, now: number, lang: Lang): PeriodResult {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const typed = { from: (q.from ?? '').trim().slice(0, 100), to: (q.to ?? '').trim().slice(0, 100) };
  const from = typed.from === '' ? today - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS : instantOf(typed.from);
  const to = typed.to === '' ? today + DAY_MS : instantOf(typed.to);
  const errors: Record<string, string> = {};
  if (from === null) errors.from = mm(lang, 'badDate');
  if (to === null) errors.to = mm(lang, 'badDate');
  if (from !== null && to !== null && to <= from) errors.to = mm(lang, 'toAfterFrom');
  const shown = { from: typed.from || (from === null ? '' : instantText(from)), to: typed.to || (to === null ? '' : instantText(to)) };
  if (from === null || to === null || Object.keys(errors).length > 0) return { ok: false, errors, typed: shown };
  return { ok: true, period: { from, to }, typed: shown };
}

/** The payouts filter of the query (anything unknown reads as every payout). */
export function payoutFilterOf(value: string | undefined): PayoutFilter {
  if (value === 'overdue') return 'overdue';
  return (PAYOUT_STATES as readonly string[]).includes(value ?? '') ? (value as PayoutRow['state']) : null;
}

/** One payout as the pages show it. */
export interface PayoutItem {
  id: string;
  partnerId: string;
  sellerId: string;
  listingId: string;
  amountMinor: number;
  currency: string;
  state: PayoutRow['state'];
  dueAt: number;
  deliveredAt: number | null;
  cancelledAt: number | null;
  transferRef: string | null;
  lastError: string | null;
  createdAt: number;
  /** Past its date and not delivered (SCHEDULED or SENDING). */
  overdue: boolean;
  /** The payout job would take it now (SCHEDULED and due, or a crashed claim): what Retry may deliver. */
  retryable: boolean;
}

/** The reconciliation part of a page: not the partner's to see (`partner`), nothing to reconcile (`sandbox`), asked for (`done`) or not yet (`ask`), or the provider did not answer. */
export type ReconciliationView = { kind: 'partner' } | { kind: 'sandbox'; provider: string } | { kind: 'ask' } | { kind: 'unavailable' } | { kind: 'done'; result: PeriodReconciliation };

/** What the page shows of a valid period. */
export interface MoneyReport {
  period: Period;
  overdue: { items: PayoutItem[]; count: number; failing: number };
  payouts: { items: PayoutItem[]; nextCursor: string | null; startingAfter: string | null };
  ledger: CurrencyTotals[];
  reconciliation: ReconciliationView;
}

/** A money page's model: whose, the period form and filters, and the report (null when the period was refused). */
export interface MoneyModel {
  /** The partner shown, or null for every partner (the operators' page). */
  partnerId: string | null;
  /** The operators' page (every partner, with a choice of one), or a partner's tab. */
  operatorPage: boolean;
  /** The partners the operators' page may narrow to ([] on a partner's tab). */
  partners: PartnerItem[];
  typed: PeriodForm;
  filter: PayoutFilter;
  states: readonly PayoutRow['state'][];
  accounts: readonly string[];
  /** Operators may retry an overdue payout. */
  mayRetry: boolean;
  report: MoneyReport | null;
}

/** The page's input: the query's fields as they came. */
export interface MoneyQuery {
  from?: string | undefined;
  to?: string | undefined;
  state?: string | undefined;
  startingAfter?: string | undefined;
  reconcile?: string | undefined;
}

type MoneyDeps = Pick<AppDeps, 'db' | 'clock' | 'logger' | 'payments'>;

function itemOf(p: PayoutRow & { sellerId: string }, now: number): PayoutItem {
  const overdue = (p.state === 'SCHEDULED' || p.state === 'SENDING') && p.dueAt <= now;
  return {
    id: p.id,
    partnerId: p.partnerId,
    sellerId: p.sellerId,
    listingId: p.listingId,
    amountMinor: p.amountMinor,
    currency: p.currency,
    state: p.state,
    dueAt: p.dueAt,
    deliveredAt: p.deliveredAt,
    cancelledAt: p.cancelledAt,
    transferRef: p.transferRef,
    lastError: p.lastError,
    createdAt: p.createdAt,
    overdue,
    retryable: payoutOverdue(p, now),
  };
}

/** The payouts query of a filter, a scope and a period (the operator API's `listPayouts`, narrowed to the payouts due in the period). */
function payoutQuery(partnerId: string | null, period: Period, filter: PayoutFilter, limit: number, startingAfter: string | null): PayoutListQuery {
  return {
    limit,
    due: period,
    ...(partnerId === null ? {} : { partnerId }),
    ...(filter === 'overdue' ? { overdue: true } : filter === null ? {} : { state: filter }),
    ...(startingAfter === null ? {} : { startingAfter }),
  };
}

/**
 * Whose money `session` may see here: a partner's tab (`partnerId`, any role of the partner,
 * operators) or the operators' page (`partnerId` null, or one partner narrowed to). Null when
 * the person may not see it or the partner does not exist (the same answer: 404).
 */
export async function moneyScope(deps: Pick<AppDeps, 'db'>, session: ConsoleSession, partnerId: string | null): Promise<{ partnerId: string | null } | null> {
  if (partnerId === null) return session.user.operator ? { partnerId: null } : null;
  if (!can(session, 'read', partnerId)) return null;
  return (await deps.db.read(async (tx) => await partnerById(tx, partnerId))) ? { partnerId } : null;
}

/**
 * A money page's model, or null when the person may not see it (see {@link moneyScope}).
 * `operatorPage`: the operators' page (its caller checks the person is one), narrowed to
 * `partnerId` when given. A refused period answers the model without a report, with
 * `errors`.
 */
export async function loadMoney(
  deps: MoneyDeps,
  session: ConsoleSession,
  where: { partnerId: string | null; operatorPage: boolean },
  query: MoneyQuery,
  lang: Lang,
): Promise<{ model: MoneyModel; errors: Record<string, string> } | null> {
  const scope = await moneyScope(deps, session, where.partnerId);
  if (!scope) return null;
  const now = deps.clock.now();
  const parsed = periodOf(query, now, lang);
  const filter = payoutFilterOf(query.state);
  const base: Omit<MoneyModel, 'report'> = {
    partnerId: scope.partnerId,
    operatorPage: where.operatorPage,
    partners: where.operatorPage ? await loadPartnerList(deps, session, '') : [],
    typed: parsed.typed,
    filter,
    states: PAYOUT_STATES,
    accounts: LEDGER_ACCOUNTS,
    mayRetry: session.user.operator,
  };
  if (!parsed.ok) return { model: { ...base, report: null }, errors: parsed.errors };
  const period = parsed.period;
  const startingAfter = (query.startingAfter ?? '').trim().slice(0, 100) || null;
  const partner = scope.partnerId ?? undefined;
  const read = await deps.db.read(async (tx) => {
    const overdue = await listPayoutsWithSellers(tx, { limit: OVERDUE_SHOWN, overdue: true, ...(partner ? { partnerId: partner } : {}) }, now);
    const counts = await payoutCounts(tx, now, partner);
    const payouts = await listPayoutsWithSellers(tx, payoutQuery(scope.partnerId, period, filter, MONEY_PAGE_SIZE, startingAfter), now);
    const ledger = await ledgerTotals(tx, { ...period, partnerId: partner });
    return { overdue, counts, payouts, ledger };
  });
  return {
    model: {
      ...base,
      report: {
        period,
        overdue: { items: read.overdue.items.map((p) => itemOf(p, now)), count: read.counts.overdue, failing: read.counts.failing },
        payouts: { items: read.payouts.items.map((p) => itemOf(p, now)), nextCursor: read.payouts.nextCursor, startingAfter },
        ledger: read.ledger,
        reconciliation: where.operatorPage ? await reconciliationView(deps, period, query.reconcile === '1') : { kind: 'partner' },
      },
    },
    errors: {},
  };
}

/** The reconciliation of the operators' page: nothing to reconcile with the sandbox; with a provider, only once asked for (it calls the provider). */
async function reconciliationView(deps: MoneyDeps, period: Period, asked: boolean): Promise<ReconciliationView> {
  if (!deps.payments.hosted) return { kind: 'sandbox', provider: deps.payments.provider.name };
  if (!asked) return { kind: 'ask' };
  try {
    return { kind: 'done', result: await reconcilePeriod(deps, period) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 503) return { kind: 'unavailable' };
    throw err;
  }
}

// --- CSV ---------------------------------------------------------------------------------

/** A cell of a CSV: text (neutralised), a count, money (written in major units), or empty. */
export type CsvCell = string | number | null | { minor: number; currency: string };

/** Minor units as a plain decimal in major units (`-1234` EUR → `-12.34`; JPY has no decimals). */
export function majorText(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const unit = 10 ** digits;
  return `${sign}${Math.floor(abs / unit)}.${String(abs % unit).padStart(digits, '0')}`;
}

/**
 * One cell as CSV: text that a spreadsheet would read as a formula (starting with `=`, `+`,
 * `-`, `@`, a tab or a carriage return) is prefixed with `'`; then quoted when it holds a quote,
 * a comma or a line break. Numbers and money are ours and written as numbers.
 */
export function csvCell(cell: CsvCell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return String(cell);
  const text = typeof cell === 'string' ? (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell) : majorText(cell.minor, cell.currency);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows as a CSV file: a UTF-8 byte order mark (spreadsheets then read accents right), CRLF line ends (RFC 4180). */
export function csvText(rows: readonly (readonly CsvCell[])[]): string {
  return `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/** The name a CSV downloads as: what, whose and the period (`payouts-ptr_…-2026-11-01-2026-12-01.csv`). */
export function csvFileName(what: 'payouts' | 'ledger' | 'reconciliation', partnerId: string | null, period: Period): string {
  const stamp = (ms: number) => {
    const iso = toIso(ms);
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 13)}${iso.slice(14, 16)}Z`;
  };
  return `${[what, partnerId, stamp(period.from), stamp(period.to)].filter(Boolean).join('-').replace(/[^A-Za-z0-9_.-]/g, '_')}.csv`;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

/**
 * Every payout of the scope due in the period (of the filter), as a CSV, read a page of
 * {@link PAYOUTS_PAGE_MAX} at a time, at most {@link CSV_MAX_ROWS}.
 */
export async function payoutsCsv(deps: Pick<AppDeps, 'db' | 'clock'>, partnerId: string | null, period: Period, filter: PayoutFilter): Promise<string> {
  const now = deps.clock.now();
  const rows: CsvCell[][] = [['id', 'partner_id', 'seller_id', 'listing_id', 'amount', 'currency', 'state', 'overdue', 'due_at', 'delivered_at', 'cancelled_at', 'transfer_ref', 'last_error', 'created_at']];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof listPayoutsWithSellers>> = await deps.db.read(async (tx) => await listPayoutsWithSellers(tx, payoutQuery(partnerId, period, filter, PAYOUTS_PAGE_MAX, cursor), now));
    for (const p of page.items.map((row) => itemOf(row, now))) {
      if (rows.length > CSV_MAX_ROWS) break;
      rows.push([p.id, p.partnerId, p.sellerId, p.listingId, { minor: p.amountMinor, currency: p.currency }, p.currency, p.state, p.overdue ? 'true' : 'false', isoOrNull(p.dueAt), isoOrNull(p.deliveredAt), isoOrNull(p.cancelledAt), p.transferRef, p.lastError, isoOrNull(p.createdAt)]);
    }
    cursor = rows.length > CSV_MAX_ROWS ? null : page.nextCursor;
  } while (cursor !== null);
  return csvText(rows);
}

/** The ledger report of the period (`ledgerTotals`) as a CSV: per currency, a row per account (its net movement) and per kind of journal (its count), and whether it balances. */
export async function ledgerCsv(deps: Pick<AppDeps, 'db'>, partnerId: string | null, period: Period): Promise<string> {
  const totals = await deps.db.read(async (tx) => await ledgerTotals(tx, { ...period, partnerId: partnerId ?? undefined }));
  const rows: CsvCell[][] = [['currency', 'line', 'name', 'amount', 'count']];
  for (const t of totals) {
    for (const account of LEDGER_ACCOUNTS) rows.push([t.currency, 'account', account, { minor: t.accounts[account], currency: t.currency }, null]);
    for (const [kind, n] of Object.entries(t.journals).sort(([a], [b]) => a.localeCompare(b))) rows.push([t.currency, 'journals', kind, null, n]);
    rows.push([t.currency, 'balanced', t.balanced ? 'true' : 'false', null, null]);
  }
  return csvText(rows);
}

/**
 * The reconciliation of the period (`reconcilePeriod`) as a CSV: a row per mismatch and per
 * kind of the provider's other entries; only the header with the sandbox (nothing to reconcile).
 *
 * @throws ApiError 503 when the provider does not answer
 */
export async function reconciliationCsv(deps: MoneyDeps, period: Period): Promise<string> {
  const r = await reconcilePeriod(deps, period);
  const rows: CsvCell[][] = [['row', 'reason', 'provider_ref', 'currency', 'provider_type', 'provider_category', 'provider_amount', 'ledger_amount', 'provider_fee', 'ledger_fee', 'journal_ids', 'count']];
  const money = (minor: number | null, currency: string) => (minor === null ? null : { minor, currency });
  for (const m of r.mismatches) {
    rows.push(['mismatch', m.reason, m.providerRef, m.currency.toUpperCase(), m.providerType, m.providerCategory, money(m.providerAmountMinor, m.currency), money(m.ledgerAmountMinor, m.currency), money(m.providerFeeMinor, m.currency), money(m.ledgerFeeMinor, m.currency), m.journalIds.join(' '), null]);
  }
  for (const o of r.other) rows.push(['other', null, null, o.currency.toUpperCase(), o.type, null, money(o.amountMinor, o.currency), null, null, null, null, o.count]);
  return csvText(rows);
}

/** The notice of a retry's outcome, from the query the retry redirected to (`retried`, `payout`, `code`); undefined for anything else. */
export function retryNoticeOf(lang: Lang, q: { retried?: string | undefined; payout?: string | undefined; code?: string | undefined }): { kind: 'ok' | 'warn'; text: string } | undefined {
  const id = q.payout ?? '';
  if (!/^[A-Za-z0-9_]{1,100}$/.test(id)) return undefined;
  if (q.retried === 'delivered') return { kind: 'ok', text: mm(lang, 'retried_delivered', { id }) };
  if (q.retried === 'busy') return { kind: 'warn', text: mm(lang, 'retried_busy', { id }) };
  // The code is the provider's refusal (or seller_account_not_ready): shown only when it looks like one.
  if (q.retried === 'refused') return { kind: 'warn', text: mm(lang, 'retried_refused', { id, code: /^[a-z0-9_]{1,80}$/.test(q.code ?? '') ? q.code! : '–' }) };
  return undefined;
}
