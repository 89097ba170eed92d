/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import type { AuditContext } from '../../../domain/audit/audit.service.js';
import { consoleEmail, roleAt, type ConsoleSession } from '../../../domain/console/console.service.js';
import { CONSOLE_ROLES, type ConsoleRole } from '../../../domain/console/console.model.js';
import { changeTeamRole, inviteToTeam, removeFromTeam } from '../../../flows/console-team.js';
import { createPartner, rotatePartnerKey, updatePartner } from '../../../flows/operator-changes.js';
import { formatInstant } from '@resale/shared/format';
import { servicePaths, serviceUrl } from '../../../lib/urls.js';
import { renderPage } from '../layout.js';
import { safeRedirect } from '../auth/auth.session.js';
import { barOf, consoleRefusal, formText, otherLangHref, requireConsole, requireStepUp, type ConsoleDeps } from './console.auth.js';
import { cm } from './console.messages.js';
import { editableFields, loadPartnerList, loadPartnerPage } from './console.partners.load.js';
import { ApiError } from '../../../lib/errors.js';
import { ROTATABLE_KINDS, type RotatableKind } from '../../../domain/partners/partners.service.js';
import { DevelopersView, KEY_LABELS, PartnersView, partnerHref, SecretsOnceView, settingLabels, SettingsView, TeamView, type PartnerCreateState, type PartnerPageState } from './console.partners.view.js';
import { PARTNER_SECTIONS, type PartnerSection } from './console.sections.js';
import { partnerAction, renderPartnerSection } from './console.partner-frame.js';
import { consoleCsrfToken, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { changesDestinations, originsPatchFromForm, settingsPatchFromForm } from './console.settings-form.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { CONSOLE_CSP } from './console.view.js';
import { dm } from './console.developers.messages.js';
import { resetSandbox, SANDBOX_RESET_BATCH } from '../../../flows/sandbox-reset.js';
import { previewOf } from './console.preview.load.js';
import { previewPage, PreviewView } from './console.preview.view.js';
import { pageHeaders } from '../layout.js';

/** The audit context of a change made in the console at `partnerId` (null: deployment-wide). */
export function consoleAuditContext(c: ConsoleContext, session: ConsoleSession, partnerId: string | null): AuditContext {
  return {
    actor: { kind: 'console', userId: session.user.id, email: session.user.email, role: roleAt(session, partnerId) ?? 'viewer' },
    clientAddress: c.get('clientAddress') ?? null,
    requestId: c.get('requestId') ?? null,
  };
}

/** The largest grace a rotation takes here, in hours (the API's limit: 7 days). */
const MAX_GRACE_HOURS = 168;

const isRotatable = (value: string): value is RotatableKind => (ROTATABLE_KINDS as readonly string[]).includes(value);

/**
 * The console's home, the operators' partner list and creation, and a partner's page:
 * settings (by role), allowed origins (developers), key rotation (developers, after a fresh
 * code) and the team (partner admins). A partner the person may not see answers 404, as an
 * unknown one does; a change their role may not make answers 403, before the form is read.
 */
export function consolePartnerRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  const render = (c: ConsoleContext, node: Child, status = 200) => renderPage(c, node, { status, csp: CONSOLE_CSP });

  const partnersPage = async (c: ConsoleContext, session: ConsoleSession, create: PartnerCreateState, status = 200) => {
    const q = (c.req.query('q') ?? '').slice(0, 200);
    const items = await loadPartnerList(deps, session, q);
    return render(
      c,
      <PartnersView lang={c.get('consoleLang')} bar={barOf(c, deps, session)} items={items} q={q} create={{ action: '/console/partners', csrf: consoleCsrfToken(c, deps, '/console/partners'), ...create }} otherLangHref={otherLangHref(c)} />,
      status,
    );
  };

  app.get('/console/partners', async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    if (!session.user.operator) return consoleRefusal(c, 403);
    const name = (c.req.query('name') ?? '').slice(0, 200);
    // Back from a step-up with "create another" ticked: the form as it was sent, the twins named.
    const again = c.req.query('again') === 'yes' && name.trim() !== '';
    return partnersPage(c, session, again ? { name, again, twins: await deps.partners.namedAs(name) } : { name });
  });

  app.post('/console/partners', async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    if (!session.user.operator) return consoleRefusal(c, 403);
    const lang = c.get('consoleLang');
    const body = await c.req.parseBody({ all: true });
    const name = formText(body, 'name', 300).trim();
    const again = formText(body, 'again', 10) === 'yes';
    if (name.length < 1 || name.length > 200) return partnersPage(c, session, { name, again, error: cm(lang, 'badName') }, 400);
    // A partner of this name already: most often this very form sent twice (a reload of the
    // keys' page, a double click), so the console asks before it makes a second one; names
    // need not be unique. Asked before the step-up, and checked again where it is made.
    const twinsOf = async () => partnersPage(c, session, { name, twins: await deps.partners.namedAs(name), error: cm(lang, 'nameTwin', { name }) }, 409);
    if (!again && (await deps.partners.namedAs(name)).length > 0) return twinsOf();
    // The new partner's keys are shown once: a fresh code first (the typed form comes back with it).
    const stepUp = requireStepUp(c, deps, session, `/console/partners?name=${encodeURIComponent(name)}${again ? '&again=yes' : ''}`);
    if (stepUp) return stepUp;
    let created: Awaited<ReturnType<typeof createPartner>>;
    try {
      created = await createPartner(deps, consoleAuditContext(c, session, null), { name, nameFree: !again });
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'partner_name_taken') return twinsOf();
      throw err;
    }
    const { partner, secrets } = created;
    return render(
      c,
      <SecretsOnceView
        lang={lang}
        bar={barOf(c, deps, session)}
        title={cm(lang, 'keysOnceTitle', { name: partner.name })}
        text={cm(lang, 'keysOnce')}
        secrets={[
          { label: cm(lang, 'privateKey'), value: secrets.keys.private },
          { label: cm(lang, 'publicKey'), value: secrets.keys.public },
          { label: cm(lang, 'channelsKey'), value: secrets.keys.channels },
          { label: cm(lang, 'webhookSecret'), value: secrets.webhookSecret },
        ]}
        back={{ href: partnerHref(partner.id), label: cm(lang, 'toPartner') }}
      />,
      201,
    );
  });

  /** A section of the partner's own pages (settings, developers, team) with `state` (typed values and errors kept), or 404 when the person may not see the partner. */
  const partnerPage = async (c: ConsoleContext, session: ConsoleSession, partnerId: string, section: 'settings' | 'developers' | 'team', state: PartnerPageState = {}, status = 200) => {
    const model = await loadPartnerPage(deps, session, partnerId);
    if (!model) return consoleRefusal(c, 404);
    const lang = c.get('consoleLang');
    const base = partnerHref(partnerId);
    const errors = { ...(state.errors ?? {}), ...(state.originsError ? { allowedOrigins: state.originsError } : {}), ...(state.invite?.errors ?? {}) };
    const labels = { ...settingLabels(lang), allowedOrigins: cm(lang, 'origins'), email: cm(lang, 'email'), role: cm(lang, 'role'), graceHours: cm(lang, 'grace'), kind: cm(lang, 'keyKind'), confirm: dm(lang, 'resetTitle') };
    const preview = section === 'settings' ? previewOf(model.partner, lang, state.typed) : null;
    const body =
      section === 'settings' ? (
        <SettingsView lang={lang} model={model} state={state} preview={preview!} action={`${base}/settings`} csrf={consoleCsrfToken(c, deps, `${base}/settings`)} />
      ) : section === 'developers' ? (
        <DevelopersView lang={lang} model={model} state={state} base={base} csrf={{ origins: consoleCsrfToken(c, deps, `${base}/origins`), rotate: consoleCsrfToken(c, deps, `${base}/keys/rotate`), reset: consoleCsrfToken(c, deps, `${base}/sandbox/reset`) }} />
      ) : (
        <TeamView lang={lang} model={model} state={state} base={base} csrf={{ invite: consoleCsrfToken(c, deps, `${base}/team`), member: (id) => consoleCsrfToken(c, deps, `${base}/team/${encodeURIComponent(id)}`) }} />
      );
    return renderPartnerSection(c, deps, session, partnerId, section, body, { status, notice: state.notice, errors, labels, ...(preview ? previewPage(preview) : {}) });
  };

  /** The notice of a page reached after a change (`?saved=`). */
  const savedNotice = (c: ConsoleContext): string | undefined => {
    const lang = c.get('consoleLang');
    const saved = c.req.query('saved');
    if (saved === 'settings' || saved === 'origins') return cm(lang, 'saved');
    if (saved === 'invited') return cm(lang, 'invited', { email: (c.req.query('email') ?? '').slice(0, 254) });
    if (saved === 'role') return cm(lang, 'roleChanged');
    if (saved === 'removed') return cm(lang, 'removed');
    if (saved === 'reset') return dm(lang, c.req.query('more') === '1' ? 'resetMore' : 'resetDone', { n: Math.min(Math.max(0, Number(c.req.query('n')) || 0), SANDBOX_RESET_BATCH) });
    return undefined;
  };

  for (const section of PARTNER_SECTIONS.filter((s): s is PartnerSection & { id: 'settings' | 'developers' | 'team' } => s.id === 'settings' || s.id === 'developers' || s.id === 'team')) {
    app.get(`/console/partners/:partnerId${section.path}`, async (c) => {
      const session = requireConsole(c);
      if (session instanceof Response) return session;
      const notice = savedNotice(c);
      return partnerPage(c, session, c.req.param('partnerId'), section.id, notice ? { notice } : {});
    });
  }

  app.post('/console/partners/:partnerId/settings', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const fields = editableFields(session, partnerId);
    const result = settingsPatchFromForm(form, fields, lang);
    // The typed values over the stored ones: only the fields this person may change (a secret is never sent back).
    const typedOver = async () => {
      const model = await loadPartnerPage(deps, session, partnerId);
      const typed = { ...(model?.values ?? {}), ...Object.fromEntries(fields.map((f) => [f.name, f.kind === 'secret' ? '' : (form[f.name] ?? '')])) };
      return { model, typed };
    };
    if (form.op === 'preview') {
      // Nothing is saved: the page (or, for the page script, the preview alone) with what was typed.
      const { model, typed } = await typedOver();
      if (!model) return consoleRefusal(c, 404);
      if (form.fragment === '1') {
        pageHeaders(c, CONSOLE_CSP);
        return c.html((<PreviewView lang={lang} model={previewOf(model.partner, lang, typed)} />).toString());
      }
      return partnerPage(c, session, partnerId, 'settings', { values: typed, typed, ...(result.ok ? {} : { errors: result.errors }) });
    }
    if (!result.ok) {
      const { typed } = await typedOver();
      return partnerPage(c, session, partnerId, 'settings', { values: typed, typed, errors: result.errors }, 400);
    }
    // A new platform URL (ownership, sign-in, webhooks, feeds) after a fresh code, like a change of where money goes.
    const current = await deps.db.read(async (tx) => await partnerById(tx, partnerId));
    if (!current) return consoleRefusal(c, 404);
    if (changesDestinations(current.settings, result.patch)) {
      const stepUp = requireStepUp(c, deps, session, partnerHref(partnerId));
      if (stepUp) return stepUp;
    }
    await updatePartner(deps, consoleAuditContext(c, session, partnerId), partnerId, { settings: result.patch });
    return safeRedirect(c, `${partnerHref(partnerId)}?saved=settings#settings`, 303);
  });

  app.post('/console/partners/:partnerId/origins', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const typed = form.allowedOrigins ?? '';
    const result = originsPatchFromForm(typed);
    if (!result.ok) return partnerPage(c, session, partnerId, 'developers', { origins: typed, originsError: result.error }, 400);
    await updatePartner(deps, consoleAuditContext(c, session, partnerId), partnerId, { settings: result.patch });
    return safeRedirect(c, `${partnerHref(partnerId)}/developers?saved=origins#origins`, 303);
  });

  app.post('/console/partners/:partnerId/keys/rotate', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const kind = form.kind ?? '';
    const typedHours = (form.graceHours ?? '').trim();
    const hours = Number(typedHours);
    const rotation = { kind, graceHours: typedHours.slice(0, 20) };
    const errors: Record<string, string> = {};
    if (!isRotatable(kind)) errors.kind = cm(lang, 'badKind');
    if (!/^\d+$/.test(typedHours) || hours > MAX_GRACE_HOURS) errors.graceHours = cm(lang, 'badGrace');
    if (Object.keys(errors).length > 0 || !isRotatable(kind)) return partnerPage(c, session, partnerId, 'developers', { errors, rotation }, 400);
    const stepUp = requireStepUp(c, deps, session, `${partnerHref(partnerId)}/developers#keys`);
    if (stepUp) return stepUp;
    const label = cm(lang, KEY_LABELS[kind]);
    let rotated: Awaited<ReturnType<typeof rotatePartnerKey>>;
    try {
      // What the form showed of this kind: a reload of the new key's page sends it again, and
      // then it is out of date, so one click replaces one key and the key just shown stays.
      rotated = await rotatePartnerKey(deps, consoleAuditContext(c, session, partnerId), partnerId, { kind, graceSeconds: hours * 3600, ifVersion: form[`version-${kind}`] ?? '' });
    } catch (err) {
      if (!(err instanceof ApiError) || err.reason !== 'key_changed') throw err;
      return partnerPage(c, session, partnerId, 'developers', { errors: { kind: cm(lang, 'keyChanged') }, rotation }, 409);
    }
    return render(
      c,
      <SecretsOnceView
        lang={lang}
        bar={barOf(c, deps, session)}
        title={cm(lang, 'rotatedTitle', { kind: label })}
        text={rotated.previousValidUntil === null ? cm(lang, 'rotatedNow') : cm(lang, 'rotatedText', { until: formatInstant(rotated.previousValidUntil, lang, 'UTC') })}
        secrets={[{ label, value: rotated.secret }]}
        back={{ href: `${partnerHref(partnerId)}/developers#keys`, label: cm(lang, 'toPartner') }}
      />,
    );
  });

  app.post('/console/partners/:partnerId/sandbox/reset', async (c) => {
    const got = await partnerAction(c, 'develop');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    if (form.confirm !== 'yes') return partnerPage(c, session, partnerId, 'developers', { errors: { confirm: dm(lang, 'resetMustConfirm') } }, 400);
    const done = await resetSandbox(deps, consoleAuditContext(c, session, partnerId), partnerId);
    // Not the sandbox (or unknown): as an unknown page, since no such action exists there.
    if (!done) return consoleRefusal(c, 404);
    return safeRedirect(c, `${partnerHref(partnerId)}/developers?saved=reset&n=${done.listingsEnded}${done.more ? '&more=1' : ''}#testing`, 303);
  });

  const isRole = (value: string | undefined): value is ConsoleRole => (CONSOLE_ROLES as readonly string[]).includes(value ?? '');

  app.post('/console/partners/:partnerId/team', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const email = consoleEmail(form.email ?? '');
    const errors: Record<string, string> = {};
    if (!email) errors.email = cm(lang, 'badEmail');
    if (!isRole(form.role)) errors.role = cm(lang, 'badRole');
    if (!email || !isRole(form.role)) return partnerPage(c, session, partnerId, 'team', { invite: { email: (form.email ?? '').slice(0, 254), role: form.role ?? '', errors } }, 400);
    const consoleUrl = serviceUrl(deps.config.publicBaseUrl, servicePaths.console());
    const done = await inviteToTeam(deps, consoleAuditContext(c, session, partnerId), { partnerId, email, role: form.role, consoleUrl, lang });
    if (!done.ok && done.reason === 'exists') return partnerPage(c, session, partnerId, 'team', { invite: { email, role: form.role, errors: { email: cm(lang, 'alreadyMember', { email }) } } }, 409);
    if (!done.ok) return consoleRefusal(c, 404);
    return safeRedirect(c, `${partnerHref(partnerId)}/team?saved=invited&email=${encodeURIComponent(email)}`, 303);
  });

  app.post('/console/partners/:partnerId/team/:membershipId', async (c) => {
    const got = await partnerAction(c, 'administer');
    if (got instanceof Response) return got;
    const { session, partnerId, form } = got;
    const lang = c.get('consoleLang');
    const membershipId = c.req.param('membershipId');
    const ctx = consoleAuditContext(c, session, partnerId);
    if (form.op === 'remove') {
      const done = await removeFromTeam(deps, ctx, { partnerId, membershipId });
      return done.ok ? safeRedirect(c, `${partnerHref(partnerId)}/team?saved=removed`, 303) : consoleRefusal(c, 404);
    }
    if (form.op !== 'role' || !isRole(form.role)) return partnerPage(c, session, partnerId, 'team', { invite: { email: '', role: 'developer', errors: { role: cm(lang, 'badRole') } } }, 400);
    const done = await changeTeamRole(deps, ctx, { partnerId, membershipId, role: form.role });
    return done.ok ? safeRedirect(c, `${partnerHref(partnerId)}/team?saved=role`, 303) : consoleRefusal(c, 404);
  });

  return app;
}
