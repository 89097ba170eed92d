import type { Lang } from '@resale/shared/lang';
import type { AppDeps } from '../../../context.js';
import type { Tx } from '../../../db/client.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { intentionById, type IntentionRow } from '../../../domain/intentions/intentions.queries.js';
import { buyerOfCustomerKey, customerKeysOf, RISK_FEEDBACK_RESULTS, RISK_LEVELS, type RiskFeedbackResult, type RiskLevel, type StoredRiskSignal } from '../../../domain/risk/risk.model.js';
import { riskEvaluationOfPartner, riskEvaluationsOfPartner, riskFeedbackOfTransactions, type RiskEvaluationRow } from '../../../domain/risk/risk.queries.js';
import { RiskFeedbackSchema } from '../../../domain/risk/risk.schemas.js';
import { rm } from './console.risk.messages.js';

/**
 * What the risk section shows, read for one person: a page of the partner's evaluations
 * (filtered by level, buyer, transaction), one evaluation with its signals, its checkout and
 * the feedback on its transaction; and the feedback form read back through the API's schema.
 * No HTTP here beyond the form's fields.
 */

/** Evaluations per page. */
export const RISK_PAGE_SIZE = 25;

/** A checkout's state (a buy intention's). */
export type CheckoutState = IntentionRow['state'];

/** The furthest page the list goes to (a filter narrows it). */
export const MAX_RISK_PAGE = 1_000;

/** The list's filters and page, from the GET query (an unknown level reads as every level). */
export interface RiskListQuery {
  level: RiskLevel | null;
  /** The buyer's id or e-mail on the partner's platform, as typed (trimmed). */
  buyer: string;
  /** The transaction's id (a checkout's is its buy intention's), as typed (trimmed). */
  transaction: string;
  page: number;
}

/** The buyer an evaluation was about: the id the partner sent, else the e-mail. */
export interface RiskBuyer {
  kind: 'id' | 'email';
  value: string;
}

/** One line of the list. */
export interface RiskListItem {
  id: string;
  createdAt: number;
  overall: RiskLevel;
  buyer: RiskBuyer;
  transactionId: string;
  /** The transaction is a checkout (buy intention) of the partner: its page is linked. */
  checkout: boolean;
  amount: { minor: number; currency: string } | null;
  /** The latest feedback on the transaction, if any. */
  feedback: RiskFeedbackResult | null;
}

/** The list's model. */
export interface RiskListModel {
  query: RiskListQuery;
  items: RiskListItem[];
  hasNext: boolean;
}

/** The list's filters from the query string. */
export function riskQueryOf(q: { level?: string | undefined; buyer?: string | undefined; transaction?: string | undefined; page?: string | undefined }): RiskListQuery {
  const level = (RISK_LEVELS as readonly string[]).includes(q.level ?? '') ? (q.level as RiskLevel) : null;
  const page = Math.min(Math.max(1, Number.parseInt(q.page ?? '1', 10) || 1), MAX_RISK_PAGE);
  return { level, buyer: (q.buyer ?? '').trim().slice(0, 254), transaction: (q.transaction ?? '').trim().slice(0, 200), page };
}

/** The partner's buy intentions among `ids` (the others are transactions the partner evaluated through the API). */
async function checkoutsOf(tx: Tx, partnerId: string, ids: readonly string[]): Promise<Map<string, CheckoutState>> {
  const found = new Map<string, CheckoutState>();
  for (const id of new Set(ids)) {
    const intention = await intentionById(tx, id);
    if (intention && intention.partnerId === partnerId) found.set(id, intention.state);
  }
  return found;
}

const amountOf = (row: RiskEvaluationRow) => (row.amountMinor === null || row.currency === null ? null : { minor: row.amountMinor, currency: row.currency });

/** A page of the partner's evaluations with these filters, newest first. */
export async function loadRiskList(deps: Pick<AppDeps, 'db'>, partnerId: string, query: RiskListQuery): Promise<RiskListModel> {
  return await deps.db.read(
    async (tx) => {
      const rows = await riskEvaluationsOfPartner(
        tx,
        partnerId,
        { level: query.level ?? undefined, customerKeys: query.buyer ? customerKeysOf(query.buyer) : undefined, transactionId: query.transaction || undefined },
        { limit: RISK_PAGE_SIZE + 1, offset: (query.page - 1) * RISK_PAGE_SIZE },
      );
      const shown = rows.slice(0, RISK_PAGE_SIZE);
      const ids = shown.map((r) => r.transactionId);
      const checkouts = await checkoutsOf(tx, partnerId, ids);
      const latest = new Map<string, RiskFeedbackResult>();
      // Newest first: the first seen of a transaction is its latest.
      for (const f of await riskFeedbackOfTransactions(tx, partnerId, ids)) if (!latest.has(f.transactionId)) latest.set(f.transactionId, f.result);
      return {
        query,
        items: shown.map((r) => ({
          id: r.id,
          createdAt: r.createdAt,
          overall: r.overall,
          buyer: buyerOfCustomerKey(r.customerKey),
          transactionId: r.transactionId,
          checkout: checkouts.has(r.transactionId),
          amount: amountOf(r),
          feedback: latest.get(r.transactionId) ?? null,
        })),
        hasNext: rows.length > RISK_PAGE_SIZE,
      };
    },
    { snapshot: true },
  );
}

/** The feedback form as typed (or as offered: the evaluation's buyer, no result chosen). */
export interface FeedbackForm {
  userId: string;
  result: string;
}

/** One evaluation as its page shows it. */
export interface RiskEvaluationModel {
  id: string;
  createdAt: number;
  overall: RiskLevel;
  /** Null for an evaluation made before the sides' levels and the signals were kept. */
  customerLevel: RiskLevel | null;
  transactionLevel: RiskLevel | null;
  signals: StoredRiskSignal[] | null;
  buyer: RiskBuyer;
  transactionId: string;
  amount: { minor: number; currency: string } | null;
  /** The card as the evaluation knew it (its identifier, or first six and last four digits), and the device. */
  cardKey: string | null;
  deviceKey: string | null;
  /** The checkout (buy intention) of the partner this evaluation was made for, with its state. */
  checkout: { intentionId: string; state: CheckoutState } | null;
  /** Every outcome reported on the transaction (through the API or the console), newest first. */
  feedback: { id: string; result: RiskFeedbackResult; userId: string; createdAt: number }[];
  mayAdminister: boolean;
  form: FeedbackForm;
}

/**
 * One evaluation of the partner, or null when the person may not see the partner, or the
 * evaluation is unknown or another partner's (one answer for all three). `typed`: the feedback
 * form as refused.
 */
export async function loadRiskEvaluation(deps: Pick<AppDeps, 'db'>, session: ConsoleSession, partnerId: string, evaluationId: string, typed?: FeedbackForm): Promise<RiskEvaluationModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  return await deps.db.read(
    async (tx) => {
      const row = await riskEvaluationOfPartner(tx, partnerId, evaluationId.slice(0, 100));
      if (!row) return null;
      const checkouts = await checkoutsOf(tx, partnerId, [row.transactionId]);
      const state = checkouts.get(row.transactionId);
      const feedback = await riskFeedbackOfTransactions(tx, partnerId, [row.transactionId]);
      const buyer = buyerOfCustomerKey(row.customerKey);
      return {
        id: row.id,
        createdAt: row.createdAt,
        overall: row.overall,
        customerLevel: row.customerLevel,
        transactionLevel: row.transactionLevel,
        signals: row.signals,
        buyer,
        transactionId: row.transactionId,
        amount: amountOf(row),
        cardKey: row.cardKey?.replace(/^card:/, '') ?? null,
        deviceKey: row.deviceKey?.replace(/^dev:/, '') ?? null,
        checkout: state === undefined ? null : { intentionId: row.transactionId, state },
        feedback: feedback.map((f) => ({ id: f.id, result: f.result, userId: f.userId, createdAt: f.createdAt })),
        mayAdminister: can(session, 'administer', partnerId),
        form: typed ?? { userId: buyer.value, result: '' },
      };
    },
    { snapshot: true },
  );
}

/**
 * The feedback form (`userId`, `result`) on the evaluation's transaction, checked by the
 * API's own schema (`RiskFeedbackSchema`, as POST /v1/risk/feedback): the outcome, or every
 * error at once by field with what was typed, to show it again.
 */
export function feedbackFromForm(form: Record<string, string>, lang: Lang, transactionId: string): { ok: true; input: { userId: string; result: RiskFeedbackResult } } | { ok: false; errors: Record<string, string>; typed: FeedbackForm } {
  const typed: FeedbackForm = { userId: (form.userId ?? '').trim(), result: form.result ?? '' };
  const parsed = RiskFeedbackSchema.safeParse({ transactionId, userId: typed.userId, result: typed.result });
  if (parsed.success) return { ok: true, input: { userId: parsed.data.userId, result: parsed.data.result } };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === 'userId') errors.userId ??= typed.userId === '' ? rm(lang, 'userIdRequired') : rm(lang, 'userIdTooLong');
    else if (field === 'result') errors.result ??= rm(lang, 'chooseResult', { results: RISK_FEEDBACK_RESULTS.join(', ') });
    // The transaction is the evaluation's own: an error there is the stored id's, said on the form.
    else errors.userId ??= issue.message;
  }
  return { ok: false, errors, typed: { ...typed, result: (RISK_FEEDBACK_RESULTS as readonly string[]).includes(typed.result) ? typed.result : '' } };
}
