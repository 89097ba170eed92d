import type { RuleType, RuleValues } from './rules.definitions.js';

/**
 * The domain types of rules, shared by rules.service.ts (which stores and reads them) and
 * rules.schemas.ts (which validates requests and serializes them), so that neither imports
 * the other's types back. Types and constants only: no database, no zod, no Hono. The rule
 * types and their stored values come from the definitions (rules.definitions.ts).
 */

/** The item type that creates or updates a combination instead of a rule. */
export const COMBINATION = 'COMBINATION';

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
