/** @jsxImportSource hono/jsx */
import { Hono, type MiddlewareHandler } from 'hono';
import { pageLang } from '../../../lib/i18n.js';
import { Layout, noticePage, renderPage } from '../layout.js';
import { m } from './auth.messages.js';
import { whoIs } from './auth.signed-in.js';
import { authService } from '../../../domain/auth/auth.service.js';
import { partnerById, partnerOf } from '../../../domain/partners/partners.queries.js';
import {
  clearSessionCookie,
  clearSignedOut,
  csrfField,
  LOGOUT_PATH,
  markSignedOut,
  OTP_PATH,
  PARTNER_SIGN_OUT_PATH,
  safeRedirect,
  setSessionCookie,
  signInUrl,
  type SessionEnv,
} from './auth.session.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { partnerReturnTo, RETURN_TO_TAG_PARAM, safeReturnTo } from '../../../domain/auth/auth.urls.js';
import { STEP_UP_PATH, stepUpRoutes } from './auth.step-up.js';
import { CodeForm, codeDead, flowPath, incomplete, loadFlow, sessionPath, signedInFlow, submittedCode, tooMany, type Ctx, type Flow, type PageDeps } from './auth.flow.js';
export type { Ctx, Flow, PageDeps };

/**
 * The sign-in pages of the service (server-rendered, no script, localised):
 *
 * - `GET/POST /auth/otp?p=<partner id>&returnTo=<url>&lang=` — the one-time-password
 *   fallback for partners without Login Force: the person types an e-mail or phone, a
 *   6-digit code is sent (e-mail or SMS), then `303` to the code page. The partner is
 *   named by `p` (its id), so the page works without a session and does not depend on
 *   what `returnTo` points at; `returnTo` is checked separately and kept through the flow.
 *   A partner with a `loginUrl` uses Login Force: these pages send the person there.
 * - `GET/POST /auth/otp/verify?o=<code id>&p=…&returnTo=…&lang=` — the code. The right code
 *   starts a session and redirects (303) to `returnTo`, or to `/auth/session` without one.
 * - `GET /auth/session` — who is signed in, with the sign-out button.
 * - `POST /auth/logout` — revokes the session (CSRF-checked) and leaves the signed-out marker
 *   (the partner's seamless sign-in of that user is not honoured here until a deliberate one,
 *   see auth.session.tsx), then 303 to a safe `returnTo` form field or `/auth/session`.
 * - `GET /auth/sign-out?p=<partner id>&returnTo=<url>&returnToTag=` — the partner's sign-out: the
 *   partner sends the browser here (a top-level navigation, so the service's SameSite=Lax cookie
 *   comes along) when its user signs out. It ends this browser's session of that partner, drops
 *   the signed-out marker (whoever signs in next on the partner does so deliberately) and
 *   redirects (303) to `returnTo` when it is on the partner's allowed origins or carries the tag
 *   of `GET /v1/auth/signOutUrl`; else to `/auth/session` (signed out). A GET, as sign-out URLs
 *   are: a page that sends someone here can only sign them out of this partner.
 *
 * Errors are pages: 400 (form again, with the error tied to its input), 403 (CSRF), 404
 * (unknown partner), 410 (dead code), 429 (limits, with Retry-After).
 */

/** Login Force partners sign in on their own site. */
function toPartnerLogin(c: Ctx, deps: PageDeps, flow: Flow): Response {
  const back = flow.returnTo ?? `${deps.config.publicBaseUrl}${sessionPath(flow.lang)}`;
  return safeRedirect(c, signInUrl(flow.partner, deps.config.publicBaseUrl, back, null, { prompt: c.get('sessionConfig').signedOutOf === flow.partner.id }));
}

function IdentifierForm(props: { c: Ctx; flow: Flow; value?: string; error?: string }) {
  const { c, flow } = props;
  const L = flow.lang;
  const describedBy = props.error ? 'identifier-error identifier-hint' : 'identifier-hint';
  return (
    <Layout lang={L} title={m(L, 'signInTitle')}>
      <h1>{m(L, 'signInTitle')}</h1>
      <div class="card">
        <p>{m(L, 'signInIntro')}</p>
        <form method="post" action={flowPath(OTP_PATH, flow)} novalidate>
          {csrfField(c, OTP_PATH)}
          <label for="identifier">{m(L, 'identifierLabel')}</label>
          <input
            id="identifier"
            name="identifier"
            type="text"
            inputmode="email"
            autocomplete="username"
            required
            value={props.value ?? ''}
            aria-describedby={describedBy}
            aria-invalid={props.error ? 'true' : undefined}
          />
          {props.error ? (
            <p id="identifier-error" class="error" role="alert">
              {props.error}
            </p>
          ) : null}
          <p id="identifier-hint" class="hint">
            {m(L, 'identifierHint')}
          </p>
          <button type="submit">{m(L, 'sendCode')}</button>
        </form>
      </div>
    </Layout>
  );
}

/**
 * What the code pages answer to a POST before its CSRF token is checked (the page registry's
 * `beforeCsrf` of /auth/*), as their GETs do: an incomplete flow (no or an unknown partner) its
 * 404 page, the sign-in of a Login Force partner its login page, a step-up without the
 * partner's session the sign-in. Sign-out is checked at once.
 */
export function signInGuard(deps: PageDeps): MiddlewareHandler<SessionEnv> {
  return async function signInGuardMiddleware(c, next) {
    if (c.req.method !== 'POST') return next();
    const path = c.req.path;
    if (path === STEP_UP_PATH || path === `${STEP_UP_PATH}/verify`) {
      const loaded = await signedInFlow(deps, c);
      return loaded instanceof Response ? loaded : next();
    }
    if (path !== OTP_PATH && path !== `${OTP_PATH}/verify`) return next();
    const flow = await loadFlow(deps, c);
    if (!flow) return incomplete(c);
    if (path === OTP_PATH && flow.partner.settings.loginUrl) return toPartnerLogin(c, deps, flow);
    return next();
  };
}

/**
 * The page that takes a 6-digit code. `path` is the flow's start (the code form posts to
 * `<path>/verify`, "Request a new code" goes back to `path`); `title` and `submit` name what the
 * code is for.
 */
/** Routes of the sign-in pages. Mount with `app.route('/', authPageRoutes(deps))`. */
export function authPageRoutes(deps: PageDeps) {
  const app = new Hono<SessionEnv>();
  const auth = () => authService(deps);

  app.get(OTP_PATH, async (c) => {
    const flow = await loadFlow(deps, c);
    if (!flow) return incomplete(c);
    if (flow.partner.settings.loginUrl) return toPartnerLogin(c, deps, flow);
    if (c.get('session')) return safeRedirect(c, flow.returnTo ?? sessionPath(flow.lang));
    return renderPage(c, <IdentifierForm c={c} flow={flow} />);
  });

  app.post(OTP_PATH, async (c) => {
    const flow = await loadFlow(deps, c);
    if (!flow) return incomplete(c);
    if (flow.partner.settings.loginUrl) return toPartnerLogin(c, deps, flow);
    const body = await c.req.parseBody();
    const identifier = typeof body.identifier === 'string' ? body.identifier.slice(0, 300) : '';
    const result = await deps.db.transact(async (tx) => await auth().requestOtp(tx, { partnerId: flow.partner.id, identifier, lang: flow.lang, ip: clientLimitKey(c) }));
    if (result.ok) return safeRedirect(c, flowPath(`${OTP_PATH}/verify`, flow, { o: result.otpId }), 303);
    if (result.reason === 'rate_limited') return tooMany(c, flow.lang, result.retryAfterSeconds);
    return renderPage(c, <IdentifierForm c={c} flow={flow} value={identifier} error={m(flow.lang, 'identifierInvalid')} />, { status: 400 });
  });

  app.get(`${OTP_PATH}/verify`, async (c) => {
    const flow = await loadFlow(deps, c);
    if (!flow) return incomplete(c);
    const view = await deps.db.transact(async (tx) => await auth().viewOtp(tx, flow.partner.id, c.req.query('o') ?? ''));
    if (!view || !view.live) return codeDead(c, flow);
    return renderPage(c, <CodeForm c={c} flow={flow} otpId={view.id} channel={view.channel} masked={view.masked} />);
  });

  app.post(`${OTP_PATH}/verify`, async (c) => {
    const flow = await loadFlow(deps, c);
    if (!flow) return incomplete(c);
    const submitted = await submittedCode(c, deps, flow);
    if (submitted instanceof Response) return submitted;
    const { code, otpId } = submitted;
    const current = c.get('session');
    const outcome = await deps.db.transact(async (tx) => {
      const result = await auth().verifyOtp(tx, { partnerId: flow.partner.id, otpId, code });
      if (!result.ok) return { result, started: null, view: await auth().viewOtp(tx, flow.partner.id, otpId) };
      if (current) await auth().revokeSession(tx, current.id);
      return { result, started: await auth().startSession(tx, flow.partner.id, result.user.id, { steppedUp: true }), view: null };
    });
    if (outcome.started) {
      setSessionCookie(c, deps.config, outcome.started.token);
      // A code proves who is here: a deliberate sign-in.
      clearSignedOut(c, deps.config);
      return safeRedirect(c, flow.returnTo ?? sessionPath(flow.lang), 303);
    }
    const r = outcome.result;
    const view = outcome.view;
    if (r.ok || !view) return codeDead(c, flow);
    if (r.reason === 'malformed' && view.live) {
      return renderPage(c, <CodeForm c={c} flow={flow} otpId={view.id} channel={view.channel} masked={view.masked} error={m(flow.lang, 'codeMalformed')} />, { status: 400 });
    }
    if (r.reason === 'wrong' && r.attemptsLeft > 0) {
      return renderPage(c, <CodeForm c={c} flow={flow} otpId={view.id} channel={view.channel} masked={view.masked} error={m(flow.lang, 'codeWrong', { n: r.attemptsLeft })} />, {
        status: 400,
      });
    }
    return codeDead(c, flow);
  });

  stepUpRoutes(app, deps);

  app.get('/auth/session', async (c) => {
    const session = c.get('session');
    const found = session ? await deps.db.read(async (tx) => ({ partner: await partnerOf(tx, session.partnerId), user: await deps.users.get(tx, session.partnerId, session.userPk) })) : null;
    const lang = pageLang(c, found?.partner.settings.defaultLang);
    if (!found) return noticePage(c, { lang, status: 200, title: m(lang, 'signedOutTitle'), text: m(lang, 'signedOutText') });
    const who = whoIs(found.user);
    return renderPage(
      c,
      <Layout lang={lang} title={m(lang, 'signedInTitle')}>
        <h1>{m(lang, 'signedInTitle')}</h1>
        <div class="card">
          <p>{m(lang, 'signedInAs', { who })}</p>
          <form method="post" action={`${LOGOUT_PATH}?lang=${lang}`}>
            {csrfField(c, LOGOUT_PATH)}
            <button type="submit" class="secondary">
              {m(lang, 'signOut')}
            </button>
          </form>
        </div>
      </Layout>,
    );
  });

  app.post(LOGOUT_PATH, async (c) => {
    const lang = pageLang(c);
    const session = c.get('session');
    if (session) {
      await deps.db.transact(async (tx) => await auth().revokeSession(tx, session.id));
      markSignedOut(c, deps, session);
    }
    clearSessionCookie(c, deps.config);
    // Signing out on a shared phone takes the tickets' rotating codes with it: the browser drops
    // this origin's storage (the codes' keys in IndexedDB, the ticket views the service worker
    // kept, the worker). Signing in again certifies the phone anew.
    c.header('Clear-Site-Data', '"storage"');
    const body = await c.req.parseBody();
    const back = safeReturnTo(typeof body.returnTo === 'string' ? body.returnTo : null, deps.config.publicBaseUrl);
    return safeRedirect(c, back ?? sessionPath(lang), 303);
  });

  app.get(PARTNER_SIGN_OUT_PATH, async (c) => {
    const id = c.req.query('p');
    const partner = id ? await deps.db.read(async (tx) => await partnerById(tx, id)) : undefined;
    if (!partner) return incomplete(c);
    // A HEAD (a link checker, a prefetch) signs nobody out. The middleware scoped the session to
    // `p`: another partner's session in this browser is left alone.
    if (c.req.method !== 'HEAD') {
      const session = c.get('session');
      if (session) {
        await deps.db.transact(async (tx) => await auth().revokeSession(tx, session.id));
        clearSessionCookie(c, deps.config);
      }
      clearSignedOut(c, deps.config);
    }
    const back = partnerReturnTo(deps.box, partner, c.req.query('returnTo'), c.req.query(RETURN_TO_TAG_PARAM));
    return safeRedirect(c, back ?? sessionPath(pageLang(c, partner.settings.defaultLang)), 303);
  });

  return app;
}
