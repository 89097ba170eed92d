/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { formatInstant } from '@resale/shared/format';
import { Hono } from 'hono';
import type { AuditRow } from '../../../domain/audit/audit.service.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { renderPage } from '../layout.js';
import { barOf, consoleRefusal, otherLangHref, requireConsole, type ConsoleDeps } from './console.auth.js';
import { cm } from './console.messages.js';
import type { ConsoleEnv } from './console.session.js';
import { CONSOLE_CSP, ConsoleLayout, PartnerSelect, type ConsoleBarView } from './console.view.js';

/** Entries per page of the audit log. */
const AUDIT_PAGE_SIZE = 50;

/** What the audit page shows: a page of entries, the partner filter, and the link to older ones. */
interface AuditPageModel {
  entries: AuditRow[];
  partners: { id: string; name: string }[];
  partnerId: string | null;
  action: string;
  olderHref: string | null;
}

/**
 * The audit page's model: an operator sees every entry (or one partner's), anyone else only
 * the partners they belong to, one at a time (their first when none is named); null when the
 * named partner is not theirs to see.
 */
async function loadAudit(deps: ConsoleDeps, session: ConsoleSession, query: { partnerId?: string | undefined; action?: string | undefined; startingAfter?: string | undefined }): Promise<AuditPageModel | null> {
  const partners = session.memberships.map((m) => ({ id: m.partnerId, name: m.partnerName }));
  const partnerId = query.partnerId || (session.user.operator ? null : (partners[0]?.id ?? null));
  if (partnerId !== null && !can(session, 'read', partnerId)) return null;
  if (partnerId === null && !session.user.operator) return { entries: [], partners, partnerId, action: '', olderHref: null };
  const action = (query.action ?? '').trim().slice(0, 100);
  const page = await deps.db.read(async (tx) => await deps.audit.list(tx, { limit: AUDIT_PAGE_SIZE, ...(partnerId ? { partnerId } : {}), ...(action ? { action } : {}), ...(query.startingAfter ? { startingAfter: query.startingAfter.slice(0, 100) } : {}) }));
  const older = new URLSearchParams({ ...(partnerId ? { partnerId } : {}), ...(action ? { action } : {}), ...(page.nextCursor ? { startingAfter: page.nextCursor } : {}) });
  return { entries: page.items, partners, partnerId, action, olderHref: page.nextCursor ? `/console/audit?${older}` : null };
}

/** An entry's change as lines `field: before → after`. */
function changeLines(row: AuditRow): string[] {
  const before = (row.before ?? {}) as Record<string, unknown>;
  const after = (row.after ?? {}) as Record<string, unknown>;
  const show = (v: unknown) => (v === undefined ? '–' : JSON.stringify(v));
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].map((k) => (k in before ? `${k}: ${show(before[k])} → ${show(after[k])}` : `${k}: ${show(after[k])}`));
}

function AuditView(props: { lang: Lang; bar: ConsoleBarView; model: AuditPageModel; operator: boolean; otherLangHref: string }) {
  const { lang, model } = props;
  return (
    <ConsoleLayout lang={lang} title={cm(lang, 'auditTitle')} current="audit" bar={props.bar} otherLangHref={props.otherLangHref}>
      <h1>{cm(lang, 'auditTitle')}</h1>
      <p>{cm(lang, 'auditIntro')}</p>
      <form method="get" action="/console/audit" class="inline-form" role="search">
        {props.operator ? (
          <div class="field">
            <label for="f-partnerId">{cm(lang, 'partner')}</label>
            <input id="f-partnerId" name="partnerId" value={model.partnerId ?? ''} placeholder={cm(lang, 'allPartners')} />
          </div>
        ) : (
          <PartnerSelect id="f-partnerId" label={cm(lang, 'partner')} partners={model.partners} selected={model.partnerId} />
        )}
        <div class="field">
          <label for="f-action">{cm(lang, 'action')}</label>
          <input id="f-action" name="action" value={model.action} placeholder="partner.update" />
        </div>
        <button type="submit" class="secondary">
          {cm(lang, 'filter')}
        </button>
      </form>
      {model.entries.length === 0 ? (
        <p class="empty">{cm(lang, 'noEntries')}</p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{cm(lang, 'when')}</th>
                <th scope="col">{cm(lang, 'who')}</th>
                <th scope="col">{cm(lang, 'what')}</th>
                <th scope="col">{cm(lang, 'change')}</th>
              </tr>
            </thead>
            <tbody>
              {model.entries.map((row) => (
                <tr>
                  <td>{formatInstant(row.at, lang, 'UTC')}</td>
                  <td>
                    {row.actorKind === 'operator_token' ? cm(lang, 'operatorToken') : row.actorEmail}
                    {row.role ? <span class="muted"> · {cm(lang, `role_${row.role}` as 'role_viewer')}</span> : null}
                    {row.clientAddress ? <div class="muted">{row.clientAddress}</div> : null}
                  </td>
                  <td>
                    <code>{row.action}</code>
                    {row.partnerId ? <div class="muted">{row.partnerId}</div> : null}
                  </td>
                  <td>
                    <ul class="change">
                      {changeLines(row).map((line) => (
                        <li>{line}</li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {model.olderHref ? (
        <p>
          <a href={model.olderHref}>{cm(lang, 'older')}</a>
        </p>
      ) : null}
    </ConsoleLayout>
  );
}

/** The audit log in the console: every change, newest first, by partner and action. */
export function consoleAuditRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  app.get('/console/audit', async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const model = await loadAudit(deps, session, { partnerId: c.req.query('partnerId'), action: c.req.query('action'), startingAfter: c.req.query('startingAfter') });
    if (!model) return consoleRefusal(c, 404);
    return renderPage(c, <AuditView lang={c.get('consoleLang')} bar={barOf(c, deps, session)} model={model} operator={session.user.operator} otherLangHref={otherLangHref(c)} />, { csp: CONSOLE_CSP });
  });
  return app;
}
