import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { ERROR_CODES, type ErrorCode, type ErrorEntry, type ErrorLocation } from '../../lib/errors.js';
import { toMajor } from '../../lib/money.js';
import { issuesToEntries } from '../../lib/validation.js';
import { COMBINATION, isRuleType, RULE_TYPES, type AppliedRule, type RuleType } from './rules.model.js';

/**
 * Request and response schemas of POST/GET /v1/rules, and the `ruleToApi()` serializer.
 *
 * The spec leaves the shape of each rules object open ("not shown"); the shapes below are
 * our decisions, documented in the OpenAPI descriptions. Every rules object is strict: an
 * unknown field is `unknown_field`, so a typo is an error, not silence. Deprecated fields
 * of the earlier rules API are screened first, on the raw JSON, so the partner reads
 * `deprecated_field` with what replaces the field, not `unknown_field`.
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

const isoInstant = () =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset, such as 2026-05-01T18:00:00+02:00' })
    .openapi({ example: '2026-05-01T18:00:00+02:00' });

const hoursBeforeShow = (description: string) => z.number().min(0).max(720).openapi({ description, example: 3 });

/** A price as the partner sends it: a number or a numeric string, in major units, fees excluded. */
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

// ------------------------------------------------------------------ rules objects

const QR_UNLOCK_DESCRIPTION =
  'qrUnlock: when the QR code of the secure ticket view (ticketShield) unlocks for tickets of this scope. ' +
  'Send exactly one of hoursBeforeShow (hours before the start of the show, 0 to 720, decimals allowed) or unlockAt (an ISO 8601 instant with offset; answered in UTC). ' +
  "Overrides the partner's qrLockHoursBeforeShow setting. Posting again replaces the rule.";

export const QrUnlockRules = z
  .strictObject({
    hoursBeforeShow: hoursBeforeShow('The QR unlocks this many hours before the start of the show.').optional(),
    unlockAt: isoInstant().optional().openapi({ description: 'The QR unlocks at this instant.' }),
  })
  .superRefine((r, ctx) => {
    if ((r.hoursBeforeShow === undefined) === (r.unlockAt === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must hold exactly one of hoursBeforeShow or unlockAt' });
    }
  })
  .openapi('QrUnlockRules', { description: QR_UNLOCK_DESCRIPTION, example: { hoursBeforeShow: 3 } });

export const SuperSwapUnlockRules = z
  .strictObject({
    hoursBeforeShow: hoursBeforeShow('A Super Swap resale is possible from this many hours before the start of the show (0 to 720).').openapi({ example: 48 }),
  })
  .openapi('SuperSwapUnlockRules', {
    description: 'superSwapUnlock: from when before the show a Super Swap resale is possible for tickets of this scope. Posting again replaces the rule.',
    example: { hoursBeforeShow: 48 },
  });

const SUPER_SWAP_FLAGS = {
  enabled: 'Super Swap is offered for tickets of this scope. Default false.',
  reissueTicketAccess: "The buyer gets newly issued access credentials and the seller's old ones stop working. Default true.",
  allowAfterQrUnlock: 'A Super Swap is still possible after the QR code has unlocked. Default false.',
} as const;

export const SuperSwapConfigRules = z
  .strictObject({
    enabled: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.enabled, example: true }),
    reissueTicketAccess: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.reissueTicketAccess, example: true }),
    allowAfterQrUnlock: z.boolean().optional().openapi({ description: SUPER_SWAP_FLAGS.allowAfterQrUnlock, example: false }),
  })
  .openapi('SuperSwapConfigRules', {
    description:
      "superSwapConfig: Super Swap is a resale in which the buyer gets newly issued access credentials and the seller's old ones stop working. " +
      'PARTIAL update: a flag omitted keeps its stored value for the same scope; the first time, omitted flags take the defaults ' +
      '(enabled false, reissueTicketAccess true, allowAfterQrUnlock false). A combination-scoped superSwapConfig starts from these defaults, not from the ticket option’s.',
    example: { enabled: true },
  });

/** superSwapConfig as stored and answered: every flag present. */
export const SuperSwapConfigState = z
  .object({
    enabled: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.enabled, example: true }),
    reissueTicketAccess: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.reissueTicketAccess, example: true }),
    allowAfterQrUnlock: z.boolean().openapi({ description: SUPER_SWAP_FLAGS.allowAfterQrUnlock, example: false }),
  })
  .openapi('SuperSwapConfigState', { description: 'superSwapConfig after merging: every flag present.' });

export const MaxSellRules = z
  .strictObject({
    maxTickets: z.number().int().min(1).max(1000).openapi({ description: 'Integer 1 to 1000.', example: 4 }),
  })
  .openapi('MaxSellRules', {
    description: 'maxSell: how many tickets one seller may have listed or sold at once for this show within the scope of the rule. Posting again replaces the rule.',
    example: { maxTickets: 4 },
  });

const percent = (who: string) => z.number().min(0).max(50).optional().openapi({ description: `Fee ${who}, in percent of the listing price (0 to 50).`, example: 8 });
const fixed = (who: string) =>
  z.number().min(0).optional().openapi({ description: `Fixed fee per ticket ${who}, in major units of the ticket option’s currency (at most its decimals).`, example: 1.5 });

export const PlatformFeesRules = z
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
  })
  .openapi('PlatformFeesRules', {
    description:
      "platformFees: overrides the partner's fees for this scope. At least one field; a field omitted falls back to the partner's fee. " +
      'Posting again replaces the whole rule (it does not merge). Fixed amounts are stored in minor units and answered in major units.',
    example: { buyerPercent: 8, sellerFixed: 1.5 },
  });

const PRICE_TYPE_DESCRIPTION =
  'PERCENTAGE: value is a percentage of the original price (the combination’s price when the rule has a priceTypeId, else the ticket option’s price): ' +
  '100 = face value, 120 = 20% above. ABSOLUTE: value is an amount in major units of the ticket option’s currency.';

const priceRule = (name: string, description: string, example: { type: 'PERCENTAGE' | 'ABSOLUTE'; value: number }) =>
  z
    .strictObject({
      type: z.enum(['PERCENTAGE', 'ABSOLUTE']).openapi({ description: PRICE_TYPE_DESCRIPTION, example: example.type }),
      value: z.number().min(0).openapi({ description: 'A percentage (PERCENTAGE) or an amount in major units (ABSOLUTE); not negative.', example: example.value }),
    })
    .openapi(name, { description: `${description} ${PRICE_TYPE_DESCRIPTION} Posting again replaces the rule.`, example });

export const MaxPriceSellRules = priceRule(
  'MaxPriceSellConfigRules',
  'maxPriceSellConfig (replaces the deprecated maxPriceSell): the highest listing price a seller may choose. Within one scope it must not be below minPriceSellConfig when both have the same type.',
  { type: 'PERCENTAGE', value: 120 },
);
export const MinPriceSellRules = priceRule(
  'MinPriceSellConfigRules',
  'minPriceSellConfig (replaces the deprecated minPriceSell): the lowest listing price a seller may choose. Within one scope it must not exceed maxPriceSellConfig when both have the same type.',
  { type: 'ABSOLUTE', value: 20 },
);
export const FixedListingPriceRules = priceRule(
  'FixedListingPriceRules',
  'fixedListingPrice: the listing price is fixed; the seller cannot choose it.',
  { type: 'PERCENTAGE', value: 100 },
);

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

function ruleItem<T extends RuleType, S extends z.ZodType>(ruleType: T, rules: S, name: string, example: unknown) {
  return z
    .strictObject({
      ...ref(),
      priceTypeId: scopePriceType(),
      ruleType: z.literal(ruleType).openapi({ example: ruleType }),
      rules,
    })
    .openapi(name, { example });
}

const exampleRef = { externalReferenceEventId: 'tour-2026', showId: 'show-1', ticketOptionId: 'opt-field' };

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
  .discriminatedUnion('ruleType', [
    CombinationItem,
    ruleItem('qrUnlock', QrUnlockRules, 'QrUnlockRuleItem', { ...exampleRef, ruleType: 'qrUnlock', rules: { hoursBeforeShow: 3 } }),
    ruleItem('superSwapUnlock', SuperSwapUnlockRules, 'SuperSwapUnlockRuleItem', { ...exampleRef, ruleType: 'superSwapUnlock', rules: { hoursBeforeShow: 48 } }),
    ruleItem('superSwapConfig', SuperSwapConfigRules, 'SuperSwapConfigRuleItem', { ...exampleRef, ruleType: 'superSwapConfig', rules: { enabled: true } }),
    ruleItem('maxSell', MaxSellRules, 'MaxSellRuleItem', { ...exampleRef, ruleType: 'maxSell', rules: { maxTickets: 4 } }),
    ruleItem('platformFees', PlatformFeesRules, 'PlatformFeesRuleItem', { ...exampleRef, ruleType: 'platformFees', rules: { buyerPercent: 8 } }),
    ruleItem('maxPriceSellConfig', MaxPriceSellRules, 'MaxPriceSellConfigRuleItem', {
      ...exampleRef,
      priceTypeId: 'pt-early',
      ruleType: 'maxPriceSellConfig',
      rules: { type: 'PERCENTAGE', value: 120 },
    }),
    ruleItem('minPriceSellConfig', MinPriceSellRules, 'MinPriceSellConfigRuleItem', { ...exampleRef, ruleType: 'minPriceSellConfig', rules: { type: 'ABSOLUTE', value: 20 } }),
    ruleItem('fixedListingPrice', FixedListingPriceRules, 'FixedListingPriceRuleItem', { ...exampleRef, ruleType: 'fixedListingPrice', rules: { type: 'PERCENTAGE', value: 100 } }),
  ])
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

function storedItem<T extends RuleType, S extends z.ZodType>(ruleType: T, rules: S) {
  return z.object({ ...outRef(), ruleType: z.literal(ruleType), rules, updatedAt: updatedAt() }).openapi(`Stored${ruleType[0]!.toUpperCase()}${ruleType.slice(1)}Rule`);
}

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
    storedItem('qrUnlock', QrUnlockRules),
    storedItem('superSwapUnlock', SuperSwapUnlockRules),
    storedItem('superSwapConfig', SuperSwapConfigState),
    storedItem('maxSell', MaxSellRules),
    storedItem('platformFees', PlatformFeesRules),
    storedItem('maxPriceSellConfig', MaxPriceSellRules),
    storedItem('minPriceSellConfig', MinPriceSellRules),
    storedItem('fixedListingPrice', FixedListingPriceRules),
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
  switch (r.ruleType) {
    case COMBINATION:
      return {
        ...base,
        priceTypeId: r.priceTypeId!,
        ruleType: COMBINATION,
        price: major(r.priceMinor),
        ...(r.description !== null ? { description: r.description } : {}),
        updatedAt: at,
      };
    case 'qrUnlock':
      return { ...base, ruleType: r.ruleType, rules: 'unlockAt' in r.rules ? { unlockAt: toIso(r.rules.unlockAt) } : { hoursBeforeShow: r.rules.hoursBeforeShow }, updatedAt: at };
    case 'platformFees': {
      const f = r.rules;
      return {
        ...base,
        ruleType: r.ruleType,
        rules: {
          ...(f.buyerPercent !== undefined ? { buyerPercent: f.buyerPercent } : {}),
          ...(f.buyerFixedMinor !== undefined ? { buyerFixed: major(f.buyerFixedMinor) } : {}),
          ...(f.sellerPercent !== undefined ? { sellerPercent: f.sellerPercent } : {}),
          ...(f.sellerFixedMinor !== undefined ? { sellerFixed: major(f.sellerFixedMinor) } : {}),
        },
        updatedAt: at,
      };
    }
    case 'maxPriceSellConfig':
    case 'minPriceSellConfig':
    case 'fixedListingPrice': {
      const p = r.rules;
      return { ...base, ruleType: r.ruleType, rules: p.type === 'PERCENTAGE' ? { type: p.type, value: p.percent } : { type: p.type, value: major(p.amountMinor) }, updatedAt: at };
    }
    case 'superSwapUnlock':
      return { ...base, ruleType: r.ruleType, rules: { hoursBeforeShow: r.rules.hoursBeforeShow }, updatedAt: at };
    case 'superSwapConfig':
      return { ...base, ruleType: r.ruleType, rules: { ...r.rules }, updatedAt: at };
    case 'maxSell':
      return { ...base, ruleType: r.ruleType, rules: { maxTickets: r.rules.maxTickets }, updatedAt: at };
  }
}
