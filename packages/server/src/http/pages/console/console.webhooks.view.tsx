/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { WEBHOOK_ACTIONS } from '../../../domain/webhooks/webhooks.catalog.js';
import { WEBHOOK_MESSAGE_STATES } from '../../../domain/webhooks/webhooks.model.js';
import { kindField, type LogQuery, type WebhookMessageModel, type WebhooksPageModel } from './console.webhooks.load.js';
import { wm } from './console.webhooks.messages.js';
import { CsrfField, Field, fieldId, Notice } from './console.view.js';

/**
 * The webhooks section's content (the partner frame is around it): the endpoint and the kinds
 * it receives, a test event, the delivery log; and one message with the request as sent and
 * every attempt. Stateless: the routes compute every URL and token.
 */

const when = (ms: number | null, lang: Lang) => (ms === null ? '–' : formatInstant(ms, lang, 'UTC'));
const stateName = (lang: Lang, state: string) => wm(lang, `state_${state}` as 'state_pending');

/** The log's address with these filters (and page). */
export function logHref(base: string, query: Partial<LogQuery>): string {
  const params = new URLSearchParams();
  if (query.state) params.set('state', query.state);
  if (query.action) params.set('action', query.action);
  if (query.startingAfter) params.set('startingAfter', query.startingAfter);
  const q = params.toString();
  return `${base}/webhooks${q ? `?${q}` : ''}#log`;
}

/** The webhooks page: endpoint, test event, delivery log. */
export function WebhooksView(props: { lang: Lang; model: WebhooksPageModel; base: string; errors: Record<string, string>; csrf: { endpoint: string; test: string }; testKind?: string | undefined }) {
  const { lang, model, base, errors } = props;
  const readOnly = !model.mayDevelop;
  const endpoint = model.endpoint;
  return (
    <>
      <h2 id="endpoint">{wm(lang, 'endpointTitle')}</h2>
      <p>{wm(lang, 'endpointIntro')}</p>
      {readOnly ? <p class="muted">{wm(lang, 'readOnly')}</p> : null}
      <form method="post" action={`${base}/webhooks/endpoint`} class="card" novalidate>
        <CsrfField token={props.csrf.endpoint} />
        <Field name="webhookUrl" label={wm(lang, 'webhookUrl')} hint={wm(lang, 'webhookUrlHint')} type="url" value={endpoint.webhookUrl} error={errors.webhookUrl} readOnly={readOnly} />
        <fieldset aria-describedby={errors.webhookEvents ? `${fieldId('webhookEvents')}-error` : undefined}>
          <legend>{wm(lang, 'kinds')}</legend>
          {errors.webhookEvents ? (
            <p class="field-error" id={`${fieldId('webhookEvents')}-error`}>
              {errors.webhookEvents}
            </p>
          ) : null}
          <label>
            <input type="radio" id={fieldId('webhookEvents')} name="webhookEvents" value="all" checked={endpoint.mode === 'all'} disabled={readOnly} /> {wm(lang, 'allKinds')}
          </label>
          <label>
            <input type="radio" name="webhookEvents" value="some" checked={endpoint.mode === 'some'} disabled={readOnly} /> {wm(lang, 'someKinds')}
          </label>
          <div class="grid">
            {WEBHOOK_ACTIONS.map((action) => (
              <label>
                <input type="checkbox" name={kindField(action)} value="on" checked={endpoint.chosen.includes(action)} disabled={readOnly} /> <code>{action}</code>
              </label>
            ))}
          </div>
        </fieldset>
        {readOnly ? null : <button type="submit">{wm(lang, 'saveEndpoint')}</button>}
      </form>

      {readOnly ? null : (
        <>
          <h2 id="test">{wm(lang, 'testTitle')}</h2>
          <p>{wm(lang, 'testIntro')}</p>
          <form method="post" action={`${base}/webhooks/test`} class="card inline-form" novalidate>
            <CsrfField token={props.csrf.test} />
            <div class="field">
              <label for={fieldId('kind')}>{wm(lang, 'kind')}</label>
              {errors.kind ? (
                <p class="field-error" id={`${fieldId('kind')}-error`}>
                  {errors.kind}
                </p>
              ) : null}
              <select id={fieldId('kind')} name="kind" aria-invalid={errors.kind ? 'true' : undefined} aria-describedby={errors.kind ? `${fieldId('kind')}-error` : undefined}>
                {WEBHOOK_ACTIONS.map((action) => (
                  <option value={action} selected={action === props.testKind}>
                    {action}
                  </option>
                ))}
              </select>
            </div>
            <button type="submit">{wm(lang, 'sendTest')}</button>
          </form>
        </>
      )}

      <h2 id="log">{wm(lang, 'logTitle')}</h2>
      <p>{wm(lang, 'logIntro')}</p>
      {model.badCursor ? <Notice kind="warn">{wm(lang, 'badCursor')}</Notice> : null}
      <form method="get" action={`${base}/webhooks`} class="inline-form" role="search" aria-label={wm(lang, 'logTitle')}>
        <div class="field">
          <label for="f-log-state">{wm(lang, 'state')}</label>
          <select id="f-log-state" name="state">
            <option value="">{wm(lang, 'allStates')}</option>
            {WEBHOOK_MESSAGE_STATES.map((state) => (
              <option value={state} selected={state === model.query.state}>
                {stateName(lang, state)}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-log-action">{wm(lang, 'kind')}</label>
          <select id="f-log-action" name="action">
            <option value="">{wm(lang, 'everyKind')}</option>
            {WEBHOOK_ACTIONS.map((action) => (
              <option value={action} selected={action === model.query.action}>
                {action}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          {wm(lang, 'filter')}
        </button>
      </form>
      {model.items.length === 0 ? (
        <p class="empty">{model.query.state || model.query.action ? wm(lang, 'noMatch') : wm(lang, 'noMessages')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{wm(lang, 'message')}</th>
                <th scope="col">{wm(lang, 'kind')}</th>
                <th scope="col">{wm(lang, 'state')}</th>
                <th scope="col">{wm(lang, 'created')}</th>
                <th scope="col">{wm(lang, 'attempts')}</th>
                <th scope="col">{wm(lang, 'lastStatus')}</th>
              </tr>
            </thead>
            <tbody>
              {model.items.map((item) => (
                <tr>
                  <td>
                    <a href={`${base}/webhooks/${encodeURIComponent(item.id)}`}>
                      <code>{item.id}</code>
                    </a>
                  </td>
                  <td>
                    <code>{item.action}</code>
                    {item.test ? <strong> · {wm(lang, 'test')}</strong> : null}
                  </td>
                  <td>{stateName(lang, item.state)}</td>
                  <td>{when(item.createdAt, lang)}</td>
                  <td class="num">{item.attempts}</td>
                  <td class="num">{item.lastStatus ?? '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {model.query.startingAfter || model.nextCursor ? (
        <p class="actions">
          {model.query.startingAfter ? <a href={logHref(base, { ...model.query, startingAfter: null })}>{wm(lang, 'newest')}</a> : null}
          {model.nextCursor ? <a href={logHref(base, { ...model.query, startingAfter: model.nextCursor })}>{wm(lang, 'older')}</a> : null}
        </p>
      ) : null}
    </>
  );
}

/** One message: what it is, Resend, the request as sent, every attempt and what the endpoint answered. */
export function WebhookMessageView(props: { lang: Lang; model: WebhookMessageModel; base: string; csrf: { resend: string } }) {
  const { lang, model, base } = props;
  const { message, attempts } = model;
  const answered = attempts.filter((a) => a.answer !== null);
  const rows = (text: string) => Math.min(24, Math.max(3, text.split('\n').length));
  return (
    <>
      <p>
        <a href={logHref(base, {})}>{wm(lang, 'backToLog')}</a>
      </p>
      <h2 id="message">{wm(lang, 'messageTitle', { action: message.action })}</h2>
      {model.test ? <Notice kind="info">{wm(lang, 'testEvent')}</Notice> : null}
      <div class="table-wrap">
        <table class="data">
          <tbody>
            <tr>
              <th scope="row">webhook-id</th>
              <td>
                <code>{message.id}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">{wm(lang, 'kind')}</th>
              <td>
                <code>{message.action}</code>
                {model.test ? <strong> · {wm(lang, 'test')}</strong> : null}
              </td>
            </tr>
            <tr>
              <th scope="row">{wm(lang, 'state')}</th>
              <td>{stateName(lang, message.state)}</td>
            </tr>
            <tr>
              <th scope="row">{wm(lang, 'created')}</th>
              <td>{when(message.createdAt, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{wm(lang, 'nextAttempt')}</th>
              <td>{message.state !== 'pending' ? '–' : message.nextAttemptAt === null ? wm(lang, 'waitingForUrl') : when(message.nextAttemptAt, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{wm(lang, 'deliveredAt')}</th>
              <td>{when(message.deliveredAt, lang)}</td>
            </tr>
          </tbody>
        </table>
      </div>
      {model.mayDevelop ? (
        <form method="post" action={`${base}/webhooks/${encodeURIComponent(message.id)}/resend`} class="card">
          <CsrfField token={props.csrf.resend} />
          <p>{wm(lang, 'resendIntro')}</p>
          <button type="submit">{wm(lang, 'resend')}</button>
        </form>
      ) : null}

      <h2 id="request">{wm(lang, 'requestTitle')}</h2>
      <p>{wm(lang, 'requestIntro')}</p>
      <div class="table-wrap">
        <table class="data">
          <thead>
            <tr>
              <th scope="col">{wm(lang, 'header')}</th>
              <th scope="col">{wm(lang, 'value')}</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>
                <code>webhook-id</code>
              </td>
              <td>
                <code>{message.id}</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>content-type</code>
              </td>
              <td>
                <code>application/json</code>
              </td>
            </tr>
            <tr>
              <td>
                <code>webhook-timestamp</code>, <code>webhook-signature</code>
              </td>
              <td class="muted">{wm(lang, 'perAttempt')}</td>
            </tr>
          </tbody>
        </table>
      </div>
      <div class="field">
        <label for="f-body">{wm(lang, 'body')}</label>
        <textarea id="f-body" readonly rows={rows(model.body)} spellcheck={false}>
          {model.body}
        </textarea>
      </div>

      <h2 id="attempts">{wm(lang, 'attemptsTitle')}</h2>
      {attempts.length === 0 ? (
        <p class="empty">{message.state === 'skipped' ? wm(lang, 'skippedText') : message.state === 'pending' && message.nextAttemptAt === null ? wm(lang, 'waitingText') : wm(lang, 'noAttempts')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{wm(lang, 'attempt')}</th>
                <th scope="col">{wm(lang, 'when')}</th>
                <th scope="col">{wm(lang, 'url')}</th>
                <th scope="col">{wm(lang, 'status')}</th>
                <th scope="col">{wm(lang, 'latency')}</th>
                <th scope="col">{wm(lang, 'error')}</th>
                <th scope="col">{wm(lang, 'nextAttempt')}</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => (
                <tr>
                  <td class="num">{a.attempt}</td>
                  <td>{when(a.at, lang)}</td>
                  <td>{a.url ? <code>{a.url}</code> : <span class="muted">{wm(lang, 'noUrl')}</span>}</td>
                  <td class="num">{a.statusCode ?? <span class="muted">{wm(lang, 'noAnswer')}</span>}</td>
                  <td class="num">{wm(lang, 'ms', { ms: a.latencyMs })}</td>
                  <td>{a.error ? <code>{a.error}</code> : '–'}</td>
                  <td>{when(a.nextAttemptAt, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {attempts.length === 0 ? null : (
        <>
          <h3 id="answers">{wm(lang, 'answersTitle')}</h3>
          <p class="hint">{wm(lang, 'answersIntro')}</p>
          {answered.length === 0 ? (
            <p class="muted">{wm(lang, 'noAnswers')}</p>
          ) : (
            answered.map((a) => (
              <div class="field">
                <label for={`f-answer-${a.id}`}>{wm(lang, 'answerOf', { n: a.attempt, at: when(a.at, lang) })}</label>
                <textarea id={`f-answer-${a.id}`} readonly rows={rows(a.answer!)} spellcheck={false}>
                  {a.answer}
                </textarea>
              </div>
            ))
          )}
        </>
      )}
    </>
  );
}
