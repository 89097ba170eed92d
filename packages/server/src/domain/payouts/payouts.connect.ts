import type { Lang } from '@resale/shared/lang';
import { and, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { SessionData } from '../auth/auth.service.js';

import type { PayoutProvider, SellerAccountState } from './payouts.provider.js';
import { payoutCountry } from './payouts.countries.js';
import { connectAccounts } from './payouts.table.js';
import type { Kernel } from '../../lib/kernel.js';
import type { AuthService } from '../auth/auth.service.js';
import type { MessagesService } from '../email/email.service.js';
import type { UsersService } from '../users/users.service.js';

export type ConnectAccountRow = typeof connectAccounts.$inferSelect;

/** What a seller (and the pages) may see of their connected account. */
export interface ConnectAccountView {
  /** The provider's account id, shortened to its last four characters. */
  accountHint: string;
  /** `ready`: onboarding finished and transfers accepted; `pending`: onboarding not finished (or the provider still checks). */
  status: 'ready' | 'pending';
  payoutsEnabled: boolean;
}

/**
 * Sellers' connected accounts at the payout provider (Stripe Connect, Express): opened from
 * the sell flow when the provider is configured, onboarded on the provider's pages, their state
 * kept from the provider's events. Written only here (the payouts module owns the table).
 */
export class ConnectAccounts {
  constructor(
    private readonly deps: Pick<Kernel, 'db' | 'clock'> & { auth: AuthService; users: UsersService; messages: MessagesService },
    readonly provider: PayoutProvider,
  ) {}

  async get(tx: Tx, userPk: string): Promise<ConnectAccountRow | undefined> {
    return (await tx.select().from(connectAccounts).where(eq(connectAccounts.userPk, userPk)).limit(1))[0];
  }

  async view(tx: Tx, userPk: string): Promise<ConnectAccountView | null> {
    const row = await this.get(tx, userPk);
    return row ? viewOf(row) : null;
  }

  /** A seller can be paid there: onboarding finished and the provider accepts transfers. */
  static ready(row: Pick<ConnectAccountRow, 'detailsSubmitted' | 'transfersActive'> | undefined): boolean {
    return !!row && row.detailsSubmitted && row.transfersActive;
  }

  /**
   * The seller's way to the provider's onboarding: their account (opened now, once: the
   * provider finds it again by the idempotency key `acct:<user>`, and the seller is told by
   * e-mail, else SMS, that where their payouts go changed), in the `country` they live in (an
   * account's country is fixed once opened; see payouts.countries.ts), then a single-use
   * onboarding link. Only within a fresh step-up of their own session, as any change of where
   * money goes. `country` is read only when the account is opened.
   *
   * @throws 403 `step_up_required` without a recent one-time code; 400 on `country` when the account is to be opened and it is missing or not one payouts can go to
   */
  async onboardingLink(session: Pick<SessionData, 'partnerId' | 'userPk' | 'steppedUpAt'>, urls: { returnUrl: string; refreshUrl: string }, lang: Lang, country: string | null = null): Promise<string> {
    if (!this.deps.auth.isSteppedUp(session)) throw new ApiError(403, 'step_up_required', 'Confirm it is you with a one-time code before setting up payouts');
    let row = await this.deps.db.read(async (tx) => await this.get(tx, session.userPk));
    if (!row) {
      const where = payoutCountry(country);
      if (!where) throw ApiError.field(country ? 'invalid_value' : 'missing_field', 'country', country ? 'Payouts cannot go to this country' : 'Choose the country you live in');
      const user = await this.deps.db.read(async (tx) => await this.deps.users.get(tx, session.partnerId, session.userPk));
      const state = await this.provider.createSellerAccount({ partnerId: session.partnerId, userPk: session.userPk, email: user.email, country: where, idempotencyKey: `acct:${session.userPk}` });
      row = await this.deps.db.transact(async (tx) => {
        const now = this.deps.clock.now();
        const inserted = await tx
          .insert(connectAccounts)
          .values({ id: newId('connectAccount'), partnerId: session.partnerId, userPk: session.userPk, provider: this.provider.name, ...stateColumns(state), createdAt: now, updatedAt: now })
          .onConflictDoNothing()
          .returning();
        if (inserted[0]) await this.deps.messages.toUser(tx, session.partnerId, user, 'payoutDetailsChanged', lang, { holderName: 'Stripe', accountHint: hintOf(state.accountId) });
        return inserted[0] ?? (await this.get(tx, session.userPk))!;
      });
    }
    return await this.provider.onboardingLink({ accountId: row.accountId, ...urls });
  }

  /**
   * A single-use link that signs the seller in to the provider's dashboard of their account,
   * where they change the bank account their payouts go to. Only within a fresh step-up, as any
   * change of where money goes, and only for an account that finished onboarding (the
   * provider has no dashboard before).
   *
   * @throws 403 `step_up_required` without a recent one-time code; 409 `conflict` without a finished account
   */
  async dashboardLink(session: Pick<SessionData, 'userPk' | 'steppedUpAt'>): Promise<string> {
    if (!this.deps.auth.isSteppedUp(session)) throw new ApiError(403, 'step_up_required', 'Confirm it is you with a one-time code before changing where your payouts go');
    const row = await this.deps.db.read(async (tx) => await this.get(tx, session.userPk));
    if (!row?.detailsSubmitted) throw ApiError.conflict('Finish setting up payouts first');
    return await this.provider.dashboardLink(row.accountId);
  }

  /** Reads the account's state from the provider again (the seller is back from onboarding) and keeps it. */
  async refresh(userPk: string): Promise<ConnectAccountView | null> {
    const row = await this.deps.db.read(async (tx) => await this.get(tx, userPk));
    if (!row) return null;
    const state = await this.provider.sellerAccount(row.accountId);
    return await this.deps.db.transact(async (tx) => {
      await this.apply(tx, state);
      return await this.view(tx, userPk);
    });
  }

  /** The provider's state of an account (its `account.updated` event, or a read), kept. False for an account the service does not know. */
  async apply(tx: Tx, state: SellerAccountState): Promise<boolean> {
    const moved = await tx
      .update(connectAccounts)
      .set({ ...stateColumns(state), updatedAt: this.deps.clock.now() })
      .where(and(eq(connectAccounts.provider, this.provider.name), eq(connectAccounts.accountId, state.accountId)))
      .returning({ id: connectAccounts.id });
    return moved.length === 1;
  }
}

function stateColumns(state: SellerAccountState) {
  return { accountId: state.accountId, detailsSubmitted: state.detailsSubmitted, transfersActive: state.transfersActive, payoutsEnabled: state.payoutsEnabled };
}

function hintOf(accountId: string): string {
  return accountId.slice(-4).toUpperCase();
}

function viewOf(row: ConnectAccountRow): ConnectAccountView {
  return { accountHint: hintOf(row.accountId), status: ConnectAccounts.ready(row) ? 'ready' : 'pending', payoutsEnabled: row.payoutsEnabled };
}
