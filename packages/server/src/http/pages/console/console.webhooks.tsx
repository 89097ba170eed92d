/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { ConsoleSession } from '../../../domain/console/console.service.js';
import { replayWebhook, updatePartner } from '../../../flows/operator-changes.js';
import { sendTestWebhook } from '../../../flows/webhook-test-event.js';
import { ApiError } from '../../../lib/errors.js';
import { safeRedirect } from '../auth/auth.session.js';
import { consoleRefusal, requireStepUp, type ConsoleDeps } from './console.auth.js';
import { changesDestinations } from './console.settings-form.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { sectionHref } from './console.sections.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { endpointPatchFromForm, loadWebhookMessage, loadWebhooksPage, logQueryOf, testKindOf, type EndpointForm } from './console.webhooks.load.js';
import { wm } from './console.webhooks.messages.js';
import { WebhookMessageView, WebhooksView } from './console.webhooks.view.js';

/**
 * The webhooks section of a partner's pages: the endpoint and the kinds it receives (developers,
 * partner admins and operators change them, through the API's schema and `updatePartner`), a
 * test event of a chosen kind, the delivery log (filters and pages by GET query), and each
 * message with the request as sent, every attempt and what the endpoint answered, with Resend
 * (`replayWebhook`). Every change is audited in its own transaction (`partner.update`,
 * `webhook.test`, `webhook.replay`). Viewers read; a change they post answers 403.
 */
export function consoleWebhookRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  const baseOf = (partnerId: string) => sectionHref(partnerId, { path: '' });

  /** The webhooks page with the log of the query, `typed` endpoint values and `errors` of a refused form. */
  const webhooksPage = async (c: ConsoleContext, session: ConsoleSession, partnerId: string, state: { typed?: EndpointForm; errors?: Record<string, string>; testKind?: string; notice?: string } = {}, status = 200) => {
    const lang = c.get('consoleLang');
    const query = logQueryOf({ state: c.req.query('state'), action: c.req.query('action'), startingAfter: c.req.query('startingAfter') });
    const model = await loadWebhooksPage(deps, session, partnerId, query, state.typed);
    if (!model) return consoleRefusal(c, 404);
    const base = baseOf(partnerId);
    const errors = state.errors ?? {};
    const body = (
      <WebhooksView
        lang={lang}
        model={model}
        base={base}
        errors={errors}
        testKind={state.testKind}
        csrf={{ endpoint: consoleCsrfToken(c, deps, `${base}/webhooks/endpoint`), test: consoleCsrfToken(c, deps, `${base}/webhooks/test`) }}
      />
    );
    const labels = { webhookUrl: wm(lang, 'webhookUrl'), webhookEvents: wm(lang, 'kinds'), kind: wm(lang, 'kind') };
    return renderPartnerSection(c, deps, session, partnerId, 'webhooks', body, { status, notice: state.notice, errors, labels });
  };

  app.get('/console/partners/:partnerId/webhooks', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const notice = c.req.query('saved') === 'endpoint' ? wm(c.get('consoleLang'), 'endpointSaved') : undefined;
    return webhooksPage(c, got.session, got.partnerId, notice ? { notice } : {});
  });

  app.post('/console/partners/:partnerId/webhooks/endpoint', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const result = endpointPatchFromForm(form, c.get('consoleLang'));
    if (!result.ok) return webhooksPage(c, session, partnerId, { typed: result.typed, errors: result.errors }, 400);
    // A new endpoint after a fresh code: it receives ticket.update, which moves tickets.
    const current = await deps.db.read(async (tx) => await partnerById(tx, partnerId));
    if (!current) return consoleRefusal(c, 404);
    if (changesDestinations(current.settings, result.patch)) {
      const stepUp = requireStepUp(c, deps, session, `${baseOf(partnerId)}/webhooks#endpoint`);
      if (stepUp) return stepUp;
    }
    try {
      await updatePartner(deps, consoleAuditContext(c, session, partnerId), partnerId, { settings: result.patch });
    } catch (err) {
      // The partner went away meanwhile.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
    return safeRedirect(c, `${baseOf(partnerId)}/webhooks?saved=endpoint#endpoint`, 303);
  });

  app.post('/console/partners/:partnerId/webhooks/test', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const kind = testKindOf(form);
    if (!kind) return webhooksPage(c, session, partnerId, { errors: { kind: wm(lang, 'notAKind', { kind: (form.kind ?? '').slice(0, 100) }) } }, 400);
    try {
      const message = await sendTestWebhook(deps, consoleAuditContext(c, session, partnerId), partnerId, kind);
      return safeRedirect(c, `${baseOf(partnerId)}/webhooks/${encodeURIComponent(message.id)}?saved=test`, 303);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
  });

  app.get('/console/partners/:partnerId/webhooks/:messageId', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const lang = c.get('consoleLang');
    const model = await loadWebhookMessage(deps, session, partnerId, c.req.param('messageId'));
    if (!model) return consoleRefusal(c, 404);
    const base = baseOf(partnerId);
    const saved = c.req.query('saved');
    const notice = saved === 'test' ? wm(lang, 'testQueued') : saved === 'resent' ? wm(lang, 'resent') : undefined;
    const body = <WebhookMessageView lang={lang} model={model} base={base} csrf={{ resend: consoleCsrfToken(c, deps, `${base}/webhooks/${encodeURIComponent(model.message.id)}/resend`) }} />;
    return renderPartnerSection(c, deps, session, partnerId, 'webhooks', body, { notice });
  });

  app.post('/console/partners/:partnerId/webhooks/:messageId/resend', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const messageId = c.req.param('messageId').slice(0, 100);
    try {
      await replayWebhook(deps, consoleAuditContext(c, session, partnerId), partnerId, messageId);
    } catch (err) {
      // An unknown message, or another partner's: the same answer.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      throw err;
    }
    return safeRedirect(c, `${baseOf(partnerId)}/webhooks/${encodeURIComponent(messageId)}?saved=resent`, 303);
  });

  return app;
}
