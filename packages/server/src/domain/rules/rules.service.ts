import { inOrder } from '../../lib/in-order.js';
import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError, type ErrorLocation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { toMinor } from '../../lib/money.js';
import type { EventsService } from '../events/events.service.js';
import { combinationsOfShow, priceTypesOfShow, ticketOptionsOfShow } from '../events/events.queries.js';
import type { ScopeCheck } from './rules.define.js';
import { isRuleType, RULE_TYPES, ruleDefinition, type RuleType, type RuleValues } from './rules.definitions.js';
import { COMBINATION, type AppliedRule, type EffectiveRule, type EffectiveRules, type RuleEntry, type RuleScope } from './rules.model.js';
import type { RuleItemInput } from './rules.schemas.js';
import { rules } from './rules.table.js';

// The domain types live in rules.model.ts and rules.definitions.ts (shared with rules.schemas.ts); re-exported for callers.
export type { AppliedRule, CombinationEntry, EffectiveRule, EffectiveRules, RuleEntry, RuleScope } from './rules.model.js';
export type { PriceRule, RuleValues } from './rules.definitions.js';
export { SUPER_SWAP_DEFAULTS } from './rules.definitions.js';

// ------------------------------------------------------------------ effective rules

/**
 * The rules in force for tickets of one ticket option, optionally of one combination
 * (`priceTypePk`). For each rule type, a rule scoped to the combination wins over the
 * ticket option's rule of the same type, whole (fields are not merged across scopes: a
 * combination's platformFees without sellerPercent falls back to the partner's fee, not
 * to the option's rule). A type set in neither scope is absent; the caller applies its
 * default (for example the partner's qrLockHoursBeforeShow or fees).
 *
 * Amounts are minor units of the ticket option's currency; instants epoch ms. A
 * PERCENTAGE price rule is relative to the price of the scope it comes from (`scope`):
 * the combination's price for 'combination', the ticket option's price for 'ticketOption'.
 *
 * @example
 * const eff = effectiveRules(tx, show.id, option.id, priceType?.id ?? null);
 * const limit = eff.maxSell?.rules.maxTickets ?? Infinity;
 * const swap = eff.superSwapConfig?.rules ?? SUPER_SWAP_DEFAULTS;
 */
export async function effectiveRules(tx: Tx, showPk: string, ticketOptionPk: string, priceTypePk: string | null): Promise<EffectiveRules> {
  const rows = await tx
    .select()
    .from(rules)
    .where(and(eq(rules.showPk, showPk), eq(rules.ticketOptionPk, ticketOptionPk), inArray(rules.scopeKey, priceTypePk === null ? [''] : ['', priceTypePk])));
  const out: Record<string, EffectiveRule<RuleType>> = {};
  for (const row of rows) {
    if (!isRuleType(row.ruleType)) continue;
    const scope: RuleScope = row.scopeKey === '' ? 'ticketOption' : 'combination';
    // At most one row per type and scope: an option-scoped row only fills a gap.
    if (out[row.ruleType] && scope === 'ticketOption') continue;
    out[row.ruleType] = { scope, rules: row.rules as unknown as RuleValues[RuleType], updatedAt: row.updatedAt };
  }
  return out as EffectiveRules;
}

// ------------------------------------------------------------------ service

type RuleItem = Exclude<RuleItemInput, { ruleType: typeof COMBINATION }>;
type OptionRow = Awaited<ReturnType<EventsService['findTicketOption']>>;
type RuleRow = typeof rules.$inferSelect;

/** A 404 of a lookup becomes a 400 naming the field: the id is wrong, not the resource path. */
async function asInvalid<T>(path: string, message: string, lookup: () => Promise<T>, where: ErrorLocation = 'body'): Promise<T> {
  try {
    return await lookup();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') throw ApiError.field('invalid_value', path, message, where);
    throw err;
  }
}

/** A scope a POST changed, to be checked once the batch is written (see ScopeCheck). */
interface ChangedScope {
  index: number;
  optionPk: string;
  scopeKey: string;
  currency: string;
  label: string;
}

/** What RulesService is built from (see deps.ts). */
export interface RulesServiceDeps {
  clock: Clock;
  events: EventsService;
}

/**
 * Resale rules per ticket option or combination, and COMBINATION items (which create or
 * update combinations through EventsService). Takes the caller's transaction; imports
 * nothing from Hono; throws ApiError.
 */
export class RulesService {
  private readonly clock: Clock;
  private readonly events: EventsService;

  constructor(deps: RulesServiceDeps) {
    this.clock = deps.clock;
    this.events = deps.events;
  }

  /**
   * POST /v1/rules: applies the items in order in the caller's transaction (so a failing
   * item leaves nothing written once the transaction rolls back). The items were checked
   * to target one event and one show. Unknown or foreign event, unknown show: 404;
   * unknown ticket option or price type, or a priceTypeId forming no combination: 400
   * naming the item's field. One row per ticket option, scope and rule type: a rule
   * posted again replaces the stored one, except superSwapConfig, which merges.
   *
   * @example rules.apply(tx, partnerId, [{ externalReferenceEventId, showId, ticketOptionId, ruleType: 'maxSell', rules: { maxTickets: 4 } }])
   */
  async apply(tx: Tx, partnerId: string, items: RuleItemInput[]): Promise<AppliedRule[]> {
    const first = items[0];
    if (!first) return [];
    const { event, show } = await this.events.findShow(tx, partnerId, first.externalReferenceEventId, first.showId);
    const now = this.clock.now();
    const ids = { externalReferenceEventId: event.externalReferenceId, showId: show.showId };
    /** Per check of the definitions (see ScopeCheck), the scopes whose rules of the check changed, with the last item that changed them. */
    const toCheck = new Map<ScopeCheck, Map<string, ChangedScope>>();

    const applied = await inOrder(items, async (item, i): Promise<AppliedRule> => {
      const option = await asInvalid(`${i}.ticketOptionId`, `${i}.ticketOptionId '${item.ticketOptionId}' is not a ticket option of show '${show.showId}'`, async () =>
        await this.events.findTicketOption(tx, show.id, item.ticketOptionId),
      );
      const itemIds = { ...ids, ticketOptionId: option.ticketId, currency: option.currency };

      if (item.ruleType === COMBINATION) {
        await asInvalid(`${i}.priceTypeId`, `${i}.priceTypeId '${item.priceTypeId}' is not a price type of show '${show.showId}'`, async () =>
          await this.events.findPriceType(tx, show.id, item.priceTypeId),
        );
        const combo = await this.events.upsertCombination(
          tx,
          partnerId,
          show.id,
          { ticketOptionId: item.ticketOptionId, priceTypeId: item.priceTypeId, price: item.price, description: item.description },
          `${i}.price`,
        );
        return { ...itemIds, priceTypeId: item.priceTypeId, ruleType: COMBINATION, priceMinor: combo.priceMinor, description: combo.description, updatedAt: combo.updatedAt };
      }

      let priceTypePk: string | null = null;
      if (item.priceTypeId !== undefined) {
        priceTypePk = (await this.events.findCombination(tx, show.id, item.ticketOptionId, item.priceTypeId, `${i}.priceTypeId`)).priceType.id;
      }
      const scopeKey = priceTypePk ?? '';
      const entry = await this.toEntry(tx, item, option, scopeKey, i);
      const row = (await tx
        .insert(rules)
        .values({ id: newId('rule'), partnerId, showPk: show.id, ticketOptionPk: option.id, priceTypePk, scopeKey, ruleType: entry.ruleType, rules: entry.rules, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [rules.ticketOptionPk, rules.scopeKey, rules.ruleType], set: { rules: entry.rules, updatedAt: now } })
        .returning())[0]!;

      const check = ruleDefinition(entry.ruleType).checkScope;
      if (check) {
        const label = item.priceTypeId === undefined ? `ticket option '${option.ticketId}'` : `combination '${option.ticketId}' + '${item.priceTypeId}'`;
        const scopes = toCheck.get(check) ?? new Map<string, ChangedScope>();
        toCheck.set(check, scopes);
        scopes.set(`${option.id}\u0000${scopeKey}`, { index: i, optionPk: option.id, scopeKey, currency: option.currency, label });
      }
      return { ...itemIds, priceTypeId: item.priceTypeId ?? null, ...entry, updatedAt: row.updatedAt } as AppliedRule;
    });

    // Checked once the batch is applied, so a request may move several rules of one check at once (both price limits).
    for (const [check, scopes] of toCheck) {
      for (const s of scopes.values()) {
        await check({ index: s.index, label: s.label, currency: s.currency, stored: async (ruleType) => (await this.storedRule(tx, s.optionPk, s.scopeKey, ruleType))?.rules });
      }
    }
    return applied;
  }

  /**
   * GET /v1/rules: the stored combinations and rules of a show (optionally of one ticket
   * option), combinations first, so the answer (without updatedAt) is a valid POST body.
   * Order: ticket options and price types as sent at event creation, option-scoped rules
   * before combination-scoped ones, rule types in the order of RULE_TYPES.
   */
  async list(tx: Tx, partnerId: string, query: { externalReferenceEventId: string; showId: string; ticketOptionId?: string | undefined }): Promise<AppliedRule[]> {
    const { event, show } = await this.events.findShow(tx, partnerId, query.externalReferenceEventId, query.showId);
    const only = query.ticketOptionId;
    if (only !== undefined) {
      await asInvalid('ticketOptionId', `ticketOptionId '${only}' is not a ticket option of show '${show.showId}'`, async () => await this.events.findTicketOption(tx, show.id, only), 'query');
    }
    // Read-only lookups of the show's own ids and positions, to answer the partner's ids.
    const options = new Map((await ticketOptionsOfShow(tx, show.id)).map((o) => [o.id, o]));
    const pts = new Map((await priceTypesOfShow(tx, show.id)).map((p) => [p.id, p]));
    const ids = { externalReferenceEventId: event.externalReferenceId, showId: show.showId };
    const keep = (optionPk: string) => {
      const o = options.get(optionPk);
      return o !== undefined && (only === undefined || o.ticketId === only) ? o : undefined;
    };

    const combos: { sort: number[]; item: AppliedRule }[] = [];
    for (const c of await combinationsOfShow(tx, show.id)) {
      const o = keep(c.ticketOptionPk);
      const p = pts.get(c.priceTypePk);
      if (!o || !p) continue;
      combos.push({
        sort: [o.position, p.position],
        item: { ...ids, ticketOptionId: o.ticketId, priceTypeId: p.priceTypeId, currency: o.currency, ruleType: COMBINATION, priceMinor: c.priceMinor, description: c.description, updatedAt: c.updatedAt },
      });
    }
    const stored: { sort: number[]; item: AppliedRule }[] = [];
    for (const r of await tx.select().from(rules).where(eq(rules.showPk, show.id))) {
      const o = keep(r.ticketOptionPk);
      if (!o || !isRuleType(r.ruleType)) continue;
      const p = r.priceTypePk === null ? undefined : pts.get(r.priceTypePk);
      if (r.priceTypePk !== null && !p) continue;
      stored.push({
        sort: [o.position, p ? 1 + p.position : 0, RULE_TYPES.indexOf(r.ruleType)],
        item: { ...ids, ticketOptionId: o.ticketId, priceTypeId: p?.priceTypeId ?? null, currency: o.currency, ...decode(r), updatedAt: r.updatedAt } as AppliedRule,
      });
    }
    const bySort = (a: { sort: number[] }, b: { sort: number[] }) => {
      for (let k = 0; k < a.sort.length; k++) if (a.sort[k] !== b.sort[k]) return a.sort[k]! - b.sort[k]!;
      return 0;
    };
    return [...combos.sort(bySort), ...stored.sort(bySort)].map((x) => x.item);
  }

  /** The rules in force for a ticket option or combination; see `effectiveRules`. */
  async effective(tx: Tx, showPk: string, ticketOptionPk: string, priceTypePk: string | null): Promise<EffectiveRules> {
    return await effectiveRules(tx, showPk, ticketOptionPk, priceTypePk);
  }

  // ---------------------------------------------------------------- internals

  /** The stored value of a rule item, by its definition (money to minor units, instants to epoch ms, superSwapConfig merged). */
  private async toEntry(tx: Tx, item: RuleItem, option: OptionRow, scopeKey: string, i: number): Promise<RuleEntry> {
    const stored = await ruleDefinition(item.ruleType).toStored(item.rules, {
      minor: (amount, field) => toMinor(amount, option.currency, `${i}.rules.${field}`),
      previous: async () => (await this.storedRule(tx, option.id, scopeKey, item.ruleType))?.rules,
    });
    // The definition's toStored answers its own rule type's value; the union cannot see that it matches item.ruleType.
    return { ruleType: item.ruleType, rules: stored } as RuleEntry;
  }

  private async storedRule(tx: Tx, optionPk: string, scopeKey: string, ruleType: string): Promise<RuleRow | undefined> {
    return (await tx
      .select()
      .from(rules)
      .where(and(eq(rules.ticketOptionPk, optionPk), eq(rules.scopeKey, scopeKey), eq(rules.ruleType, ruleType))).limit(1))[0];
  }
}

/** A stored row as a typed entry (the JSON column was written by `toEntry`). */
function decode(row: RuleRow): RuleEntry {
  return { ruleType: row.ruleType, rules: row.rules } as unknown as RuleEntry;
}
