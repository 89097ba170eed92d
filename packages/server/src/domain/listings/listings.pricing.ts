import { ApiError } from '../../lib/errors.js';
import { percentOf } from '@resale/shared/fees';
import { toMajor } from '../../lib/money.js';
import type { EffectiveRules, PriceRule } from '../rules/rules.service.js';

/**
 * The waiting list's face-value cap on a listing's price: with the show's list set to
 * FACE_VALUE, a listing published while fans are waiting for its option sells at face value at
 * most (domain/waitinglist `priceCapOf`).
 */
export interface PriceCap {
  reason: 'waiting_list';
  /** How many fans are waiting for the option (its entries and any-option entries). */
  fans: number;
  /** The cap: the ticket's face value (`originalMinor`). */
  capMinor: number;
}

/**
 * The price a seller may ask per ticket, from the rules in force (see rules.service.ts).
 * PERCENTAGE limits are relative to the ticket's original price: its combination's price
 * when it has a price type (the combination's price wins, as in the spec), else its ticket
 * option's price, else what the buyer paid. Without an original price, percentage limits
 * cannot apply and are ignored.
 *
 * With a waiting-list cap (`cap`), every limit above the face value is lowered to it: the
 * limits already say what may be asked, so the quote, the sell page and every publish agree.
 */
export interface PriceLimits {
  originalMinor: number | null;
  minMinor: number | null;
  maxMinor: number | null;
  /** When set, the seller cannot choose: this is the price. */
  fixedMinor: number | null;
  /** The waiting list's face-value cap, or null when none applies (the seller is told before publishing). */
  cap: PriceCap | null;
}

function resolve(rule: PriceRule | undefined, originalMinor: number | null): number | null {
  if (!rule) return null;
  if (rule.type === 'ABSOLUTE') return rule.amountMinor;
  return originalMinor === null ? null : percentOf(originalMinor, rule.percent);
}

/**
 * The limits of the rules for a ticket of face value `originalMinor`, capped at that face
 * value when `waiting` says fans are waiting under a FACE_VALUE waiting list. Without a face
 * value there is nothing to cap at, and no cap.
 */
export function priceLimits(rules: EffectiveRules, originalMinor: number | null, waiting: { fans: number } | null = null): PriceLimits {
  const limits: PriceLimits = {
    originalMinor,
    minMinor: resolve(rules.minPriceSellConfig?.rules, originalMinor),
    maxMinor: resolve(rules.maxPriceSellConfig?.rules, originalMinor),
    fixedMinor: resolve(rules.fixedListingPrice?.rules, originalMinor),
    cap: null,
  };
  if (waiting === null || waiting.fans <= 0 || originalMinor === null) return limits;
  const lower = (m: number | null) => (m === null ? null : Math.min(m, originalMinor));
  return {
    originalMinor,
    // A minimum above face value is lowered too: else no price at all could be listed.
    minMinor: lower(limits.minMinor),
    maxMinor: limits.maxMinor === null ? originalMinor : lower(limits.maxMinor),
    fixedMinor: lower(limits.fixedMinor),
    cap: { reason: 'waiting_list', fans: waiting.fans, capMinor: originalMinor },
  };
}

/**
 * The price to list at: the fixed price when there is one (a different asked price is
 * refused), else the asked price within [min, max]. A price over the waiting list's cap is
 * refused saying so (reason `price_rejected`), so the seller learns why it is lower than the
 * organiser's rules alone would allow.
 * @throws 400 naming `price`
 */
export function settlePrice(asked: number | null, limits: PriceLimits, currency: string): number {
  const show = (minor: number) => `${toMajor(minor, currency)} ${currency}`;
  const cap = limits.cap;
  const why = cap === null ? '' : `${cap.fans} ${cap.fans === 1 ? 'fan is' : 'fans are'} waiting for this show: the organiser caps resale at face value`;
  if (limits.fixedMinor !== null) {
    if (asked !== null && asked !== limits.fixedMinor) {
      if (cap !== null && limits.fixedMinor === cap.capMinor) throw ApiError.field('out_of_range', 'price', `${why}: the price of this ticket is ${show(limits.fixedMinor)}`, 'body', 'price_rejected');
      throw ApiError.field('out_of_range', 'price', `The price of this ticket is fixed at ${show(limits.fixedMinor)}`);
    }
    return limits.fixedMinor;
  }
  if (asked === null) throw ApiError.field('missing_field', 'price', 'price is required');
  if (asked <= 0) throw ApiError.field('out_of_range', 'price', 'price must be more than 0');
  if (cap !== null && asked > cap.capMinor) throw ApiError.field('out_of_range', 'price', `${why}: the price must be at most ${show(cap.capMinor)}`, 'body', 'price_rejected');
  if (limits.minMinor !== null && asked < limits.minMinor) throw ApiError.field('out_of_range', 'price', `The price must be at least ${show(limits.minMinor)}`);
  if (limits.maxMinor !== null && asked > limits.maxMinor) throw ApiError.field('out_of_range', 'price', `The price must be at most ${show(limits.maxMinor)}`);
  return asked;
}
