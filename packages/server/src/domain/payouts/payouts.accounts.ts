import type { Lang } from '@resale/shared/lang';
import { and, asc, eq, gt } from 'drizzle-orm';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import type { Tx } from '../../db/client.js';
import { affected } from '../../db/affected.js';
import { resealAt, type ResealCount, type SecretBox } from '../../lib/crypto.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { payoutAccounts } from './payouts.table.js';
import type { SessionData } from '../auth/auth.service.js';

import type { Kernel } from '../../lib/kernel.js';
import type { AuthService } from '../auth/auth.service.js';
import type { MessagesService } from '../email/email.service.js';
import type { UsersService } from '../users/users.service.js';

/** Rows read per statement while resealing. */
const RESEAL_BATCH = 500;

/** What a seller (and the pages) may see of a payout account: never the number itself. */
export interface PayoutAccountView {
  holderName: string;
  accountHint: string;
}

/**
 * A person's or a company's name as banks take it: it starts with a letter (any script, so
 * "Ana García" and "Łukasz" pass) and holds letters, digits, spaces and the punctuation of
 * names and SEPA's character set. "-1", a URL or markup is not a name a payout could be sent to.
 */
const HOLDER_NAME = /^\p{L}[\p{L}\p{M}\p{N} .,'’&()+\/-]*$/u;

/**
 * Sellers' payout accounts (IBAN), sealed at rest. `PENDING_PAYOUT_INFO` is shown while a
 * seller with listings has none.
 */
export class PayoutAccounts {
  constructor(private readonly deps: Pick<Kernel, 'clock' | 'box'> & { users: UsersService; messages: MessagesService; auth: AuthService }) {}

  /**
   * A seller sets or changes where their payouts go, from a hosted page: only within a fresh
   * step-up of their own session (a one-time code, see auth.step-up.tsx), and the seller is
   * told at once by e-mail (else SMS), so a change they did not make cannot go unnoticed.
   *
   * @throws 403 `step_up_required` when the session has not proved a code recently; 400 as {@link save}
   */
  async change(tx: Tx, session: Pick<SessionData, 'partnerId' | 'userPk' | 'steppedUpAt'>, input: { holderName: string; iban: string }, lang: Lang): Promise<PayoutAccountView> {
    if (!this.deps.auth.isSteppedUp(session)) throw new ApiError(403, 'step_up_required', 'Confirm it is you with a one-time code before changing payout details');
    const saved = await this.save(tx, session.partnerId, session.userPk, input);
    await this.deps.messages.toUser(tx, session.partnerId, await this.deps.users.get(tx, session.partnerId, session.userPk), 'payoutDetailsChanged', lang, saved);
    return saved;
  }

  async view(tx: Tx, userPk: string): Promise<PayoutAccountView | null> {
    const row = (await tx.select().from(payoutAccounts).where(eq(payoutAccounts.userPk, userPk)).limit(1))[0];
    return row ? { holderName: row.holderName, accountHint: row.accountHint } : null;
  }

  /**
   * Stores or replaces the user's account, unchecked: pages go through {@link change}.
   * @throws 400 naming `iban` or `holderName`
   */
  async save(tx: Tx, partnerId: string, userPk: string, input: { holderName: string; iban: string }): Promise<PayoutAccountView> {
    const holderName = input.holderName.trim().replace(/\s+/g, ' ');
    if (holderName.length < 2 || holderName.length > 140 || !HOLDER_NAME.test(holderName)) throw ApiError.field('invalid_value', 'holderName', 'Enter the account holder’s name');
    const iban = electronicFormatIBAN(input.iban) ?? '';
    if (!isValidIBAN(iban)) throw ApiError.field('invalid_format', 'iban', 'Enter a valid IBAN, such as ES91 2100 0418 4502 0005 1332');
    const now = this.deps.clock.now();
    const values = { holderName, accountSealed: this.deps.box.seal(iban), accountHint: iban.slice(-4), updatedAt: now };
    await tx.insert(payoutAccounts)
      .values({ id: newId('payoutAccount'), partnerId, userPk, createdAt: now, ...values })
      .onConflictDoUpdate({ target: payoutAccounts.userPk, set: values });
    return { holderName, accountHint: values.accountHint };
  }

  /** The clear account number, for the payout run only. */
  async reveal(tx: Tx, userPk: string): Promise<string | null> {
    const row = (await tx.select().from(payoutAccounts).where(eq(payoutAccounts.userPk, userPk)).limit(1))[0];
    return row ? this.deps.box.open(row.accountSealed) : null;
  }

  /**
   * Seals every account number again under the newest key of `box`, in the caller's
   * transaction and in batches by id. A row is written only when its number was under an
   * older key, and only if it still holds what was read (one a seller changed meanwhile was
   * sealed by the process that saved it). Harmless to run again.
   *
   * @returns how many rows were read and how many rewritten
   * @throws SealedSecretError (naming the account) when a number cannot be opened with `box`
   */
  async resealAll(tx: Tx, box: SecretBox): Promise<ResealCount> {
    const count: ResealCount = { rows: 0, resealed: 0 };
    let after = '';
    for (;;) {
      const batch = await tx
        .select({ id: payoutAccounts.id, sealed: payoutAccounts.accountSealed })
        .from(payoutAccounts)
        .where(gt(payoutAccounts.id, after))
        .orderBy(asc(payoutAccounts.id))
        .limit(RESEAL_BATCH);
      for (const row of batch) {
        count.rows++;
        const resealed = resealAt(box, row.sealed, `payout_accounts ${row.id} (account_sealed)`);
        if (resealed === null) continue;
        count.resealed += affected(
          await tx
            .update(payoutAccounts)
            .set({ accountSealed: resealed })
            .where(and(eq(payoutAccounts.id, row.id), eq(payoutAccounts.accountSealed, row.sealed))),
        );
      }
      if (batch.length < RESEAL_BATCH) return count;
      after = batch[batch.length - 1]!.id;
    }
  }
}
