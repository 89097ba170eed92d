/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import type { CurrencyTotals } from '../../../domain/ledger/ledger.queries.js';
import { currencyDigits } from '../../../lib/money.js';
import type { MoneyModel, MoneyReport, PayoutFilter, PayoutItem } from './console.money.load.js';
import { mm } from './console.money.messages.js';
import { type ConsoleBarView, ConsoleLayout, CsrfField, ErrorSummary, Field, Notice, PartnerSelect } from './console.view.js';

/**
 * The money pages' content: the period (and, on the operators' page, the partner), the overdue
 * payouts with Retry (operators), the payouts due in the period by state a page at a time, the
 * ledger report and the reconciliation, each with its CSV. Stateless: the routes compute every
 * token; the links are built from the model and `base` (the page's path).
 */

const when = (ms: number | null, lang: Lang) => (ms === null ? '–' : formatInstant(ms, lang, 'UTC', 'long'));

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency: currency.toUpperCase() }).format(minor / 10 ** currencyDigits(currency));
}

const stateName = (lang: Lang, state: string) => mm(lang, `state_${state}` as 'state_SCHEDULED');

/** The query of a money page's link: the period, the partner narrowed to (operators' page), the payouts filter and page. */
export function moneyQuery(model: Pick<MoneyModel, 'typed' | 'partnerId' | 'operatorPage'>, extra: { state?: PayoutFilter; startingAfter?: string | null; reconcile?: boolean } = {}): string {
  const params = new URLSearchParams();
  params.set('from', model.typed.from);
  params.set('to', model.typed.to);
  if (model.operatorPage && model.partnerId) params.set('partnerId', model.partnerId);
  if (extra.state) params.set('state', extra.state);
  if (extra.startingAfter) params.set('startingAfter', extra.startingAfter);
  if (extra.reconcile) params.set('reconcile', '1');
  return params.toString();
}

/** A notice the route computed (a retry's outcome). */
export interface MoneyNotice {
  kind: 'ok' | 'error' | 'warn';
  text: string;
}

/** The operators' money page: the console's shell around the content. */
export function MoneyPageView(props: { lang: Lang; bar: ConsoleBarView; model: MoneyModel; base: string; errors: Record<string, string>; retry: Record<string, string>; notice?: MoneyNotice | undefined; otherLangHref: string }) {
  const { lang } = props;
  return (
    <ConsoleLayout lang={lang} title={mm(lang, 'title')} current="money" bar={props.bar} otherLangHref={props.otherLangHref}>
      <h1>{mm(lang, 'title')}</h1>
      <ErrorSummary lang={lang} errors={props.errors} labels={{ from: mm(lang, 'from'), to: mm(lang, 'to') }} />
      <MoneyView lang={lang} model={props.model} base={props.base} errors={props.errors} retry={props.retry} notice={props.notice} />
    </ConsoleLayout>
  );
}

/** One payout's row cells, the same in both payout tables. */
function PayoutCells(props: { lang: Lang; p: PayoutItem; showPartner: boolean }) {
  const { lang, p } = props;
  return (
    <>
      <td>
        <code>{p.id}</code>
      </td>
      {props.showPartner ? (
        <td>
          <code>{p.partnerId}</code>
        </td>
      ) : null}
      <td>{p.sellerId}</td>
      <td class="num">{money(p.amountMinor, p.currency, lang)}</td>
      <td>
        {stateName(lang, p.state)}
        {p.overdue ? <strong> · {mm(lang, 'overdueMark')}</strong> : null}
      </td>
      <td>{when(p.dueAt, lang)}</td>
    </>
  );
}

/** The content of a money page (a partner's tab, or inside the operators' page). */
export function MoneyView(props: { lang: Lang; model: MoneyModel; base: string; errors: Record<string, string>; retry: Record<string, string>; notice?: MoneyNotice | undefined }) {
  const { lang, model, base, errors } = props;
  return (
    <>
      {props.notice ? <Notice kind={props.notice.kind}>{props.notice.text}</Notice> : null}
      <p>{mm(lang, 'intro')}</p>
      <h2 id="period">{mm(lang, 'periodTitle')}</h2>
      <form method="get" action={base} class="card" novalidate aria-labelledby="period">
        <p class="hint">{mm(lang, 'periodHint')}</p>
        <div class="grid">
          <Field name="from" label={mm(lang, 'from')} value={model.typed.from} error={errors.from} />
          <Field name="to" label={mm(lang, 'to')} value={model.typed.to} error={errors.to} />
        </div>
        {model.operatorPage ? <PartnerSelect id="f-partnerId" label={mm(lang, 'partner')} partners={model.partners} selected={model.partnerId} all={mm(lang, 'allPartners')} /> : null}
        {model.filter ? <input type="hidden" name="state" value={model.filter} /> : null}
        <button type="submit" class="secondary">
          {mm(lang, 'show')}
        </button>
      </form>
      {model.report ? <Report lang={lang} model={model} report={model.report} base={base} retry={props.retry} /> : null}
    </>
  );
}

function Report(props: { lang: Lang; model: MoneyModel; report: MoneyReport; base: string; retry: Record<string, string> }) {
  const { lang, model, report, base } = props;
  const showPartner = model.operatorPage && model.partnerId === null;
  const payoutsCsv = `${base}/payouts.csv?${moneyQuery(model, { state: model.filter })}`;
  return (
    <>
      <h2 id="overdue">{mm(lang, 'overdueTitle')}</h2>
      <p>{mm(lang, 'overdueIntro')}</p>
      {report.overdue.count === 0 ? (
        <p class="empty">{mm(lang, 'noOverdue')}</p>
      ) : (
        <>
          <p>
            {mm(lang, 'overdueCount', { overdue: report.overdue.count, failing: report.overdue.failing })}
            {report.overdue.count > report.overdue.items.length ? ` ${mm(lang, 'overdueMore', { shown: report.overdue.items.length })}` : ''}
          </p>
          {model.mayRetry ? <p class="hint">{mm(lang, 'retryHint')}</p> : null}
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{mm(lang, 'payout')}</th>
                  {showPartner ? <th scope="col">{mm(lang, 'partnerCol')}</th> : null}
                  <th scope="col">{mm(lang, 'seller')}</th>
                  <th scope="col">{mm(lang, 'amount')}</th>
                  <th scope="col">{mm(lang, 'state')}</th>
                  <th scope="col">{mm(lang, 'due')}</th>
                  <th scope="col">{mm(lang, 'lastError')}</th>
                  {model.mayRetry ? <th scope="col">{mm(lang, 'retry')}</th> : null}
                </tr>
              </thead>
              <tbody>
                {report.overdue.items.map((p) => (
                  <tr>
                    <PayoutCells lang={lang} p={p} showPartner={showPartner} />
                    <td>{p.lastError ? <code>{p.lastError}</code> : '–'}</td>
                    {model.mayRetry ? (
                      <td>
                        {p.retryable && props.retry[p.id] ? (
                          <form method="post" action={`${base}/payouts/${encodeURIComponent(p.id)}/retry`}>
                            <CsrfField token={props.retry[p.id]!} />
                            <button type="submit" class="secondary">
                              {mm(lang, 'retry')}
                              <span class="visually-hidden"> {p.id}</span>
                            </button>
                          </form>
                        ) : (
                          '–'
                        )}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}

      <h2 id="payouts">{mm(lang, 'payoutsTitle')}</h2>
      <p>{mm(lang, 'payoutsIntro')}</p>
      <form method="get" action={base} class="inline-form" role="search" aria-label={mm(lang, 'payoutsTitle')}>
        <input type="hidden" name="from" value={model.typed.from} />
        <input type="hidden" name="to" value={model.typed.to} />
        {model.operatorPage && model.partnerId ? <input type="hidden" name="partnerId" value={model.partnerId} /> : null}
        <div class="field">
          <label for="f-payout-state">{mm(lang, 'state')}</label>
          <select id="f-payout-state" name="state">
            <option value="">{mm(lang, 'allStates')}</option>
            <option value="overdue" selected={model.filter === 'overdue'}>
              {mm(lang, 'overdueState')}
            </option>
            {model.states.map((state) => (
              <option value={state} selected={state === model.filter}>
                {stateName(lang, state)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          {mm(lang, 'filter')}
        </button>
      </form>
      {report.payouts.items.length === 0 ? (
        <p class="empty">{model.filter ? mm(lang, 'noMatch') : mm(lang, 'noPayouts')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{mm(lang, 'payout')}</th>
                {showPartner ? <th scope="col">{mm(lang, 'partnerCol')}</th> : null}
                <th scope="col">{mm(lang, 'seller')}</th>
                <th scope="col">{mm(lang, 'amount')}</th>
                <th scope="col">{mm(lang, 'state')}</th>
                <th scope="col">{mm(lang, 'due')}</th>
                <th scope="col">{mm(lang, 'delivered')}</th>
                <th scope="col">{mm(lang, 'lastError')}</th>
              </tr>
            </thead>
            <tbody>
              {report.payouts.items.map((p) => (
                <tr>
                  <PayoutCells lang={lang} p={p} showPartner={showPartner} />
                  <td>{when(p.deliveredAt, lang)}</td>
                  <td>{p.lastError ? <code>{p.lastError}</code> : '–'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="actions">
        {report.payouts.startingAfter ? <a href={`${base}?${moneyQuery(model, { state: model.filter })}#payouts`}>{mm(lang, 'first')}</a> : null}
        {report.payouts.nextCursor ? <a href={`${base}?${moneyQuery(model, { state: model.filter, startingAfter: report.payouts.nextCursor })}#payouts`}>{mm(lang, 'next')}</a> : null}
        <a href={payoutsCsv} download>
          {mm(lang, 'downloadPayouts')}
        </a>
      </p>

      <h2 id="ledger">{mm(lang, 'ledgerTitle')}</h2>
      <p>{mm(lang, 'ledgerIntro')}</p>
      {report.ledger.length === 0 ? <p class="empty">{mm(lang, 'noLedger')}</p> : report.ledger.map((t) => <LedgerCurrency lang={lang} totals={t} accounts={model.accounts} />)}
      <p class="actions">
        <a href={`${base}/ledger.csv?${moneyQuery(model)}`} download>
          {mm(lang, 'downloadLedger')}
        </a>
      </p>

      <h2 id="reconciliation">{mm(lang, 'reconTitle')}</h2>
      <Reconciliation lang={lang} model={model} report={report} base={base} />
    </>
  );
}

function LedgerCurrency(props: { lang: Lang; totals: CurrencyTotals; accounts: readonly string[] }) {
  const { lang, totals } = props;
  const journals = Object.entries(totals.journals).sort(([a], [b]) => a.localeCompare(b));
  return (
    <>
      <h3>{totals.currency}</h3>
      {totals.balanced ? <p>{mm(lang, 'balanced')}</p> : <Notice kind="error">{mm(lang, 'unbalanced')}</Notice>}
      <div class="grid">
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">{mm(lang, 'accountsOf', { currency: totals.currency })}</caption>
            <thead>
              <tr>
                <th scope="col">{mm(lang, 'account')}</th>
                <th scope="col">{mm(lang, 'movement')}</th>
              </tr>
            </thead>
            <tbody>
              {props.accounts.map((account) => (
                <tr>
                  <td>
                    <code>{account}</code>
                  </td>
                  <td class="num">{money(totals.accounts[account as keyof CurrencyTotals['accounts']] ?? 0, totals.currency, lang)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">{mm(lang, 'journalsOf', { currency: totals.currency })}</caption>
            <thead>
              <tr>
                <th scope="col">{mm(lang, 'kind')}</th>
                <th scope="col">{mm(lang, 'count')}</th>
              </tr>
            </thead>
            <tbody>
              {journals.map(([kind, n]) => (
                <tr>
                  <td>
                    <code>{kind}</code>
                  </td>
                  <td class="num">{n}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}

function Reconciliation(props: { lang: Lang; model: MoneyModel; report: MoneyReport; base: string }) {
  const { lang, model, report, base } = props;
  const view = report.reconciliation;
  if (view.kind === 'partner') return <p class="muted">{mm(lang, 'reconPartnerNote')}</p>;
  const csv = (
    <p class="actions">
      <a href={`${base}/reconciliation.csv?${moneyQuery({ ...model, partnerId: null })}`} download>
        {mm(lang, 'downloadRecon')}
      </a>
    </p>
  );
  if (view.kind === 'sandbox') {
    return (
      <>
        <Notice kind="info">{mm(lang, 'reconNothing', { provider: view.provider })}</Notice>
        {csv}
      </>
    );
  }
  const intro = <p>{mm(lang, 'reconIntro')}</p>;
  if (view.kind === 'ask' || view.kind === 'unavailable') {
    return (
      <>
        {intro}
        {view.kind === 'unavailable' ? <Notice kind="warn">{mm(lang, 'reconUnavailable')}</Notice> : null}
        <p>
          <a href={`${base}?${moneyQuery(model, { state: model.filter, reconcile: true })}#reconciliation`}>{mm(lang, 'reconAsk')}</a>
        </p>
        <p class="hint">{mm(lang, 'reconAskHint')}</p>
        {csv}
      </>
    );
  }
  const r = view.result;
  const amount = (minor: number | null, currency: string) => (minor === null ? '–' : money(minor, currency, lang));
  return (
    <>
      {intro}
      <p>{mm(lang, 'reconSummary', { checked: r.checked, matched: r.matched, mismatches: r.mismatches.length })}</p>
      {r.mismatches.length === 0 ? (
        <p>{mm(lang, 'reconNoMismatch')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{mm(lang, 'reason')}</th>
                <th scope="col">{mm(lang, 'providerRef')}</th>
                <th scope="col">{mm(lang, 'providerType')}</th>
                <th scope="col">{mm(lang, 'providerAmount')}</th>
                <th scope="col">{mm(lang, 'ledgerAmount')}</th>
                <th scope="col">{mm(lang, 'journals')}</th>
              </tr>
            </thead>
            <tbody>
              {r.mismatches.map((m) => (
                <tr>
                  <td>{mm(lang, `reason_${m.reason}` as 'reason_fee_differs')}</td>
                  <td>
                    <code>{m.providerRef}</code>
                  </td>
                  <td>{[m.providerType, m.providerCategory].filter(Boolean).join(' · ') || '–'}</td>
                  <td class="num">
                    {amount(m.providerAmountMinor, m.currency)}
                    {m.providerFeeMinor !== null || m.ledgerFeeMinor !== null ? ` (${amount(m.providerFeeMinor, m.currency)})` : ''}
                  </td>
                  <td class="num">
                    {amount(m.ledgerAmountMinor, m.currency)}
                    {m.providerFeeMinor !== null || m.ledgerFeeMinor !== null ? ` (${amount(m.ledgerFeeMinor, m.currency)})` : ''}
                  </td>
                  <td>{m.journalIds.length === 0 ? '–' : m.journalIds.map((id) => <code>{id} </code>)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {r.other.length === 0 ? null : (
        <>
          <h3>{mm(lang, 'otherTitle')}</h3>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{mm(lang, 'type')}</th>
                  <th scope="col">{mm(lang, 'count')}</th>
                  <th scope="col">{mm(lang, 'amount')}</th>
                </tr>
              </thead>
              <tbody>
                {r.other.map((o) => (
                  <tr>
                    <td>
                      <code>{o.type}</code>
                    </td>
                    <td class="num">{o.count}</td>
                    <td class="num">{money(o.amountMinor, o.currency, lang)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {csv}
    </>
  );
}
