/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import { formatBytes } from '@resale/shared/format';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { reportTotals } from '../../../domain/events/import/import.js';
import { SheetRefusal, type SheetLimits } from '../../../domain/events/import/sheet.bytes.js';
import type { SheetReadError } from '../../../domain/events/import/sheet.read.js';
import { findLoad, recentLoads } from '../../../domain/loads/loads.store.js';
import { applyLoad, LOAD_LIMITS, previewLoad } from '../../../flows/manual-load.js';
import { safeRedirect } from '../auth/auth.session.js';
import { consoleRefusal, type ConsoleDeps } from './console.auth.js';
import { lm } from './console.load.messages.js';
import { LoadPreviewView, LoadResultView, LoadStartView, SheetProblemsView, type UploadFormProps } from './console.load.view.js';
import { partnerAction, partnerReader, renderPartnerSection } from './console.partner-frame.js';
import { consoleAuditContext } from './console.partners.js';
import { PARTNER_SECTIONS, sectionHref } from './console.sections.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';

/**
 * The manual load tab (`/console/partners/:partnerId/load`), for partner admins and operators:
 * upload a CSV or Excel sheet (multipart; the console's CSRF middleware reads `_csrf` from it),
 * see its preview (every bad row and cell named, nothing written; a clean sheet is kept for 30
 * minutes), apply it (all or nothing, once). The work is flows/manual-load.ts, on the code path
 * of `npm run import`; this file reads the upload and renders.
 *
 * - `GET  …/load`: the form and the partner's recent loads.
 * - `POST …/load`: the upload → 303 to its preview, or the problems (422), or why the file is refused (400, 413, 415, 422).
 * - `GET  …/load/:loadId`: the preview, or the result once applied.
 * - `POST …/load/:loadId/apply`: 303 to the result (`?done=1`, or `?again=1` when it was applied before); 409 when a row is refused now; 404 when the preview is gone.
 */

/** Room left in the body for the multipart envelope and the CSRF field, under MAX_BODY_BYTES. */
const MULTIPART_ROOM = 64 * 1024;

const SECTION = PARTNER_SECTIONS.find((s) => s.id === 'load')!;

export function consoleLoadRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  /** The limits here: the flow's, and a file that fits in a request body (MAX_BODY_BYTES). */
  const limits: SheetLimits = { ...LOAD_LIMITS, maxBytes: Math.max(1, Math.min(LOAD_LIMITS.maxBytes, deps.config.maxBodyBytes - MULTIPART_ROOM)) };

  const base = (partnerId: string) => sectionHref(partnerId, SECTION);
  const loadHref = (partnerId: string, loadId: string) => `${base(partnerId)}/${encodeURIComponent(loadId)}`;
  const uploadForm = (c: ConsoleContext, partnerId: string, error?: string): UploadFormProps => ({ action: base(partnerId), csrf: consoleCsrfToken(c, deps, base(partnerId)), maxBytes: limits.maxBytes, maxRows: limits.maxRows, error });

  /** The signed-in partner admin (or operator) of the partner in the path, or the answer: sign-in, 404 (may not read it), 403 (may not load). */
  const loader = async (c: ConsoleContext): Promise<{ session: ConsoleSession; partnerId: string } | Response> => {
    const got = await partnerReader(c);
    if (got instanceof Response) return got;
    return can(got.session, SECTION.permission, got.partnerId) ? got : await consoleRefusal(c, 403);
  };

  /** The upload page, with why the last file was refused or a notice. */
  const startPage = async (c: ConsoleContext, session: ConsoleSession, partnerId: string, opts: { status?: number; error?: string; notice?: string } = {}) => {
    const recent = await deps.db.read(async (tx) => await recentLoads(deps, tx, partnerId));
    const items = recent.map((l) => ({ ...l, href: loadHref(partnerId, l.id) }));
    return renderPartnerSection(c, deps, session, partnerId, 'load', <LoadStartView lang={c.get('consoleLang')} form={uploadForm(c, partnerId, opts.error)} recent={items} notice={opts.notice} />, {
      status: opts.status ?? 200,
      ...(opts.error ? { errors: { sheet: opts.error }, labels: { sheet: lm(c.get('consoleLang'), 'file') } } : {}),
    });
  };

  app.get('/console/partners/:partnerId/load', async (c) => {
    const got = await loader(c);
    if (got instanceof Response) return got;
    return startPage(c, got.session, got.partnerId);
  });

  app.post('/console/partners/:partnerId/load', async (c) => {
    const got = await partnerAction(c, SECTION.permission);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const lang = c.get('consoleLang');
    const file = (await c.req.parseBody()).sheet;
    if (!(file instanceof File)) return startPage(c, session, partnerId, { status: 400, error: lm(lang, 'noFile') });
    const fileName = (file.name || 'sheet').slice(0, 200);
    const outcome = await previewLoad(deps, { partnerId, userId: session.user.id, fileName, data: Buffer.from(await file.arrayBuffer()), limits });
    switch (outcome.kind) {
      case 'no_partner':
        return consoleRefusal(c, 404);
      case 'refused': {
        const { status, message } = refusalOf(lang, outcome.refusal);
        return startPage(c, session, partnerId, { status, error: message });
      }
      case 'invalid':
        return renderPartnerSection(
          c,
          deps,
          session,
          partnerId,
          'load',
          <SheetProblemsView lang={lang} when="preview" report={outcome.report} totals={reportTotals(outcome.report)} form={uploadForm(c, partnerId)} />,
          { status: 422 },
        );
      case 'staged':
        return safeRedirect(c, loadHref(partnerId, outcome.load.id), 303);
    }
  });

  app.get('/console/partners/:partnerId/load/:loadId', async (c) => {
    const got = await loader(c);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const lang = c.get('consoleLang');
    const load = await deps.db.read(async (tx) => await findLoad(deps, tx, partnerId, c.req.param('loadId')));
    if (!load) return startPage(c, session, partnerId, { status: 404, notice: lm(lang, 'goneNotice') });
    if (load.state === 'applied' && load.result) {
      const notice = c.req.query('done') === '1' ? 'applied' : c.req.query('again') === '1' ? 'again' : null;
      return renderPartnerSection(
        c,
        deps,
        session,
        partnerId,
        'load',
        <LoadResultView lang={lang} fileName={load.fileName} report={load.result} totals={reportTotals(load.result)} appliedAt={load.appliedAt ?? load.createdAt} notice={notice} uploadHref={base(partnerId)} />,
      );
    }
    const action = `${loadHref(partnerId, load.id)}/apply`;
    return renderPartnerSection(
      c,
      deps,
      session,
      partnerId,
      'load',
      <LoadPreviewView lang={lang} fileName={load.fileName} report={load.preview} totals={reportTotals(load.preview)} expiresAt={load.expiresAt} apply={{ action, csrf: consoleCsrfToken(c, deps, action) }} uploadHref={base(partnerId)} />,
    );
  });

  app.post('/console/partners/:partnerId/load/:loadId/apply', async (c) => {
    const got = await partnerAction(c, SECTION.permission);
    if (got instanceof Response) return got;
    const { session, partnerId } = got;
    const lang = c.get('consoleLang');
    const loadId = c.req.param('loadId');
    const done = await applyLoad(deps, consoleAuditContext(c, session, partnerId), { partnerId, loadId, userId: session.user.id });
    switch (done.kind) {
      case 'applied':
        return safeRedirect(c, `${loadHref(partnerId, loadId)}?done=1`, 303);
      case 'already':
        return safeRedirect(c, `${loadHref(partnerId, loadId)}?again=1`, 303);
      case 'gone':
        return startPage(c, session, partnerId, { status: 404, notice: lm(lang, 'goneNotice') });
      case 'refused':
        return renderPartnerSection(
          c,
          deps,
          session,
          partnerId,
          'load',
          <SheetProblemsView lang={lang} when="apply" report={done.report} totals={reportTotals(done.report)} form={uploadForm(c, partnerId)} />,
          { status: 409 },
        );
    }
  });

  return app;
}

/** The status and the message of a file refused before its rows were read. */
function refusalOf(lang: Lang, refusal: SheetRefusal | SheetReadError): { status: number; message: string } {
  if (!(refusal instanceof SheetRefusal)) {
    return { status: 422, message: refusal.row !== undefined ? lm(lang, 'unreadableAt', { row: refusal.row, detail: refusal.message }) : lm(lang, 'unreadable', { detail: refusal.message }) };
  }
  const limit = refusal.limit ?? 0;
  switch (refusal.reason) {
    case 'empty':
      return { status: 400, message: lm(lang, 'empty') };
    case 'too_large':
      return { status: 413, message: lm(lang, 'tooLarge', { limit: formatBytes(limit, lang) }) };
    case 'unpacked_too_large':
      return { status: 413, message: lm(lang, 'unpackedTooLarge', { limit: formatBytes(limit, lang) }) };
    case 'too_many_rows':
      return { status: 413, message: lm(lang, 'tooManyRows', { limit: new Intl.NumberFormat(lang === 'es' ? 'es-ES' : 'en-GB').format(limit), actual: new Intl.NumberFormat(lang === 'es' ? 'es-ES' : 'en-GB').format(refusal.actual ?? 0) }) };
    case 'wrong_type':
      return { status: 415, message: lm(lang, 'wrongType') };
    case 'legacy_xls':
      return { status: 415, message: lm(lang, 'legacyXls') };
    case 'not_utf8':
      return { status: 415, message: lm(lang, 'notUtf8') };
    case 'encrypted':
      return { status: 415, message: lm(lang, 'encrypted') };
  }
}
