/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import type { Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { ApiError } from '../../../lib/errors.js';
import { pageLang, t } from '../../../lib/i18n.js';
import { Layout, noticePage } from '../layout.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { m } from './auth.messages.js';
import { OTP_LIMITS, type AuthServiceDeps, type SessionData } from '../../../domain/auth/auth.service.js';
import { csrfField, currentServiceUrl, OTP_PATH, safeRedirect, signInUrl, type SessionEnv } from './auth.session.js';
import { clientLimitKey } from '../../middleware/client-address.js';
import { safeReturnTo } from '../../../domain/auth/auth.urls.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { brandAsPartner } from '../brand.js';
import { servicePaths } from '../../../lib/urls.js';

/**
 * What the code pages share (sign-in by one-time password, auth.pages.tsx, and step-up,
 * auth.step-up.tsx): the flow's parameters, the code form and its refusals. Its own file so
 * that neither page file imports the other.
 */

export type Ctx = Context<SessionEnv, any, any>;
export type PageDeps = AuthServiceDeps & Pick<AppDeps, 'config' | 'rateLimiter'>;

/** The flow's parameters, checked. */
export interface Flow {
  partner: PartnerRow;
  lang: Lang;
  /** Absolute URL on the service, or null. */
  returnTo: string | null;
}

export async function loadFlow(deps: PageDeps, c: Ctx): Promise<Flow | null> {
  const id = c.req.query('p');
  if (!id) return null;
  const partner = await deps.db.read(async (tx) => await partnerById(tx, id));
  if (!partner) return null;
  // Sign-in and step-up pages are the partner's, as the pages that sent the fan there.
  brandAsPartner(c, partner);
  return { partner, lang: pageLang(c, partner.settings.defaultLang), returnTo: safeReturnTo(c.req.query('returnTo'), deps.config.publicBaseUrl) };
}

/** The flow and the signed-in session of its partner (step-up); otherwise the page to show instead (404, or the sign-in). */
export async function signedInFlow(deps: PageDeps, c: Ctx): Promise<{ flow: Flow; session: SessionData } | Response> {
  const flow = await loadFlow(deps, c);
  if (!flow) return incomplete(c);
  const session = c.get('session');
  if (!session || session.partnerId !== flow.partner.id) {
    return safeRedirect(c, signInUrl(flow.partner, deps.config.publicBaseUrl, currentServiceUrl(c, deps.config.publicBaseUrl), flow.lang));
  }
  return { flow, session };
}

/** A path of the flow with its parameters. */
export function flowPath(path: string, flow: Flow, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({ p: flow.partner.id });
  if (flow.returnTo) q.set('returnTo', flow.returnTo);
  q.set('lang', flow.lang);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return `${path}?${q}`;
}

export function sessionPath(lang: Lang): string {
  return servicePaths.session({ lang });
}

export function incomplete(c: Ctx): Promise<Response> {
  const lang = pageLang(c);
  return noticePage(c, { lang, status: 404, title: m(lang, 'incompleteTitle'), text: m(lang, 'incompleteText') });
}

export function tooMany(c: Ctx, lang: Lang, retryAfterSeconds: number): Promise<Response> {
  return noticePage(c, {
    lang,
    status: 429,
    headers: { 'Retry-After': String(retryAfterSeconds) },
    title: t(lang, 'tooManyTitle'),
    text: t(lang, 'tooManyText', { minutes: Math.max(1, Math.ceil(retryAfterSeconds / 60)) }),
  });
}

export function codeDead(c: Ctx, flow: Flow, requestNewPath = OTP_PATH): Promise<Response> {
  return noticePage(c, {
    lang: flow.lang,
    status: 410,
    title: m(flow.lang, 'codeDeadTitle'),
    text: m(flow.lang, 'codeDeadText'),
    link: { href: flowPath(requestNewPath, flow), label: m(flow.lang, 'requestNew') },
  });
}

/**
 * The code a person submitted (and its id, from the query), after the per-address limit on
 * code guesses (`OTP_LIMITS.verifyPerIpPerMinute`, shared by sign-in and step-up); the 429 page
 * when over it.
 */
export async function submittedCode(c: Ctx, deps: PageDeps, flow: Flow): Promise<{ code: string; otpId: string } | Response> {
  try {
    await deps.rateLimiter.take(`otp-verify:${clientLimitKey(c)}`, OTP_LIMITS.verifyPerIpPerMinute);
  } catch (err) {
    if (err instanceof ApiError && err.status === 429) return tooMany(c, flow.lang, Number(err.headers['Retry-After'] ?? 60));
    throw err;
  }
  const body = await c.req.parseBody();
  return { code: typeof body.code === 'string' ? body.code.slice(0, 20) : '', otpId: c.req.query('o') ?? '' };
}

export function CodeForm(props: { c: Ctx; flow: Flow; otpId: string; channel: 'email' | 'sms'; masked: string; error?: string; path?: string; submit?: string }) {
  const { c, flow } = props;
  const L = flow.lang;
  const path = props.path ?? OTP_PATH;
  const describedBy = props.error ? 'code-error code-hint' : 'code-hint';
  return (
    <Layout lang={L} title={m(L, 'codeTitle')}>
      <h1>{m(L, 'codeTitle')}</h1>
      <div class="card">
        <p>{m(L, props.channel === 'sms' ? 'codeSentSms' : 'codeSentEmail', { to: props.masked })}</p>
        <form method="post" action={flowPath(`${path}/verify`, flow, { o: props.otpId })} novalidate>
          {csrfField(c, `${path}/verify`)}
          <label for="code">{m(L, 'codeLabel')}</label>
          <input
            id="code"
            name="code"
            type="text"
            inputmode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9]{6}"
            maxlength={6}
            required
            aria-describedby={describedBy}
            aria-invalid={props.error ? 'true' : undefined}
          />
          {props.error ? (
            <p id="code-error" class="error" role="alert">
              {props.error}
            </p>
          ) : null}
          <p id="code-hint" class="hint">
            {m(L, 'codeHint')}
          </p>
          <button type="submit">{props.submit ?? m(L, 'verify')}</button>
        </form>
        <p>
          <a href={flowPath(path, flow)}>{m(L, 'requestNew')}</a>
        </p>
      </div>
    </Layout>
  );
}

