import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import type { RiskLevel } from './risk.model.js';
import { riskEvaluations, riskFeedback } from './risk.table.js';

/**
 * Reads of the risk module other rings may use (the console's risk tab). Only
 * `risk.service.ts` writes evaluations and feedback.
 */
export type RiskEvaluationRow = typeof riskEvaluations.$inferSelect;
export type RiskFeedbackRow = typeof riskFeedback.$inferSelect;

/** Filters of {@link riskEvaluationsOfPartner}: the overall level, the buyer's customer keys (any of them), the transaction id. */
export interface RiskEvaluationFilter {
  level?: RiskLevel | undefined;
  customerKeys?: readonly string[] | undefined;
  transactionId?: string | undefined;
}

/** A page of a partner's evaluations, newest first (`limit` rows from `offset`). */
export async function riskEvaluationsOfPartner(tx: Tx, partnerId: string, filter: RiskEvaluationFilter, page: { limit: number; offset: number }): Promise<RiskEvaluationRow[]> {
  const where: SQL[] = [eq(riskEvaluations.partnerId, partnerId)];
  if (filter.level) where.push(eq(riskEvaluations.overall, filter.level));
  if (filter.customerKeys) where.push(filter.customerKeys.length > 0 ? inArray(riskEvaluations.customerKey, [...filter.customerKeys]) : eq(riskEvaluations.id, ''));
  if (filter.transactionId !== undefined) where.push(eq(riskEvaluations.transactionId, filter.transactionId));
  return await tx
    .select()
    .from(riskEvaluations)
    .where(and(...where))
    .orderBy(desc(riskEvaluations.createdAt), desc(riskEvaluations.id))
    .limit(page.limit)
    .offset(page.offset);
}

/** One evaluation of the partner, or undefined (unknown, or another partner's). */
export async function riskEvaluationOfPartner(tx: Tx, partnerId: string, evaluationId: string): Promise<RiskEvaluationRow | undefined> {
  return (await tx.select().from(riskEvaluations).where(and(eq(riskEvaluations.partnerId, partnerId), eq(riskEvaluations.id, evaluationId))).limit(1))[0];
}

/** The feedback the partner reported on these transactions, newest first. */
export async function riskFeedbackOfTransactions(tx: Tx, partnerId: string, transactionIds: readonly string[]): Promise<RiskFeedbackRow[]> {
  if (transactionIds.length === 0) return [];
  return await tx
    .select()
    .from(riskFeedback)
    .where(and(eq(riskFeedback.partnerId, partnerId), inArray(riskFeedback.transactionId, [...new Set(transactionIds)])))
    .orderBy(desc(riskFeedback.createdAt), desc(riskFeedback.id));
}
