import type { Lang } from '@resale/shared/lang';
import type { Context } from 'hono';
import type { AppDeps } from '../../../context.js';
import { cspWith, noticePage } from '../layout.js';
import type { SessionData } from '../../../domain/auth/auth.service.js';
import { safeRedirect, type SessionEnv } from '../auth/auth.session.js';
import type { PartnerRow } from '../../../domain/partners/partners.service.js';
import { dashboardLink, onboardingLink } from './sell.hub.load.js';
import { sm } from './sell.messages.js';
import { servicePaths, serviceUrl } from '../../../lib/urls.js';

type C = Context<SessionEnv>;

/**
 * The sell pages' policy: the pages' script, and, with a payout provider, its onboarding
 * origin in `form-action` (browsers apply it to the redirect that answers the form).
 */
export function sellCsp(deps: Pick<AppDeps, 'payouts'>): string {
  return cspWith({ scripts: true, formAction: deps.payouts.connect?.provider.onboardingOrigins ?? [] });
}

/**
 * Where a seller may be sent back to after the provider's onboarding: a page of this partner's
 * sell flow on this service (a path, never another origin); anything else goes to the payout page.
 */
export function sellBack(partner: PartnerRow, back: string | undefined, lang: Lang): string {
  const fallback = servicePaths.sellPayout(partner.id, { lang });
  // Printable ASCII only (no space, no control character: nothing that could break the Location header), no `//` or `\`.
  if (!back || back.length > 500 || !/^[\x21-\x7e]+$/.test(back) || !back.startsWith(servicePaths.sellPrefix(partner.id)) || back.includes('//') || back.includes('\\')) return fallback;
  return back;
}

/** The 503 page of a payout provider that refused: nothing was changed. */
function providerUnavailable(c: C, lang: Lang): Promise<Response> {
  return noticePage(c, { lang, status: 503, title: sm(lang, 'stripeUnavailableTitle'), text: sm(lang, 'stripeUnavailableText'), headers: { 'Retry-After': '30' } });
}

/**
 * Sends a stepped-up seller to the payout provider's onboarding (Stripe Connect), with the
 * way back to `back` (checked by {@link sellBack}), their account opened first in `country`
 * when they have none; a missing or unknown country is the page again with `countryError`
 * (the caller's page, 400); the provider's refusal is a 503 page that changes nothing.
 */
export async function toOnboarding(deps: Pick<AppDeps, 'payouts' | 'logger' | 'config'>, c: C, partner: PartnerRow, session: SessionData, back: string, lang: Lang, country: string | null, countryError: (message: string) => Promise<Response>): Promise<Response> {
  const q = { lang, back: sellBack(partner, back, lang) };
  const stripe = (step: 'return' | 'refresh') => serviceUrl(deps.config.publicBaseUrl, servicePaths.sellPayoutStripe(partner.id, step, q));
  const link = await onboardingLink(deps, partner.id, session, { returnUrl: stripe('return'), refreshUrl: stripe('refresh') }, lang, country);
  if (link.kind === 'countryError') return await countryError(link.message);
  if (link.kind === 'unavailable') return providerUnavailable(c, lang);
  return safeRedirect(c, link.to, 303);
}

/**
 * Signs a stepped-up seller in to the payout provider's dashboard of their account (Stripe
 * Express), where they change their bank account. An account not finished goes back to the
 * payout page (which offers onboarding instead); the provider's refusal is a 503 page.
 */
export async function toDashboard(deps: Pick<AppDeps, 'payouts' | 'logger'>, c: C, partner: PartnerRow, session: SessionData, lang: Lang): Promise<Response> {
  const link = await dashboardLink(deps, partner.id, session);
  if (link.kind === 'notReady') return safeRedirect(c, servicePaths.sellPayout(partner.id, { lang }), 303);
  if (link.kind === 'unavailable') return providerUnavailable(c, lang);
  return safeRedirect(c, link.to, 303);
}
