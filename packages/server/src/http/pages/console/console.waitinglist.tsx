/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import { setWaitingListSettings } from '../../../flows/console-waitinglist.js';
import { ApiError } from '../../../lib/errors.js';
import { safeRedirect } from '../auth/auth.session.js';
import { consoleRefusal, type ConsoleDeps } from './console.auth.js';
import { waitingListHref } from './console.events.view.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { waitingListHistoryCsv } from './console.waitinglist.csv.js';
import { loadHistoryExport, loadWaitingListPage, settingsErrorsOf, settingsFromForm, waitingListQueryOf, type SettingsForm, type WaitingListQuery } from './console.waitinglist.load.js';
import { wm } from './console.waitinglist.messages.js';
import { settingsFieldLabels, WaitingListView } from './console.waitinglist.view.js';

/** The path of a show's waiting-list page; its settings post to `…/settings`, its history downloads as `….csv`. */
const PAGE = '/console/partners/:partnerId/events/:eventId/shows/:showId/waiting-list';

/** The CSRF token of a form posting to `action` (a path whose segments are URL-encoded), as the CSRF check will see its path. */
function csrfFor(c: ConsoleContext, deps: ConsoleDeps, action: string): string {
  return consoleCsrfToken(c, deps, getPath(new Request(new URL(action, 'http://console.invalid'))));
}

/**
 * A show's waiting list in the console, a page of its own in the events section (linked from
 * the show on the event page): its figures, its settings, its line a page at a time (with a
 * search by e-mail), its recent history, and the whole history as CSV (the operator's export,
 * from the same code). Everyone who reads the partner reads it, fans' e-mails included as the
 * sales section shows buyers'; who may administer the partner changes the settings, through a
 * flow that audits the change in its transaction (`waitinglist.settings.set`,
 * flows/console-waitinglist.ts); a change the role may not make answers 403 before the form is
 * read. An unknown event or show, or another partner's, answers 404.
 */
export function consoleWaitingListRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  /** The page, with the settings form as typed and its errors when refused; 404 when the event or show is not the partner's. */
  const page = async (c: ConsoleContext, partnerId: string, query: WaitingListQuery, state: { typed?: SettingsForm; errors?: Record<string, string>; notice?: string | undefined; status?: number } = {}) => {
    const session = c.get('console')!;
    const lang = c.get('consoleLang');
    const model = await loadWaitingListPage(deps, session, partnerId, c.req.param('eventId') ?? '', c.req.param('showId') ?? '', query, state.typed);
    if (!model) return consoleRefusal(c, 404);
    const base = waitingListHref(partnerId, model.event.externalReferenceId, model.show.showId);
    const action = `${base}/settings`;
    const errors = state.errors ?? {};
    const body = <WaitingListView lang={lang} partnerId={partnerId} model={model} errors={errors} form={{ action, csrf: csrfFor(c, deps, action) }} csvHref={`${base}.csv`} />;
    return renderPartnerSection(c, deps, session, partnerId, 'events', body, { status: state.status ?? 200, notice: state.notice, errors, labels: settingsFieldLabels(lang) });
  };

  app.get(PAGE, async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const notice = c.req.query('saved') === '1' ? wm(c.get('consoleLang'), 'saved') : undefined;
    return page(c, got.partnerId, waitingListQueryOf({ page: c.req.query('page'), fan: c.req.query('fan') }), { notice });
  });

  app.post(`${PAGE}/settings`, async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const eventId = (c.req.param('eventId') ?? '').slice(0, 200);
    const showId = (c.req.param('showId') ?? '').slice(0, 200);
    const first = waitingListQueryOf({});
    const result = settingsFromForm(form, lang);
    if (!result.ok) return page(c, partnerId, first, { typed: result.typed, errors: result.errors, status: 400 });
    try {
      await setWaitingListSettings(deps, consoleAuditContext(c, session, partnerId), partnerId, { eventId, showId }, result.input);
    } catch (err) {
      // An unknown event or show (or the partner gone) is the console's 404, the rest of a 400 the form's errors.
      if (err instanceof ApiError && err.status === 404) return consoleRefusal(c, 404);
      if (err instanceof ApiError && err.status === 400) return page(c, partnerId, first, { typed: result.typed, errors: settingsErrorsOf(err.entries, lang), status: 400 });
      throw err;
    }
    return safeRedirect(c, `${waitingListHref(partnerId, eventId, showId)}?saved=1#settings`, 303);
  });

  app.get(`${PAGE}.csv`, async (c) => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    const found = await loadHistoryExport(deps, got.session, got.partnerId, c.req.param('eventId') ?? '', c.req.param('showId') ?? '');
    if (!found) return consoleRefusal(c, 404);
    const csv = waitingListHistoryCsv(got.partnerId, found.key, found.rows);
    return c.body(csv.body, 200, csv.headers);
  });

  return app;
}
