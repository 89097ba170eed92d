/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { RULE_DEFINITIONS, RULE_TYPES } from '../../../domain/rules/rules.definitions.js';
import { COMBINATION } from '../../../domain/rules/rules.model.js';
import type { StoredRuleItemOutput } from '../../../domain/rules/rules.schemas.js';
import type { EventListModel, EventPageModel, FeedsModel, ShowDetail, ShowSummary } from './console.events.load.js';
import { em } from './console.events.messages.js';
import { DoorsPanel, NewDoorPanel, type DoorForms, type DoorFormState, type NewDoorView } from './console.doors.view.js';
import { wm } from './console.waitinglist.messages.js';
import { CsrfField, Field, SelectField } from './console.view.js';

/** The rows of the rules form (a row left empty is skipped). */
export const RULE_ROWS = 3;

/** The fields of a row of the rules form, in its order. */
export const RULE_ROW_FIELDS = ['ticketOptionId', 'priceTypeId', 'ruleType', 'value'] as const;
export type RuleRowField = (typeof RULE_ROW_FIELDS)[number];

/** The name of a field of row `row` (from 0) of the rules form: `rules.<row>.<field>`. */
export function ruleFieldName(row: number, field: RuleRowField): string {
  return `rules.${row}.${field}`;
}

/** A row of the rules form as typed. */
export type RuleRow = Record<RuleRowField, string>;

/** The rules form as typed and refused (every error by field name), or blank. */
export interface RulesFormState {
  rows: RuleRow[];
  errors: Record<string, string>;
}

/** The item types the rules form offers: a combination, then each rule type in the order of GET /v1/rules. */
export const RULE_FORM_TYPES: readonly string[] = [COMBINATION, ...RULE_TYPES];

/** An example value of each item type, as the form takes it (JSON). */
export const RULE_VALUE_EXAMPLES: readonly { ruleType: string; example: string }[] = [
  { ruleType: COMBINATION, example: JSON.stringify({ price: 39.5 }) },
  ...RULE_DEFINITIONS.map((d) => ({ ruleType: d.ruleType, example: JSON.stringify(d.itemExample.rules) })),
];

/** The labels of the rules form's fields, for the error summary. */
export function ruleFieldLabels(lang: Lang): Record<string, string> {
  const names: Record<RuleRowField, string> = { ticketOptionId: em(lang, 'ticketOption'), priceTypeId: em(lang, 'priceType'), ruleType: em(lang, 'ruleType'), value: em(lang, 'value') };
  const out: Record<string, string> = {};
  for (let row = 0; row < RULE_ROWS; row++) for (const field of RULE_ROW_FIELDS) out[ruleFieldName(row, field)] = em(lang, 'rowField', { n: row + 1, field: names[field] });
  return out;
}

/** The console's address of a partner's events (`eventId`: one event's page). */
export function eventsHref(partnerId: string, eventId?: string): string {
  const base = `/console/partners/${encodeURIComponent(partnerId)}/events`;
  return eventId === undefined ? base : `${base}/${encodeURIComponent(eventId)}`;
}

/** The page of one show of an event (its details, at `#show`). */
export function showHref(partnerId: string, eventId: string, showId: string): string {
  return `${eventsHref(partnerId, eventId)}?show=${encodeURIComponent(showId)}#show`;
}

/** The waiting-list page of one show of an event: its settings, its line and its history. */
export function waitingListHref(partnerId: string, eventId: string, showId: string): string {
  return `${eventsHref(partnerId, eventId)}/shows/${encodeURIComponent(showId)}/waiting-list`;
}

/** Where a show's doors post: `…/doors` makes one, `…/doors/<doorId>/revoke` revokes one. */
export function doorsHref(partnerId: string, eventId: string, showId: string): string {
  return `${eventsHref(partnerId, eventId)}/shows/${encodeURIComponent(showId)}/doors`;
}

/** The list of a partner's events: search, a page of them, links to the pages around it. */
export function EventsListView(props: { lang: Lang; partnerId: string; model: EventListModel }) {
  const { lang, model } = props;
  const pageHref = (page: number) => {
    const q = new URLSearchParams({ ...(model.q ? { q: model.q } : {}), ...(page > 1 ? { page: String(page) } : {}) }).toString();
    return q ? `${eventsHref(props.partnerId)}?${q}` : eventsHref(props.partnerId);
  };
  return (
    <>
      <h2 id="events">{em(lang, 'eventsTitle')}</h2>
      <p>{em(lang, 'eventsIntro')}</p>
      <form method="get" action={eventsHref(props.partnerId)} class="inline-form" role="search">
        <Field name="q" label={em(lang, 'search')} value={model.q} />
        <button type="submit" class="secondary">
          {em(lang, 'searchButton')}
        </button>
      </form>
      {model.items.length === 0 ? (
        <p class="empty">{model.q ? em(lang, 'noMatch', { q: model.q }) : em(lang, 'noEvents')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{em(lang, 'event')}</th>
                <th scope="col">{em(lang, 'eventId')}</th>
                <th scope="col">{em(lang, 'shows')}</th>
                <th scope="col">{em(lang, 'firstShow')}</th>
                <th scope="col">{em(lang, 'source')}</th>
              </tr>
            </thead>
            <tbody>
              {model.items.map((e) => (
                <tr>
                  <td>
                    <a href={eventsHref(props.partnerId, e.externalReferenceId)}>{e.title}</a>
                  </td>
                  <td>
                    <code>{e.externalReferenceId}</code>
                  </td>
                  <td class="num">{e.shows}</td>
                  <td>{e.firstShowAt === null ? '–' : formatInstant(e.firstShowAt, lang, 'UTC', 'long')}</td>
                  <td>{em(lang, `source_${e.source}` as 'source_api')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {model.page > 1 || model.hasNext ? (
        <nav class="actions" aria-label={em(lang, 'pageOf', { page: model.page })}>
          {model.page > 1 ? <a href={pageHref(model.page - 1)}>{em(lang, 'newer')}</a> : null}
          <span class="muted">{em(lang, 'pageOf', { page: model.page })}</span>
          {model.hasNext ? <a href={pageHref(model.page + 1)}>{em(lang, 'older')}</a> : null}
        </nav>
      ) : null}
    </>
  );
}

/** How many of a run's problems the table shows (the operator API lists them all). */
const PROBLEMS_SHOWN = 3;

/**
 * The partner's feeds: where each is read from and its last poll, the latest polls with what
 * they applied, skipped and why, and (for who may administer the partner) a button that polls
 * both now.
 */
export function FeedsPanel(props: { lang: Lang; model: FeedsModel; poll: { action: string; csrf: string } }) {
  const { lang, model } = props;
  const when = (at: number) => formatInstant(at, lang, 'UTC');
  return (
    <section aria-labelledby="feeds">
      <h2 id="feeds">{em(lang, 'feedsTitle')}</h2>
      <p>{em(lang, 'feedsIntro', { seconds: model.pollSeconds })}</p>
      <dl class="facts">
        {model.feeds.map((f) => (
          <>
            <dt>{em(lang, `feed_${f.kind}`)}</dt>
            <dd>
              {f.url ? <code>{f.url}</code> : <span class="muted">{em(lang, 'notConfigured')}</span>}
              <br />
              <span class="muted">
                {em(lang, 'lastRun')}: {f.last === null ? em(lang, 'neverRan') : f.last.ok ? em(lang, 'ranOk', { when: when(f.last.startedAt), applied: f.last.applied, skipped: f.last.skipped }) : em(lang, 'ranFailed', { when: when(f.last.startedAt) })}
              </span>
            </dd>
          </>
        ))}
      </dl>
      {model.runs.length === 0 ? (
        <p class="empty">{em(lang, 'noRuns')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{em(lang, 'feed')}</th>
                <th scope="col">{em(lang, 'started')}</th>
                <th scope="col">{em(lang, 'result')}</th>
                <th scope="col">{em(lang, 'applied')}</th>
                <th scope="col">{em(lang, 'skipped')}</th>
                <th scope="col">{em(lang, 'problems')}</th>
              </tr>
            </thead>
            <tbody>
              {model.runs.map((r) => (
                <tr>
                  <td>{em(lang, `feed_${r.feed}`)}</td>
                  <td>{when(r.startedAt)}</td>
                  <td>{em(lang, r.ok ? 'ok' : 'failed')}</td>
                  <td class="num">{r.applied}</td>
                  <td class="num">{r.skipped}</td>
                  <td>
                    {r.problems.length === 0 ? (
                      '–'
                    ) : (
                      <ul class="change">
                        {r.problems.slice(0, PROBLEMS_SHOWN).map((p) => (
                          <li>{p}</li>
                        ))}
                        {r.problems.length > PROBLEMS_SHOWN ? <li class="muted">{em(lang, 'moreProblems', { n: r.problems.length - PROBLEMS_SHOWN })}</li> : null}
                      </ul>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {model.mayPoll ? (
        <form method="post" action={props.poll.action}>
          <CsrfField token={props.poll.csrf} />
          <button type="submit" class="secondary">
            {em(lang, 'pollNow')}
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The addresses and CSRF tokens of the event page's forms. */
export interface EventForms {
  resale: { action: string; csrf: string };
  shield: { action: string; csrf: string };
  categories: { action: string; csrf: string };
  rules: { action: string; csrf: string };
  /** The selected show's doors (null without a show). */
  doors: DoorForms | null;
}

/** A switch (resale, ticket protection) of one show or of every show: a form with one button that turns it the other way. */
function SwitchForm(props: { lang: Lang; form: { action: string; csrf: string }; showId: string | null; to: boolean; what: string; target: string; label?: string }) {
  const label = props.label ?? em(props.lang, props.to ? 'turnOn' : 'turnOff');
  return (
    <form method="post" action={props.form.action} class="inline-form">
      <CsrfField token={props.form.csrf} />
      {props.showId === null ? null : <input type="hidden" name="showId" value={props.showId} />}
      <input type="hidden" name="status" value={props.to ? 'on' : 'off'} />
      {/* The name says what and where; it starts with the visible text (a visually hidden span would escape the table's scrolling box). */}
      <button type="submit" class={props.to ? 'secondary' : 'danger-outline'} aria-label={`${label}: ${props.what}, ${props.target}`}>
        {label}
      </button>
    </form>
  );
}

/** A show's state of a switch in words: on, off, or on but closed by the show's status. */
function resaleState(lang: Lang, s: ShowSummary): string {
  if (!s.resaleEnabled) return em(lang, 'off');
  return s.resaleOpen ? em(lang, 'on') : em(lang, 'onButClosed', { status: s.status });
}

/** The shows of the event: date, status, the two switches, inventory and leads, and a link to each show's details. */
function ShowsTable(props: { lang: Lang; partnerId: string; model: EventPageModel; forms: EventForms }) {
  const { lang, model } = props;
  const selected = model.selected?.showId;
  const pair = (c: { listings: number; tickets: number }) => em(lang, 'listingsTickets', { listings: c.listings, tickets: c.tickets });
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{em(lang, 'show')}</th>
            <th scope="col">{em(lang, 'date')}</th>
            <th scope="col">{em(lang, 'status')}</th>
            <th scope="col">{em(lang, 'resale')}</th>
            <th scope="col">{em(lang, 'ticketShield')}</th>
            <th scope="col">{em(lang, 'tickets')}</th>
            <th scope="col">{em(lang, 'forSale')}</th>
            <th scope="col">{em(lang, 'sold')}</th>
            <th scope="col">{em(lang, 'leads')}</th>
          </tr>
        </thead>
        <tbody>
          {model.shows.map((s) => (
            <tr>
              <td>
                <a href={showHref(props.partnerId, model.event.externalReferenceId, s.showId)} aria-current={s.showId === selected ? 'true' : undefined}>
                  {s.title}
                </a>
                <div>
                  <code>{s.showId}</code>
                </div>
              </td>
              <td>{formatInstant(s.startsAt, lang, model.timeZone, 'long')}</td>
              <td>
                <code>{s.status}</code>
              </td>
              <td>
                <p>{resaleState(lang, s)}</p>
                {model.mayAdminister ? <SwitchForm lang={lang} form={props.forms.resale} showId={s.showId} to={!s.resaleEnabled} what={em(lang, 'resale')} target={s.title} /> : null}
              </td>
              <td>
                <p>{em(lang, s.ticketShield ? 'on' : 'off')}</p>
                {model.mayAdminister ? <SwitchForm lang={lang} form={props.forms.shield} showId={s.showId} to={!s.ticketShield} what={em(lang, 'ticketShield')} target={s.title} /> : null}
              </td>
              <td class="num">{s.counts.tickets}</td>
              <td>{pair(s.counts.forSale)}</td>
              <td>{pair(s.counts.sold)}</td>
              <td class="num">{s.counts.leads}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The switches for every show of the event at once. */
function EveryShowSwitches(props: { lang: Lang; forms: EventForms }) {
  const { lang, forms } = props;
  const every = em(lang, 'everyShow');
  return (
    <fieldset>
      <legend>{every}</legend>
      <div class="grid">
        {(
          [
            ['resale', forms.resale],
            ['ticketShield', forms.shield],
          ] as const
        ).map(([what, form]) => (
          <div>
            <p>
              <strong>{em(lang, what)}</strong>
            </p>
            <div class="inline-form">
              <SwitchForm lang={lang} form={form} showId={null} to={true} what={em(lang, what)} target={every} label={em(lang, 'allOn')} />
              <SwitchForm lang={lang} form={form} showId={null} to={false} what={em(lang, what)} target={every} label={em(lang, 'allOff')} />
            </div>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

/** The selected show's categories, each visible or disabled in the buy access layer, with the buttons that change it. */
function CategoriesTable(props: { lang: Lang; show: ShowDetail; mayAdminister: boolean; form: { action: string; csrf: string } }) {
  const { lang, show } = props;
  if (show.categories.length === 0) return <p class="empty">{em(lang, 'noCategories')}</p>;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{em(lang, 'category')}</th>
            <th scope="col">{em(lang, 'area')}</th>
            <th scope="col">{em(lang, 'visibility')}</th>
            {props.mayAdminister ? <th scope="col">{em(lang, 'change')}</th> : null}
          </tr>
        </thead>
        <tbody>
          {show.categories.map((o) => {
            const states = [o.disabledInShow ? em(lang, 'disabledHere') : null, o.disabledInEvent ? em(lang, 'disabledEverywhere') : null].filter((x): x is string => x !== null);
            const button = (op: 'disable-show' | 'disable-event' | 'enable-show' | 'enable-event', key: 'disableHere' | 'disableEverywhere' | 'enableHere' | 'enableEverywhere') => (
              <button type="submit" name="op" value={op} class={op.startsWith('disable') ? 'danger-outline' : 'secondary'} aria-label={`${em(lang, key)}: ${o.title}`}>
                {em(lang, key)}
              </button>
            );
            return (
              <tr>
                <td>
                  {o.title}
                  <div>
                    <code>{o.ticketOptionId}</code>
                  </div>
                </td>
                <td>{o.area ?? '–'}</td>
                <td>{states.length === 0 ? em(lang, 'visible') : states.join('; ')}</td>
                {props.mayAdminister ? (
                  <td>
                    <form method="post" action={props.form.action} class="inline-form">
                      <CsrfField token={props.form.csrf} />
                      <input type="hidden" name="showId" value={show.showId} />
                      <input type="hidden" name="ticketOptionId" value={o.ticketOptionId} />
                      {o.disabledInShow ? button('enable-show', 'enableHere') : button('disable-show', 'disableHere')}
                      {o.disabledInEvent ? button('enable-event', 'enableEverywhere') : button('disable-event', 'disableEverywhere')}
                    </form>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** A stored rule's value as the form takes it: the rules object, or a combination's price and description. */
function ruleValue(r: StoredRuleItemOutput): string {
  if (r.ruleType === COMBINATION) return JSON.stringify({ price: r.price, ...(r.description !== undefined ? { description: r.description } : {}) });
  return JSON.stringify(r.rules);
}

/** The show's rules and combinations, as GET /v1/rules lists them. */
function RulesTable(props: { lang: Lang; rules: StoredRuleItemOutput[] }) {
  const { lang } = props;
  if (props.rules.length === 0) return <p class="empty">{em(lang, 'noRules')}</p>;
  return (
    <div class="table-wrap">
      <table class="data">
        <thead>
          <tr>
            <th scope="col">{em(lang, 'ticketOption')}</th>
            <th scope="col">{em(lang, 'priceType')}</th>
            <th scope="col">{em(lang, 'ruleType')}</th>
            <th scope="col">{em(lang, 'value')}</th>
            <th scope="col">{em(lang, 'updated')}</th>
          </tr>
        </thead>
        <tbody>
          {props.rules.map((r) => (
            <tr>
              <td>
                <code>{r.ticketOptionId}</code>
              </td>
              <td>{r.priceTypeId === undefined ? <span class="muted">{em(lang, 'wholeOption')}</span> : <code>{r.priceTypeId}</code>}</td>
              <td>
                <code>{r.ruleType}</code>
              </td>
              <td>
                <code>{ruleValue(r)}</code>
              </td>
              <td>{formatInstant(Date.parse(r.updatedAt), lang, 'UTC', 'long')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The form that adds or replaces rules of the show: a few rows (ticket option, scope, type, JSON value), every error at once, the typed values kept. */
function RulesForm(props: { lang: Lang; show: ShowDetail; state: RulesFormState; form: { action: string; csrf: string } }) {
  const { lang, show, state } = props;
  const options = show.categories.map((o) => ({ value: o.ticketOptionId, label: `${o.title} (${o.ticketOptionId})` }));
  const priceTypes = [{ value: '', label: em(lang, 'wholeOption') }, ...show.priceTypes.map((p) => ({ value: p.priceTypeId, label: p.title ? `${p.title} (${p.priceTypeId})` : p.priceTypeId }))];
  const types = [{ value: '', label: em(lang, 'chooseRuleType') }, ...RULE_FORM_TYPES.map((t) => ({ value: t, label: t }))];
  return (
    <form method="post" action={props.form.action} class="card" id="f-rulesForm" novalidate>
      <CsrfField token={props.form.csrf} />
      <input type="hidden" name="showId" value={show.showId} />
      {Array.from({ length: RULE_ROWS }, (_, row) => {
        const typed = state.rows[row] ?? { ticketOptionId: '', priceTypeId: '', ruleType: '', value: '' };
        const name = (field: RuleRowField) => ruleFieldName(row, field);
        return (
          <fieldset>
            <legend>{em(lang, 'ruleRow', { n: row + 1 })}</legend>
            <div class="grid">
              <SelectField name={name('ticketOptionId')} label={em(lang, 'ticketOption')} value={typed.ticketOptionId} error={state.errors[name('ticketOptionId')]} options={options} />
              <SelectField name={name('priceTypeId')} label={em(lang, 'priceType')} value={typed.priceTypeId} error={state.errors[name('priceTypeId')]} options={priceTypes} />
              <SelectField name={name('ruleType')} label={em(lang, 'ruleType')} value={typed.ruleType} error={state.errors[name('ruleType')]} options={types} />
              <Field name={name('value')} label={em(lang, 'value')} value={typed.value} error={state.errors[name('value')]} />
            </div>
          </fieldset>
        );
      })}
      <button type="submit">{em(lang, 'applyRules')}</button>
    </form>
  );
}

/**
 * An event's page: its shows with their switches and counts, then the selected show's waiting
 * list, doors, categories, rules and rules form; a door link just made (`newDoor`) first of all.
 */
export function EventView(props: { lang: Lang; partnerId: string; model: EventPageModel; forms: EventForms; rulesForm: RulesFormState; doorForm: DoorFormState; newDoor?: NewDoorView | undefined }) {
  const { lang, model } = props;
  const show = model.selected;
  return (
    <>
      {props.newDoor ? <NewDoorPanel lang={lang} door={props.newDoor} timeZone={model.timeZone} /> : null}
      <p>
        <a href={eventsHref(props.partnerId)}>{em(lang, 'toEvents')}</a>
      </p>
      <h2 id="event">{model.event.title}</h2>
      <p class="muted">
        <code>{model.event.externalReferenceId}</code> · {em(lang, `source_${model.event.source}` as 'source_api')}
      </p>
      {model.mayAdminister ? null : <p class="muted">{em(lang, 'readOnly')}</p>}
      <h3 id="shows">{em(lang, 'showsTitle')}</h3>
      <p>{em(lang, 'showsIntro')}</p>
      {model.shows.length === 0 ? <p class="empty">{em(lang, 'noShows')}</p> : <ShowsTable lang={lang} partnerId={props.partnerId} model={model} forms={props.forms} />}
      {model.mayAdminister && model.shows.length > 1 ? <EveryShowSwitches lang={lang} forms={props.forms} /> : null}
      {show ? (
        <>
          <h3 id="show">{em(lang, 'detailsOf', { show: show.title })}</h3>
          <p class="muted">
            <code>{show.showId}</code>
          </p>
          <h4 id="waiting-list">{wm(lang, 'waitingList')}</h4>
          <p>
            {show.waitingList.updatedAt === null
              ? wm(lang, 'panelNever')
              : wm(lang, show.waitingList.enabled ? 'panelOn' : 'panelOff', { n: show.waitingList.waiting })}{' '}
            <a href={waitingListHref(props.partnerId, model.event.externalReferenceId, show.showId)}>{wm(lang, 'panelLink')}</a>
          </p>
          {props.forms.doors ? <DoorsPanel lang={lang} show={show} timeZone={model.timeZone} mayAdminister={model.mayAdminister} forms={props.forms.doors} state={props.doorForm} /> : null}
          <h4 id="categories">{em(lang, 'categoriesTitle')}</h4>
          <p>{em(lang, 'categoriesIntro')}</p>
          <CategoriesTable lang={lang} show={show} mayAdminister={model.mayAdminister} form={props.forms.categories} />
          <h4 id="rules">{em(lang, 'rulesTitle')}</h4>
          <p>{em(lang, 'rulesIntro')}</p>
          <RulesTable lang={lang} rules={show.rules} />
          {model.mayAdminister && show.categories.length > 0 ? (
            <>
              <h4 id="add-rules">{em(lang, 'addRulesTitle')}</h4>
              <p>{em(lang, 'addRulesIntro')}</p>
              <details>
                <summary>{em(lang, 'examples')}</summary>
                <ul class="change">
                  {RULE_VALUE_EXAMPLES.map((x) => (
                    <li>
                      <code>{x.ruleType}</code>: <code>{x.example}</code>
                    </li>
                  ))}
                </ul>
              </details>
              <RulesForm lang={lang} show={show} state={props.rulesForm} form={props.forms.rules} />
            </>
          ) : null}
        </>
      ) : null}
    </>
  );
}
