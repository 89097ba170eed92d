/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant, localeOf } from '@resale/shared/format';
import { DEFAULT_OFFER_MINUTES, MAX_OFFER_MINUTES, MIN_OFFER_MINUTES, PRICE_CAPS } from '../../../domain/waitinglist/waitinglist.model.js';
import { showHref, waitingListHref } from './console.events.view.js';
import type { HistoryItem, QueueItem, SettingsForm, WaitingListPageModel } from './console.waitinglist.load.js';
import { wm } from './console.waitinglist.messages.js';
import { CsrfField, Field, fieldId, Notice } from './console.view.js';

/** A moment in a table cell: day, short month, year and time, the zone said once above the table (a row stays one line on a phone). */
function shortInstant(ms: number, lang: Lang, timeZone: string): string {
  return new Intl.DateTimeFormat(localeOf(lang), { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone }).format(ms);
}

/** The labels of the settings form's fields, for the error summary. */
export function settingsFieldLabels(lang: Lang): Record<keyof SettingsForm, string> {
  return { enabled: wm(lang, 'enabled'), offerMinutes: wm(lang, 'offerMinutes'), quietStart: wm(lang, 'quietStart'), quietEnd: wm(lang, 'quietEnd'), priceCap: wm(lang, 'priceCap') };
}

/** The address of the page `page` of the line (1: none), or of the fan searched for. */
function lineHref(base: string, query: { page?: number; fan?: string }): string {
  const q = new URLSearchParams({ ...(query.page !== undefined && query.page > 1 ? { page: String(query.page) } : {}), ...(query.fan ? { fan: query.fan } : {}) }).toString();
  return `${q ? `${base}?${q}` : base}#line`;
}

/** A group of radio buttons of the settings form, its error said before the choices. */
function Choices(props: { name: keyof SettingsForm; legend: string; value: string; error?: string | undefined; options: { value: string; label: string }[] }) {
  const id = fieldId(props.name);
  return (
    <fieldset aria-describedby={props.error ? `${id}-error` : undefined}>
      <legend>{props.legend}</legend>
      {props.error ? (
        <p class="field-error" id={`${id}-error`}>
          {props.error}
        </p>
      ) : null}
      {props.options.map((o, i) => (
        <label class="check">
          {/* The first choice carries the field's id: the error summary's link lands on it. */}
          <input type="radio" id={i === 0 ? id : undefined} name={props.name} value={o.value} checked={props.value === o.value} aria-invalid={props.error ? 'true' : undefined} />
          <span>{o.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

/** The settings form: on or off, the offer window, quiet hours in the venue's zone, the price cap; every error at once, the typed values kept. */
function SettingsFormView(props: { lang: Lang; model: WaitingListPageModel; errors: Record<string, string>; form: { action: string; csrf: string } }) {
  const { lang, model, errors } = props;
  const typed = model.form;
  const stored = model.settings.quietHours;
  const otherZone = stored !== null && model.venueTimeZone !== null && stored.timeZone !== model.venueTimeZone;
  return (
    <form method="post" action={props.form.action} class="card" id="f-settingsForm" novalidate>
      <CsrfField token={props.form.csrf} />
      <Choices
        name="enabled"
        legend={wm(lang, 'enabled')}
        value={typed.enabled}
        error={errors.enabled}
        options={[
          { value: 'on', label: wm(lang, 'enabledOn') },
          { value: 'off', label: wm(lang, 'enabledOff') },
        ]}
      />
      <Field
        name="offerMinutes"
        label={wm(lang, 'offerMinutes')}
        value={typed.offerMinutes}
        error={errors.offerMinutes}
        hint={wm(lang, 'offerMinutesHint', { min: MIN_OFFER_MINUTES, max: MAX_OFFER_MINUTES, default: DEFAULT_OFFER_MINUTES })}
        inputmode="numeric"
      />
      <fieldset>
        <legend>{wm(lang, 'quietHours')}</legend>
        <p class="hint">{model.venueTimeZone === null ? wm(lang, 'quietNoZone') : wm(lang, 'quietHint', { zone: model.venueTimeZone })}</p>
        {otherZone ? <p class="hint">{wm(lang, 'quietOtherZone', { zone: stored.timeZone, venue: model.venueTimeZone ?? 'UTC' })}</p> : null}
        <div class="grid">
          <Field name="quietStart" label={wm(lang, 'quietStart')} value={typed.quietStart} error={errors.quietStart} hint="HH:MM" />
          <Field name="quietEnd" label={wm(lang, 'quietEnd')} value={typed.quietEnd} error={errors.quietEnd} hint="HH:MM" />
        </div>
      </fieldset>
      <Choices name="priceCap" legend={wm(lang, 'priceCap')} value={typed.priceCap} error={errors.priceCap} options={PRICE_CAPS.map((cap) => ({ value: cap, label: wm(lang, `priceCap_${cap}`) }))} />
      <button type="submit">{wm(lang, 'save')}</button>
    </form>
  );
}

/** The stored settings in words, for who may only read them. */
function SettingsFacts(props: { lang: Lang; model: WaitingListPageModel }) {
  const { lang, model } = props;
  const s = model.settings;
  return (
    <dl class="facts">
      <dt>{wm(lang, 'enabled')}</dt>
      <dd>{wm(lang, s.enabled ? 'enabledOn' : 'enabledOff')}</dd>
      <dt>{wm(lang, 'offerWindow')}</dt>
      <dd>{wm(lang, 'minutes', { n: s.offerMinutes })}</dd>
      <dt>{wm(lang, 'quietHours')}</dt>
      <dd>{s.quietHours ? wm(lang, 'quietWindow', { start: s.quietHours.start, end: s.quietHours.end, zone: s.quietHours.timeZone }) : wm(lang, 'quietNone')}</dd>
      <dt>{wm(lang, 'priceCap')}</dt>
      <dd>{wm(lang, `priceCap_${s.priceCap}`)}</dd>
    </dl>
  );
}

/** Live entries as a table: position, fan, tickets, category, state (an offer with its end), joined. */
function QueueTable(props: { lang: Lang; items: QueueItem[]; timeZone: string }) {
  const { lang, timeZone } = props;
  const when = (at: number) => shortInstant(at, lang, timeZone);
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{wm(lang, 'position')}</th>
            <th scope="col">{wm(lang, 'fan')}</th>
            <th scope="col">{wm(lang, 'tickets')}</th>
            <th scope="col">{wm(lang, 'category')}</th>
            <th scope="col">{wm(lang, 'state')}</th>
            <th scope="col">{wm(lang, 'joined')}</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((e) => (
            <tr>
              <td class="num">{e.position}</td>
              <td>{e.fan ?? '–'}</td>
              <td>{e.together ? wm(lang, 'ticketsTogether', { n: e.quantity }) : e.quantity}</td>
              <td>
                {e.category ? (
                  <>
                    {e.category.title}
                    <div>
                      <code>{e.category.ticketOptionId}</code>
                    </div>
                  </>
                ) : (
                  <span class="muted">{wm(lang, 'anyCategory')}</span>
                )}
              </td>
              <td>
                {wm(lang, `state_${e.state}`)}
                {e.offer ? (
                  <>
                    <div>{wm(lang, 'offerUntil', { when: when(e.offer.expiresAt) })}</div>
                    {/* Made in the quiet hours: the fan hears of it when they end. */}
                    {e.offer.notifyAt > e.offer.createdAt ? <div class="muted">{wm(lang, 'offerToldAt', { when: when(e.offer.notifyAt) })}</div> : null}
                  </>
                ) : null}
              </td>
              <td>{when(e.joinedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The links to the pages of the line around the current one. */
function Pager(props: { lang: Lang; base: string; page: number; pages: number }) {
  const { lang, base, page, pages } = props;
  if (pages <= 1) return null;
  return (
    <nav class="actions" aria-label={wm(lang, 'pages')}>
      {page > 1 ? <a href={lineHref(base, { page: 1 })}>{wm(lang, 'firstPage')}</a> : null}
      {page > 1 ? <a href={lineHref(base, { page: page - 1 })}>{wm(lang, 'previousPage')}</a> : null}
      <span class="muted">{wm(lang, 'pageOf', { page, pages })}</span>
      {page < pages ? <a href={lineHref(base, { page: page + 1 })}>{wm(lang, 'nextPage')}</a> : null}
      {page < pages ? <a href={lineHref(base, { page: pages })}>{wm(lang, 'lastPage')}</a> : null}
    </nav>
  );
}

/** What a history row says beside its kind: the position joined at, the offer's tickets and end, or why it ended. */
function historyDetail(lang: Lang, h: HistoryItem, timeZone: string): string {
  if (h.position !== null) return wm(lang, 'atPosition', { n: h.position });
  if (h.offer) return wm(lang, 'ticketsUntil', { n: h.offer.quantity, when: shortInstant(h.offer.expiresAt, lang, timeZone) });
  return h.reason ? wm(lang, 'reason', { reason: h.reason }) : '–';
}

/** The latest history rows, newest first. */
function HistoryTable(props: { lang: Lang; items: HistoryItem[]; timeZone: string }) {
  const { lang, timeZone } = props;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{wm(lang, 'when')}</th>
            <th scope="col">{wm(lang, 'what')}</th>
            <th scope="col">{wm(lang, 'fan')}</th>
            <th scope="col">{wm(lang, 'details')}</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((h) => (
            <tr>
              <td>{shortInstant(h.at, lang, timeZone)}</td>
              <td>{wm(lang, `kind_${h.kind}`)}</td>
              <td>{h.fan ?? '–'}</td>
              <td>{historyDetail(lang, h, timeZone)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A show's waiting-list page: its figures, the settings (a form for who may administer the
 * partner, the values in words for the others), the line a page at a time with a search by
 * e-mail, and the recent history with the whole history's CSV.
 */
export function WaitingListView(props: { lang: Lang; partnerId: string; model: WaitingListPageModel; errors: Record<string, string>; form: { action: string; csrf: string }; csvHref: string }) {
  const { lang, model, partnerId } = props;
  const { event, show, settings, counts } = model;
  const base = waitingListHref(partnerId, event.externalReferenceId, show.showId);
  const stat = (label: string, value: string | number) => (
    <div class="stat">
      <p class="stat-label">{label}</p>
      <p class="stat-value">{value}</p>
    </div>
  );
  return (
    <>
      <p>
        <a href={showHref(partnerId, event.externalReferenceId, show.showId)}>{wm(lang, 'backToShow', { show: `${event.title}, ${show.title}` })}</a>
      </p>
      <h2 id="waiting-list">{wm(lang, 'pageTitle', { show: show.title })}</h2>
      <p class="muted">
        {event.title} · <code>{event.externalReferenceId}</code> · <code>{show.showId}</code> · {formatInstant(show.startsAt, lang, model.timeZone, 'long')}
      </p>
      <p>{wm(lang, 'intro')}</p>
      {!show.resaleOpen ? <Notice kind="warn">{wm(lang, 'resaleClosed', { status: show.status })}</Notice> : show.started ? <Notice kind="warn">{wm(lang, 'started')}</Notice> : null}
      <div class="stats">
        {stat(wm(lang, 'status'), wm(lang, settings.enabled ? 'statusOn' : 'statusOff'))}
        {stat(wm(lang, 'inLine'), counts.live)}
        {stat(wm(lang, 'holdingOffer'), counts.offered)}
        {stat(wm(lang, 'offerWindow'), wm(lang, 'minutes', { n: settings.offerMinutes }))}
      </div>

      <h3 id="settings">{wm(lang, 'settingsTitle')}</h3>
      <p>{wm(lang, 'settingsIntro')}</p>
      <p class="muted">{settings.updatedAt === null ? wm(lang, 'neverSet') : wm(lang, 'lastChanged', { when: formatInstant(settings.updatedAt, lang, model.timeZone, 'long') })}</p>
      {model.mayAdminister ? (
        <SettingsFormView lang={lang} model={model} errors={props.errors} form={props.form} />
      ) : (
        <>
          <p class="muted">{wm(lang, 'readOnly')}</p>
          <SettingsFacts lang={lang} model={model} />
        </>
      )}

      <h3 id="line">{wm(lang, 'queueTitle')}</h3>
      <p>
        {wm(lang, 'queueIntro')} {wm(lang, 'timesIn', { zone: model.timeZone })}
      </p>
      <form method="get" action={`${base}#line`} class="inline-form" role="search">
        <Field name="fan" label={wm(lang, 'findFan')} value={model.search?.q ?? ''} type="email" />
        <button type="submit" class="secondary">
          {wm(lang, 'find')}
        </button>
      </form>
      {model.search ? (
        <>
          {model.search.item ? (
            <>
              <p>{wm(lang, 'fanFound', { q: model.search.q })}</p>
              <QueueTable lang={lang} items={[model.search.item]} timeZone={model.timeZone} />
            </>
          ) : (
            <p class="empty">{wm(lang, 'fanNotFound', { q: model.search.q })}</p>
          )}
          <p>
            <a href={lineHref(base, {})}>{wm(lang, 'wholeLine')}</a>
          </p>
        </>
      ) : model.queue.items.length === 0 ? (
        <p class="empty">{wm(lang, 'emptyQueue')}</p>
      ) : (
        <>
          <QueueTable lang={lang} items={model.queue.items} timeZone={model.timeZone} />
          <Pager lang={lang} base={base} page={model.queue.page} pages={model.queue.pages} />
        </>
      )}

      <h3 id="history">{wm(lang, 'historyTitle')}</h3>
      {model.history.length === 0 ? null : (
        <p>
          {wm(lang, 'historyIntro', { n: model.history.length })} {wm(lang, 'timesIn', { zone: model.timeZone })}
        </p>
      )}
      <p>
        <a href={props.csvHref} download>
          {wm(lang, 'downloadCsv')}
        </a>
      </p>
      {model.history.length === 0 ? <p class="empty">{wm(lang, 'noHistory')}</p> : <HistoryTable lang={lang} items={model.history} timeZone={model.timeZone} />}
    </>
  );
}
