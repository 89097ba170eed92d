/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatBytes, formatInstant } from '@resale/shared/format';
import type { EventReport, ImportReport, ReportTotals } from '../../../domain/events/import/import.js';
import type { RowError } from '../../../domain/events/import/sheet.to-events.js';
import { lm } from './console.load.messages.js';
import { CsrfField, fieldId, Notice } from './console.view.js';

/**
 * The manual load's content inside a partner's frame (console.partner-frame.tsx): the upload
 * form, the problems of a refused sheet, the preview and the result. Stateless: the handlers
 * (console.load.tsx) compute every URL, token and count.
 */

/** The upload form's state. */
export interface UploadFormProps {
  action: string;
  csrf: string;
  maxBytes: number;
  maxRows: number;
  /** Why the last file was refused. */
  error?: string | undefined;
}

/** A recent load of the partner, as the upload page lists it. */
export interface RecentLoadItem {
  href: string;
  fileName: string;
  rows: number;
  state: 'previewed' | 'applied';
  createdAt: number;
  appliedAt: number | null;
  expiresAt: number;
}

/** A number as people read it (`5,000`, `5.000`). */
function count(n: number, lang: Lang): string {
  return new Intl.NumberFormat(lang === 'es' ? 'es-ES' : 'en-GB').format(n);
}

/** Row numbers as ranges: `2–8, 11`. */
export function rowRanges(rows: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const start = rows[i]!;
    let end = start;
    while (i + 1 < rows.length && rows[i + 1] === end + 1) end = rows[++i]!;
    parts.push(end === start ? String(start) : `${start}–${end}`);
  }
  return parts.join(', ');
}

/** The upload form: one file, its limits, why the last one was refused. */
export function UploadForm(props: { lang: Lang; form: UploadFormProps; label?: string }) {
  const { lang, form } = props;
  const id = fieldId('sheet');
  const described = [`${id}-hint`, form.error ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <form method="post" action={form.action} enctype="multipart/form-data" class="card" novalidate>
      <CsrfField token={form.csrf} />
      <div class="field">
        <label for={id}>{lm(lang, 'file')}</label>
        <p class="hint" id={`${id}-hint`}>
          {lm(lang, 'limits', { bytes: formatBytes(form.maxBytes, lang), rows: count(form.maxRows, lang) })}
        </p>
        {form.error ? (
          <p class="field-error" id={`${id}-error`}>
            {form.error}
          </p>
        ) : null}
        <input id={id} name="sheet" type="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" required aria-invalid={form.error ? 'true' : undefined} aria-describedby={described} />
      </div>
      <button type="submit">{props.label ?? lm(lang, 'preview')}</button>
    </form>
  );
}

/** The tab's first page: what a load is, the form, the partner's recent loads. */
export function LoadStartView(props: { lang: Lang; form: UploadFormProps; recent: RecentLoadItem[]; notice?: string | undefined }) {
  const { lang } = props;
  return (
    <>
      <h2 id="load">{lm(lang, 'title')}</h2>
      {props.notice ? <Notice kind="warn">{props.notice}</Notice> : null}
      <p>{lm(lang, 'intro')}</p>
      <UploadForm lang={lang} form={props.form} />
      {props.recent.length > 0 ? (
        <>
          <h3>{lm(lang, 'recentTitle')}</h3>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{lm(lang, 'fileName')}</th>
                  <th scope="col">{lm(lang, 'rows')}</th>
                  <th scope="col">{lm(lang, 'uploaded')}</th>
                  <th scope="col">{lm(lang, 'state')}</th>
                </tr>
              </thead>
              <tbody>
                {props.recent.map((l) => (
                  <tr>
                    <td class="long">
                      <a href={l.href}>{l.fileName}</a>
                    </td>
                    <td class="num">{count(l.rows, lang)}</td>
                    <td>{formatInstant(l.createdAt, lang, 'UTC', 'long')}</td>
                    <td>{l.state === 'applied' ? lm(lang, 'stateApplied', { when: formatInstant(l.appliedAt ?? l.createdAt, lang, 'UTC', 'long') }) : lm(lang, 'statePreviewed', { until: formatInstant(l.expiresAt, lang, 'UTC', 'long') })}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}

/** What a sheet holds: rows, events (new and updated), shows, ticket options, price types, combinations. */
function Totals(props: { lang: Lang; totals: ReportTotals }) {
  const { lang, totals } = props;
  const line = (label: string, value: string) => (
    <tr>
      <th scope="row">{label}</th>
      <td class="num">{value}</td>
    </tr>
  );
  return (
    <>
      <h3>{lm(lang, 'countsTitle')}</h3>
      <div class="table-wrap">
        <table class="data">
          <tbody>
            {line(lm(lang, 'rows'), count(totals.rows, lang))}
            {line(lm(lang, 'events'), totals.created + totals.updated === totals.events ? lm(lang, 'eventsNewUpdated', { events: count(totals.events, lang), created: count(totals.created, lang), updated: count(totals.updated, lang) }) : count(totals.events, lang))}
            {line(lm(lang, 'shows'), count(totals.shows, lang))}
            {line(lm(lang, 'ticketOptions'), count(totals.ticketOptions, lang))}
            {line(lm(lang, 'priceTypes'), count(totals.priceTypes, lang))}
            {line(lm(lang, 'combinations'), count(totals.combinations, lang))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Every problem of a sheet, by row and column, as `npm run import` reports them. */
function ProblemTable(props: { lang: Lang; errors: RowError[] }) {
  const { lang } = props;
  return (
    <div class="table-wrap">
      <table class="data" id="problems">
        <thead>
          <tr>
            <th scope="col">{lm(lang, 'row')}</th>
            <th scope="col">{lm(lang, 'column')}</th>
            <th scope="col">{lm(lang, 'event')}</th>
            <th scope="col">{lm(lang, 'problem')}</th>
          </tr>
        </thead>
        <tbody>
          {props.errors.map((e) => (
            <tr>
              <td class="num">{e.row}</td>
              <td>{e.column ? <code>{e.column}</code> : null}</td>
              <td class="long">{e.eventId ?? null}</td>
              <td class="long">{e.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A sheet refused for its rows, at the upload (`preview`) or at the apply (`apply`: the stored
 * events changed meanwhile): every problem, nothing written, the form to upload it corrected.
 */
export function SheetProblemsView(props: { lang: Lang; when: 'preview' | 'apply'; report: ImportReport; totals: ReportTotals; form: UploadFormProps }) {
  const { lang, report } = props;
  return (
    <>
      <h2 id="load">{lm(lang, 'title')}</h2>
      <div class="error-summary" role="alert" tabindex={-1} id="errors">
        <h2>{props.when === 'preview' ? lm(lang, 'problemsTitle', { count: report.errors.length }) : lm(lang, 'changedTitle')}</h2>
        <p>{props.when === 'preview' ? lm(lang, 'problemsText') : lm(lang, 'changedText')}</p>
        <p>
          <a href="#problems">{report.errors.map((e) => `${lm(lang, 'row')} ${e.row}${e.column ? ` (${e.column})` : ''}`).slice(0, 10).join(', ')}{report.errors.length > 10 ? ' …' : ''}</a>
        </p>
      </div>
      <ProblemTable lang={lang} errors={report.errors} />
      <Totals lang={lang} totals={props.totals} />
      <h3>{lm(lang, 'uploadFixed')}</h3>
      <UploadForm lang={lang} form={props.form} />
    </>
  );
}

/** The events of a report, each with what applying does (or did) to it. */
function EventTable(props: { lang: Lang; events: EventReport[]; applied: boolean }) {
  const { lang } = props;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{lm(lang, 'event')}</th>
            <th scope="col">{props.applied ? lm(lang, 'outcome') : lm(lang, 'whatHappens')}</th>
            <th scope="col">{lm(lang, 'rowsOfEvent')}</th>
            <th scope="col">{lm(lang, 'shows')}</th>
            <th scope="col">{lm(lang, 'ticketOptions')}</th>
            <th scope="col">{lm(lang, 'priceTypes')}</th>
            <th scope="col">{lm(lang, 'combinations')}</th>
          </tr>
        </thead>
        <tbody>
          {props.events.map((e) => (
            <tr>
              <td class="long">
                <code>{e.externalReferenceId}</code>
              </td>
              <td>{props.applied ? lm(lang, e.outcome === 'created' ? 'created' : 'updated') : lm(lang, e.outcome === 'created' ? 'willCreate' : 'willUpdate')}</td>
              <td>{rowRanges(e.rows)}</td>
              <td class="num">{count(e.shows, lang)}</td>
              <td class="num">{count(e.ticketOptions, lang)}</td>
              <td class="num">{count(e.priceTypes, lang)}</td>
              <td class="num">{count(e.combinations, lang)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A clean sheet's preview: what it holds, event by event, and the one button that applies it all. */
export function LoadPreviewView(props: { lang: Lang; fileName: string; report: ImportReport; totals: ReportTotals; expiresAt: number; apply: { action: string; csrf: string }; uploadHref: string }) {
  const { lang } = props;
  return (
    <>
      <h2 id="load">{lm(lang, 'previewTitle', { file: props.fileName })}</h2>
      <Notice kind="info">{lm(lang, 'previewNotice', { until: formatInstant(props.expiresAt, lang, 'UTC', 'long') })}</Notice>
      <Totals lang={lang} totals={props.totals} />
      <h3>{lm(lang, 'perEventTitle')}</h3>
      <EventTable lang={lang} events={props.report.events} applied={false} />
      <form method="post" action={props.apply.action} class="card">
        <CsrfField token={props.apply.csrf} />
        <p>{lm(lang, 'applyHint')}</p>
        <p class="actions">
          <button type="submit">{lm(lang, 'apply', { count: props.totals.events })}</button>
          <a href={props.uploadHref}>{lm(lang, 'otherSheet')}</a>
        </p>
      </form>
    </>
  );
}

/** An applied load: what each event became. */
export function LoadResultView(props: { lang: Lang; fileName: string; report: ImportReport; totals: ReportTotals; appliedAt: number; notice: 'applied' | 'again' | null; uploadHref: string }) {
  const { lang, totals } = props;
  const when = formatInstant(props.appliedAt, lang, 'UTC', 'long');
  return (
    <>
      <h2 id="load">{lm(lang, 'resultTitle', { file: props.fileName })}</h2>
      {props.notice === 'applied' ? <Notice kind="ok">{lm(lang, 'appliedNotice', { created: totals.created, updated: totals.updated })}</Notice> : null}
      {props.notice === 'again' ? <Notice kind="info">{lm(lang, 'againNotice', { when })}</Notice> : null}
      {props.notice === null ? <p>{lm(lang, 'appliedAt', { when })}</p> : null}
      <EventTable lang={lang} events={props.report.events} applied={true} />
      <Totals lang={lang} totals={totals} />
      <p class="actions">
        <a class="button" href={props.uploadHref}>
          {lm(lang, 'loadAnother')}
        </a>
      </p>
    </>
  );
}
