/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import type { TestApp } from '../../../testing/harness.js';
import { Layout, renderPage } from '../layout.js';
import { authPageRoutes } from './auth.pages.js';
import { authRoutes } from '../../api/auth.routes.js';
import { csrfField, csrfProtection, requireUser, sessionFromRequest, type SessionEnv } from './auth.session.js';

/**
 * Test helpers of the auth module (tests only): the auth routes mounted on a test app, a
 * page protected by Login Force with a CSRF-checked form, and a tiny browser with a
 * cookie jar that never follows redirects on its own.
 */

/** Mounts the API route, the sign-in pages and a protected test page (before the first request). */
export function mountAuth(t: TestApp): TestApp {
  t.app.route('/', authRoutes(t.deps));
  t.app.route('/', authPageRoutes(t.deps));
  t.app.route('/', protectedTestPages(t));
  return t;
}

/**
 * `GET /test/:partnerId/protected` (Login Force, shows who is signed in and a form) and
 * `POST /test/:partnerId/protected` (CSRF-checked; answers "posted").
 */
export function protectedTestPages(t: TestApp) {
  const app = new Hono<SessionEnv>();
  app.use('/test/:partnerId/*', sessionFromRequest(t.deps, { partnerId: (c) => c.req.param('partnerId') }));
  // Unbranded, in the default language: the test page names no partner for the refusal.
  app.use('/test/:partnerId/*', csrfProtection(t.deps));
  app.get('/test/:partnerId/protected', async (c) => {
    const partner = await t.deps.partners.get(c.req.param('partnerId'));
    const session = requireUser(c, partner, c.req.query('returnTo') ? { returnTo: c.req.query('returnTo')! } : {});
    if (session instanceof Response) return session;
    const action = `/test/${partner.id}/protected`;
    return renderPage(
      c,
      <Layout lang="en" title="Protected">
        <h1>Protected</h1>
        <p id="who">user:{session.userPk}</p>
        <form method="post" action={action}>
          {csrfField(c, action)}
          <button type="submit">Go</button>
        </form>
      </Layout>,
    );
  });
  app.post('/test/:partnerId/protected', (c) => c.text('posted'));
  return app;
}

export interface BrowserResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
}

type Requester = { request: (input: string, init?: RequestInit, env?: unknown) => Response | Promise<Response> };

/** A browser: keeps cookies (by name), sends them back, never follows redirects itself. */
export class TestBrowser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: Requester,
    /** The client address the node server would see (the socket's peer). */
    public ip = '198.51.100.7',
  ) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<BrowserResponse> {
    return this.send(url, { method: 'GET', headers });
  }

  /** Posts a form; a URLSearchParams may repeat a field. */
  async post(url: string, form: Record<string, string> | URLSearchParams, headers: Record<string, string> = {}): Promise<BrowserResponse> {
    return this.send(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(form).toString() });
  }

  private async send(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<BrowserResponse> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const env = { incoming: { socket: { remoteAddress: this.ip } } };
    const res = await this.app.request(url, { method: init.method, headers, ...(init.body !== undefined ? { body: init.body } : {}) }, env);
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location'), setCookies };
  }
}

/** The value of the input named `name` in a page. */
export function inputValue(html: string, name: string): string | null {
  const tag = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  return tag ? (/value="([^"]*)"/.exec(tag)?.[1] ?? null) : null;
}

/** The `action` of the first form in a page, HTML entities of `&` decoded. */
export function formAction(html: string): string | null {
  return /<form[^>]*action="([^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&') ?? null;
}

/** The six-digit code of the newest message to `to`. */
export async function lastCode(t: TestApp, to: string): Promise<string> {
  const msg = (await t.deps.messages.list({ to }))[0];
  const code = msg ? /\b(\d{6})\b/.exec(msg.text)?.[1] : undefined;
  if (!code) throw new Error(`No code was sent to ${to}`);
  return code;
}

/** Decodes the `&amp;` of an action or link taken from a page. */
const decoded = (s: string) => s.replace(/&amp;/g, '&');

/**
 * Drives a one-time-code flow as a person would, from its first page (`/auth/otp?…` to sign in,
 * `/auth/step-up?…` to step up): submits the first form (the identifier, when `identifier` is
 * given), reads the code sent to `to` from the outbox, submits it, and answers the final
 * redirect (to the flow's `returnTo`).
 */
export async function completeCodeFlow(t: TestApp, browser: TestBrowser, start: string, to: string, identifier?: string): Promise<BrowserResponse> {
  const first = await browser.get(start);
  if (first.status !== 200) throw new Error(`${start} answered ${first.status}`);
  const form: Record<string, string> = { _csrf: inputValue(first.text, '_csrf')! };
  if (identifier !== undefined) form.identifier = identifier;
  const sent = await browser.post(decoded(formAction(first.text)!), form);
  if (sent.status !== 303) throw new Error(`sending the code answered ${sent.status}`);
  const codePage = await browser.get(sent.location!);
  return browser.post(decoded(formAction(codePage.text)!), { _csrf: inputValue(codePage.text, '_csrf')!, code: await lastCode(t, to) });
}

/** The CSRF token of the first form in a page whose action is `action` (a page may hold several forms: sign-out, buy …). */
export function csrfOf(html: string, action: string): string | null {
  const at = html.indexOf(`action="${action}"`);
  return at < 0 ? null : inputValue(html.slice(at), '_csrf');
}
