import { and, eq, gte, inArray, or, sql } from 'drizzle-orm';
import { createRequire } from 'node:module';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Tx } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { isCurrency, toMinor } from '../../lib/money.js';
import { ApiError } from '../../lib/errors.js';
import type { RiskRequest } from './risk.schemas.js';
import { riskEvaluations, riskFeedback } from './risk.table.js';
import type { RiskLevel, RiskSignalSaw, StoredRiskSignal } from './risk.model.js';
import type { Kernel } from '../../lib/kernel.js';

export type Level = RiskLevel;
const RANK: Record<Level, number> = { low: 0, medium: 1, high: 2 };
const max = (levels: Level[]): Level => levels.reduce<Level>((a, b) => (RANK[b] > RANK[a] ? b : a), 'low');
/** The `disposable-email-domains` list (a JSON array, loaded once). */
const DISPOSABLE = new Set<string>(createRequire(import.meta.url)('disposable-email-domains') as string[]);
const HOUR = 3_600_000;

/** Countries as people write them, to compare addresses and phones. */
function country(value: string | undefined): string | null {
  if (!value) return null;
  const v = value.trim().toUpperCase();
  const names: Record<string, string> = { SPAIN: 'ES', ESPAÑA: 'ES', FRANCE: 'FR', GERMANY: 'DE', PORTUGAL: 'PT', ITALY: 'IT', 'UNITED KINGDOM': 'GB', UK: 'GB', 'UNITED STATES': 'US', USA: 'US', MEXICO: 'MX', MÉXICO: 'MX' };
  return names[v] ?? (v.length === 2 ? v : null);
}

/**
 * Purchase risk as explainable rules: each signal says what it saw, the levels combine by
 * taking the highest. Customer: the e-mail's domain (disposable lists) and verification,
 * the phone's validity, verification and country, the address against the billing address.
 * Transaction: card holder against customer name, account age, velocity per customer,
 * device and card (last hour), amount against the customer's history, and earlier
 * feedback (a chargeback on the customer, card or device is high; a rejection medium).
 */
export class RiskService {
  constructor(private readonly deps: Pick<Kernel, 'db' | 'clock'>) {}

  async evaluate(tx: Tx, partnerId: string, r: RiskRequest) {
    const now = this.deps.clock.now();
    const email = r.customer.email?.address.toLowerCase();
    const customerKey = r.customer.id ? `id:${r.customer.id}` : `email:${email}`;
    const deviceKey = r.device?.userId || r.device?.sessionId ? `dev:${r.device.userId ?? ''}/${r.device.sessionId ?? ''}` : null;
    const card = r.transaction.cardData;
    const cardKey = card?.cardIdentifier ? `card:${card.cardIdentifier}` : card?.bin && card.last4Digits ? `card:${card.bin}…${card.last4Digits}` : null;

    // Customer signals, each with what it saw (kept with the evaluation for the console).
    const saw: Record<string, RiskSignalSaw> = {};
    const domain = email?.split('@')[1];
    const emailDomainLevel: Level = !domain ? 'medium' : DISPOSABLE.has(domain) ? 'high' : 'low';
    saw.emailDomainLevel = !domain ? 'no_email' : DISPOSABLE.has(domain) ? 'disposable_domain' : 'regular_domain';
    const emailLevel: Level = !r.customer.email ? 'medium' : r.customer.email.verified ? 'low' : 'medium';
    saw.emailLevel = !r.customer.email ? 'no_email' : r.customer.email.verified ? 'email_verified' : 'email_unverified';
    let phoneLevel: Level = 'medium';
    saw.phoneLevel = 'no_phone';
    if (r.customer.phone) {
      const parsed = parsePhoneNumberFromString(r.customer.phone.number);
      const addressCountry = country(r.customer.address?.country);
      if (!parsed?.isValid()) {
        phoneLevel = 'high';
        saw.phoneLevel = 'phone_invalid';
      } else if (addressCountry && parsed.country && parsed.country !== addressCountry) {
        phoneLevel = 'medium';
        saw.phoneLevel = 'phone_country_differs';
      } else {
        phoneLevel = r.customer.phone.verified ? 'low' : 'medium';
        saw.phoneLevel = r.customer.phone.verified ? 'phone_verified' : 'phone_unverified';
      }
    }
    const home = country(r.customer.address?.country);
    const billing = country(card?.billingAddress?.country);
    const addressRiskLevel: Level = !home ? 'medium' : billing && billing !== home ? 'medium' : 'low';
    saw.addressRiskLevel = !home ? 'no_address_country' : billing && billing !== home ? 'billing_country_differs' : 'address_country_given';
    const customerLevel = max([emailDomainLevel, emailLevel, phoneLevel, addressRiskLevel]);

    // Transaction signals.
    const fullName = (a?: string, b?: string) => `${a ?? ''} ${b ?? ''}`.trim().toLowerCase().replace(/\s+/g, ' ');
    const holder = fullName(card?.firstName, card?.lastName);
    const cardNameLevel: Level = !holder || !fullName(r.customer.firstName, r.customer.lastName) ? 'low' : holder === fullName(r.customer.firstName, r.customer.lastName) ? 'low' : 'medium';
    saw.cardNameMatch = !holder || !fullName(r.customer.firstName, r.customer.lastName) ? 'no_names_to_compare' : cardNameLevel === 'low' ? 'card_name_matches' : 'card_name_differs';
    const age = r.customer.createdAt ? now - Date.parse(r.customer.createdAt) : null;
    const accountAgeLevel: Level = age === null ? 'medium' : age < 24 * HOUR ? 'medium' : 'low';
    saw.accountAge = age === null ? 'no_account_date' : age < 24 * HOUR ? 'account_under_a_day' : 'account_older';
    const recent = async (col: typeof riskEvaluations.customerKey | typeof riskEvaluations.deviceKey | typeof riskEvaluations.cardKey, key: string | null) =>
      key ? (await tx.select({ n: sql<number>`count(*)` }).from(riskEvaluations).where(and(eq(riskEvaluations.partnerId, partnerId), eq(col, key), gte(riskEvaluations.createdAt, now - HOUR))).limit(1))[0]!.n : 0;
    const velocity = Math.max(await recent(riskEvaluations.customerKey, customerKey), await recent(riskEvaluations.deviceKey, deviceKey), await recent(riskEvaluations.cardKey, cardKey));
    const velocityLevel: Level = velocity >= 10 ? 'high' : velocity >= 3 ? 'medium' : 'low';
    saw.velocity = 'recent_evaluations';
    if (!isCurrency(r.transaction.currency)) throw ApiError.field('invalid_value', 'transaction.currency', 'transaction.currency must be an ISO 4217 currency code');
    const amountMinor = toMinor(String(r.transaction.amount), r.transaction.currency, 'transaction.amount');
    const history = (await tx
      .select({ avg: sql<number | null>`avg(${riskEvaluations.amountMinor})`, n: sql<number>`count(*)` })
      .from(riskEvaluations)
      .where(and(eq(riskEvaluations.partnerId, partnerId), eq(riskEvaluations.customerKey, customerKey), eq(riskEvaluations.currency, r.transaction.currency.toUpperCase()))).limit(1))[0]!;
    const amountLevel: Level = history.n < 3 || !history.avg ? 'low' : amountMinor > history.avg * 10 ? 'high' : amountMinor > history.avg * 3 ? 'medium' : 'low';
    saw.amountVsHistory = history.n < 3 || !history.avg ? 'little_history' : amountLevel === 'high' ? 'amount_over_10x' : amountLevel === 'medium' ? 'amount_over_3x' : 'amount_usual';
    const keys = [customerKey, deviceKey, cardKey].filter((k): k is string => k !== null);
    const feedback = (await tx
      .select({ result: riskFeedback.result })
      .from(riskFeedback)
      .where(and(eq(riskFeedback.partnerId, partnerId), or(inArray(riskFeedback.customerKey, keys), inArray(riskFeedback.deviceKey, keys), inArray(riskFeedback.cardKey, keys)))))
      .map((f) => f.result);
    const feedbackLevel: Level = feedback.includes('chargeback') ? 'high' : feedback.includes('rejected') ? 'medium' : 'low';
    saw.previousFeedback = feedback.includes('chargeback') ? 'earlier_chargeback' : feedback.includes('rejected') ? 'earlier_rejection' : 'no_bad_feedback';
    const transactionLevel = max([cardNameLevel, accountAgeLevel, velocityLevel, amountLevel, feedbackLevel]);
    const overall = max([customerLevel, transactionLevel]);
    saw.manualReview = overall === 'medium' ? 'overall_medium' : 'overall_not_medium';

    const customerSignals = [
      { name: 'addressRiskLevel', result: addressRiskLevel },
      { name: 'emailDomainLevel', result: emailDomainLevel },
      { name: 'emailLevel', result: emailLevel },
      { name: 'phoneLevel', result: phoneLevel },
      { name: 'manualReview', result: overall === 'medium' ? 'true' : 'false' },
    ];
    const transactionSignals = [
      { name: 'cardNameMatch', result: cardNameLevel },
      { name: 'accountAge', result: accountAgeLevel },
      { name: 'velocity', result: velocityLevel },
      { name: 'amountVsHistory', result: amountLevel },
      { name: 'previousFeedback', result: feedbackLevel },
    ];
    // What the console shows of it: every signal with what it saw (the velocity with its count).
    const signals: StoredRiskSignal[] = [
      ...customerSignals.map((s) => ({ ...s, group: 'customer' as const, saw: saw[s.name]! })),
      ...transactionSignals.map((s) => ({ ...s, group: 'transaction' as const, saw: saw[s.name]!, ...(s.name === 'velocity' ? { n: velocity } : {}) })),
    ];

    await tx.insert(riskEvaluations).values({
      id: newId('riskEvaluation'),
      partnerId,
      transactionId: r.transaction.id,
      customerKey,
      deviceKey,
      cardKey,
      amountMinor,
      currency: r.transaction.currency.toUpperCase(),
      overall,
      customerLevel,
      transactionLevel,
      signals,
      createdAt: now,
    });
    return {
      overall_risk: overall,
      detailed: {
        customer_risk: { level: customerLevel, signals: customerSignals },
        transaction_risk: { level: transactionLevel, signals: transactionSignals },
      },
    };
  }

  /** Stores the outcome of a transaction; it marks the keys that transaction was evaluated with. */
  async feedback(tx: Tx, partnerId: string, f: { transactionId: string; userId: string; result: 'approved' | 'rejected' | 'chargeback' }) {
    const evaluated = (await tx.select().from(riskEvaluations).where(and(eq(riskEvaluations.partnerId, partnerId), eq(riskEvaluations.transactionId, f.transactionId))).limit(1))[0];
    const userKey = f.userId.includes('@') ? `email:${f.userId.toLowerCase()}` : `id:${f.userId}`;
    await tx.insert(riskFeedback)
      .values({ id: newId('riskFeedback'), partnerId, transactionId: f.transactionId, userId: f.userId, result: f.result, customerKey: evaluated?.customerKey ?? userKey, deviceKey: evaluated?.deviceKey ?? null, cardKey: evaluated?.cardKey ?? null, createdAt: this.deps.clock.now() });
    return { recorded: true as const, matchedEvaluation: evaluated !== undefined };
  }
}
