/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { recordRiskFeedback } from '../../../flows/console-risk.js';
import { ApiError } from '../../../lib/errors.js';
import { safeRedirect } from '../auth/auth.session.js';
import { consoleRefusal, type ConsoleDeps } from './console.auth.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { feedbackFromForm, loadRiskEvaluation, loadRiskList, riskQueryOf, type FeedbackForm } from './console.risk.load.js';
import { rm } from './console.risk.messages.js';
import { riskHref, RiskEvaluationView, RiskListView } from './console.risk.view.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';

/**
 * The risk section of a partner's pages: the partner's evaluations (by level, buyer and
 * transaction, a page at a time) and each evaluation with its signals, its checkout and the
 * feedback on its transaction. Partner admins and operators record feedback, checked by the API's
 * schema and recorded by the API's service, audited in the same transaction (`risk.feedback`,
 * flows/console-risk.ts); a viewer's or developer's answers 403 before the form is read. An
 * unknown evaluation, or another partner's, answers 404.
 */
export function consoleRiskRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  app.get('/console/partners/:partnerId/risk', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const query = riskQueryOf({ level: c.req.query('level'), buyer: c.req.query('buyer'), transaction: c.req.query('transaction'), page: c.req.query('page') });
    const model = await loadRiskList(deps, partnerId, query);
    return renderPartnerSection(c, deps, session, partnerId, 'risk', <RiskListView lang={c.get('consoleLang')} partnerId={partnerId} model={model} />);
  });

  /** An evaluation's page, with the feedback form as typed and its errors when refused; 404 when it is not the partner's. */
  const evaluationPage = async (c: ConsoleContext, partnerId: string, evaluationId: string, state: { typed?: FeedbackForm; errors?: Record<string, string>; notice?: string | undefined; status?: number } = {}) => {
    const session = c.get('console')!;
    const lang = c.get('consoleLang');
    const model = await loadRiskEvaluation(deps, session, partnerId, evaluationId, state.typed);
    if (!model) return consoleRefusal(c, 404);
    const action = `${riskHref(partnerId, model.id)}/feedback`;
    const errors = state.errors ?? {};
    const body = <RiskEvaluationView lang={lang} partnerId={partnerId} model={model} errors={errors} form={{ action, csrf: consoleCsrfToken(c, deps, action) }} />;
    return renderPartnerSection(c, deps, session, partnerId, 'risk', body, { status: state.status ?? 200, notice: state.notice, errors, labels: { userId: rm(lang, 'userId'), result: rm(lang, 'outcome') } });
  };

  app.get('/console/partners/:partnerId/risk/:evaluationId', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const notice = c.req.query('saved') === 'feedback' ? rm(c.get('consoleLang'), 'saved') : undefined;
    return evaluationPage(c, got.partnerId, c.req.param('evaluationId'), { notice });
  });

  app.post('/console/partners/:partnerId/risk/:evaluationId/feedback', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const evaluation = await loadRiskEvaluation(deps, session, partnerId, c.req.param('evaluationId'));
    if (!evaluation) return consoleRefusal(c, 404);
    const result = feedbackFromForm(form, lang, evaluation.transactionId);
    if (!result.ok) return evaluationPage(c, partnerId, evaluation.id, { typed: result.typed, errors: result.errors, status: 400 });
    try {
      await recordRiskFeedback(deps, consoleAuditContext(c, session, partnerId), partnerId, evaluation.id, result.input);
    } catch (err) {
      // The partner went away meanwhile.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
    return safeRedirect(c, `${riskHref(partnerId, evaluation.id)}?saved=feedback#feedback`, 303);
  });

  return app;
}
