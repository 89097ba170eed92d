import { dbTable, index, integer, text } from '../../db/schema-builders.js';
import { partnerColumn, timestamps } from '../../db/columns.js';
import { shows } from '../events/events.table.js';
import { users } from '../users/users.table.js';

/**
 * Buy intention states. PENDING holds its listings (RESERVED) until `expiresAt`; from there:
 * PAID (payment succeeded, listings SOLD), FAILED (five payments declined, or high risk; one declined card keeps the hold for a retry), EXPIRED (time ran out),
 * CANCELLED (by the buyer, or because a listing or its show stopped being sellable). Every
 * state but PENDING is final and has released (or sold) its listings.
 */
export const INTENTION_STATES = ['PENDING', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED'] as const;
export type IntentionState = (typeof INTENTION_STATES)[number];

/**
 * What a buy intention is: a buyer's own `checkout` (they picked the listings, under the hold
 * limits), or a `waitinglist` offer (the service held the listings for the fan next in a show's
 * waiting list, until the offer's end). Both are paid, expire and release the same way; the
 * kind only tells the waiting list which ends are its offers'.
 */
export const INTENTION_KINDS = ['checkout', 'waitinglist'] as const;
export type IntentionKind = (typeof INTENTION_KINDS)[number];

export const buyIntentions = dbTable(
  'buy_intentions',
  {
    id: text().primaryKey(),
    partnerId: partnerColumn(),
    showPk: text()
      .notNull()
      .references(() => shows.id, { onDelete: 'cascade' }),
    /** Known when created for a user (buyIntention), else set when the buyer signs in at checkout. */
    buyerPk: text().references(() => users.id),
    state: text({ enum: INTENTION_STATES }).notNull(),
    kind: text({ enum: INTENTION_KINDS }).notNull().default('checkout'),
    /** The listings it holds (or held): kept after they are released, for history and payment. */
    listingIds: text({ mode: 'json' }).$type<string[]>().notNull(),
    currency: text().notNull(),
    /** What the buyer pays in all: every listing's quantity × (price + buyer fee). */
    totalMinor: integer().notNull(),
    expiresAt: integer().notNull(),
    /** The partner page to go back to (buying flow's returnTo), if any: checked, see `partnerReturnTo`. */
    returnTo: text(),
    /**
     * Who reserved it on a hosted page, for the per-address hold limit: an HMAC of the client
     * address under the server key (counting needs equality, not the address). Null for API holds.
     */
    clientKey: text(),
    endReason: text(),
    paidAt: integer(),
    endedAt: integer(),
    ...timestamps,
  },
  (t) => [
    index('buy_intentions_due_idx').on(t.state, t.expiresAt),
    index('buy_intentions_partner_idx').on(t.partnerId, t.createdAt),
    // The hold limits count a buyer's and an address's live holds.
    index('buy_intentions_buyer_idx').on(t.buyerPk, t.state),
    index('buy_intentions_client_idx').on(t.clientKey, t.state),
    // The market reads a show's live holds on every view (its own, and when others may be back):
    // by show, not by scanning every live hold of the deployment.
    index('buy_intentions_show_idx').on(t.showPk, t.state),
  ],
);
