/** A seller's account at the payout provider, as the provider tells it. */
export interface SellerAccountState {
  accountId: string;
  /** The seller finished the provider's onboarding. */
  detailsSubmitted: boolean;
  /** Transfers to the account are accepted. */
  transfersActive: boolean;
  /** The provider pays the account out to the seller's bank. */
  payoutsEnabled: boolean;
}

/** What a transfer came to. `retryable` false: asking again will not help (an operator must look). */
export type TransferResult = { ok: true; ref: string } | { ok: false; code: string; retryable: boolean };

/**
 * What the service needs from a provider that pays sellers (Stripe Connect): an account per
 * seller, onboarded on the provider's own pages, and transfers to it. Without one (the sandbox),
 * sellers give an IBAN and payouts are marked delivered by the payout job (no money moves in
 * the sandbox). Every call that moves money carries an idempotency key.
 */
export interface PayoutProvider {
  readonly name: string;
  /** Origins of the provider's onboarding pages: a form whose answer redirects there needs them in its `form-action`. */
  readonly onboardingOrigins: readonly string[];
  /** Opens a seller's account (the same idempotency key finds the same account again). */
  createSellerAccount(input: { partnerId: string; userPk: string; email: string | null; country: string | null; idempotencyKey: string }): Promise<SellerAccountState>;
  /** A single-use link to the provider's onboarding of the account; `refreshUrl` when it expired, `returnUrl` when done. */
  onboardingLink(input: { accountId: string; returnUrl: string; refreshUrl: string }): Promise<string>;
  /**
   * A single-use link that signs the seller in to the provider's dashboard of their account
   * (Stripe: the Express Dashboard), where they change their bank account and follow their
   * payouts. Only for an account that finished onboarding.
   */
  dashboardLink(accountId: string): Promise<string>;
  /** The account's state as the provider has it now. */
  sellerAccount(accountId: string): Promise<SellerAccountState>;
  /** Moves a payout to the seller's account. Never reversed by the service: a delivered payout is final. */
  transfer(input: { accountId: string; amountMinor: number; currency: string; idempotencyKey: string; group: string | null; metadata: Record<string, string> }): Promise<TransferResult>;
}
