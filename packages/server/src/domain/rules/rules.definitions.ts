import { z } from '@hono/zod-openapi';
import { fromIso, toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import { defineRule, type AnyRuleDefinition, type CheckedScope, type StoredOf } from './rules.define.js';

/**
 * The rule types, one `defineRule()` each: what POST /v1/rules accepts, what is stored, what is
 * answered. To add a rule type, add its definition to RULE_DEFINITIONS (the order is the
 * order of the OpenAPI unions and of GET's answer), then read it where it applies: the rules in
 * force (`effectiveRules`, rules.service.ts) are typed from this list. Each definition names
 * where it is enforced.
 *
 * The spec leaves the shape of each rules object open ("not shown"); the shapes below are our
 * decisions, documented in the OpenAPI descriptions. Every rules object is strict: an unknown
 * field is `unknown_field`, so a typo is an error, not silence. Stored money is integer minor
 * units in the ticket option's currency; stored instants are UTC epoch milliseconds.
 */

// ------------------------------------------------------------------ field helpers

const isoInstant = () =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset, such as 2026-05-01T18:00:00+02:00' })
    .openapi({ example: '2026-05-01T18:00:00+02:00' });

const hoursBeforeShow = (description: string) => z.number().min(0).max(720).openapi({ description, example: 3 });

// ------------------------------------------------------------------ qrUnlock

/**
 * When the QR of the secure ticket view unlocks: hours before the show, or an instant.
 * Enforced by tickets.view.ts (`readTicketView`, through `qrUnlockAt` of tickets.access.ts).
 */
const qrUnlock = defineRule({
  ruleType: 'qrUnlock',
  input: z
    .strictObject({
      hoursBeforeShow: hoursBeforeShow('The QR unlocks this many hours before the start of the show.').optional(),
      unlockAt: isoInstant().optional().openapi({ description: 'The QR unlocks at this instant.' }),
    })
    .superRefine((r, ctx) => {
      if ((r.hoursBeforeShow === undefined) === (r.unlockAt === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'must hold exactly one of hoursBeforeShow or unlockAt' });
      }
    }),
  description:
    'qrUnlock: when the QR code of the secure ticket view (ticketShield) unlocks for tickets of this scope. ' +
    'Send exactly one of hoursBeforeShow (hours before the start of the show, 0 to 720, decimals allowed) or unlockAt (an ISO 8601 instant with offset; answered in UTC). ' +
    "Overrides the partner's qrLockHoursBeforeShow setting. Posting again replaces the rule.",
  example: { hoursBeforeShow: 3 },
  toStored: (r): { hoursBeforeShow: number } | { unlockAt: number } => (r.unlockAt !== undefined ? { unlockAt: fromIso(r.unlockAt) } : { hoursBeforeShow: r.hoursBeforeShow! }),
  toApi: (r) => ('unlockAt' in r ? { unlockAt: toIso(r.unlockAt) } : { hoursBeforeShow: r.hoursBeforeShow }),
});

// ------------------------------------------------------------------ Super Swap

/** From how many hours before the show a Super Swap resale is possible. Stored and answered; nothing enforces it yet. */
const superSwapUnlock = defineRule({
  ruleType: 'superSwapUnlock',
  input: z.strictObject({
    hoursBeforeShow: hoursBeforeShow('A Super Swap resale is possible from this many hours before the start of the show (0 to 720).').openapi({ example: 48 }),
  }),
  description: 'superSwapUnlock: from when before the show a Super Swap resale is possible for tickets of this scope. Posting again replaces the rule.',
  example: { hoursBeforeShow: 48 },
  toStored: (r): { hoursBeforeShow: number } => ({ hoursBeforeShow: r.hoursBeforeShow }),
  toApi: (r) => ({ hoursBeforeShow: r.hoursBeforeShow }),
});

const SUPER_SWAP_FLAGS = {
  enabled: 'Super Swap is offered for tickets of this scope. Default false.',
  reissueTicketAccess: "The buyer gets newly issued access credentials and the seller's old ones stop working. Default true.",
  allowAfterQrUnlock: 'A Super Swap is still possible after the QR code has unlocked. Default false.',
} as const;

/** The Super Swap flags as stored: every flag present (merged with the stored value and the defaults). */
export type SuperSwapFlags = { enabled: boolean; reissueTicketAccess: boolean; allowAfterQrUnlock: boolean };

/** superSwapConfig flags the first time one is posted for a scope. */
export const SUPER_SWAP_DEFAULTS: SuperSwapFlags = { enabled: false, reissueTicketAccess: true, allowAfterQrUnlock: false };

/**
 * Whether and how Super Swap is offered. The one rule that merges: a flag omitted keeps its
 * stored value. Stored and answered; nothing enforces it yet.
 */
const superSwapConfig = defineRule({
  ruleType: 'superSwapConfig',
  input: z.strictObject({
    enabled: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.enabled, example: true }),
    reissueTicketAccess: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.reissueTicketAccess, example: true }),
    allowAfterQrUnlock: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.allowAfterQrUnlock, example: false }),
  }),
  description:
    "superSwapConfig: Super Swap is a resale in which the buyer gets newly issued access credentials and the seller's old ones stop working. " +
    'PARTIAL update: a flag omitted keeps its stored value for the same scope; the first time, omitted flags take the defaults ' +
    '(enabled false, reissueTicketAccess true, allowAfterQrUnlock false). A combination-scoped superSwapConfig starts from these defaults, not from the ticket option’s.',
  example: { enabled: true },
  // As stored and answered: every flag present.
  output: z
    .object({
      enabled: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.enabled, example: true }),
      reissueTicketAccess: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.reissueTicketAccess, example: true }),
      allowAfterQrUnlock: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.allowAfterQrUnlock, example: false }),
    })
    .openapi('SuperSwapConfigState', { description: 'superSwapConfig after merging: every flag present.' }),
  toStored: async (sent, ctx): Promise<SuperSwapFlags> => {
    // Merged with the defaults too: a stored value may predate a flag.
    const current = { ...SUPER_SWAP_DEFAULTS, ...(await ctx.previous()) };
    return {
      enabled: sent.enabled ?? current.enabled,
      reissueTicketAccess: sent.reissueTicketAccess ?? current.reissueTicketAccess,
      allowAfterQrUnlock: sent.allowAfterQrUnlock ?? current.allowAfterQrUnlock,
    };
  },
  toApi: (r) => ({ ...r }),
});

// ------------------------------------------------------------------ maxSell

/**
 * Tickets one seller may have listed or sold at once for the show, within the scope. Enforced
 * by listings.service.ts (`check`, `heldBySeller`, `quote`; refusal reason `max_sell_reached`).
 */
const maxSell = defineRule({
  ruleType: 'maxSell',
  input: z.strictObject({
    maxTickets: z.number().int().min(1).max(1000).openapi({ description: 'Integer 1 to 1000.', example: 4 }),
  }),
  description: 'maxSell: how many tickets one seller may have listed or sold at once for this show within the scope of the rule. Posting again replaces the rule.',
  example: { maxTickets: 4 },
  toStored: (r): { maxTickets: number } => ({ maxTickets: r.maxTickets }),
  toApi: (r) => ({ maxTickets: r.maxTickets }),
});

// ------------------------------------------------------------------ platformFees

const percent = (who: string) => z.number().min(0).max(50).optional().openapi({ description: `Fee ${who}, in percent of the listing price (0 to 50).`, example: 8 });
const fixed = (who: string) =>
  z.number().min(0).optional().openapi({ description: `Fixed fee per ticket ${who}, in major units of the ticket option’s currency (at most its decimals).`, example: 1.5 });

/**
 * The partner's fees overridden for the scope: only the fees sent are stored; an absent one
 * falls back to the partner's fee. Enforced by listings.service.ts (`fees`, through
 * `feesWithOverride` of lib/fees.ts).
 */
const platformFees = defineRule({
  ruleType: 'platformFees',
  input: z
    .strictObject({
      buyerPercent: percent('the buyer pays on top of the listing price'),
      buyerFixed: fixed('the buyer pays'),
      sellerPercent: percent('kept from the seller'),
      sellerFixed: fixed('kept from the seller'),
    })
    .superRefine((r, ctx) => {
      if (r.buyerPercent === undefined && r.buyerFixed === undefined && r.sellerPercent === undefined && r.sellerFixed === undefined) {
        ctx.addIssue({ code: 'custom', message: 'must hold at least one of buyerPercent, buyerFixed, sellerPercent, sellerFixed' });
      }
    }),
  description:
    "platformFees: overrides the partner's fees for this scope. At least one field; a field omitted falls back to the partner's fee. " +
    'Posting again replaces the whole rule (it does not merge). Fixed amounts are stored in minor units and answered in major units.',
  example: { buyerPercent: 8, sellerFixed: 1.5 },
  itemExample: { rules: { buyerPercent: 8 } },
  toStored: (r, { minor }): { buyerPercent?: number; buyerFixedMinor?: number; sellerPercent?: number; sellerFixedMinor?: number } => ({
    ...(r.buyerPercent !== undefined ? { buyerPercent: r.buyerPercent } : {}),
    ...(r.buyerFixed !== undefined ? { buyerFixedMinor: minor(r.buyerFixed, 'buyerFixed') } : {}),
    ...(r.sellerPercent !== undefined ? { sellerPercent: r.sellerPercent } : {}),
    ...(r.sellerFixed !== undefined ? { sellerFixedMinor: minor(r.sellerFixed, 'sellerFixed') } : {}),
  }),
  toApi: (f, { major }) => ({
    ...(f.buyerPercent !== undefined ? { buyerPercent: f.buyerPercent } : {}),
    ...(f.buyerFixedMinor !== undefined ? { buyerFixed: major(f.buyerFixedMinor) } : {}),
    ...(f.sellerPercent !== undefined ? { sellerPercent: f.sellerPercent } : {}),
    ...(f.sellerFixedMinor !== undefined ? { sellerFixed: major(f.sellerFixedMinor) } : {}),
  }),
});

// ------------------------------------------------------------------ price rules

/** A price limit as stored: a percentage of the original price, or an amount in minor units. */
export type PriceRule = { type: 'PERCENTAGE'; percent: number } | { type: 'ABSOLUTE'; amountMinor: number };

const PRICE_TYPE_DESCRIPTION =
  'PERCENTAGE: value is a percentage of the original price (the combination’s price when the rule has a priceTypeId, else the ticket option’s price): ' +
  '100 = face value, 120 = 20% above. ABSOLUTE: value is an amount in major units of the ticket option’s currency.';

function describePrice(p: PriceRule, currency: string): string {
  return p.type === 'PERCENTAGE' ? `PERCENTAGE ${p.percent}` : `ABSOLUTE ${toMajor(p.amountMinor, currency)} ${currency}`;
}

/** Within one scope the minimum may not exceed the maximum when both have the same type (400 naming the last item that set one). */
async function checkPriceLimits(scope: CheckedScope): Promise<void> {
  const min = (await scope.stored('minPriceSellConfig')) as PriceRule | undefined;
  const max = (await scope.stored('maxPriceSellConfig')) as PriceRule | undefined;
  if (!min || !max) return;
  const exceeds =
    min.type === 'PERCENTAGE' && max.type === 'PERCENTAGE'
      ? min.percent > max.percent
      : min.type === 'ABSOLUTE' && max.type === 'ABSOLUTE'
        ? min.amountMinor > max.amountMinor
        : false;
  if (!exceeds) return;
  const path = `${scope.index}.rules.value`;
  throw ApiError.field(
    'invalid_value',
    path,
    `${path}: the minPriceSellConfig of ${scope.label} (${describePrice(min, scope.currency)}) would exceed its maxPriceSellConfig (${describePrice(max, scope.currency)})`,
  );
}

/**
 * The parts every price rule shares: `{type, value}` in, a PriceRule stored. Price rules are
 * enforced by listings.pricing.ts (`priceLimits`, `settlePrice`; refusal reason `price_rejected`
 * from listings.service.ts).
 */
function priceRule(description: string, example: { type: 'PERCENTAGE' | 'ABSOLUTE'; value: number }) {
  return {
    input: z.strictObject({
      type: z.enum(['PERCENTAGE', 'ABSOLUTE']).openapi({ description: PRICE_TYPE_DESCRIPTION, example: example.type }),
      value: z.number().min(0).openapi({ description: 'A percentage (PERCENTAGE) or an amount in major units (ABSOLUTE); not negative.', example: example.value }),
    }),
    description: `${description} ${PRICE_TYPE_DESCRIPTION} Posting again replaces the rule.`,
    example,
    toStored: (r: { type: 'PERCENTAGE' | 'ABSOLUTE'; value: number }, { minor }: { minor: (amount: number, field: string) => number }): PriceRule =>
      r.type === 'PERCENTAGE' ? { type: 'PERCENTAGE', percent: r.value } : { type: 'ABSOLUTE', amountMinor: minor(r.value, 'value') },
    toApi: (p: PriceRule, { major }: { major: (minor: number) => number }) => (p.type === 'PERCENTAGE' ? { type: p.type, value: p.percent } : { type: p.type, value: major(p.amountMinor) }),
  };
}

/** The highest price a seller may ask (see `priceRule`). */
const maxPriceSellConfig = defineRule({
  ruleType: 'maxPriceSellConfig',
  ...priceRule(
    'maxPriceSellConfig (replaces the deprecated maxPriceSell): the highest listing price a seller may choose. Within one scope it must not be below minPriceSellConfig when both have the same type.',
    { type: 'PERCENTAGE', value: 120 },
  ),
  itemExample: { priceTypeId: 'pt-early', rules: { type: 'PERCENTAGE', value: 120 } },
  checkScope: checkPriceLimits,
});

/** The lowest price a seller may ask (see `priceRule`). */
const minPriceSellConfig = defineRule({
  ruleType: 'minPriceSellConfig',
  ...priceRule(
    'minPriceSellConfig (replaces the deprecated minPriceSell): the lowest listing price a seller may choose. Within one scope it must not exceed maxPriceSellConfig when both have the same type.',
    { type: 'ABSOLUTE', value: 20 },
  ),
  checkScope: checkPriceLimits,
});

/** The price, which the seller cannot choose (see `priceRule`). */
const fixedListingPrice = defineRule({
  ruleType: 'fixedListingPrice',
  ...priceRule('fixedListingPrice: the listing price is fixed; the seller cannot choose it.', { type: 'PERCENTAGE', value: 100 }),
});

// ------------------------------------------------------------------ the list

/** Every rule type, in the order of the OpenAPI unions and of GET /v1/rules. `COMBINATION` is not one: it is a combination. */
export const RULE_DEFINITIONS = [qrUnlock, superSwapUnlock, superSwapConfig, maxSell, platformFees, maxPriceSellConfig, minPriceSellConfig, fixedListingPrice] as const;

type Definitions = (typeof RULE_DEFINITIONS)[number];

/** The rule types stored as rules, in the order GET answers them. */
export type RuleType = Definitions['ruleType'];
export const RULE_TYPES: readonly RuleType[] = RULE_DEFINITIONS.map((d) => d.ruleType);

/** The stored value of each rule type (see each definition). */
export type RuleValues = { [D in Definitions as D['ruleType']]: StoredOf<D> };

const BY_TYPE = new Map<string, AnyRuleDefinition>((RULE_DEFINITIONS as readonly AnyRuleDefinition[]).map((d) => [d.ruleType, d]));

export function isRuleType(value: string): value is RuleType {
  return BY_TYPE.has(value);
}

/** The definition of a rule type, for code that dispatches on `ruleType` without knowing which. */
export function ruleDefinition(ruleType: RuleType): AnyRuleDefinition {
  return BY_TYPE.get(ruleType)!;
}
