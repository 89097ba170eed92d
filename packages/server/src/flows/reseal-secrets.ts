import type { Tx } from '../db/client.js';
import type { ResealCount } from '../lib/crypto.js';
import { PayoutAccounts } from '../domain/payouts/payouts.accounts.js';
import type { Kernel } from '../lib/kernel.js';
import type { AuthService } from '../domain/auth/auth.service.js';
import type { MessagesService } from '../domain/email/email.service.js';
import type { PartnersService } from '../domain/partners/partners.service.js';
import type { UsersService } from '../domain/users/users.service.js';

/** What resealing needs: the keyring, and the owners of the tables with sealed columns. */
export type ResealSecretsDeps = Pick<Kernel, 'box' | 'clock'> & { partners: PartnersService; users: UsersService; messages: MessagesService; auth: AuthService };

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
