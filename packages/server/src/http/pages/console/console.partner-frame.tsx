/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { can, type ConsoleSession, type Permission } from '../../../domain/console/console.service.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { renderPage } from '../layout.js';
import { barOf, consoleRefusal, otherLangHref, requireConsole, type ConsoleDeps } from './console.auth.js';
import { PartnerFrame } from './console.partners.view.js';
import { PARTNER_SECTIONS, type PartnerSection } from './console.sections.js';
import type { ConsoleContext } from './console.session.js';
import { CONSOLE_CSP } from './console.view.js';

/**
 * What every section of a partner's pages shares: who may post there, and the frame (name,
 * role, tabs) around a section's content. A section's module (settings, developers, webhooks,
 * events …) uses these two and renders only its own content.
 */

/**
 * A POST to a section of the partner named in the path (`:partnerId`) by someone who may
 * `need` there: the session, the partner's id and the form's text fields (a file or repeated
 * field reads as empty; each value cut at 100,000 characters: a component's JSON is long),
 * or the answer: the sign-in page,
 * 404 for a partner they may not see (as an unknown one), 403 for a change their role may not
 * make, before the form is read.
 */
export async function partnerAction(c: ConsoleContext, need: Permission): Promise<{ session: ConsoleSession; partnerId: string; form: Record<string, string> } | Response> {
  const session = requireConsole(c);
  if (session instanceof Response) return session;
  const partnerId = c.req.param('partnerId') ?? '';
  if (!can(session, 'read', partnerId)) return consoleRefusal(c, 404);
  if (!can(session, need, partnerId)) return consoleRefusal(c, 403);
  const body = await c.req.parseBody({ all: true });
  const form = Object.fromEntries(Object.entries(body).map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 100_000) : '']));
  return { session, partnerId, form };
}

/** The signed-in person who may read the partner named in the path, with its id, or the answer (sign-in, 404). */
export async function partnerReader(c: ConsoleContext): Promise<{ session: ConsoleSession; partnerId: string } | Response> {
  const session = requireConsole(c);
  if (session instanceof Response) return session;
  const partnerId = c.req.param('partnerId') ?? '';
  return can(session, 'read', partnerId) ? { session, partnerId } : await consoleRefusal(c, 404);
}

/**
 * Answers a section of a partner's pages: the frame (name, id, role, the tabs this person may
 * open) around `body`, with an optional notice and every error of a refused form (and, for a
 * page with more than styles, its `head` and `csp`); 404 when the partner does not exist (or
 * the person may not read it).
 */
export async function renderPartnerSection(
  c: ConsoleContext,
  deps: ConsoleDeps,
  session: ConsoleSession,
  partnerId: string,
  section: PartnerSection['id'],
  body: Child,
  opts: { status?: number; notice?: string | undefined; errors?: Record<string, string>; labels?: Record<string, string>; head?: Child; csp?: string } = {},
): Promise<Response> {
  if (!can(session, 'read', partnerId)) return consoleRefusal(c, 404);
  const partner = await deps.db.read(async (tx) => await partnerById(tx, partnerId));
  if (!partner) return consoleRefusal(c, 404);
  const role = session.user.operator ? ('operator' as const) : session.memberships.find((m) => m.partnerId === partnerId)!.role;
  const sections = PARTNER_SECTIONS.filter((s) => can(session, s.permission, partnerId));
  return renderPage(
    c,
    <PartnerFrame lang={c.get('consoleLang')} bar={barOf(c, deps, session)} model={{ partner, role }} sections={sections} current={section} notice={opts.notice} errors={opts.errors ?? {}} labels={opts.labels ?? {}} otherLangHref={otherLangHref(c)} head={opts.head}>
      {body}
    </PartnerFrame>,
    { status: opts.status ?? 200, csp: opts.csp ?? CONSOLE_CSP },
  );
}
