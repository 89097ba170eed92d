/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import { Hono } from 'hono';
import type { AppDeps } from '../../../context.js';
import { OTP_LIMITS } from '../../../domain/auth/auth.service.js';
import { consoleEmail, type ConsoleSession } from '../../../domain/console/console.service.js';
import { ApiError } from '../../../lib/errors.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { noticePage, renderPage } from '../layout.js';
import { safeRedirect } from '../auth/auth.session.js';
import { CodeView, ConfirmStartView, SignInView } from './console.auth.view.js';
import { cm } from './console.messages.js';
import { PASSKEY_CSP, PASSKEY_PATHS } from './console.passkeys.paths.js';
import { clearConsoleCookie, consoleCsrfToken, setConsoleCookie, type ConsoleContext, type ConsoleEnv } from './console.session.js';
import { CONSOLE_CSP, type ConsoleBarView } from './console.view.js';

/** The console's paths of signing in and out and of confirming with a fresh code. */
export const CONSOLE_PATHS = {
  home: '/console',
  signIn: '/console/sign-in',
  signInCode: '/console/sign-in/code',
  signOut: '/console/sign-out',
  confirm: '/console/confirm',
  confirmCode: '/console/confirm/code',
} as const;

/** What the console's pages need: the console reaches every module (it is the operators' and partners' way in). */
export type ConsoleDeps = AppDeps;

/** A path inside the console to go back to after signing in or confirming, or the console's home (never another site: `//x` and `/consolex` are refused). */
export function consoleNext(value: string | undefined | null): string {
  if (!value || value.length > 2000) return CONSOLE_PATHS.home;
  return /^\/console(?:[/?#]|$)/.test(value) && !value.startsWith('//') ? value : CONSOLE_PATHS.home;
}

/** The request's path and query (where to come back to). */
function here(c: ConsoleContext): string {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** The same page in the other language. */
export function otherLangHref(c: ConsoleContext): string {
  const url = new URL(c.req.url);
  url.searchParams.set('lang', c.get('consoleLang') === 'en' ? 'es' : 'en');
  return url.pathname + url.search;
}

/** The bar of a signed-in page (who, sign-out). */
export function barOf(c: ConsoleContext, deps: ConsoleDeps, session: ConsoleSession): ConsoleBarView {
  return { email: session.user.email, operator: session.user.operator, signOutAction: CONSOLE_PATHS.signOut, signOutCsrf: consoleCsrfToken(c, deps, CONSOLE_PATHS.signOut) };
}

/**
 * The signed-in person, or the redirect to the sign-in page that comes back here (a GET) or to
 * the console's home (a POST, whose form cannot be replayed).
 */
export function requireConsole(c: ConsoleContext): ConsoleSession | Response {
  const session = c.get('console');
  if (session) return session;
  const next = c.req.method === 'GET' ? here(c) : CONSOLE_PATHS.home;
  return safeRedirect(c, `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(next)}&ended=1`, 303);
}

/** The console's 403 and 404 pages. */
export function consoleRefusal(c: ConsoleContext, status: 403 | 404): Promise<Response> {
  const lang = c.get('consoleLang');
  return noticePage(c, status === 403 ? { lang, status, title: cm(lang, 'forbiddenTitle'), text: cm(lang, 'forbiddenText'), link: { href: CONSOLE_PATHS.home, label: cm(lang, 'navHome') } } : { lang, status, title: cm(lang, 'notFoundTitle'), text: cm(lang, 'notFoundText'), link: { href: CONSOLE_PATHS.home, label: cm(lang, 'navHome') } });
}

function tooMany(c: ConsoleContext, lang: Lang, seconds: number): Promise<Response> {
  return noticePage(c, { lang, status: 429, headers: { 'Retry-After': String(seconds) }, title: cm(lang, 'tooMany', { minutes: Math.max(1, Math.ceil(seconds / 60)) }), text: cm(lang, 'tooMany', { minutes: Math.max(1, Math.ceil(seconds / 60)) }) });
}

/** The per-address limit on code guesses, shared with the fans' (`OTP_LIMITS.verifyPerIpPerMinute`); seconds to wait when over it. */
async function overGuessLimit(c: ConsoleContext, deps: ConsoleDeps): Promise<number | null> {
  try {
    await deps.rateLimiter.take(`console-code-verify:${clientLimitKey(c)}`, OTP_LIMITS.verifyPerIpPerMinute);
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return Number(err.headers['Retry-After'] ?? 60);
    throw err;
  }
}

/** The code a person submitted and its id, after the per-address limit on guesses (the 429 page when over it). */
async function submittedCode(c: ConsoleContext, deps: ConsoleDeps): Promise<{ codeId: string; code: string } | Response> {
  const wait = await overGuessLimit(c, deps);
  if (wait !== null) return tooMany(c, c.get('consoleLang'), wait);
  const body = await c.req.parseBody({ all: true });
  return { codeId: formText(body, 'c', 100), code: formText(body, 'code', 20) };
}

/** A form's single text value (a repeated or file field reads as empty). */
export function formText(body: Record<string, unknown>, name: string, max = 2000): string {
  const v = body[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/**
 * A step-up before an action: null when the session's last code is fresh, else the page that
 * asks for one and comes back to `back` (a GET page showing the action's form).
 */
export function requireStepUp(c: ConsoleContext, deps: ConsoleDeps, session: ConsoleSession, back: string): Response | null {
  if (deps.consoleAccess.isSteppedUp(session)) return null;
  return safeRedirect(c, `${CONSOLE_PATHS.confirm}?next=${encodeURIComponent(consoleNext(back))}`, 303);
}

/**
 * The sign-in page: the e-mail form, and the passkey form (console.passkeys.tsx) that the
 * passkey script shows where passkeys work; `passkeyError` says why the last passkey was refused.
 */
export function renderSignInPage(c: ConsoleContext, deps: ConsoleDeps, state: { email?: string; error?: string; passkeyError?: string; status?: number }): Promise<Response> {
  const lang = c.get('consoleLang');
  const next = consoleNext(c.req.query('next'));
  const action = `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(next)}`;
  const notice = c.req.query('signed-out') ? cm(lang, 'signedOut') : c.req.query('ended') ? cm(lang, 'sessionEnded') : undefined;
  const passkey = { action: `${PASSKEY_PATHS.signIn}?next=${encodeURIComponent(next)}`, csrf: consoleCsrfToken(c, deps, PASSKEY_PATHS.signIn), optionsUrl: PASSKEY_PATHS.signInOptions, optionsCsrf: consoleCsrfToken(c, deps, PASSKEY_PATHS.signInOptions) };
  return renderPage(c, <SignInView lang={lang} action={action} csrf={consoleCsrfToken(c, deps, CONSOLE_PATHS.signIn)} email={state.email ?? ''} error={state.error} notice={notice} otherLangHref={otherLangHref(c)} passkey={passkey} passkeyError={state.passkeyError} />, { status: state.status ?? 200, csp: PASSKEY_CSP });
}

/**
 * Signing in by e-mail code, signing out, and confirming with a fresh code (step-up). Every
 * POST is CSRF-checked by the registry's middleware before it reaches these handlers.
 */
export function consoleAuthRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  const render = (c: ConsoleContext, node: unknown, status = 200) => renderPage(c, node as never, { status, csp: CONSOLE_CSP });

  const signInPage = (c: ConsoleContext, state: { email?: string; error?: string; status?: number }) => renderSignInPage(c, deps, state);

  app.get(CONSOLE_PATHS.signIn, (c) => (c.get('console') ? safeRedirect(c, consoleNext(c.req.query('next')), 303) : signInPage(c, {})));

  app.post(CONSOLE_PATHS.signIn, async (c) => {
    const lang = c.get('consoleLang');
    const typed = formText(await c.req.parseBody({ all: true }), 'email', 300);
    const email = consoleEmail(typed);
    if (!email) return signInPage(c, { email: typed, error: cm(lang, 'badEmail'), status: 400 });
    const result = await deps.db.transact(async (tx) => await deps.consoleAccess.requestSignInCode(tx, { email, ip: clientLimitKey(c), lang }));
    if (!result.ok) return tooMany(c, lang, result.retryAfterSeconds);
    const next = consoleNext(c.req.query('next'));
    return safeRedirect(c, `${CONSOLE_PATHS.signInCode}?c=${encodeURIComponent(result.codeId)}&next=${encodeURIComponent(next)}`, 303);
  });

  const codePage = async (c: ConsoleContext, codeId: string, error?: string, status = 200) => {
    const lang = c.get('consoleLang');
    const email = await deps.db.read(async (tx) => await deps.consoleAccess.codeDestination(tx, codeId, 'sign_in'));
    const next = consoleNext(c.req.query('next'));
    const restart = `${CONSOLE_PATHS.signIn}?next=${encodeURIComponent(next)}`;
    if (!email) return noticePage(c, { lang, status: 410, title: cm(lang, 'codeTitle'), text: cm(lang, 'codeDead'), link: { href: restart, label: cm(lang, 'sendCode') } });
    return render(
      c,
      <CodeView lang={lang} title={cm(lang, 'codeTitle')} intro={cm(lang, 'codeSent', { email })} action={`${CONSOLE_PATHS.signInCode}?next=${encodeURIComponent(next)}`} csrf={consoleCsrfToken(c, deps, CONSOLE_PATHS.signInCode)} codeId={codeId} submit={cm(lang, 'signIn')} error={error} restartHref={restart} otherLangHref={otherLangHref(c)} />,
      status,
    );
  };

  app.get(CONSOLE_PATHS.signInCode, (c) => codePage(c, c.req.query('c') ?? ''));

  app.post(CONSOLE_PATHS.signInCode, async (c) => {
    const lang = c.get('consoleLang');
    const submitted = await submittedCode(c, deps);
    if (submitted instanceof Response) return submitted;
    const { codeId, code } = submitted;
    const result = await deps.db.transact(async (tx) => {
      const checked = await deps.consoleAccess.verifyCode(tx, { codeId, code, purpose: 'sign_in' });
      if (!checked.ok) return checked;
      // A new session (and token) at every sign-in; the one this browser had ends.
      return { ok: true as const, ...(await deps.consoleAccess.startSession(tx, checked.userPk, c.get('consoleToken'))) };
    });
    if (!result.ok) {
      if (result.reason === 'malformed') return codePage(c, codeId, cm(lang, 'codeMalformed'), 400);
      if (result.reason === 'wrong') return codePage(c, codeId, cm(lang, 'codeWrong', { left: result.attemptsLeft ?? 0 }), 400);
      if (result.reason === 'no_access') return noticePage(c, { lang, status: 403, title: cm(lang, 'forbiddenTitle'), text: cm(lang, 'codeNoAccess') });
      return noticePage(c, { lang, status: 410, title: cm(lang, 'codeTitle'), text: cm(lang, 'codeDead'), link: { href: CONSOLE_PATHS.signIn, label: cm(lang, 'sendCode') } });
    }
    setConsoleCookie(c, deps, result.token);
    return safeRedirect(c, consoleNext(c.req.query('next')), 303);
  });

  app.post(CONSOLE_PATHS.signOut, async (c) => {
    const token = c.get('consoleToken');
    if (token) await deps.db.transact(async (tx) => await deps.consoleAccess.revokeByToken(tx, token));
    clearConsoleCookie(c, deps);
    return safeRedirect(c, `${CONSOLE_PATHS.signIn}?signed-out=1`, 303);
  });

  // Confirming with a fresh code: a POST sends it (a GET never sends mail), the code page checks it.
  app.get(CONSOLE_PATHS.confirm, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const lang = c.get('consoleLang');
    const next = consoleNext(c.req.query('next'));
    if (deps.consoleAccess.isSteppedUp(session)) return safeRedirect(c, next, 303);
    const action = `${CONSOLE_PATHS.confirm}?next=${encodeURIComponent(next)}`;
    return render(
      c,
      <ConfirmStartView lang={lang} email={session.user.email} action={action} csrf={consoleCsrfToken(c, deps, CONSOLE_PATHS.confirm)} bar={barOf(c, deps, session)} />,
    );
  });

  app.post(CONSOLE_PATHS.confirm, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const lang = c.get('consoleLang');
    const result = await deps.db.transact(async (tx) => await deps.consoleAccess.requestStepUpCode(tx, session, { ip: clientLimitKey(c), lang }));
    if (!result.ok) return tooMany(c, lang, result.retryAfterSeconds);
    return safeRedirect(c, `${CONSOLE_PATHS.confirmCode}?c=${encodeURIComponent(result.codeId)}&next=${encodeURIComponent(consoleNext(c.req.query('next')))}`, 303);
  });

  const confirmCodePage = (c: ConsoleContext, session: ConsoleSession, codeId: string, error?: string, status = 200) => {
    const lang = c.get('consoleLang');
    const next = consoleNext(c.req.query('next'));
    return render(
      c,
      <CodeView lang={lang} title={cm(lang, 'confirmTitle')} intro={cm(lang, 'confirmIntro', { email: session.user.email })} action={`${CONSOLE_PATHS.confirmCode}?next=${encodeURIComponent(next)}`} csrf={consoleCsrfToken(c, deps, CONSOLE_PATHS.confirmCode)} codeId={codeId} submit={cm(lang, 'confirm')} error={error} bar={barOf(c, deps, session)} />,
      status,
    );
  };

  app.get(CONSOLE_PATHS.confirmCode, (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    return confirmCodePage(c, session, c.req.query('c') ?? '');
  });

  app.post(CONSOLE_PATHS.confirmCode, async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const lang = c.get('consoleLang');
    const submitted = await submittedCode(c, deps);
    if (submitted instanceof Response) return submitted;
    const { codeId, code } = submitted;
    const result = await deps.db.transact(async (tx) => {
      const checked = await deps.consoleAccess.verifyCode(tx, { codeId, code, purpose: 'step_up', sessionPk: session.id });
      if (checked.ok) await deps.consoleAccess.markSteppedUp(tx, session.id);
      return checked;
    });
    if (result.ok) return safeRedirect(c, consoleNext(c.req.query('next')), 303);
    if (result.reason === 'malformed') return confirmCodePage(c, session, codeId, cm(lang, 'codeMalformed'), 400);
    if (result.reason === 'wrong') return confirmCodePage(c, session, codeId, cm(lang, 'codeWrong', { left: result.attemptsLeft ?? 0 }), 400);
    return noticePage(c, { lang, status: 410, title: cm(lang, 'confirmTitle'), text: cm(lang, 'codeDead'), link: { href: `${CONSOLE_PATHS.confirm}?next=${encodeURIComponent(consoleNext(c.req.query('next')))}`, label: cm(lang, 'confirm') } });
  });

  return app;
}
