import type { Kernel } from '../lib/kernel.js';
import { ApiError } from '../lib/errors.js';
import type { AuditContext, AuditService } from '../domain/audit/audit.service.js';
import type { RiskFeedbackResult } from '../domain/risk/risk.model.js';
import { riskEvaluationOfPartner } from '../domain/risk/risk.queries.js';
import type { RiskService } from '../domain/risk/risk.service.js';

/** The audit action of feedback recorded on an evaluation from the console. */
export const RISK_FEEDBACK_ACTION = 'risk.feedback';

/** What recording feedback needs: the database, the risk module and the audit log. */
export type ConsoleRiskDeps = Pick<Kernel, 'db'> & { risk: RiskService; audit: AuditService };

/**
 * Records the outcome of an evaluation's transaction, as POST /v1/risk/feedback does
 * (`RiskService.feedback`, on the evaluation's transaction id: a chargeback makes later
 * evaluations of the same customer, card or device high, a rejection medium), and
 * `risk.feedback` (the evaluation as target, `after: { transactionId, userId, result }`) in the
 * same transaction. The input is already checked by the API's schema (`RiskFeedbackSchema`).
 *
 * @throws ApiError 404 for an evaluation that is not the partner's (nothing recorded)
 * @example await recordRiskFeedback(deps, ctx, 'ptr_…', 'rsk_…', { userId: 'user-1', result: 'chargeback' });
 */
export async function recordRiskFeedback(deps: ConsoleRiskDeps, ctx: AuditContext, partnerId: string, evaluationId: string, input: { userId: string; result: RiskFeedbackResult }): Promise<void> {
  await deps.db.transact(async (tx) => {
    const evaluation = await riskEvaluationOfPartner(tx, partnerId, evaluationId);
    if (!evaluation) throw ApiError.notFound('risk evaluation', evaluationId);
    const feedback = { transactionId: evaluation.transactionId, userId: input.userId, result: input.result };
    await deps.risk.feedback(tx, partnerId, feedback);
    await deps.audit.record(tx, ctx, { action: RISK_FEEDBACK_ACTION, partnerId, target: evaluation.id, after: feedback });
  });
}
