import type { Lang } from '@resale/shared/lang';
import { buyBannerComponent, buyConfig, type BuyBannerComponent } from '../../../flows/accesslayer/accesslayer.buy.js';
import type { PartnerRow } from '../../../domain/partners/partners.queries.js';
import { brandingSchema, buyAccessLayerSchema } from '../../../domain/partners/partners.settings.js';
import { partnerBrand } from '../brand.js';
import type { PageBrand } from '../layout.js';

/**
 * What the settings page's preview draws: the hosted pages' header with the partner's brand,
 * and the buy banner as the access layer would answer it. From the stored settings, or from
 * the values being typed (`typed`, the settings form's fields by name), so an administrator
 * sees a change before saving it; a typed value the API would refuse is left out of the
 * preview (the form says why), never drawn half-valid.
 */
export interface PreviewModel {
  brand: PageBrand;
  /** The buy banner's component, or null when none is configured (or the typed JSON does not parse). */
  banner: BuyBannerComponent | null;
  /** Why the typed buy access layer cannot be previewed (its JSON or its schema), if so. */
  bannerProblem: string | null;
}

/** Where the preview's call to action leads: nowhere (the widget draws only an http(s) link; this is not the market). */
const PREVIEW_URL = 'https://preview.invalid/market';
/** The header's way back, drawn as fans see it, leads to the preview itself. */
const PREVIEW_BACK = '#preview';

/** The preview of `partner`'s stored settings, or of the settings being typed over them. */
export function previewOf(partner: Pick<PartnerRow, 'name' | 'settings'>, lang: Lang, typed?: Record<string, string>): PreviewModel {
  const stored = partnerBrand(partner, PREVIEW_BACK);
  const storedBanner = buyConfig(partner as PartnerRow).buyBanner ?? null;
  if (!typed) return { brand: stored, banner: storedBanner ? bannerOf(storedBanner, lang) : null, bannerProblem: null };

  // Each typed branding value alone: a bad logo URL must not hide a good colour from the preview.
  const text = (name: string) => (typed[name] ?? '').trim();
  const shape = brandingSchema.shape;
  const ok = <T>(schema: { safeParse(v: unknown): { success: boolean; data?: T } }, v: string): T | undefined => {
    const got = v === '' ? undefined : schema.safeParse(v);
    return got?.success ? got.data : undefined;
  };
  const displayName = ok<string>(shape.displayName, text('branding.displayName'));
  const brand: PageBrand = displayName
    ? {
        name: displayName,
        logoUrl: ok<string>(shape.logoUrl, text('branding.logoUrl')),
        color: ok<string>(shape.color, text('branding.color')),
        supportUrl: ok<string>(shape.supportUrl, text('branding.supportUrl')),
        termsUrl: ok<string>(shape.termsUrl, text('branding.termsUrl')),
        back: PREVIEW_BACK,
      }
    : { name: partner.name, back: PREVIEW_BACK };

  const json = text('buyAccessLayer');
  if (json === '') {
    // Blank is the default set (the API's null).
    const fallback = buyConfig({ ...partner, settings: { ...partner.settings, buyAccessLayer: null } } as PartnerRow).buyBanner;
    return { brand, banner: fallback ? bannerOf(fallback, lang) : null, bannerProblem: null };
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    return { brand, banner: null, bannerProblem: err instanceof Error ? err.message : String(err) };
  }
  const parsed = buyAccessLayerSchema.safeParse(value);
  if (!parsed.success) return { brand, banner: null, bannerProblem: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { brand, banner: parsed.data.buyBanner ? bannerOf(parsed.data.buyBanner, lang) : null, bannerProblem: null };
}

function bannerOf(b: Parameters<typeof buyBannerComponent>[0], lang: Lang): BuyBannerComponent {
  // Drawn as fans see it while tickets are for sale (the widget draws nothing otherwise).
  return buyBannerComponent(b, lang, { visible: true, url: PREVIEW_URL, enabled: true });
}
