import { and, asc, eq, gte, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { LEDGER_ACCOUNTS, type LedgerAccount } from './ledger.accounts.js';
import type { LedgerProviderMove } from './ledger.reconcile.js';
import { ledgerEntries, ledgerJournals } from './ledger.table.js';

/** Reads of the ledger. Only ledger.service.ts writes it. */

/** A period of the ledger: from (inclusive) to (exclusive), clock ms; optionally one partner's. */
export interface LedgerPeriod {
  from: number;
  to: number;
  partnerId?: string | undefined;
}

/** A currency's totals over a period. */
export interface CurrencyTotals {
  currency: string;
  /** Every account's net movement in the period (debits positive), each account listed. */
  accounts: Record<LedgerAccount, number>;
  /** How many journals of each kind. */
  journals: Record<string, number>;
  /** The accounts sum to zero, as every journal does. */
  balanced: boolean;
}

function periodOf<T extends { partnerId: any; createdAt: any }>(table: T, p: LedgerPeriod): SQL | undefined {
  return and(gte(table.createdAt, p.from), lt(table.createdAt, p.to), p.partnerId ? eq(table.partnerId, p.partnerId) : undefined);
}

/** Each currency's account totals and journal counts in the period, currencies in alphabetical order. */
export async function ledgerTotals(tx: Tx, period: LedgerPeriod): Promise<CurrencyTotals[]> {
  const sums = await tx
    .select({ currency: ledgerEntries.currency, account: ledgerEntries.account, total: sql<number>`sum(${ledgerEntries.amountMinor})`.mapWith(Number) })
    .from(ledgerEntries)
    .where(periodOf(ledgerEntries, period))
    .groupBy(ledgerEntries.currency, ledgerEntries.account);
  const counts = await tx
    .select({ currency: ledgerJournals.currency, kind: ledgerJournals.kind, n: sql<number>`count(*)`.mapWith(Number) })
    .from(ledgerJournals)
    .where(periodOf(ledgerJournals, period))
    .groupBy(ledgerJournals.currency, ledgerJournals.kind);
  const byCurrency = new Map<string, CurrencyTotals>();
  const of = (currency: string) => {
    let t = byCurrency.get(currency);
    if (!t) {
      t = { currency, accounts: Object.fromEntries(LEDGER_ACCOUNTS.map((a) => [a, 0])) as Record<LedgerAccount, number>, journals: {}, balanced: true };
      byCurrency.set(currency, t);
    }
    return t;
  };
  for (const s of sums) of(s.currency).accounts[s.account as LedgerAccount] = s.total;
  for (const c of counts) of(c.currency).journals[c.kind] = c.n;
  for (const t of byCurrency.values()) t.balanced = Object.values(t.accounts).reduce((a, b) => a + b, 0) === 0;
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

/** A journal with its lines. */
export type JournalWithLines = typeof ledgerJournals.$inferSelect & { lines: { account: string; amountMinor: number }[] };

/** The journals of one resale (buy intention), oldest first, each with its lines. */
export async function journalsOfIntention(tx: Tx, intentionId: string): Promise<JournalWithLines[]> {
  const journals = await tx.select().from(ledgerJournals).where(eq(ledgerJournals.intentionId, intentionId)).orderBy(asc(ledgerJournals.createdAt), asc(ledgerJournals.id));
  const out: JournalWithLines[] = [];
  for (const j of journals) {
    const lines = await tx.select({ account: ledgerEntries.account, amountMinor: ledgerEntries.amountMinor }).from(ledgerEntries).where(eq(ledgerEntries.journalId, j.id)).orderBy(asc(ledgerEntries.id));
    out.push({ ...j, lines });
  }
  return out;
}

/**
 * The ledger's moves at one provider written in `[from, to)`, by provider reference: what the
 * journals naming it moved on `provider_balance` (the fee apart) and on `provider_fees`.
 */
export async function providerMoves(tx: Tx, provider: string, from: number, to: number): Promise<LedgerProviderMove[]> {
  const rows = await tx
    .select({ journalId: ledgerJournals.id, kind: ledgerJournals.kind, ref: ledgerJournals.providerRef, currency: ledgerJournals.currency, createdAt: ledgerJournals.createdAt, account: ledgerEntries.account, amountMinor: ledgerEntries.amountMinor })
    .from(ledgerJournals)
    .innerJoin(ledgerEntries, eq(ledgerEntries.journalId, ledgerJournals.id))
    .where(and(eq(ledgerJournals.provider, provider), isNotNull(ledgerJournals.providerRef), gte(ledgerJournals.createdAt, from), lt(ledgerJournals.createdAt, to)))
    .orderBy(asc(ledgerJournals.createdAt), asc(ledgerJournals.id));
  const moves = new Map<string, LedgerProviderMove>();
  for (const r of rows) {
    if (r.account !== 'provider_balance' && r.account !== 'provider_fees') continue;
    const m = moves.get(r.ref!) ?? { providerRef: r.ref!, currency: r.currency, amountMinor: 0, feeMinor: 0, journalIds: [], createdAt: Number(r.createdAt) };
    if (r.account === 'provider_fees') m.feeMinor += Number(r.amountMinor);
    else if (r.kind !== 'provider_fee') m.amountMinor += Number(r.amountMinor);
    if (!m.journalIds.includes(r.journalId)) m.journalIds.push(r.journalId);
    moves.set(r.ref!, m);
  }
  return [...moves.values()];
}

/** One day of resales in one currency. */
export interface LedgerDay {
  /** The day's start, clock ms (UTC). */
  day: number;
  currency: string;
  /** Resales completed (sale journals). */
  resales: number;
  /** What buyers paid for them, fees included (minor units). */
  volumeMinor: number;
  /** The buyer's and the seller's fees the service kept (minor units). */
  feesMinor: number;
}

const DAY_MS = 86_400_000;

/**
 * Resales per UTC day and currency over a period (days without one are absent): for the
 * console's overview charts. A sale journal debits the provider balance with what the buyer
 * paid and credits the fee revenues (credits are negative).
 */
export async function ledgerDaily(tx: Tx, period: LedgerPeriod): Promise<LedgerDay[]> {
  // The constant written into the SQL, not bound: PostgreSQL matches the select's expression with
  // the GROUP BY's only when they are the same text, and two bound parameters are not.
  const day = sql<number>`(${ledgerEntries.createdAt} / ${sql.raw(String(DAY_MS))}) * ${sql.raw(String(DAY_MS))}`.mapWith(Number);
  const rows = await tx
    .select({
      day,
      currency: ledgerEntries.currency,
      account: ledgerEntries.account,
      total: sql<number>`sum(${ledgerEntries.amountMinor})`.mapWith(Number),
      journals: sql<number>`count(distinct ${ledgerEntries.journalId})`.mapWith(Number),
    })
    .from(ledgerEntries)
    .innerJoin(ledgerJournals, eq(ledgerJournals.id, ledgerEntries.journalId))
    .where(and(periodOf(ledgerEntries, period), eq(ledgerJournals.kind, 'sale')))
    .groupBy(day, ledgerEntries.currency, ledgerEntries.account);
  const days = new Map<string, LedgerDay>();
  for (const r of rows) {
    const key = `${r.day}:${r.currency}`;
    const d = days.get(key) ?? { day: r.day, currency: r.currency, resales: 0, volumeMinor: 0, feesMinor: 0 };
    if (r.account === 'provider_balance') {
      d.volumeMinor += r.total;
      d.resales = r.journals;
    }
    if (r.account === 'buyer_fee_revenue' || r.account === 'seller_fee_revenue') d.feesMinor -= r.total;
    days.set(key, d);
  }
  return [...days.values()].sort((a, b) => a.day - b.day || a.currency.localeCompare(b.currency));
}
