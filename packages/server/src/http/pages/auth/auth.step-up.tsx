/** @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import { Layout, noticePage, renderPage } from '../layout.js';
import { m } from './auth.messages.js';
import { CodeForm, codeDead, flowPath, sessionPath, signedInFlow, submittedCode, tooMany, type Ctx, type Flow, type PageDeps } from './auth.flow.js';
import { authService, maskDestination } from '../../../domain/auth/auth.service.js';
import { csrfField, safeRedirect, type SessionEnv } from './auth.session.js';
import { clientLimitKey } from '../../middleware/client-address.js';

/**
 * Step-up: a fresh one-time code before a change to where money goes (payout details), even
 * inside a session. A session can begin from a one-time token in a URL, and such a URL can be
 * forwarded, copied or leaked; a code sent to the account's own e-mail or phone proves that
 * the person at the keyboard holds the account. A sign-in by code counts as a step-up for
 * `STEP_UP_TTL_MS`; a session begun from a token never does.
 *
 * - `GET /auth/step-up?p=<partner>&returnTo=<service URL>&lang=`: says where the code goes
 *   (masked), with a button that sends it.
 * - `POST /auth/step-up`: sends the code to the user's own e-mail (else phone), 303 to the code page.
 * - `GET/POST /auth/step-up/verify?o=<code id>&…`: the code; right, the session is stepped up
 *   and the person goes back to `returnTo`.
 *
 * Pages that change money destinations call {@link stepUpUrl} when `isSteppedUp` is false.
 */
export const STEP_UP_PATH = '/auth/step-up';

/** Where to send a signed-in person to step up before coming back to `returnTo` (a service path or URL). */
export function stepUpUrl(partnerId: string, returnTo: string, lang: string): string {
  return `${STEP_UP_PATH}?${new URLSearchParams({ p: partnerId, returnTo, lang })}`;
}

/** Registers the step-up pages on the sign-in pages' router (the registry's session and CSRF middleware cover /auth/*). */
export function stepUpRoutes(app: Hono<SessionEnv>, deps: PageDeps): void {
  const auth = () => authService(deps);

  const load = (c: Ctx) => signedInFlow(deps, c);

  const done = (c: Ctx, flow: Flow) => safeRedirect(c, flow.returnTo ?? sessionPath(flow.lang), 303);
  const noContact = (c: Ctx, flow: Flow) => noticePage(c, { lang: flow.lang, status: 409, title: m(flow.lang, 'stepUpNoContactTitle'), text: m(flow.lang, 'stepUpNoContactText') });

  app.get(STEP_UP_PATH, async (c) => {
    const loaded = await load(c);
    if (loaded instanceof Response) return loaded;
    const { flow, session } = loaded;
    if (auth().isSteppedUp(session)) return done(c, flow);
    const user = await deps.db.read(async (tx) => await deps.users.get(tx, session.partnerId, session.userPk));
    const to = user.email ? maskDestination('email', user.email) : user.phone ? maskDestination('sms', user.phone) : null;
    if (!to) return noContact(c, flow);
    const L = flow.lang;
    return renderPage(
      c,
      <Layout lang={L} title={m(L, 'stepUpTitle')}>
        <h1>{m(L, 'stepUpTitle')}</h1>
        <div class="card">
          <p>{m(L, 'stepUpIntro', { to })}</p>
          <form method="post" action={flowPath(STEP_UP_PATH, flow)}>
            {csrfField(c, STEP_UP_PATH)}
            <button type="submit">{m(L, 'stepUpSend')}</button>
          </form>
        </div>
      </Layout>,
    );
  });

  app.post(STEP_UP_PATH, async (c) => {
    const loaded = await load(c);
    if (loaded instanceof Response) return loaded;
    const { flow, session } = loaded;
    const result = await deps.db.transact(async (tx) => await auth().requestStepUp(tx, session, { lang: flow.lang, ip: clientLimitKey(c) }));
    if (result.ok) return safeRedirect(c, flowPath(`${STEP_UP_PATH}/verify`, flow, { o: result.otpId }), 303);
    if (result.reason === 'rate_limited') return tooMany(c, flow.lang, result.retryAfterSeconds);
    return noContact(c, flow);
  });

  app.get(`${STEP_UP_PATH}/verify`, async (c) => {
    const loaded = await load(c);
    if (loaded instanceof Response) return loaded;
    const { flow } = loaded;
    const view = await deps.db.transact(async (tx) => await auth().viewOtp(tx, flow.partner.id, c.req.query('o') ?? ''));
    if (!view || !view.live) return codeDead(c, flow, STEP_UP_PATH);
    return renderPage(c, <CodeForm c={c} flow={flow} otpId={view.id} channel={view.channel} masked={view.masked} path={STEP_UP_PATH} submit={m(flow.lang, 'stepUpConfirm')} />);
  });

  app.post(`${STEP_UP_PATH}/verify`, async (c) => {
    const loaded = await load(c);
    if (loaded instanceof Response) return loaded;
    const { flow, session } = loaded;
    const submitted = await submittedCode(c, deps, flow);
    if (submitted instanceof Response) return submitted;
    const { code, otpId } = submitted;
    const { result, view } = await deps.db.transact(async (tx) => {
      const result = await auth().verifyStepUp(tx, session, { otpId, code });
      return { result, view: result.ok ? null : await auth().viewOtp(tx, flow.partner.id, otpId) };
    });
    if (result.ok) return done(c, flow);
    const retry = (error: string) =>
      renderPage(c, <CodeForm c={c} flow={flow} otpId={view!.id} channel={view!.channel} masked={view!.masked} path={STEP_UP_PATH} submit={m(flow.lang, 'stepUpConfirm')} error={error} />, { status: 400 });
    if (view?.live && result.reason === 'malformed') return retry(m(flow.lang, 'codeMalformed'));
    if (view?.live && result.reason === 'wrong' && result.attemptsLeft > 0) return retry(m(flow.lang, 'codeWrong', { n: result.attemptsLeft }));
    return codeDead(c, flow, STEP_UP_PATH);
  });
}
