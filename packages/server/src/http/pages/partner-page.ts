import type { Lang } from '@resale/shared/lang';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppDeps } from '../../context.js';
import { partnerById, type PartnerRow } from '../../domain/partners/partners.queries.js';
import { pageLang, t } from '../../lib/i18n.js';
import { noticePage } from './layout.js';
import { brandAsPartner } from './brand.js';

/** The 404 page of hosted pages. */
export function notFoundPage(c: Context<any, any, any>, lang: Lang): Promise<Response> {
  return noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
}

/**
 * The 404 page of a POST to a page of an unknown partner (`:partnerId`), before its form is
 * read or its CSRF token checked (the page registry's `beforeCsrf`): {@link partnerPage}
 * answers the same to every other request.
 */
export function knownPartner(deps: Pick<AppDeps, 'db'>): MiddlewareHandler {
  return async function knownPartnerMiddleware(c, next) {
    if (c.req.method !== 'POST' || !matchedRoutes(c).some((r) => r.method === 'POST')) return next();
    const partner = await deps.db.read(async (tx) => await partnerById(tx, c.req.param('partnerId') ?? ''));
    return partner ? next() : notFoundPage(c, pageLang(c));
  };
}

/**
 * A hosted-page handler of a partner named in the path (`:partnerId`): it gets the partner
 * and the page language (`?lang=`, else the partner's), and the page is branded as the
 * partner's; an unknown partner gets the 404 page.
 * The lookup answers undefined for an unknown partner, so any other failure (the database)
 * stays an error instead of passing for a 404.
 *
 * @example app.get('/sell/:partnerId/payout', partnerPage(deps, async (c, partner, lang) => renderPage(c, …)));
 */
export function partnerPage<C extends Context<any, any, any>>(deps: Pick<AppDeps, 'db'>, handler: (c: C, partner: PartnerRow, lang: Lang) => Response | Promise<Response>) {
  return async (c: C): Promise<Response> => {
    const partner = await deps.db.read(async (tx) => await partnerById(tx, c.req.param('partnerId') ?? ''));
    const lang = pageLang(c, partner?.settings.defaultLang);
    if (!partner) return notFoundPage(c, lang);
    brandAsPartner(c, partner);
    return handler(c, partner, lang);
  };
}
