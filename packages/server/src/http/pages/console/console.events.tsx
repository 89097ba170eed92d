/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import { applyRules, setCategoryDisabled, setResale } from '../../../flows/console-events.js';
import { createDoor, revokeDoor } from '../../../flows/console-doors.js';
import { pollFeeds, setTicketShield } from '../../../flows/operator-changes.js';
import { ApiError, type ErrorEntry } from '../../../lib/errors.js';
import { COMBINATION } from '../../../domain/rules/rules.model.js';
import { RulesRequest, ruleIssuesToEntries, type RuleItemInput } from '../../../domain/rules/rules.schemas.js';
import { safeRedirect } from '../auth/auth.session.js';
import { cspWith } from '../layout.js';
import { pageScriptTag } from '../page-script.js';
import { consoleRefusal, type ConsoleDeps } from './console.auth.js';
import { doorFormRefusal, typedDoorLabel } from './console.doors.js';
import { drm } from './console.doors.messages.js';
import { doorFieldLabels, type DoorForms, type DoorFormState, type NewDoorView } from './console.doors.view.js';
import { em } from './console.events.messages.js';
import { loadEventList, loadEventPage, loadFeeds, MAX_EVENT_PAGE, type ShowDetail } from './console.events.load.js';
import { sectionHref } from './console.sections.js';
import { doorsHref, eventsHref, EventsListView, EventView, FeedsPanel, RULE_ROWS, RULE_ROW_FIELDS, RULE_VALUE_EXAMPLES, ruleFieldLabels, ruleFieldName, type EventForms, type RuleRow, type RulesFormState } from './console.events.view.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { CONSOLE_CSS } from './console.view.js';

/** The CSRF token of a form posting to `action` (a path whose segments are URL-encoded), as the CSRF check will see its path. */
function csrfFor(c: ConsoleContext, deps: ConsoleDeps, action: string): string {
  return consoleCsrfToken(c, deps, getPath(new Request(new URL(action, 'http://console.invalid'))));
}

/** The form's switch value: `on` true, `off` false, anything else null. */
function switchOf(value: string | undefined): boolean | null {
  return value === 'on' ? true : value === 'off' ? false : null;
}

/** The rows of the rules form as typed (each value cut at 2,000 characters). */
function typedRows(form: Record<string, string>): RuleRow[] {
  return Array.from({ length: RULE_ROWS }, (_, row) => Object.fromEntries(RULE_ROW_FIELDS.map((f) => [f, (form[ruleFieldName(row, f)] ?? '').slice(0, 2000)])) as RuleRow);
}

/** The key of the rules form's errors that are no row's (the form itself). */
const FORM_ERROR = 'rulesForm';

/**
 * Error entries of POST /v1/rules' items (`<item>.<field>…`) as the form's fields: the ids and
 * the type are the row's own fields, anything of the rules object or the price its value;
 * `rowOf` maps an item to its row. Several errors of one field are joined.
 */
function entriesToFields(entries: readonly ErrorEntry[], rowOf: readonly number[], errors: Record<string, string>): void {
  for (const entry of entries) {
    const [index, field] = (entry.path ?? '').split('.');
    const row = /^\d+$/.test(index ?? '') ? rowOf[Number(index)] : undefined;
    const key =
      row === undefined || field === 'externalReferenceEventId' || field === 'showId'
        ? FORM_ERROR
        : ruleFieldName(row, field === 'ticketOptionId' || field === 'priceTypeId' || field === 'ruleType' ? field : 'value');
    const message = entry.message.replace(/^\d+\./, '');
    errors[key] = errors[key] ? `${errors[key]} ${message}` : message;
  }
}

/**
 * The items of the rules form, checked by POST /v1/rules' schema (`RulesRequest`: every error
 * at once), or every error by field. A row with neither type nor value is skipped; a value is
 * the rules object in JSON (a COMBINATION's: `{price, description?}`).
 */
function rulesFromForm(lang: Lang, rows: readonly RuleRow[], ids: { externalReferenceEventId: string; showId: string }): { ok: true; items: RuleItemInput[]; rowOf: number[] } | { ok: false; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const rowOf: number[] = [];
  const badValue = new Set<number>();
  const raw: Record<string, unknown>[] = [];
  rows.forEach((typed, row) => {
    if (typed.ruleType === '' && typed.value.trim() === '') return;
    const example = RULE_VALUE_EXAMPLES.find((x) => x.ruleType === typed.ruleType)?.example ?? '{"maxTickets": 4}';
    let value: Record<string, unknown> | undefined;
    if (typed.value.trim() !== '') {
      try {
        const parsed: unknown = JSON.parse(typed.value);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) value = parsed as Record<string, unknown>;
      } catch {
        value = undefined;
      }
      if (value === undefined) {
        errors[ruleFieldName(row, 'value')] = em(lang, 'badJson', { example });
        badValue.add(rowOf.length);
      }
    }
    const item: Record<string, unknown> = { ...ids, ticketOptionId: typed.ticketOptionId, ...(typed.priceTypeId ? { priceTypeId: typed.priceTypeId } : {}), ruleType: typed.ruleType };
    if (typed.ruleType === COMBINATION) {
      // A combination's value holds its own fields (price, description); a key of the row's (an id, the type) is refused, any other reported by the schema.
      for (const [k, v] of Object.entries(value ?? {})) {
        if (k in item) errors[ruleFieldName(row, 'value')] = `${k} is not a field of a combination's value`;
        else item[k] = v;
      }
    } else {
      // A value that is no JSON object stands as an empty one (its own error is said above).
      item.rules = value ?? (typed.value.trim() === '' ? undefined : {});
    }
    rowOf.push(row);
    raw.push(item);
  });
  if (raw.length === 0) return { ok: false, errors: { [ruleFieldName(0, 'ruleType')]: em(lang, 'noRows') } };
  const parsed = RulesRequest.safeParse(raw);
  if (!parsed.success) {
    // A value that is no JSON object was reported as such: not again as what its rules lack.
    const entries = ruleIssuesToEntries(parsed.error.issues, 'body').filter((e) => {
      const [index, field] = (e.path ?? '').split('.');
      return !(badValue.has(Number(index)) && field !== 'ticketOptionId' && field !== 'priceTypeId' && field !== 'ruleType');
    });
    entriesToFields(entries, rowOf, errors);
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, items: parsed.data, rowOf };
}

/** The notice of the events page after a poll of the feeds (`?polled=`). */
function feedsNotice(c: ConsoleContext): string | undefined {
  const lang = c.get('consoleLang');
  const polled = c.req.query('polled');
  if (polled === 'busy') return em(lang, 'pollBusy');
  if (polled === 'none') return em(lang, 'noFeeds');
  if (polled !== '1') return undefined;
  const n = (name: string) => Math.min(Math.max(0, Number(c.req.query(name) ?? 0) || 0), 1_000_000);
  return em(lang, 'polled', { applied: n('applied'), skipped: n('skipped'), failed: n('failed') });
}

/** The event page's policy when it shows a door link just made: the console's, with the pages' own script for its Copy button. */
const DOOR_MADE_CSP = cspWith({ styles: [CONSOLE_CSS], scripts: true });

/** The notice of the event page reached after a change (`?saved=`). */
function savedNotice(c: ConsoleContext): string | undefined {
  const lang = c.get('consoleLang');
  const saved = c.req.query('saved');
  if (saved === 'resale') return em(lang, 'savedResale');
  if (saved === 'shield') return em(lang, 'savedShield');
  if (saved === 'category') return em(lang, 'savedCategory');
  if (saved === 'rules') return em(lang, 'savedRules', { n: Math.min(Number(c.req.query('n') ?? 0) || 0, 100) });
  if (saved === 'door-revoked') return drm(lang, 'savedRevoked');
  return undefined;
}

/**
 * The console's events section of a partner: the events (search, pages) and an event's page,
 * where who may administer the partner switches resale and ticket protection per show (or for
 * every show), leaves categories out of the buy access layer, adds or replaces rules, and makes
 * and revokes the show's door links. Every change goes through a flow that audits it in its
 * transaction (flows/console-events.ts, flows/operator-changes.ts, flows/console-doors.ts); an
 * unknown event, show or door, or another partner's, answers 404; a change the role may not
 * make answers 403 before the form is read.
 */
export function consoleEventRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  app.get('/console/partners/:partnerId/events', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const q = (c.req.query('q') ?? '').slice(0, 200);
    const page = Math.min(Math.max(1, Number.parseInt(c.req.query('page') ?? '1', 10) || 1), MAX_EVENT_PAGE);
    const lang = c.get('consoleLang');
    const [model, feeds] = await Promise.all([loadEventList(deps, partnerId, q, page), loadFeeds(deps, session, partnerId)]);
    if (!feeds) return consoleRefusal(c, 404);
    const poll = `${sectionHref(partnerId)}/feeds/poll`;
    return renderPartnerSection(
      c,
      deps,
      session,
      partnerId,
      'events',
      <>
        <EventsListView lang={lang} partnerId={partnerId} model={model} />
        <FeedsPanel lang={lang} model={feeds} poll={{ action: poll, csrf: consoleCsrfToken(c, deps, poll) }} />
      </>,
      { notice: feedsNotice(c) },
    );
  });

  app.post('/console/partners/:partnerId/feeds/poll', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const feeds = await loadFeeds(deps, session, partnerId);
    if (!feeds) return consoleRefusal(c, 404);
    if (feeds.feeds.every((f) => f.url === null)) return safeRedirect(c, `${eventsHref(partnerId)}?polled=none#feeds`, 303);
    const runs = await pollFeeds(deps, consoleAuditContext(c, session, partnerId), partnerId);
    const sum = (f: (r: (typeof runs)[number]) => number) => String(runs.reduce((n, r) => n + f(r), 0));
    // No run: both feeds were being polled already (or none is configured): said as such.
    const query: Record<string, string> = runs.length === 0 ? { polled: 'busy' } : { polled: '1', applied: sum((r) => r.applied), skipped: sum((r) => r.skipped), failed: sum((r) => (r.ok ? 0 : 1)) };
    return safeRedirect(c, `${eventsHref(partnerId)}?${new URLSearchParams(query)}#feeds`, 303);
  });

  /**
   * An event's page (the show `showId` in detail) with the state of its forms (the rules', the
   * door's) and a door link just made; 404 when the event or show is not the partner's.
   */
  const eventPage = async (
    c: ConsoleContext,
    partnerId: string,
    eventId: string,
    showId: string | undefined,
    state: { rulesForm?: RulesFormState; doorForm?: DoorFormState; newDoor?: NewDoorView; notice?: string | undefined; status?: number } = {},
  ) => {
    const session = c.get('console')!;
    const lang = c.get('consoleLang');
    const model = await loadEventPage(deps, session, partnerId, eventId, showId);
    if (!model) return consoleRefusal(c, 404);
    const base = eventsHref(partnerId, eventId);
    const to = (action: string) => ({ action, csrf: csrfFor(c, deps, action) });
    const form = (path: string) => to(`${base}/${path}`);
    // A door's revoke form for each live door only: the others have nothing to revoke.
    const doorForms = (show: ShowDetail): DoorForms => {
      const doors = doorsHref(partnerId, eventId, show.showId);
      return { make: to(doors), revoke: Object.fromEntries(show.doors.list.filter((d) => d.status === 'live').map((d) => [d.doorId, to(`${doors}/${encodeURIComponent(d.doorId)}/revoke`)])) };
    };
    const forms: EventForms = { resale: form('resale'), shield: form('ticket-shield'), categories: form('categories'), rules: form('rules'), doors: model.selected ? doorForms(model.selected) : null };
    const rulesForm = state.rulesForm ?? { rows: [], errors: {} };
    const doorForm = state.doorForm ?? { typed: '', errors: {} };
    return renderPartnerSection(c, deps, session, partnerId, 'events', <EventView lang={lang} partnerId={partnerId} model={model} forms={forms} rulesForm={rulesForm} doorForm={doorForm} newDoor={state.newDoor} />, {
      status: state.status ?? 200,
      notice: state.notice,
      errors: { ...rulesForm.errors, ...doorForm.errors },
      labels: { ...ruleFieldLabels(lang), [FORM_ERROR]: em(lang, 'addRulesTitle'), ...doorFieldLabels(lang) },
      ...(state.newDoor ? { head: pageScriptTag(), csp: DOOR_MADE_CSP } : {}),
    });
  };

  app.get('/console/partners/:partnerId/events/:eventId', async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const show = c.req.query('show');
    return eventPage(c, got.partnerId, c.req.param('eventId'), show === undefined || show === '' ? undefined : show.slice(0, 200), { notice: savedNotice(c) });
  });

  /** Where a change of the event goes back to: its page, at the show it changed (`at`: a part of it). */
  const back = (c: ConsoleContext, partnerId: string, eventId: string, showId: string | undefined, saved: string, opts: { extra?: string; at?: string } = {}) =>
    safeRedirect(c, `${eventsHref(partnerId, eventId)}?${new URLSearchParams({ ...(showId ? { show: showId } : {}), saved })}${opts.extra ?? ''}#${opts.at ?? (showId ? 'show' : 'shows')}`, 303);

  /** A change's answer when the flow refuses it: 404 (unknown event, show, option or door) as the console's page, anything else thrown on. */
  const refused = (c: ConsoleContext, err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
    throw err;
  };

  /** The show a switch names (`showId`; empty: every show). */
  const showOf = (form: Record<string, string>) => (form.showId ? form.showId.slice(0, 200) : undefined);

  app.post('/console/partners/:partnerId/events/:eventId/resale', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const eventId = c.req.param('eventId');
    const enabled = switchOf(form.status);
    const showId = showOf(form);
    if (enabled === null) return eventPage(c, partnerId, eventId, showId, { rulesForm: { rows: [], errors: { [FORM_ERROR]: em(c.get('consoleLang'), 'badSwitch') } }, status: 400 });
    try {
      await setResale(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId, enabled });
    } catch (err) {
      return refused(c, err);
    }
    return back(c, partnerId, eventId, showId, 'resale');
  });

  app.post('/console/partners/:partnerId/events/:eventId/ticket-shield', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const eventId = c.req.param('eventId');
    const status = switchOf(form.status);
    const showId = showOf(form);
    if (status === null) return eventPage(c, partnerId, eventId, showId, { rulesForm: { rows: [], errors: { [FORM_ERROR]: em(c.get('consoleLang'), 'badSwitch') } }, status: 400 });
    try {
      await setTicketShield(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId, status });
    } catch (err) {
      return refused(c, err);
    }
    return back(c, partnerId, eventId, showId, 'shield');
  });

  app.post('/console/partners/:partnerId/events/:eventId/categories', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const eventId = c.req.param('eventId');
    const showId = showOf(form);
    const op = form.op ?? '';
    const ticketOptionId = (form.ticketOptionId ?? '').slice(0, 200);
    const ops: Record<string, { disabled: boolean; everyShow: boolean }> = {
      'disable-show': { disabled: true, everyShow: false },
      'disable-event': { disabled: true, everyShow: true },
      'enable-show': { disabled: false, everyShow: false },
      'enable-event': { disabled: false, everyShow: true },
    };
    const chosen = ops[op];
    // The show names where to come back to; without one, a show-scoped change has nothing to name.
    if (!chosen || !ticketOptionId || !showId) return consoleRefusal(c, 404);
    try {
      await setCategoryDisabled(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId: chosen.everyShow ? undefined : showId, ticketOptionId, disabled: chosen.disabled });
    } catch (err) {
      // The event's other shows are fine, this one is not the event's: 404 as an unknown one.
      return refused(c, err);
    }
    return back(c, partnerId, eventId, showId, 'category');
  });

  app.post('/console/partners/:partnerId/events/:eventId/rules', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const eventId = c.req.param('eventId');
    const showId = showOf(form);
    if (!showId) return consoleRefusal(c, 404);
    const rows = typedRows(form);
    const result = rulesFromForm(lang, rows, { externalReferenceEventId: eventId, showId });
    if (!result.ok) return eventPage(c, partnerId, eventId, showId, { rulesForm: { rows, errors: result.errors }, status: 400 });
    try {
      const applied = await applyRules(deps, consoleAuditContext(c, session, partnerId), partnerId, result.items);
      return back(c, partnerId, eventId, showId, 'rules', { extra: `&n=${applied.length}` });
    } catch (err) {
      if (err instanceof ApiError && err.status !== 404 && err.status < 500) {
        const errors: Record<string, string> = {};
        entriesToFields(err.entries, result.rowOf, errors);
        return eventPage(c, partnerId, eventId, showId, { rulesForm: { rows, errors }, status: 400 });
      }
      return refused(c, err);
    }
  });

  app.post('/console/partners/:partnerId/events/:eventId/shows/:showId/doors', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const eventId = c.req.param('eventId');
    const showId = c.req.param('showId');
    const typed = typedDoorLabel(form);
    try {
      const made = await createDoor(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId, label: typed });
      // The page itself (200), not a redirect: the link is in this answer only, never in a URL, the history or a later page.
      return eventPage(c, partnerId, eventId, showId, { newDoor: { label: made.label, link: made.link, expiresAt: Date.parse(made.expiresAt) } });
    } catch (err) {
      const refusal = doorFormRefusal(c.get('consoleLang'), err, typed);
      if (refusal) return eventPage(c, partnerId, eventId, showId, { doorForm: { typed, errors: refusal.errors }, status: refusal.status });
      return refused(c, err);
    }
  });

  app.post('/console/partners/:partnerId/events/:eventId/shows/:showId/doors/:doorId/revoke', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const eventId = c.req.param('eventId');
    const showId = c.req.param('showId');
    try {
      // A door revoked already is revoked again harmlessly (nothing written): a double click, a resent form.
      await revokeDoor(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId, doorId: c.req.param('doorId') });
    } catch (err) {
      return refused(c, err);
    }
    return back(c, partnerId, eventId, showId, 'door-revoked', { at: 'doors' });
  });

  return app;
}
