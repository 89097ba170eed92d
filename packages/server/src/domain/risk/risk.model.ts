/**
 * The risk module's model: the levels, the outcomes a partner reports, and what an evaluation
 * keeps of each signal (its level and what it saw), for the pages that read them back.
 */

/** The levels of a signal, of a side (customer, transaction) and of an evaluation, lowest first. */
export const RISK_LEVELS = ['low', 'medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** The outcomes a partner reports on a transaction (POST /v1/risk/feedback). */
export const RISK_FEEDBACK_RESULTS = ['approved', 'rejected', 'chargeback'] as const;
export type RiskFeedbackResult = (typeof RISK_FEEDBACK_RESULTS)[number];

/** The two sides of an evaluation, each with its signals. */
export const RISK_SIGNAL_GROUPS = ['customer', 'transaction'] as const;
export type RiskSignalGroup = (typeof RISK_SIGNAL_GROUPS)[number];

/**
 * What a signal saw, one code per case of its rule (risk.service.ts): the page says it in
 * words, the API answers only the level.
 */
export const RISK_SIGNAL_SAW = [
  // addressRiskLevel
  'no_address_country',
  'billing_country_differs',
  'address_country_given',
  // emailDomainLevel, emailLevel
  'no_email',
  'disposable_domain',
  'regular_domain',
  'email_unverified',
  'email_verified',
  // phoneLevel
  'no_phone',
  'phone_invalid',
  'phone_country_differs',
  'phone_unverified',
  'phone_verified',
  // manualReview
  'overall_medium',
  'overall_not_medium',
  // cardNameMatch
  'no_names_to_compare',
  'card_name_matches',
  'card_name_differs',
  // accountAge
  'no_account_date',
  'account_under_a_day',
  'account_older',
  // velocity: `n` evaluations of the same customer, device or card in the last hour
  'recent_evaluations',
  // amountVsHistory
  'little_history',
  'amount_usual',
  'amount_over_3x',
  'amount_over_10x',
  // previousFeedback
  'no_bad_feedback',
  'earlier_rejection',
  'earlier_chargeback',
] as const;
export type RiskSignalSaw = (typeof RISK_SIGNAL_SAW)[number];

/** A signal as an evaluation keeps it: its name, side, result (a level; manualReview `true`/`false`), what it saw, and a count where it counted. */
export interface StoredRiskSignal {
  name: string;
  group: RiskSignalGroup;
  result: string;
  saw: RiskSignalSaw;
  n?: number;
}

/**
 * The customer keys of an evaluation are `id:<customer id>` or `email:<address in lower case>`
 * (the id when both were sent): the keys a buyer typed as either may be stored under.
 */
export function customerKeysOf(buyer: string): string[] {
  const value = buyer.trim();
  if (!value) return [];
  return value.includes('@') ? [`id:${value}`, `email:${value.toLowerCase()}`] : [`id:${value}`];
}

/** The buyer a customer key names, as the partner sent it: `{ kind: 'id' | 'email', value }`. */
export function buyerOfCustomerKey(key: string): { kind: 'id' | 'email'; value: string } {
  if (key.startsWith('email:')) return { kind: 'email', value: key.slice('email:'.length) };
  return { kind: 'id', value: key.startsWith('id:') ? key.slice('id:'.length) : key };
}
