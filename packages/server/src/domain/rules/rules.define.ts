import type { z } from '@hono/zod-openapi';

/**
 * `defineRule()`: one rule type in one place. A definition holds what POST /v1/rules accepts
 * as the item's `rules` (its input schema), how that becomes the stored value (`toStored`), how
 * the stored value is answered (`toApi`, checked by the output schema), and, for rules that
 * constrain each other, the check POST runs once the batch is written. The list of
 * definitions (rules.definitions.ts) is the one place a rule type is declared: the rule types,
 * their stored values, the request and response unions of rules.schemas.ts and the dispatch
 * of rules.service.ts are derived from it.
 */

/** What `toStored` may ask while it turns one posted rules object into its stored value. */
export interface StoreContext<Stored> {
  /** An amount in major units of the ticket option's currency, in minor units (400 naming `<item>.rules.<field>` when it does not fit the currency). */
  minor(amount: number, field: string): number;
  /** The value stored for the same ticket option, scope and rule type, if any: for a rule that merges instead of replacing. */
  previous(): Promise<Stored | undefined>;
}

/** What `toApi` may ask while it answers a stored value. */
export interface ApiContext {
  /** Minor units of the ticket option's currency, in major units. */
  major(minor: number): number;
}

/** One scope (a ticket option, or a combination) a POST changed, as a `ScopeCheck` sees it after the batch. */
export interface CheckedScope {
  /** The last item of the request that changed a rule of the check in this scope: the one an error names. */
  index: number;
  /** The scope in words, for messages: `ticket option 'opt-1'` or `combination 'opt-1' + 'pt-1'`. */
  label: string;
  /** The ticket option's currency. */
  currency: string;
  /** The value now stored in this scope for a rule type (this request's writes included). */
  stored(ruleType: string): Promise<unknown>;
}

/**
 * A check across rule types of one scope (for example: the minimum price may not exceed the
 * maximum), run by POST once the whole batch is written, so that one request may move several
 * rules at once. Runs once per scope however many of its rule types the request changed (the
 * definitions naming it share the same function). Throws an ApiError to refuse the request.
 */
export type ScopeCheck = (scope: CheckedScope) => Promise<void>;

/** One rule type; see `defineRule`. `S` is the input schema, `O` the output schema of its `rules`. */
export interface RuleDefinition<T extends string, S extends z.ZodType, Stored, O extends z.ZodType> {
  readonly ruleType: T;
  /** The `rules` POST accepts, named `<RuleType>Rules` in the OpenAPI document. */
  readonly input: S;
  /** The `rules` POST and GET answer. */
  readonly output: O;
  /** The example of the item in the OpenAPI document (RuleItem): the rules, and a priceTypeId when the example has one. */
  readonly itemExample: { priceTypeId?: string; rules: unknown };
  /** The stored value of a posted rules object (money to minor units, instants to epoch ms). */
  toStored(rules: z.output<S>, ctx: StoreContext<Stored>): Stored | Promise<Stored>;
  /** The stored value as the API answers it (money to major units, instants to ISO 8601). */
  toApi(stored: Stored, ctx: ApiContext): z.output<O>;
  /** Run after a POST that changed this rule in a scope; see `ScopeCheck`. */
  readonly checkScope?: ScopeCheck | undefined;
}

/** Any definition, for code that dispatches on `ruleType` (the values were checked by the definition's own schema). */
export type AnyRuleDefinition = RuleDefinition<string, z.ZodType, unknown, z.ZodType>;

/** The stored value of a definition's rule type. */
export type StoredOf<D extends AnyRuleDefinition> = Awaited<ReturnType<D['toStored']>>;

/** `maxPriceSellConfig` → `MaxPriceSellConfig`: the stem of the rule type's names in the OpenAPI document. */
export function pascalCase(ruleType: string): string {
  return `${ruleType[0]!.toUpperCase()}${ruleType.slice(1)}`;
}

/**
 * Declares a rule type. The input schema is named `<RuleType>Rules` in the OpenAPI document,
 * with `description` and `example`; the output schema is the input schema unless `output` is
 * given; the item's example is the rules' example unless `itemExample` is given.
 *
 * @example
 * export const maxSell = defineRule({
 *   ruleType: 'maxSell',
 *   input: z.strictObject({ maxTickets: z.number().int().min(1) }),
 *   description: 'maxSell: how many tickets one seller may have listed or sold at once.',
 *   example: { maxTickets: 4 },
 *   toStored: (r): { maxTickets: number } => ({ maxTickets: r.maxTickets }),
 *   toApi: (r) => ({ maxTickets: r.maxTickets }),
 * });
 */
export function defineRule<const T extends string, S extends z.ZodType, Stored, O extends z.ZodType = S>(def: {
  ruleType: T;
  input: S;
  description: string;
  example: z.input<S>;
  output?: O;
  itemExample?: { priceTypeId?: string; rules: z.input<S> };
  toStored: (rules: z.output<S>, ctx: StoreContext<Stored>) => Stored | Promise<Stored>;
  toApi: (stored: Stored, ctx: ApiContext) => z.output<O>;
  checkScope?: ScopeCheck;
}): RuleDefinition<T, S, Stored, O> {
  const input = def.input.openapi(`${pascalCase(def.ruleType)}Rules`, { description: def.description, example: def.example }) as S;
  return {
    ruleType: def.ruleType,
    input,
    output: def.output ?? (input as unknown as O),
    itemExample: def.itemExample ?? { rules: def.example },
    toStored: def.toStored,
    toApi: def.toApi,
    checkScope: def.checkScope,
  };
}
