import { ApiError } from '../../lib/errors.js';
import { percentOf } from '@resale/shared/fees';
import { toMajor } from '../../lib/money.js';
import type { EffectiveRules, PriceRule } from '../rules/rules.service.js';

/**
 * The price a seller may ask per ticket, from the rules in force (see rules.service.ts).
 * PERCENTAGE limits are relative to the ticket's original price: its combination's price
 * when it has a price type (the combination's price wins, as in the spec), else its ticket
 * option's price, else what the buyer paid. Without an original price, percentage limits
 * cannot apply and are ignored.
 */
export interface PriceLimits {
  originalMinor: number | null;
  minMinor: number | null;
  maxMinor: number | null;
  /** When set, the seller cannot choose: this is the price. */
  fixedMinor: number | null;
}

function resolve(rule: PriceRule | undefined, originalMinor: number | null): number | null {
  if (!rule) return null;
  if (rule.type === 'ABSOLUTE') return rule.amountMinor;
  return originalMinor === null ? null : percentOf(originalMinor, rule.percent);
}

export function priceLimits(rules: EffectiveRules, originalMinor: number | null): PriceLimits {
  return {
    originalMinor,
    minMinor: resolve(rules.minPriceSellConfig?.rules, originalMinor),
    maxMinor: resolve(rules.maxPriceSellConfig?.rules, originalMinor),
    fixedMinor: resolve(rules.fixedListingPrice?.rules, originalMinor),
  };
}

/**
 * The price to list at: the fixed price when there is one (a different asked price is
 * refused), else the asked price within [min, max].
 * @throws 400 naming `price`
 */
export function settlePrice(asked: number | null, limits: PriceLimits, currency: string): number {
  const show = (minor: number) => `${toMajor(minor, currency)} ${currency}`;
  if (limits.fixedMinor !== null) {
    if (asked !== null && asked !== limits.fixedMinor) throw ApiError.field('out_of_range', 'price', `The price of this ticket is fixed at ${show(limits.fixedMinor)}`);
    return limits.fixedMinor;
  }
  if (asked === null) throw ApiError.field('missing_field', 'price', 'price is required');
  if (asked <= 0) throw ApiError.field('out_of_range', 'price', 'price must be more than 0');
  if (limits.minMinor !== null && asked < limits.minMinor) throw ApiError.field('out_of_range', 'price', `The price must be at least ${show(limits.minMinor)}`);
  if (limits.maxMinor !== null && asked > limits.maxMinor) throw ApiError.field('out_of_range', 'price', `The price must be at most ${show(limits.maxMinor)}`);
  return asked;
}
