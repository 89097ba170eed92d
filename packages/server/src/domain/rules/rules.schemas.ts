import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { ERROR_CODES, type ErrorCode, type ErrorEntry, type ErrorLocation } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import { issuesToEntries } from '../../lib/validation.js';
import { type AnyRuleDefinition, pascalCase } from './rules.define.js';
import { isRuleType, RULE_DEFINITIONS, RULE_TYPES, ruleDefinition } from './rules.definitions.js';
import { COMBINATION, type AppliedRule } from './rules.model.js';

/**
 * Request and response schemas of POST/GET /v1/rules, and the `ruleToApi()` serializer.
 *
 * The rules object of each rule type, in and out, is its definition's (rules.definitions.ts);
 * this file wraps them in items and unions, one member per definition, in their order.
 * Deprecated fields of the earlier rules API are screened first, on the raw JSON, so the
 * partner reads `deprecated_field` with what replaces the field, not `unknown_field`.
 */

/** Spec, Limits: items per request of POST /v1/rules. */
export const MAX_RULE_ITEMS = 100;

// ------------------------------------------------------------------ deprecations

/** The message of a missing value (as lib/validation.ts words it). */
const MISSING = 'is required';

const DEPRECATED_FIELDS = new Map<string, string>([
  ['maxPriceSell', 'is deprecated: send an item with ruleType maxPriceSellConfig and rules {type: PERCENTAGE | ABSOLUTE, value}'],
  ['minPriceSell', 'is deprecated: send an item with ruleType minPriceSellConfig and rules {type: PERCENTAGE | ABSOLUTE, value}'],
  [
    'superswap',
    'is deprecated: send an item with ruleType superSwapConfig (rules {enabled, reissueTicketAccess, allowAfterQrUnlock}) and, for the moment it opens, superSwapUnlock (rules {hoursBeforeShow})',
  ],
  ['superswapInit', 'is deprecated: send an item with ruleType superSwapUnlock (rules {hoursBeforeShow}); switch Super Swap on with superSwapConfig (rules {enabled: true})'],
]);

const TICKET_SHIELD_MESSAGE =
  'is deprecated: ticketShield is no longer a rule. The operator switches ticket protection per event or show, and you are told by the ticketShield.updated webhook; ' +
  'to choose when the QR unlocks, send ruleType qrUnlock';

/** A problem found by the first pass over the raw JSON, with the error code it must answer. */
interface ScreenIssue {
  path: string[];
  code: ErrorCode;
  message: string;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The first pass over one raw item, before the strict schema sees it: deprecated fields
 * on the item or in its rules object (`0.maxPriceSell`, `0.rules.minPriceSell`), the
 * deprecated `ticketShield` rule, and the `ruleType` the rest of the item's shape depends
 * on (so a wrong one is reported once, on `ruleType`, instead of as a union mismatch).
 * An item with a finding stops here: the partner reads `deprecated_field`, not `unknown_field`.
 */
function screenItem(item: Record<string, unknown>): ScreenIssue[] {
  const issues: ScreenIssue[] = [];
  // The item and its rules object: the two levels where the earlier API had these fields.
  // Bounded on purpose: a deeply nested body must not exhaust the stack before zod rejects it.
  const scan = (value: Record<string, unknown>, path: string[]): void => {
    for (const key of Object.keys(value)) {
      const message = DEPRECATED_FIELDS.get(key);
      if (message !== undefined) issues.push({ path: [...path, key], code: 'deprecated_field', message });
    }
  };
  scan(item, []);
  if (isPlainObject(item.rules)) scan(item.rules, ['rules']);

  const ruleType = item.ruleType;
  if (ruleType === undefined) issues.push({ path: ['ruleType'], code: 'missing_field', message: MISSING });
  else if (typeof ruleType !== 'string') issues.push({ path: ['ruleType'], code: 'invalid_type', message: 'must be of type string' });
  else if (ruleType.toLowerCase() === 'ticketshield') issues.push({ path: ['ruleType'], code: 'deprecated_field', message: TICKET_SHIELD_MESSAGE });
  else if (DEPRECATED_FIELDS.has(ruleType)) issues.push({ path: ['ruleType'], code: 'deprecated_field', message: DEPRECATED_FIELDS.get(ruleType)! });
  else if (ruleType !== COMBINATION && !isRuleType(ruleType)) {
    issues.push({ path: ['ruleType'], code: 'invalid_value', message: `must be one of ${[COMBINATION, ...RULE_TYPES].map((t) => JSON.stringify(t)).join(', ')}` });
  }
  return issues;
}

/** Preprocess step: reports the first pass's findings as custom issues carrying their error code. */
function firstPass(item: unknown, ctx: z.core.$RefinementCtx): unknown {
  if (!isPlainObject(item)) return item;
  for (const issue of screenItem(item)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, params: { errorCode: issue.code } });
  return item;
}

/**
 * Error entries for a failed parse of the rules request: issues of the first pass keep
 * the code they carry (`deprecated_field` …); every other issue maps as everywhere else.
 */
export function ruleIssuesToEntries(issues: readonly z.core.$ZodIssue[], where: ErrorLocation): ErrorEntry[] {
  return issues.flatMap((issue): ErrorEntry[] => {
    const carried: unknown = issue.code === 'custom' ? issue.params?.errorCode : undefined;
    if (typeof carried === 'string' && (ERROR_CODES as readonly string[]).includes(carried)) {
      const path = issue.path.map(String).join('.');
      const entry: ErrorEntry = { code: carried as ErrorCode, message: `${path === '' ? 'the request' : path} ${issue.message}`, in: where };
      if (path !== '') entry.path = path;
      return [entry];
    }
    if (issue.code === 'invalid_union' && issue.message === MISSING) {
      const path = issue.path.map(String).join('.');
      return [{ code: 'missing_field', message: `${path} is required`, path, in: where }];
    }
    return issuesToEntries([issue], where);
  });
}

// ------------------------------------------------------------------ field helpers

const idString = () => z.string().trim().min(1, 'must not be empty').max(200);

const priceInput = () =>
  z
    .union([z.number().nonnegative('must not be negative'), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal amount such as 19.99')], {
      // A union reports a missing value as a mismatch; say it is missing (see ruleIssuesToEntries).
      error: (iss) => (iss.input === undefined ? MISSING : undefined),
    })
    .openapi({
    example: 39.5,
    description: 'Base price of the combination in major units of the ticket option’s currency, fees and charges excluded. A number or a numeric string.',
  });


// ------------------------------------------------------------------ request items

const ref = () => ({
  externalReferenceEventId: idString().openapi({ example: 'tour-2026', description: "The event's externalReferenceId, as sent at event creation. The same in every item." }),
  showId: idString().openapi({ example: 'show-1', description: 'The show, as sent at event creation. The same in every item.' }),
  ticketOptionId: idString().openapi({ example: 'opt-field', description: 'The ticket option (its ticketId at event creation).' }),
});

const scopePriceType = () =>
  idString()
    .optional()
    .openapi({
      example: 'pt-early',
      description:
        'Scopes the rule to the combination of ticketOptionId and this price type; without it the rule applies to the whole ticket option. ' +
        'The combination must exist (sent at event creation, or by a COMBINATION item earlier in the same request). A combination-scoped rule wins over the ticket option’s rule of the same type.',
    });

/** The definitions, seen alike: each maps to its own member of the unions below (typed by RuleItems and StoredItems). */
const DEFINITIONS: readonly AnyRuleDefinition[] = RULE_DEFINITIONS;

const exampleRef = { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId: 'opt-field' };

/** The POST item of a rule type: the ids, the optional scope, and the definition's input schema as `rules`. */
function ruleItem<T extends string, S extends z.ZodType>(def: { ruleType: T; input: S; itemExample: { priceTypeId?: string; rules: unknown } }) {
  const { ruleType, itemExample } = def;
  return z
    .strictObject({
      ...ref(),
      priceTypeId: scopePriceType(),
      ruleType: z.literal(ruleType).openapi({ example: ruleType }),
      rules: def.input,
    })
    .openapi(`${pascalCase(ruleType)}RuleItem`, {
      example: { ...exampleRef, ...(itemExample.priceTypeId !== undefined ? { priceTypeId: itemExample.priceTypeId } : {}), ruleType, rules: itemExample.rules },
    });
}

/** The schemas `ruleItem` makes of the definitions, member for member (so that `RuleItemInput` narrows on `ruleType`). */
type RuleItems<D extends readonly AnyRuleDefinition[]> = { [K in keyof D]: ReturnType<typeof ruleItem<D[K]['ruleType'], D[K]['input']>> };

export const CombinationItem = z
  .strictObject({
    ...ref(),
    priceTypeId: idString().openapi({ example: 'pt-early', description: 'The price type of the combination (required for COMBINATION).' }),
    ruleType: z.literal(COMBINATION).openapi({ example: COMBINATION }),
    price: priceInput(),
    description: z.string().max(1000).optional().openapi({ example: 'Early bird, field', description: 'Omitted on an update: the stored description is kept.' }),
  })
  .openapi('CombinationRuleItem', {
    description: 'Creates the combination ticketOptionId + priceTypeId, or updates its price (and description). Carries price and description instead of rules.',
    example: { ...exampleRef, priceTypeId: 'pt-early', ruleType: COMBINATION, price: 39.5 },
  });

export const RuleItem = z
  .discriminatedUnion('ruleType', [CombinationItem, ...(DEFINITIONS.map((d) => ruleItem(d)) as unknown as RuleItems<typeof RULE_DEFINITIONS>)])
  .openapi('RuleItem', {
    description:
      'One rule, or a combination (ruleType COMBINATION). Deprecated fields (superswap, superswapInit, minPriceSell, maxPriceSell) on an item or in its rules object, and ruleType ticketShield answer 400 deprecated_field.',
  });
export type RuleItemInput = z.output<typeof RuleItem>;

export const RulesRequest = z
  .array(z.preprocess(firstPass, RuleItem))
  .min(1)
  .max(MAX_RULE_ITEMS)
  .superRefine((items, ctx) => {
    const first = items[0];
    if (!first) return;
    items.forEach((item, i) => {
      for (const field of ['externalReferenceEventId', 'showId'] as const) {
        if (item[field] !== first[field]) {
          ctx.addIssue({
            code: 'custom',
            path: [i, field],
            message: `must be '${first[field]}' as in item 0: all items of a request target one event and one show`,
          });
        }
      }
    });
  })
  .openapi('RulesRequest', {
    description: `1 to ${MAX_RULE_ITEMS} items, all for the same event and show, applied in order in one transaction: if one fails, nothing is written.`,
  });

export const RulesQuery = z.object({
  externalReferenceEventId: idString().openapi({ param: { name: 'externalReferenceEventId', in: 'query' }, example: 'tour-2026' }),
  showId: idString().openapi({ param: { name: 'showId', in: 'query' }, example: 'show-1' }),
  ticketOptionId: idString()
    .optional()
    .openapi({ param: { name: 'ticketOptionId', in: 'query' }, example: 'opt-field', description: 'Only the rules and combinations of this ticket option.' }),
});

// ------------------------------------------------------------------ responses

const outRef = () => ({
  externalReferenceEventId: z.string().openapi({ example: 'tour-2026' }),
  showId: z.string().openapi({ example: 'show-1' }),
  ticketOptionId: z.string().openapi({ example: 'opt-field' }),
  priceTypeId: z.string().optional().openapi({ example: 'pt-early', description: 'Present when the rule is scoped to a combination.' }),
});
const updatedAt = () => z.string().openapi({ example: '2026-03-01T12:00:00.000Z', description: 'Last change, ISO 8601 UTC.' });

/** The answered item of a rule type: the ids, and the definition's output schema as `rules`. */
function storedItem<T extends string, S extends z.ZodType>(def: { ruleType: T; output: S }) {
  return z.object({ ...outRef(), ruleType: z.literal(def.ruleType), rules: def.output, updatedAt: updatedAt() }).openapi(`Stored${pascalCase(def.ruleType)}Rule`);
}

/** The schemas `storedItem` makes of the definitions, member for member. */
type StoredItems<D extends readonly AnyRuleDefinition[]> = { [K in keyof D]: ReturnType<typeof storedItem<D[K]['ruleType'], D[K]['output']>> };

export const StoredRuleItem = z
  .discriminatedUnion('ruleType', [
    z
      .object({
        ...outRef(),
        priceTypeId: z.string().openapi({ example: 'pt-early' }),
        ruleType: z.literal(COMBINATION),
        price: z.number().openapi({ example: 39.5, description: 'Major units of the ticket option’s currency, fees excluded.' }),
        description: z.string().optional(),
        updatedAt: updatedAt(),
      })
      .openapi('StoredCombination'),
    ...(DEFINITIONS.map((d) => storedItem(d)) as unknown as StoredItems<typeof RULE_DEFINITIONS>),
  ])
  .openapi('StoredRuleItem', { description: 'A rule or combination as stored. Amounts in major units, instants in UTC.' });
export type StoredRuleItemOutput = z.output<typeof StoredRuleItem>;

// ------------------------------------------------------------------ serializer

/** A rule or combination as the API answers it: money in major units, instants ISO 8601 UTC, absent scope omitted. */
export function ruleToApi(r: AppliedRule): StoredRuleItemOutput {
  const base = {
    externalReferenceEventId: r.externalReferenceEventId,
    showId: r.showId,
    ticketOptionId: r.ticketOptionId,
    ...(r.priceTypeId !== null ? { priceTypeId: r.priceTypeId } : {}),
  };
  const at = toIso(r.updatedAt);
  const major = (minor: number) => toMajor(minor, r.currency);
  if (r.ruleType === COMBINATION) {
    return {
      ...base,
      priceTypeId: r.priceTypeId!,
      ruleType: COMBINATION,
      price: major(r.priceMinor),
      ...(r.description !== null ? { description: r.description } : {}),
      updatedAt: at,
    };
  }
  // The definition's toApi answers its own output schema; the union cannot see that it matches r.ruleType.
  return { ...base, ruleType: r.ruleType, rules: ruleDefinition(r.ruleType).toApi(r.rules, { major }), updatedAt: at } as StoredRuleItemOutput;
}
