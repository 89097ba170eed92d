import type { AppDeps } from '../context.js';
import type { Tx } from '../db/client.js';
import type { ResealCount } from '../lib/crypto.js';
import { PayoutAccounts } from '../modules/payouts/payouts.accounts.js';

/** What resealing needs: the keyring, and the owners of the tables with sealed columns. */
export type ResealSecretsDeps = Pick<AppDeps, 'box' | 'partners' | 'clock' | 'users' | 'messages' | 'auth'>;

/** Rows read and rewritten, per table with sealed columns. */
export type ResealReport = Record<'partners' | 'payout_accounts', ResealCount>;

/**
 * Seals every secret stored in the database again under the newest key of `deps.box`
 * (`SECRET_KEY`'s first), so the older keys can leave `SECRET_KEY` afterwards (docs/operating.md,
 * "Secret rotation"). Each table is rewritten by its owner, in the caller's transaction, so
 * a value that cannot be opened (its key is no longer listed) rolls the whole run back and
 * names its row: nothing is left half done. Values already under the newest key are left as
 * they are, so a second run rewrites nothing.
 *
 * 1. partners: the webhook secret, the previous one during a rotation's grace, the platform secret;
 * 2. payouts: the sellers' payout account numbers.
 *
 * @throws SealedSecretError naming the table, row and column of a value no key of `deps.box` opens
 * @example const report = await deps.db.transact((tx) => resealSecrets(deps, tx)); // { partners: { rows: 3, resealed: 3 }, … }
 */
export async function resealSecrets(deps: ResealSecretsDeps, tx: Tx): Promise<ResealReport> {
  return {
    partners: await deps.partners.resealAll(tx, deps.box),
    payout_accounts: await new PayoutAccounts(deps).resealAll(tx, deps.box),
  };
}
