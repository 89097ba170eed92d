import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { noticePage } from '../layout.js';
import { t } from '../../../lib/i18n.js';
import { consoleAuditRoutes } from './console.audit.js';
import { consoleAuthRoutes, type ConsoleDeps } from './console.auth.js';
import { consoleEventRoutes } from './console.events.js';
import { consoleLoadRoutes } from './console.load.js';
import { consoleMoneyRoutes } from './console.money.js';
import { consolePartnerRoutes } from './console.partners.js';
import { consoleOverviewRoutes } from './console.overview.js';
import { consolePasskeyRoutes } from './console.passkeys.js';
import { consoleRiskRoutes } from './console.risk.js';
import { consoleSalesRoutes } from './console.sales.js';
import { consoleCsrf, consoleSessionFromRequest, type ConsoleEnv } from './console.session.js';
import { consoleWaitingListRoutes } from './console.waitinglist.js';
import { consoleWebhookRoutes } from './console.webhooks.js';
import { cm } from './console.messages.js';

/**
 * The console (`/console`): operators and partners' people manage partners, keys, origins,
 * webhooks and the team, and read the audit log. Server-rendered pages under the pages' strict
 * policy (no inline script; the passkey pages load the service's own passkey script), in
 * English and Spanish, readable on a phone. Its own sessions and CSRF (console.session.ts),
 * mounted by the page registry before these routes; sign-in by e-mailed code
 * (console.auth.tsx) or passkey (console.passkeys.tsx).
 */
export function consolePageRoutes(deps: ConsoleDeps) {
  const app = new Hono<ConsoleEnv>();
  app.route('/', consoleAuthRoutes(deps));
  app.route('/', consolePasskeyRoutes(deps));
  app.route('/', consoleOverviewRoutes(deps));
  app.route('/', consolePartnerRoutes(deps));
  app.route('/', consoleAuditRoutes(deps));
  app.route('/', consoleWebhookRoutes(deps));
  app.route('/', consoleEventRoutes(deps));
  app.route('/', consoleWaitingListRoutes(deps));
  app.route('/', consoleLoadRoutes(deps));
  app.route('/', consoleRiskRoutes(deps));
  app.route('/', consoleSalesRoutes(deps));
  app.route('/', consoleMoneyRoutes(deps));
  return app;
}

/** The console's session and CSRF middleware, in the order the registry mounts them. */
export function consoleMiddleware(deps: ConsoleDeps): MiddlewareHandler<ConsoleEnv>[] {
  return [
    consoleSessionFromRequest(deps),
    consoleCsrf(deps, (c) => {
      const lang = c.get('consoleLang');
      return noticePage(c, { lang, status: 403, title: t(lang, 'formExpiredTitle'), text: t(lang, 'formExpiredText'), link: { href: '/console', label: cm(lang, 'console') } });
    }),
  ];
}
