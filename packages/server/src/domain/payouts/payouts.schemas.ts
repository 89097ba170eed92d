import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { toMajor } from '../../lib/money.js';
import { PAYOUT_STATES } from './payouts.table.js';
import type { PayoutRow } from './payouts.service.js';

/** Largest page of the operator's payout list. */
export const PAYOUTS_PAGE_MAX = 200;
const PAYOUTS_PAGE_DEFAULT = 50;

const q = (name: string) => ({ param: { name, in: 'query' as const } });

/** What the operator's payout list selects. */
export const PayoutListQuerySchema = z.object({
  partnerId: z.string().min(1).optional().openapi({ ...q('partnerId'), description: 'Only this partner’s payouts.', example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
  state: z.enum(PAYOUT_STATES).optional().openapi({ ...q('state'), description: 'Only payouts in this state.', example: 'SCHEDULED' }),
  overdue: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional()
    .openapi({ ...q('overdue'), description: 'true: only payouts past their date and not delivered (SCHEDULED or SENDING): the ones whose `lastError` needs a look.', example: 'true' }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(PAYOUTS_PAGE_MAX)
    .default(PAYOUTS_PAGE_DEFAULT)
    .openapi({ ...q('limit'), description: `Page size, 1 to ${PAYOUTS_PAGE_MAX}.`, example: PAYOUTS_PAGE_DEFAULT }),
  startingAfter: z.string().min(1).optional().openapi({ ...q('startingAfter'), description: 'The previous page’s nextCursor.', example: 'po_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
});

export const PayoutSchema = z
  .object({
    id: z.string().openapi({ example: 'po_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    partnerId: z.string().openapi({ example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    sellerId: z.string().openapi({ description: 'The seller as the partner knows them: their user id, else e-mail, else phone (as in `payouts.delivered`).', example: 'user-42' }),
    listingId: z.string().openapi({ example: 'lst_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    amount: z.number().openapi({ description: 'What the seller is owed, in major units.', example: 38 }),
    amountMinor: z.number().int().openapi({ example: 3800 }),
    currency: z.string().openapi({ example: 'EUR' }),
    state: z.enum(PAYOUT_STATES).openapi({
      description: 'SCHEDULED (waiting for its date, or refused and waiting for the next run), SENDING (the transfer is being asked for), DELIVERED (final), CANCELLED (the show was cancelled first).',
    }),
    dueAt: z.string().openapi({ description: '`payoutDelayDays` after the show: never paid before.', example: '2026-12-08T20:00:00.000Z' }),
    deliveredAt: z.string().nullable().openapi({ example: null }),
    cancelledAt: z.string().nullable().openapi({ example: null }),
    transferRef: z.string().nullable().openapi({ description: 'The payout provider’s transfer (Stripe `tr_…`), once delivered through one.', example: null }),
    lastError: z.string().nullable().openapi({
      description: 'Why the last attempt did not deliver it: `seller_account_not_ready` (the seller has not finished the provider’s onboarding), or the provider’s refusal code (such as `balance_insufficient`). Cleared on delivery.',
      example: 'seller_account_not_ready',
    }),
    createdAt: z.string().openapi({ example: '2026-11-24T18:00:00.000Z' }),
  })
  .openapi('Payout');

export const PayoutListSchema = z
  .object({
    items: z.array(PayoutSchema).openapi({ description: 'In the order they were scheduled.' }),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `startingAfter` for the next page; null on the last page.', example: null }),
  })
  .openapi('PayoutList');

/** The wire form of a payout, with its seller as the partner knows them. */
export function payoutToApi(p: PayoutRow, sellerId: string): z.infer<typeof PayoutSchema> {
  return {
    id: p.id,
    partnerId: p.partnerId,
    sellerId,
    listingId: p.listingId,
    amount: toMajor(p.amountMinor, p.currency),
    amountMinor: p.amountMinor,
    currency: p.currency,
    state: p.state,
    dueAt: toIso(p.dueAt),
    deliveredAt: p.deliveredAt == null ? null : toIso(p.deliveredAt),
    cancelledAt: p.cancelledAt == null ? null : toIso(p.cancelledAt),
    transferRef: p.transferRef,
    lastError: p.lastError,
    createdAt: toIso(p.createdAt),
  };
}
