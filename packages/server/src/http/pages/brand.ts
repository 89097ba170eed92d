import type { Context } from 'hono';
import type { PartnerRow } from '../../domain/partners/partners.queries.js';
import { setPageBrand, type PageBrand } from './layout.js';

/**
 * The {@link PageBrand} of a partner's pages from its settings (`branding`), the partner's
 * own name when it has none. `back` is the checked way back to the partner's site, if any;
 * without one, the partner's `siteUrl`, so every branded page has a way back when the partner
 * named its site.
 */
export function partnerBrand(partner: Pick<PartnerRow, 'name' | 'settings'>, back?: string | null): PageBrand {
  // Settings stored before `branding` (or `siteUrl`) existed lack the key.
  const b = partner.settings.branding ?? null;
  return { name: b?.displayName ?? partner.name, logoUrl: b?.logoUrl, color: b?.color, supportUrl: b?.supportUrl, termsUrl: b?.termsUrl, back: back ?? partner.settings.siteUrl ?? null };
}

/** Brands this request's page as the partner's (see {@link partnerBrand}). */
export function brandAsPartner(c: Context<any, any, any>, partner: Pick<PartnerRow, 'name' | 'settings'>, back?: string | null): void {
  setPageBrand(c, partnerBrand(partner, back));
}
