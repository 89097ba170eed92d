/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import type { AuditContext } from '../../../domain/audit/audit.service.js';
import { OTP_LIMITS } from '../../../domain/auth/auth.service.js';
import { MAX_PASSKEYS, PASSKEY_NAME_MAX, PASSKEY_RESPONSE_MAX, type ConsoleSession, type PasskeyRefusal } from '../../../domain/console/console.service.js';
import { addPasskey, removePasskey, renamePasskey } from '../../../flows/console-passkeys.js';
import { ApiError } from '../../../lib/errors.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { safeRedirect } from '../auth/auth.session.js';
import { noticePage, renderPage } from '../layout.js';
import { barOf, CONSOLE_PATHS, consoleNext, consoleRefusal, formText, otherLangHref, renderSignInPage, requireConsole, requireStepUp, type ConsoleDeps } from './console.auth.js';
import { cm } from './console.messages.js';
import { pkm } from './console.passkeys.messages.js';
import { PASSKEY_CSP, PASSKEY_PATHS } from './console.passkeys.paths.js';
import { passkeyScript } from './console.passkeys.script.js';
import { AccountView, AddPasskeyView } from './console.passkeys.view.js';
import { clearConsoleCookie, consoleCsrfToken, setConsoleCookie, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { CONSOLE_CSP } from './console.view.js';

/** The audit context of a change to the person's own passkeys: no partner, so no role at one (operators are named as such). */
function accountAuditContext(c: ConsoleContext, session: ConsoleSession): AuditContext {
  return {
    actor: { kind: 'console', userId: session.user.id, email: session.user.email, role: session.user.operator ? 'operator' : null },
    clientAddress: c.get('clientAddress') ?? null,
    requestId: c.get('requestId') ?? null,
  };
}

/** A passkey's name as typed: spaces collapsed, at most {@link PASSKEY_NAME_MAX} characters; empty stays empty. */
function passkeyName(typed: string): string {
  return typed.replace(/\s+/g, ' ').trim().slice(0, PASSKEY_NAME_MAX);
}

/** Seconds to wait when the client address is over its limit on passkey sign-in answers (per minute, as code guesses are), else null. */
async function overAnswerLimit(c: ConsoleContext, deps: ConsoleDeps): Promise<number | null> {
  try {
    await deps.rateLimiter.take(`console-passkey-verify:${clientLimitKey(c)}`, OTP_LIMITS.verifyPerIpPerMinute);
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return Number(err.headers['Retry-After'] ?? 60);
    throw err;
  }
}

function tooManyPage(c: ConsoleContext, lang: Lang, seconds: number): Promise<Response> {
  const text = pkm(lang, 'tooMany', { minutes: Math.max(1, Math.ceil(seconds / 60)) });
  return noticePage(c, { lang, status: 429, headers: { 'Retry-After': String(seconds) }, title: text, text });
}

/** A JSON answer to the passkey script (never cached). */
function scriptAnswer(c: ConsoleContext, body: { challengeId: string; options: unknown } | { error: string } | { redirect: string }, status: 200 | 401 | 403 | 409 | 429 = 200, headers: Record<string, string> = {}): Response {
  return c.json(body, status, { 'Cache-Control': 'no-store', ...headers });
}

/** The status and message of a refused registration. */
function registrationRefusal(lang: Lang, reason: PasskeyRefusal): { status: number; text: string } {
  switch (reason) {
    case 'exists':
      return { status: 409, text: pkm(lang, 'refused_exists') };
    case 'too_many':
      return { status: 409, text: pkm(lang, 'refused_too_many', { max: MAX_PASSKEYS }) };
    case 'used':
    case 'expired':
    case 'unknown_challenge':
      return { status: 410, text: pkm(lang, 'refused_expired') };
    case 'malformed':
      return { status: 400, text: pkm(lang, 'refused_malformed') };
    default:
      return { status: 400, text: pkm(lang, 'refused_rejected') };
  }
}

/** The status and message of a refused sign-in (`no_access` is answered apart). */
function signInRefusal(lang: Lang, reason: PasskeyRefusal): { status: number; text: string } {
  if (reason === 'unknown_credential') return { status: 400, text: pkm(lang, 'signInUnknown') };
  if (reason === 'used' || reason === 'expired' || reason === 'unknown_challenge') return { status: 410, text: pkm(lang, 'signInExpired') };
  return { status: 400, text: pkm(lang, 'signInRejected') };
}

/**
 * Passkeys in the console: the account page (`/console/account`: the person's passkeys,
 * renamed and removed there), adding one after a fresh code, and signing in with one. The
 * ceremonies' browser half is the passkey script (console.passkeys.script.ts, served here);
 * their options come from two JSON routes it calls, CSRF-checked as every console POST is.
 * Every change is audited (`passkey.add`, `passkey.rename`, `passkey.remove`, no partner).
 */
export function consolePasskeyRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();

  passkeyScript.serve(app);

  // ------------------------------------------------------------------ the account page

  const accountPage = async (c: ConsoleContext, session: ConsoleSession, notice?: { kind: 'ok' | 'error'; text: string }, status = 200) => {
    const lang = c.get('consoleLang');
    const passkeys = await deps.db.read(async (tx) => await deps.consoleAccess.passkeys.list(tx, session.user.id));
    const added = c.req.query('added');
    const shown = notice ?? (added !== undefined ? { kind: 'ok' as const, text: pkm(lang, 'addedNotice', { name: passkeys.find((p) => p.id === added)?.name ?? pkm(lang, 'defaultName') }) } : c.req.query('renamed') ? { kind: 'ok' as const, text: pkm(lang, 'renamedNotice') } : c.req.query('removed') ? { kind: 'ok' as const, text: pkm(lang, 'removedNotice') } : undefined);
    const items = passkeys.map((p) => ({ ...p, action: PASSKEY_PATHS.passkey(p.id), csrf: consoleCsrfToken(c, deps, PASSKEY_PATHS.passkey(p.id)) }));
    return renderPage(
      c,
      <AccountView lang={lang} bar={barOf(c, deps, session)} otherLangHref={otherLangHref(c)} email={session.user.email} passkeys={items} addHref={passkeys.length < MAX_PASSKEYS ? PASSKEY_PATHS.add : null} max={MAX_PASSKEYS} nameMax={PASSKEY_NAME_MAX} notice={shown} />,
      { status, csp: CONSOLE_CSP },
    );
  };

  app.get(PASSKEY_PATHS.account, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    return accountPage(c, session);
  });

  // ------------------------------------------------------------------ adding a passkey

  const addPage = (c: ConsoleContext, session: ConsoleSession, state: { name?: string; error?: string; status?: number } = {}) => {
    const lang = c.get('consoleLang');
    const form = { action: PASSKEY_PATHS.create, csrf: consoleCsrfToken(c, deps, PASSKEY_PATHS.create), optionsUrl: PASSKEY_PATHS.addOptions, optionsCsrf: consoleCsrfToken(c, deps, PASSKEY_PATHS.addOptions) };
    return renderPage(c, <AddPasskeyView lang={lang} bar={barOf(c, deps, session)} otherLangHref={otherLangHref(c)} form={form} name={state.name ?? ''} nameMax={PASSKEY_NAME_MAX} error={state.error} backHref={PASSKEY_PATHS.account} />, {
      status: state.status ?? 200,
      csp: PASSKEY_CSP,
    });
  };

  // Adding a way in is a change of credentials: a fresh code first (requireStepUp), on the page and again on its answer.
  app.get(PASSKEY_PATHS.add, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const stepUp = requireStepUp(c, deps, session, PASSKEY_PATHS.add);
    if (stepUp) return stepUp;
    return addPage(c, session);
  });

  app.post(PASSKEY_PATHS.addOptions, async (c) => {
    const session = c.get('console');
    const lang = c.get('consoleLang');
    if (!session) return scriptAnswer(c, { redirect: `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(PASSKEY_PATHS.add)}&ended=1` }, 401);
    if (!deps.consoleAccess.isSteppedUp(session)) return scriptAnswer(c, { redirect: `${CONSOLE_PATHS.confirm}?next=${encodeURIComponent(PASSKEY_PATHS.add)}` }, 403);
    const started = await deps.db.transact(async (tx) => await deps.consoleAccess.passkeys.registrationOptions(tx, session, { ip: clientLimitKey(c) }));
    if (started.ok) return scriptAnswer(c, { challengeId: started.challengeId, options: started.options });
    if (started.reason === 'too_many') return scriptAnswer(c, { error: pkm(lang, 'refused_too_many', { max: MAX_PASSKEYS }) }, 409);
    return scriptAnswer(c, { error: pkm(lang, 'tooMany', { minutes: Math.max(1, Math.ceil(started.retryAfterSeconds / 60)) }) }, 429, { 'Retry-After': String(started.retryAfterSeconds) });
  });

  app.post(PASSKEY_PATHS.create, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const stepUp = requireStepUp(c, deps, session, PASSKEY_PATHS.add);
    if (stepUp) return stepUp;
    const lang = c.get('consoleLang');
    const body = await c.req.parseBody({ all: true });
    const typed = passkeyName(formText(body, 'name', 500));
    const done = await addPasskey(deps, accountAuditContext(c, session), session, {
      challengeId: formText(body, 'challenge', 200),
      response: formText(body, 'response', PASSKEY_RESPONSE_MAX + 1),
      name: typed.length > 0 ? typed : pkm(lang, 'defaultName'),
    });
    if (done.ok) return safeRedirect(c, `${PASSKEY_PATHS.account}?added=${encodeURIComponent(done.passkey.id)}`, 303);
    const refused = registrationRefusal(lang, done.reason);
    return addPage(c, session, { name: typed, error: refused.text, status: refused.status });
  });

  // Rename or remove one of the person's own passkeys (another person's id answers 404, as an unknown one).
  // Declared after `addOptions`, which its pattern would match too.
  app.post(`${PASSKEY_PATHS.create}/:passkeyId`, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const lang = c.get('consoleLang');
    const passkeyId = c.req.param('passkeyId');
    const body = await c.req.parseBody({ all: true });
    const op = formText(body, 'op', 20);
    const ctx = accountAuditContext(c, session);
    if (op === 'remove') {
      if (!(await removePasskey(deps, ctx, session.user.id, passkeyId))) return consoleRefusal(c, 404);
      // The session itself may have been signed in with it: then it has just ended too.
      const still = await deps.db.read(async (tx) => await deps.consoleAccess.findSession(tx, c.get('consoleToken') ?? ''));
      if (!still) {
        clearConsoleCookie(c, deps);
        return safeRedirect(c, `${CONSOLE_PATHS.signIn}?signed-out=1`, 303);
      }
      return safeRedirect(c, `${PASSKEY_PATHS.account}?removed=1`, 303);
    }
    if (op === 'rename') {
      const name = passkeyName(formText(body, 'name', 500));
      if (name.length === 0) {
        const mine = await deps.db.read(async (tx) => await deps.consoleAccess.passkeys.get(tx, session.user.id, passkeyId));
        if (!mine) return consoleRefusal(c, 404);
        return accountPage(c, session, { kind: 'error', text: pkm(lang, 'badName', { max: PASSKEY_NAME_MAX }) }, 400);
      }
      if (!(await renamePasskey(deps, ctx, session.user.id, { passkeyId, name }))) return consoleRefusal(c, 404);
      return safeRedirect(c, `${PASSKEY_PATHS.account}?renamed=1`, 303);
    }
    return consoleRefusal(c, 404);
  });

  // ------------------------------------------------------------------ signing in with a passkey

  app.post(PASSKEY_PATHS.signInOptions, async (c) => {
    const lang = c.get('consoleLang');
    const started = await deps.db.transact(async (tx) => await deps.consoleAccess.passkeys.signInOptions(tx, { ip: clientLimitKey(c) }));
    if (started.ok) return scriptAnswer(c, { challengeId: started.challengeId, options: started.options });
    if (started.reason === 'too_many') return scriptAnswer(c, { error: pkm(lang, 'signInRejected') }, 409);
    return scriptAnswer(c, { error: pkm(lang, 'tooMany', { minutes: Math.max(1, Math.ceil(started.retryAfterSeconds / 60)) }) }, 429, { 'Retry-After': String(started.retryAfterSeconds) });
  });

  // The refused answer's page is at this path: its other-language link (or a reload) comes back to the sign-in page.
  app.get(PASSKEY_PATHS.signIn, (c) => safeRedirect(c, `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(consoleNext(c.req.query('next')))}`, 303));

  // A verified passkey starts a session as a code does (a new token, the browser's previous session ended), not stepped up.
  app.post(PASSKEY_PATHS.signIn, async (c) => {
    const lang = c.get('consoleLang');
    const wait = await overAnswerLimit(c, deps);
    if (wait !== null) return tooManyPage(c, lang, wait);
    const body = await c.req.parseBody({ all: true });
    const result = await deps.db.transact(async (tx) => {
      const checked = await deps.consoleAccess.passkeys.verifySignIn(tx, { challengeId: formText(body, 'challenge', 200), response: formText(body, 'response', PASSKEY_RESPONSE_MAX + 1) });
      if (!checked.ok) return checked;
      return { ok: true as const, ...(await deps.consoleAccess.startSession(tx, checked.userPk, c.get('consoleToken'), { passkeyPk: checked.passkeyId })) };
    });
    if (!result.ok) {
      if (result.reason === 'no_access') return noticePage(c, { lang, status: 403, title: cm(lang, 'forbiddenTitle'), text: cm(lang, 'codeNoAccess') });
      const refused = signInRefusal(lang, result.reason);
      return renderSignInPage(c, deps, { passkeyError: refused.text, status: refused.status });
    }
    setConsoleCookie(c, deps, result.token);
    return safeRedirect(c, consoleNext(c.req.query('next')), 303);
  });

  return app;
}
