/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { currencyDigits } from '../../../lib/money.js';
import { BarChart } from './console.chart.js';
import type { OverviewModel } from './console.overview.load.js';
import { OVERVIEW_PERIODS } from './console.overview.load.js';
import { om } from './console.overview.messages.js';
import { PartnerTable } from './console.partners.view.js';
import { ConsoleLayout, PartnerSelect, type ConsoleBarView } from './console.view.js';

function money(minor: number, currency: string, lang: Lang): string {
  return new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** currencyDigits(currency));
}

function dayLabel(day: number, lang: Lang): string {
  return new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(day);
}

/** One figure of the overview. */
function Stat(props: { label: string; value: string; detail?: string | undefined }) {
  return (
    <div class="stat">
      <p class="stat-label">{props.label}</p>
      <p class="stat-value">{props.value}</p>
      {props.detail ? <p class="muted">{props.detail}</p> : null}
    </div>
  );
}

/**
 * The console's home: for a period and a partner (or every partner, for operators) the resales,
 * their volume and fees, refunds, payouts due and overdue, webhook failures and the ticket
 * queue, with a chart per day; then the partners this person can open.
 */
export function OverviewView(props: { lang: Lang; bar: ConsoleBarView; model: OverviewModel; otherLangHref: string }) {
  const { lang, model } = props;
  const rate = model.webhooks.attempts === 0 ? '0 %' : `${((model.webhooks.failed / model.webhooks.attempts) * 100).toFixed(1)} %`;
  const oldest = model.queue.oldestAt === null ? undefined : om(lang, 'queueOldest', { minutes: Math.max(0, Math.round((model.to - model.queue.oldestAt) / 60_000)) });
  return (
    <ConsoleLayout lang={lang} title={om(lang, 'title')} current="home" bar={props.bar} otherLangHref={props.otherLangHref}>
      <h1>{om(lang, 'title')}</h1>
      <form method="get" action="/console" class="inline-form" aria-label={om(lang, 'title')}>
        <div class="field">
          <label for="f-days">{om(lang, 'period')}</label>
          <select id="f-days" name="days">
            {OVERVIEW_PERIODS.map((d) => (
              <option value={String(d)} selected={d === model.days}>
                {om(lang, 'lastDays', { days: d })}
              </option>
            ))}
          </select>
        </div>
        <PartnerSelect id="f-partner" label={om(lang, 'partner')} partners={model.partners} selected={model.partnerId} all={props.bar.operator ? om(lang, 'allPartners') : undefined} />
        <button type="submit" class="secondary">
          {om(lang, 'show')}
        </button>
      </form>
      <div class="stats">
        {model.currencies.length === 0 ? <Stat label={om(lang, 'resales')} value="0" detail={om(lang, 'noResales')} /> : null}
        {model.currencies.map((c) => (
          <>
            <Stat label={`${om(lang, 'resales')} (${c.currency})`} value={String(c.resales)} detail={`${om(lang, 'refunds')}: ${c.refunds}`} />
            <Stat label={`${om(lang, 'volume')} (${c.currency})`} value={money(c.volumeMinor, c.currency, lang)} detail={`${om(lang, 'fees')}: ${money(c.feesMinor, c.currency, lang)}`} />
          </>
        ))}
        <Stat label={om(lang, 'payouts')} value={String(model.payouts.due + model.payouts.overdue)} detail={om(lang, 'payoutsText', model.payouts)} />
        <Stat label={om(lang, 'webhooks')} value={rate} detail={om(lang, 'webhooksText', model.webhooks)} />
        <Stat label={om(lang, 'queue')} value={String(model.queue.count)} detail={oldest ?? om(lang, 'queueText', { count: model.queue.count })} />
      </div>
      {model.currencies.map((c) => (
        <div class="grid">
          <BarChart title={om(lang, 'resalesPerDay', { currency: c.currency })} points={c.days.map((d) => ({ label: dayLabel(d.day, lang), value: d.resales }))} format={String} caption={{ label: om(lang, 'day'), value: om(lang, 'count') }} />
          <BarChart title={om(lang, 'volumePerDay', { currency: c.currency })} points={c.days.map((d) => ({ label: dayLabel(d.day, lang), value: d.volumeMinor }))} format={(v) => money(v, c.currency, lang)} caption={{ label: om(lang, 'day'), value: om(lang, 'amount') }} />
        </div>
      ))}
      <h2>{om(lang, 'partnersTitle')}</h2>
      <PartnerTable lang={lang} items={model.partners} />
    </ConsoleLayout>
  );
}
