/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { currencyDigits } from '../../../lib/money.js';
import { RISK_FEEDBACK_RESULTS, RISK_LEVELS, RISK_SIGNAL_GROUPS, type RiskLevel, type StoredRiskSignal } from '../../../domain/risk/risk.model.js';
import type { RiskBuyer, RiskEvaluationModel, RiskListModel, RiskListQuery } from './console.risk.load.js';
import { rm } from './console.risk.messages.js';
import { CsrfField, Field, fieldId, Notice } from './console.view.js';

/**
 * The risk section's content (the partner frame is around it): the partner's evaluations
 * (filters, pages) and one evaluation with its signals, its checkout and its feedback, with the
 * form that records feedback. Stateless: the routes compute every URL and token.
 */

const when = (ms: number, lang: Lang) => formatInstant(ms, lang, 'UTC');
const levelName = (lang: Lang, level: RiskLevel) => rm(lang, `level_${level}`);
const money = (amount: { minor: number; currency: string } | null, lang: Lang) => (amount === null ? rm(lang, 'none') : new Intl.NumberFormat(lang, { style: 'currency', currency: amount.currency }).format(amount.minor / 10 ** currencyDigits(amount.currency)));

/** A level, the high ones in bold. */
function Level(props: { lang: Lang; level: RiskLevel | null }) {
  if (props.level === null) return <>{rm(props.lang, 'none')}</>;
  const name = levelName(props.lang, props.level);
  return props.level === 'high' ? <strong>{name}</strong> : <>{name}</>;
}

/** The console's address of a partner's risk evaluations (`evaluationId`: one evaluation's page). */
export function riskHref(partnerId: string, evaluationId?: string): string {
  const base = `/console/partners/${encodeURIComponent(partnerId)}/risk`;
  return evaluationId === undefined ? base : `${base}/${encodeURIComponent(evaluationId)}`;
}

/** The console's page of a checkout (a buy intention) of the partner, in its sales section. */
export function checkoutHref(partnerId: string, intentionId: string): string {
  return `/console/partners/${encodeURIComponent(partnerId)}/sales/${encodeURIComponent(intentionId)}`;
}

/** The list's address with these filters (and page). */
export function riskListHref(partnerId: string, query: Partial<RiskListQuery>): string {
  const params = new URLSearchParams();
  if (query.level) params.set('level', query.level);
  if (query.buyer) params.set('buyer', query.buyer);
  if (query.transaction) params.set('transaction', query.transaction);
  if (query.page && query.page > 1) params.set('page', String(query.page));
  const q = params.toString();
  return `${riskHref(partnerId)}${q ? `?${q}` : ''}`;
}

function Buyer(props: { buyer: RiskBuyer }) {
  return <code>{props.buyer.value}</code>;
}

/** The partner's evaluations: filters, a page of them, links to the pages around it. */
export function RiskListView(props: { lang: Lang; partnerId: string; model: RiskListModel }) {
  const { lang, model, partnerId } = props;
  const { query } = model;
  const filtered = query.level !== null || query.buyer !== '' || query.transaction !== '';
  return (
    <>
      <h2 id="evaluations">{rm(lang, 'riskTitle')}</h2>
      <p>{rm(lang, 'riskIntro')}</p>
      <form method="get" action={riskHref(partnerId)} class="inline-form" role="search" aria-label={rm(lang, 'riskTitle')}>
        <div class="field">
          <label for="f-level">{rm(lang, 'level')}</label>
          <select id="f-level" name="level">
            <option value="">{rm(lang, 'allLevels')}</option>
            {RISK_LEVELS.map((level) => (
              <option value={level} selected={level === query.level}>
                {levelName(lang, level)}
              </option>
            ))}
          </select>
        </div>
        <Field name="buyer" label={rm(lang, 'buyer')} value={query.buyer} />
        <Field name="transaction" label={rm(lang, 'transaction')} value={query.transaction} />
        <button type="submit" class="secondary">
          {rm(lang, 'filter')}
        </button>
      </form>
      {model.items.length === 0 ? (
        <p class="empty">{filtered ? rm(lang, 'noMatch') : rm(lang, 'noEvaluations')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{rm(lang, 'evaluation')}</th>
                <th scope="col">{rm(lang, 'when')}</th>
                <th scope="col">{rm(lang, 'level')}</th>
                <th scope="col">{rm(lang, 'buyer')}</th>
                <th scope="col">{rm(lang, 'transaction')}</th>
                <th scope="col">{rm(lang, 'amount')}</th>
                <th scope="col">{rm(lang, 'feedback')}</th>
              </tr>
            </thead>
            <tbody>
              {model.items.map((item) => (
                <tr>
                  <td>
                    <a href={riskHref(partnerId, item.id)}>
                      <code>{item.id}</code>
                    </a>
                  </td>
                  <td>{when(item.createdAt, lang)}</td>
                  <td>
                    <Level lang={lang} level={item.overall} />
                  </td>
                  <td>
                    <Buyer buyer={item.buyer} />
                  </td>
                  <td>
                    <code>{item.transactionId}</code>
                    {item.checkout ? <span class="muted"> · {rm(lang, 'checkout')}</span> : null}
                  </td>
                  <td class="num">{money(item.amount, lang)}</td>
                  <td>{item.feedback ? rm(lang, `result_${item.feedback}`) : rm(lang, 'none')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {query.page > 1 || model.hasNext ? (
        <nav class="actions" aria-label={rm(lang, 'pageOf', { page: query.page })}>
          {query.page > 1 ? <a href={riskListHref(partnerId, { ...query, page: query.page - 1 })}>{rm(lang, 'newer')}</a> : null}
          <span class="muted">{rm(lang, 'pageOf', { page: query.page })}</span>
          {model.hasNext ? <a href={riskListHref(partnerId, { ...query, page: query.page + 1 })}>{rm(lang, 'older')}</a> : null}
        </nav>
      ) : null}
    </>
  );
}

/** The signals of one side, each with its level and what it saw. */
function SignalsTable(props: { lang: Lang; caption: string; level: RiskLevel | null; signals: StoredRiskSignal[] }) {
  const { lang } = props;
  const name = (s: StoredRiskSignal) => rm(lang, `signal_${s.name}` as 'signal_velocity');
  const result = (s: StoredRiskSignal) => ((RISK_LEVELS as readonly string[]).includes(s.result) ? levelName(lang, s.result as RiskLevel) : s.result);
  const sets = (s: StoredRiskSignal) => props.level !== null && props.level !== 'low' && s.result === props.level;
  return (
    <div class="table-wrap">
      <table class="data">
        <caption>
          {props.caption}: {props.level === null ? rm(lang, 'none') : levelName(lang, props.level)}
        </caption>
        <thead>
          <tr>
            <th scope="col">{rm(lang, 'signal')}</th>
            <th scope="col">{rm(lang, 'result')}</th>
            <th scope="col">{rm(lang, 'saw')}</th>
          </tr>
        </thead>
        <tbody>
          {props.signals.map((s) => (
            <tr>
              <th scope="row">
                {name(s)} <code class="muted">{s.name}</code>
              </th>
              <td>
                {s.result === 'high' ? <strong>{result(s)}</strong> : result(s)}
                {sets(s) ? <span class="muted"> · {rm(lang, 'setsLevel')}</span> : null}
              </td>
              <td>{rm(lang, `saw_${s.saw}`, { n: s.n ?? 0 })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One evaluation: what it is, its signals, its checkout, its feedback and the form that records it. */
export function RiskEvaluationView(props: { lang: Lang; partnerId: string; model: RiskEvaluationModel; errors: Record<string, string>; form: { action: string; csrf: string } }) {
  const { lang, model, partnerId, errors } = props;
  const sides = { customer: { caption: rm(lang, 'customerSide'), level: model.customerLevel }, transaction: { caption: rm(lang, 'transactionSide'), level: model.transactionLevel } };
  const resultError = errors.result;
  return (
    <>
      <p>
        <a href={riskHref(partnerId)}>{rm(lang, 'backToList')}</a>
      </p>
      <h2 id="evaluation">{rm(lang, 'evaluationTitle')}</h2>
      <div class="table-wrap">
        <table class="data">
          <tbody>
            <tr>
              <th scope="row">{rm(lang, 'evaluation')}</th>
              <td>
                <code>{model.id}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'overall')}</th>
              <td>
                <Level lang={lang} level={model.overall} />
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'customerSide')}</th>
              <td>
                <Level lang={lang} level={model.customerLevel} />
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'transactionSide')}</th>
              <td>
                <Level lang={lang} level={model.transactionLevel} />
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'when')}</th>
              <td>{when(model.createdAt, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'buyer')}</th>
              <td>
                <Buyer buyer={model.buyer} />
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'transaction')}</th>
              <td>
                <code>{model.transactionId}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'amount')}</th>
              <td>{money(model.amount, lang)}</td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'card')}</th>
              <td>{model.cardKey ? <code>{model.cardKey}</code> : rm(lang, 'none')}</td>
            </tr>
            <tr>
              <th scope="row">{rm(lang, 'device')}</th>
              <td>{model.deviceKey ? <code>{model.deviceKey}</code> : rm(lang, 'none')}</td>
            </tr>
          </tbody>
        </table>
      </div>

      <h2 id="signals">{rm(lang, 'signalsTitle')}</h2>
      {model.signals === null ? (
        <Notice kind="info">{rm(lang, 'notKept')}</Notice>
      ) : (
        <>
          <p>{rm(lang, 'signalsIntro')}</p>
          {RISK_SIGNAL_GROUPS.map((group) => (
            <SignalsTable lang={lang} caption={sides[group].caption} level={sides[group].level} signals={model.signals!.filter((s) => s.group === group)} />
          ))}
        </>
      )}

      <h2 id="checkout">{rm(lang, 'checkoutTitle')}</h2>
      {model.checkout ? (
        <p>
          {rm(lang, 'checkoutIs', { id: model.checkout.intentionId, state: rm(lang, `state_${model.checkout.state}`) })}{' '}
          <a href={checkoutHref(partnerId, model.checkout.intentionId)}>{rm(lang, 'openCheckout')}</a>
        </p>
      ) : (
        <p class="muted">{rm(lang, 'noCheckout', { id: model.transactionId })}</p>
      )}

      <h2 id="feedback">{rm(lang, 'feedbackTitle')}</h2>
      <p>{rm(lang, 'feedbackIntro')}</p>
      {model.feedback.length === 0 ? (
        <p class="empty">{rm(lang, 'noFeedback')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{rm(lang, 'outcome')}</th>
                <th scope="col">{rm(lang, 'userId')}</th>
                <th scope="col">{rm(lang, 'reportedAt')}</th>
              </tr>
            </thead>
            <tbody>
              {model.feedback.map((f) => (
                <tr>
                  <td>{f.result === 'chargeback' ? <strong>{rm(lang, `result_${f.result}`)}</strong> : rm(lang, `result_${f.result}`)}</td>
                  <td>
                    <code>{f.userId}</code>
                  </td>
                  <td>{when(f.createdAt, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {model.mayAdminister ? (
        <>
          <h3 id="record">{rm(lang, 'recordTitle')}</h3>
          <form method="post" action={props.form.action} class="card" novalidate>
            <CsrfField token={props.form.csrf} />
            <Field name="userId" label={rm(lang, 'userId')} hint={rm(lang, 'userIdHint')} value={model.form.userId} error={errors.userId} />
            <fieldset aria-describedby={resultError ? `${fieldId('result')}-error` : undefined}>
              <legend>{rm(lang, 'outcome')}</legend>
              {resultError ? (
                <p class="field-error" id={`${fieldId('result')}-error`}>
                  {resultError}
                </p>
              ) : null}
              {RISK_FEEDBACK_RESULTS.map((result, i) => (
                <label>
                  <input type="radio" id={i === 0 ? fieldId('result') : undefined} name="result" value={result} checked={model.form.result === result} aria-invalid={resultError ? 'true' : undefined} /> {rm(lang, `result_${result}`)}
                </label>
              ))}
            </fieldset>
            <button type="submit">{rm(lang, 'record')}</button>
          </form>
        </>
      ) : (
        <p class="muted">{rm(lang, 'readOnly')}</p>
      )}
    </>
  );
}
