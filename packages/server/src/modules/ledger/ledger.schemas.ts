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
    account: z.enum(LEDGER_ACCOUNTS).openapi({ description: 'See README, Payments: the ledger.' }),
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
