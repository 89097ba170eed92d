/** @jsxImportSource hono/jsx */
import { Hono } from 'hono';
import { renderPage } from '../layout.js';
import { barOf, consoleRefusal, otherLangHref, requireConsole, type ConsoleDeps } from './console.auth.js';
import { loadOverview } from './console.overview.load.js';
import { OverviewView } from './console.overview.view.js';
import type { ConsoleEnv } from './console.session.js';
import { CONSOLE_CSP } from './console.view.js';

/** The console's home, the overview (`/console?days=30&partnerId=…`). */
export function consoleOverviewRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  app.get('/console', async (c) => {
    const session = requireConsole(c);
    if (session instanceof Response) return session;
    const model = await loadOverview(deps, session, { partnerId: c.req.query('partnerId'), days: c.req.query('days') });
    if (!model) return consoleRefusal(c, 404);
    return renderPage(c, <OverviewView lang={c.get('consoleLang')} bar={barOf(c, deps, session)} model={model} otherLangHref={otherLangHref(c)} />, { csp: CONSOLE_CSP });
  });
  return app;
}
