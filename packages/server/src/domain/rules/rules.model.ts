/**
 * The domain types of rules, shared by rules.service.ts (which stores and reads them) and
 * rules.schemas.ts (which validates requests and serializes them), so that neither imports
 * the other's types back. Types and constants only: no database, no zod, no Hono.
 */

/** The rule types stored as rules, in the order GET answers them. `COMBINATION` is not one: it is a combination. */
export const RULE_TYPES = [
  'qrUnlock',
  'superSwapUnlock',
  'superSwapConfig',
  'maxSell',
  'platformFees',
  'maxPriceSellConfig',
  'minPriceSellConfig',
  'fixedListingPrice',
] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** The item type that creates or updates a combination instead of a rule. */
export const COMBINATION = 'COMBINATION';

export function isRuleType(value: string): value is RuleType {
  return (RULE_TYPES as readonly string[]).includes(value);
}

/** A price limit as stored: a percentage of the original price, or an amount in minor units. */
export type PriceRule = { type: 'PERCENTAGE'; percent: number } | { type: 'ABSOLUTE'; amountMinor: number };

/**
 * The stored value of each rule type. Money is integer minor units in the ticket option's
 * currency; instants are UTC epoch milliseconds. The API's shapes are in rules.schemas.ts.
 */
export interface RuleValues {
  /** When the QR of the secure ticket view unlocks: hours before the show, or an instant. */
  qrUnlock: { hoursBeforeShow: number } | { unlockAt: number };
  /** From how many hours before the show a Super Swap resale is possible. */
  superSwapUnlock: { hoursBeforeShow: number };
  /** Every flag present (merged with the stored value and the defaults). */
  superSwapConfig: { enabled: boolean; reissueTicketAccess: boolean; allowAfterQrUnlock: boolean };
  /** Tickets one seller may have listed or sold at once for the show, within the scope. */
  maxSell: { maxTickets: number };
  /** Only the fees sent; an absent one falls back to the partner's fee. */
  platformFees: { buyerPercent?: number; buyerFixedMinor?: number; sellerPercent?: number; sellerFixedMinor?: number };
  maxPriceSellConfig: PriceRule;
  minPriceSellConfig: PriceRule;
  fixedListingPrice: PriceRule;
}

/** superSwapConfig flags the first time one is posted for a scope. */
export const SUPER_SWAP_DEFAULTS: RuleValues['superSwapConfig'] = { enabled: false, reissueTicketAccess: true, allowAfterQrUnlock: false };

/** A rule with its type, so that `rules` narrows on `ruleType`. */
export type RuleEntry = { [K in RuleType]: { ruleType: K; rules: RuleValues[K] } }[RuleType];

/** A combination, as a rules item of type COMBINATION. */
export interface CombinationEntry {
  ruleType: typeof COMBINATION;
  priceMinor: number;
  description: string | null;
}

/** A stored rule or combination with the partner's ids, as POST and GET answer it (see `ruleToApi`). */
export type AppliedRule = {
  externalReferenceEventId: string;
  showId: string;
  ticketOptionId: string;
  /** null: the rule applies to the whole ticket option. */
  priceTypeId: string | null;
  /** The ticket option's currency, the unit of every amount. */
  currency: string;
  updatedAt: number;
} & (RuleEntry | CombinationEntry);

/** Where a rule in force was set. */
export type RuleScope = 'ticketOption' | 'combination';

/** One rule in force, with the scope it comes from (a PERCENTAGE price rule is relative to that scope's price). */
export interface EffectiveRule<K extends RuleType> {
  scope: RuleScope;
  rules: RuleValues[K];
  updatedAt: number;
}

/** The rules in force for a ticket option or a combination: each rule type set for it, and only those. */
export type EffectiveRules = { [K in RuleType]?: EffectiveRule<K> };
