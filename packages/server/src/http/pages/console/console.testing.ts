import { expect } from 'vitest';
import type { createTestApp } from '../../../testing/harness.js';
import { eq } from 'drizzle-orm';
import { csrfTokenFor } from '../../../domain/auth/auth.service.js';
import { consoleSessions } from '../../../domain/console/console.table.js';
import { hashSecret } from '../../../lib/crypto.js';
import { csrfOf, inputValue, lastCode, TestBrowser, type BrowserResponse } from '../auth/auth.testing.js';

type TestApp = ReturnType<typeof createTestApp>;

/** Decodes the `&amp;` of an action or link taken from a page. */
export const decoded = (s: string) => s.replace(/&amp;/g, '&');

/** Makes `emails` the console's operators, as OPERATOR_EMAILS does at start. */
export async function withOperators(t: TestApp, ...emails: string[]): Promise<void> {
  await t.db.transact(async (tx) => await t.deps.consoleAccess.syncOperators(tx, emails));
}

/** Signs `email` in to the console in `browser` (a new one by default), as a person would: the form, the e-mailed code. */
export async function signIn(t: TestApp, email: string, browser = new TestBrowser(t.app)): Promise<TestBrowser> {
  const form = await browser.get('/console/sign-in');
  expect(form.status).toBe(200);
  const sent = await browser.post('/console/sign-in?next=%2Fconsole', { _csrf: csrfOf(form.text, '/console/sign-in?next=%2Fconsole')!, email });
  expect(sent.status).toBe(303);
  const codePage = await browser.get(sent.location!);
  expect(codePage.status).toBe(200);
  const action = decoded(/<form[^>]*action="(\/console\/sign-in\/code[^"]*)"/.exec(codePage.text)![1]!);
  const done = await browser.post(action, { _csrf: inputValue(codePage.text.slice(codePage.text.indexOf('/console/sign-in/code')), '_csrf')!, c: inputValue(codePage.text, 'c')!, code: await lastCode(t, email) });
  expect(done.status, done.text.slice(0, 500)).toBe(303);
  return browser;
}

/**
 * Posts the form of `page` (a path) whose action is `action`, with `fields` over the form's
 * CSRF token: what a person does who opens the page and submits that form.
 */
export async function submit(browser: TestBrowser, page: string, action: string, fields: Record<string, string> | URLSearchParams): Promise<BrowserResponse> {
  const opened = await browser.get(page);
  const csrf = csrfOf(opened.text, action.replace(/&/g, '&amp;'));
  if (!csrf) throw new Error(`${page} (${opened.status}) has no form posting to ${action}`);
  const body = new URLSearchParams(fields);
  body.set('_csrf', csrf);
  return browser.post(action, body);
}

/**
 * The hidden fields of the first form of `page` posting to `action`, as a browser sends them
 * (what `submit` leaves out, since a page may hold several forms to one action).
 */
export async function hiddenFieldsOf(browser: TestBrowser, page: string, action: string): Promise<Record<string, string>> {
  const html = (await browser.get(page)).text;
  const at = html.indexOf(`action="${action.replace(/&/g, '&amp;')}"`);
  if (at < 0) throw new Error(`${page} has no form posting to ${action}`);
  const fields: Record<string, string> = {};
  for (const tag of html.slice(at, html.indexOf('</form>', at)).match(/<input type="hidden"[^>]*>/g) ?? []) {
    const name = /name="([^"]*)"/.exec(tag)?.[1];
    if (name && name !== '_csrf') fields[name] = (/value="([^"]*)"/.exec(tag)?.[1] ?? '').replace(/&amp;/g, '&');
  }
  return fields;
}

/** Completes a step-up from the redirect that asked for it (`/console/confirm?next=…`), answering the redirect back. */
export async function confirmWithCode(t: TestApp, browser: TestBrowser, confirmUrl: string, email: string): Promise<BrowserResponse> {
  const start = await browser.get(confirmUrl);
  expect(start.status).toBe(200);
  const action = decoded(/<form[^>]*action="(\/console\/confirm\?[^"]*)"/.exec(start.text)![1]!);
  const sent = await browser.post(action, { _csrf: csrfOf(start.text, action.replace(/&/g, '&amp;'))! });
  expect(sent.status).toBe(303);
  const codePage = await browser.get(sent.location!);
  const codeAction = decoded(/<form[^>]*action="(\/console\/confirm\/code[^"]*)"/.exec(codePage.text)![1]!);
  return browser.post(codeAction, { _csrf: csrfOf(codePage.text, codeAction.replace(/&/g, '&amp;'))!, c: inputValue(codePage.text, 'c')!, code: await lastCode(t, email) });
}

/**
 * What a browser posts from a partner's settings form as it stands: every input's and text
 * area's value (a text area's text unescaped), the CSRF token left out (`submit` adds it).
 */
export async function settingsFormOf(browser: TestBrowser, partnerId: string): Promise<Record<string, string>> {
  const page = await browser.get(`/console/partners/${partnerId}`);
  const start = page.text.indexOf(`action="/console/partners/${partnerId}/settings"`);
  const form = page.text.slice(start, page.text.indexOf('</form>', start));
  const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) if (m[1] !== '_csrf') out[m[1]!] = unescape(m[2]!);
  for (const m of form.matchAll(/<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) out[m[1]!] = unescape(m[2]!);
  // A select sends its selected option (the first when none is).
  for (const m of form.matchAll(/<select[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const options = [...m[2]!.matchAll(/<option value="([^"]*)"([^>]*)>/g)];
    const chosen = options.find((o) => /\bselected\b/.test(o[2]!)) ?? options[0];
    if (chosen) out[m[1]!] = unescape(chosen[1]!);
  }
  return out;
}

/** The CSRF token `browser`'s console session would be given for a form posting to `action` (to post a form its page does not show). */
export async function csrfFor(t: TestApp, browser: TestBrowser, action: string): Promise<string> {
  const row = (await t.db.read(async (tx) => await tx.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, hashSecret(browser.cookies.get('resale_console')!)))))[0]!;
  return csrfTokenFor(row.csrfSecret, action);
}
