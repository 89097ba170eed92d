import type { Tx } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { balancedLines, type JournalKind, type JournalLine } from './ledger.accounts.js';
import { ledgerEntries, ledgerJournals } from './ledger.table.js';
import type { Kernel } from '../../lib/kernel.js';

/** A money movement to record: what moved, once (`key`), and its lines. */
export interface JournalInput {
  partnerId: string;
  kind: JournalKind;
  /** Names the movement once: a second posting with the same key is ignored (see ledger.table.ts). */
  key: string;
  currency: string;
  intentionId?: string | null;
  payoutId?: string | null;
  provider?: string | null;
  providerRef?: string | null;
  lines: readonly JournalLine[];
}

/**
 * The ledger: the one writer of `ledger_journals` and `ledger_entries`. Callers post in the
 * transaction of the change the journal records (a sale in the purchase's, a refund decision
 * in the cancellation's, a payout in its delivery's), so the ledger and the state it
 * describes commit or roll back together. What each movement's lines are is in
 * ledger.accounts.ts.
 */
export class LedgerService {
  constructor(private readonly deps: Pick<Kernel, 'clock'>) {}

  /**
   * Records a journal; false when one with the same key exists already (nothing written).
   * @throws Error when the lines do not balance: the caller's transaction rolls back whole.
   */
  async post(tx: Tx, input: JournalInput): Promise<boolean> {
    const lines = balancedLines(input.lines);
    if (lines.length === 0) return false;
    const now = this.deps.clock.now();
    const currency = input.currency.toUpperCase();
    const journalId = newId('journal');
    const inserted = await tx
      .insert(ledgerJournals)
      .values({
        id: journalId,
        partnerId: input.partnerId,
        kind: input.kind,
        key: input.key,
        currency,
        intentionId: input.intentionId ?? null,
        payoutId: input.payoutId ?? null,
        provider: input.provider ?? null,
        providerRef: input.providerRef ?? null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: ledgerJournals.id });
    if (inserted.length === 0) return false;
    await tx.insert(ledgerEntries).values(lines.map((l) => ({ id: newId('ledgerEntry'), journalId, partnerId: input.partnerId, account: l.account, amountMinor: l.amountMinor, currency, createdAt: now })));
    return true;
  }
}
