import { and, eq, gte, inArray, or, sql } from 'drizzle-orm';
import { createRequire } from 'node:module';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Tx } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { isCurrency, toMinor } from '../../lib/money.js';
import { ApiError } from '../../lib/errors.js';
import type { RiskRequest } from './risk.schemas.js';
import { riskEvaluations, riskFeedback } from './risk.table.js';
import type { Kernel } from '../../lib/kernel.js';

export type Level = 'low' | 'medium' | 'high';
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

    // Customer signals.
    const domain = email?.split('@')[1];
    const emailDomainLevel: Level = !domain ? 'medium' : DISPOSABLE.has(domain) ? 'high' : 'low';
    const emailLevel: Level = !r.customer.email ? 'medium' : r.customer.email.verified ? 'low' : 'medium';
    let phoneLevel: Level = 'medium';
    if (r.customer.phone) {
      const parsed = parsePhoneNumberFromString(r.customer.phone.number);
      const addressCountry = country(r.customer.address?.country);
      if (!parsed?.isValid()) phoneLevel = 'high';
      else if (addressCountry && parsed.country && parsed.country !== addressCountry) phoneLevel = 'medium';
      else phoneLevel = r.customer.phone.verified ? 'low' : 'medium';
    }
    const home = country(r.customer.address?.country);
    const billing = country(card?.billingAddress?.country);
    const addressRiskLevel: Level = !home ? 'medium' : billing && billing !== home ? 'medium' : 'low';
    const customerLevel = max([emailDomainLevel, emailLevel, phoneLevel, addressRiskLevel]);

    // Transaction signals.
    const fullName = (a?: string, b?: string) => `${a ?? ''} ${b ?? ''}`.trim().toLowerCase().replace(/\s+/g, ' ');
    const holder = fullName(card?.firstName, card?.lastName);
    const cardNameLevel: Level = !holder || !fullName(r.customer.firstName, r.customer.lastName) ? 'low' : holder === fullName(r.customer.firstName, r.customer.lastName) ? 'low' : 'medium';
    const age = r.customer.createdAt ? now - Date.parse(r.customer.createdAt) : null;
    const accountAgeLevel: Level = age === null ? 'medium' : age < 24 * HOUR ? 'medium' : 'low';
    const recent = async (col: typeof riskEvaluations.customerKey | typeof riskEvaluations.deviceKey | typeof riskEvaluations.cardKey, key: string | null) =>
      key ? (await tx.select({ n: sql<number>`count(*)` }).from(riskEvaluations).where(and(eq(riskEvaluations.partnerId, partnerId), eq(col, key), gte(riskEvaluations.createdAt, now - HOUR))).limit(1))[0]!.n : 0;
    const velocity = Math.max(await recent(riskEvaluations.customerKey, customerKey), await recent(riskEvaluations.deviceKey, deviceKey), await recent(riskEvaluations.cardKey, cardKey));
    const velocityLevel: Level = velocity >= 10 ? 'high' : velocity >= 3 ? 'medium' : 'low';
    if (!isCurrency(r.transaction.currency)) throw ApiError.field('invalid_value', 'transaction.currency', 'transaction.currency must be an ISO 4217 currency code');
    const amountMinor = toMinor(String(r.transaction.amount), r.transaction.currency, 'transaction.amount');
    const history = (await tx
      .select({ avg: sql<number | null>`avg(${riskEvaluations.amountMinor})`, n: sql<number>`count(*)` })
      .from(riskEvaluations)
      .where(and(eq(riskEvaluations.partnerId, partnerId), eq(riskEvaluations.customerKey, customerKey), eq(riskEvaluations.currency, r.transaction.currency.toUpperCase()))).limit(1))[0]!;
    const amountLevel: Level = history.n < 3 || !history.avg ? 'low' : amountMinor > history.avg * 10 ? 'high' : amountMinor > history.avg * 3 ? 'medium' : 'low';
    const keys = [customerKey, deviceKey, cardKey].filter((k): k is string => k !== null);
    const feedback = (await tx
      .select({ result: riskFeedback.result })
      .from(riskFeedback)
      .where(and(eq(riskFeedback.partnerId, partnerId), or(inArray(riskFeedback.customerKey, keys), inArray(riskFeedback.deviceKey, keys), inArray(riskFeedback.cardKey, keys)))))
      .map((f) => f.result);
    const feedbackLevel: Level = feedback.includes('chargeback') ? 'high' : feedback.includes('rejected') ? 'medium' : 'low';
    const transactionLevel = max([cardNameLevel, accountAgeLevel, velocityLevel, amountLevel, feedbackLevel]);
    const overall = max([customerLevel, transactionLevel]);

    await tx.insert(riskEvaluations)
      .values({ id: newId('riskEvaluation'), partnerId, transactionId: r.transaction.id, customerKey, deviceKey, cardKey, amountMinor, currency: r.transaction.currency.toUpperCase(), overall, createdAt: now });
    return {
      overall_risk: overall,
      detailed: {
        customer_risk: {
          level: customerLevel,
          signals: [
            { name: 'addressRiskLevel', result: addressRiskLevel },
            { name: 'emailDomainLevel', result: emailDomainLevel },
            { name: 'emailLevel', result: emailLevel },
            { name: 'phoneLevel', result: phoneLevel },
            { name: 'manualReview', result: overall === 'medium' ? 'true' : 'false' },
          ],
        },
        transaction_risk: {
          level: transactionLevel,
          signals: [
            { name: 'cardNameMatch', result: cardNameLevel },
            { name: 'accountAge', result: accountAgeLevel },
            { name: 'velocity', result: velocityLevel },
            { name: 'amountVsHistory', result: amountLevel },
            { name: 'previousFeedback', result: feedbackLevel },
          ],
        },
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
