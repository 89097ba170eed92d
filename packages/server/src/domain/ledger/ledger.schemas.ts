import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { toMajor } from '../../lib/money.js';
import { JOURNAL_KINDS, LEDGER_ACCOUNTS } from './ledger.accounts.js';
import type { CurrencyTotals } from './ledger.queries.js';

const instant = (name: string, description: string, example: string) =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset, such as 2026-11-01T00:00:00Z' })
    .openapi({ param: { name, in: 'query' }, description, example });

/** The period of a ledger report. */
export const LedgerQuerySchema = z.object({
  from: instant('from', 'Start of the period, inclusive.', '2026-11-01T00:00:00Z'),
  to: instant('to', 'End of the period, exclusive; after `from`.', '2026-12-01T00:00:00Z'),
  partnerId: z.string().min(1).optional().openapi({ param: { name: 'partnerId', in: 'query' }, description: 'Only this partner’s money movements.', example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

const AccountTotalSchema = z
  .object({
    account: z.enum(LEDGER_ACCOUNTS).openapi({ description: 'See the payments guide (docs/payments.md), "Payments: the ledger".' }),
    amountMinor: z.number().int().openapi({ description: 'Net movement in minor units: debits positive, credits negative.', example: 4400 }),
    amount: z.number().openapi({ description: '`amountMinor` in major units of the currency.', example: 44 }),
  })
  .openapi('LedgerAccountTotal');

const CurrencyTotalsSchema = z
  .object({
    currency: z.string().openapi({ example: 'EUR' }),
    balanced: z.boolean().openapi({ description: 'The accounts sum to zero, as every journal does. False would be a defect: report it.' }),
    accounts: z.array(AccountTotalSchema).openapi({ description: 'Every account, in a fixed order.' }),
    journals: z.array(z.object({ kind: z.enum(JOURNAL_KINDS), count: z.number().int() }).openapi('LedgerJournalCount')).openapi({ description: 'How many money movements of each kind; kinds without any are left out.' }),
  })
  .openapi('LedgerCurrencyTotals');

export const LedgerReportSchema = z
  .object({
    from: z.string().openapi({ example: '2026-11-01T00:00:00.000Z' }),
    to: z.string().openapi({ example: '2026-12-01T00:00:00.000Z' }),
    partnerId: z.string().nullable().openapi({ example: null }),
    currencies: z.array(CurrencyTotalsSchema).openapi({ description: 'One entry per currency that moved in the period, alphabetical.' }),
  })
  .openapi('LedgerReport');

/** The wire form of a period's totals. */
export function ledgerReportToApi(period: { from: number; to: number; partnerId?: string | undefined }, totals: CurrencyTotals[]): z.infer<typeof LedgerReportSchema> {
  return {
    from: toIso(period.from),
    to: toIso(period.to),
    partnerId: period.partnerId ?? null,
    currencies: totals.map((t) => ({
      currency: t.currency,
      balanced: t.balanced,
      accounts: LEDGER_ACCOUNTS.map((account) => ({ account, amountMinor: t.accounts[account], amount: toMajor(t.accounts[account], t.currency) })),
      journals: JOURNAL_KINDS.filter((k) => t.journals[k]).map((kind) => ({ kind, count: t.journals[kind]! })),
    })),
  };
}

/** The period of a reconciliation (no partner: the provider's balance is the deployment's). */
export const ReconciliationQuerySchema = LedgerQuerySchema.pick({ from: true, to: true });

const MismatchSchema = z
  .object({
    reason: z.enum(['missing_in_ledger', 'missing_at_provider', 'amount_differs', 'fee_differs']).openapi({
      description: '`missing_in_ledger`: the provider moved money no journal records; `missing_at_provider`: a journal names a movement the provider does not list; `amount_differs` / `fee_differs`: both have it, with other amounts.',
    }),
    providerRef: z.string().openapi({ example: 'ch_3QxYz2AbCdEf' }),
    currency: z.string().openapi({ example: 'EUR' }),
    providerType: z.string().nullable().openapi({ description: 'The provider’s kind of entry (Stripe’s balance transaction `type`).', example: 'charge' }),
    providerCategory: z.string().nullable().openapi({
      description: 'The provider’s accounting category (Stripe’s `reporting_category`). A dispute’s entries (`dispute`, `dispute_reversal` when won) are compared together with its journals; `transfer_reversal` (a payout reversed in the dashboard) is never booked by the service and is always reported `missing_in_ledger`, for an operator to act on.',
      example: 'charge',
    }),
    providerAmountMinor: z.number().int().nullable(),
    ledgerAmountMinor: z.number().int().nullable(),
    providerFeeMinor: z.number().int().nullable(),
    ledgerFeeMinor: z.number().int().nullable(),
    journalIds: z.array(z.string()),
  })
  .openapi('ReconciliationMismatch');

export const ReconciliationSchema = z
  .object({
    provider: z.string().openapi({ example: 'stripe' }),
    available: z.boolean().openapi({ description: 'False with the sandbox provider: it moves no money, there is no balance to compare.' }),
    from: z.string(),
    to: z.string(),
    checked: z.number().int().openapi({ description: 'The provider’s charges, refunds and transfers in the period, each compared with its journal.' }),
    matched: z.number().int(),
    mismatches: z.array(MismatchSchema),
    other: z
      .array(z.object({ type: z.string(), currency: z.string(), count: z.number().int(), amountMinor: z.number().int() }).openapi('ReconciliationOther'))
      .openapi({ description: 'The provider’s other entries in the period (payouts to the platform’s bank, its own fees…), summed: not money of a resale.' }),
  })
  .openapi('Reconciliation');
