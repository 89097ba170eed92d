/** @jsxImportSource hono/jsx */
import type { Lang } from '@resale/shared/lang';
import type { Context } from 'hono';
import { raw } from 'hono/html';
import { createContext, useContext, type Child } from 'hono/jsx';
import { createHash } from 'node:crypto';
import { DESIGN_CSS } from './design.js';
import { t } from '../../lib/i18n.js';

/**
 * The shell of every hosted page: a minimal, accessible HTML document (language, title,
 * viewport, skip link, one `<main>`), one inline stylesheet allowed by its hash, and the
 * response headers of pages that may carry personal data.
 *
 * - `Layout` renders the document; put the page's content in its children.
 * - `renderPage(c, node, opts)` answers it with `<!DOCTYPE html>`, the status and the
 *   headers: a strict Content-Security-Policy (no script, no remote resource, forms post
 *   to the service only), `Cache-Control: no-store`, `Referrer-Policy: no-referrer` (URLs
 *   of hosted pages may carry tokens), `X-Content-Type-Options: nosniff`, no framing.
 *   A page that needs more (the widgets' script) passes its own `csp`.
 * - `NoticePage` / `noticePage` is a plain message page (expired link, 403, 404, 429).
 *
 * hono/jsx escapes every interpolated value; never pass user data through `raw`.
 *
 * @example
 * return renderPage(c, <Layout lang={lang} title="Sell"><h1>Sell</h1></Layout>);
 * return noticePage(c, { lang, status: 404, title: t(lang, 'notFoundTitle'), text: t(lang, 'notFoundText') });
 */

/**
 * The stylesheet of every page: the design system (http/pages/design.ts) and the rules pages add
 * after it. Readable, high contrast, visible focus, no remote fonts.
 */
export const PAGE_CSS = `${DESIGN_CSS}
.checkout{display:grid;gap:var(--s4);align-items:start}.checkout>*{min-width:0;margin:0}
@media (min-width:900px){.checkout{grid-template-columns:minmax(0,5fr) minmax(0,6fr)}}
.summary-event{font-size:var(--t-lg);line-height:1.3}
.summary-tickets{list-style:none;padding:0;margin:0 0 var(--s3)}.summary-tickets li{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s1) var(--s3);padding:var(--s2) 0;border-top:1px solid var(--line)}
.summary-tickets .place{font-weight:600;flex:1 1 100%}.summary-tickets .button{min-height:2.75rem}
.field{margin:0 0 var(--s3)}.field-row{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:var(--s3)}
.field-error{color:var(--error);font-weight:600;margin:0 0 var(--s1)}
.error-summary{border:3px solid var(--error);border-radius:12px;background:var(--surface);padding:var(--s3) var(--s4);margin:0 0 var(--s4)}
.error-summary h2{margin:0 0 var(--s2);font-size:var(--t-lg)}.error-summary ul{margin:0;padding-left:var(--s4)}.error-summary a{color:var(--error);font-weight:600}
.error-summary:focus,.notice:focus{outline:3px solid var(--brand);outline-offset:2px}
.countdown{background:var(--surface);border:1px solid var(--line);border-left:4px solid var(--brand);border-radius:0 var(--radius) var(--radius) 0;padding:var(--s3) var(--s4);margin:0 0 var(--s4)}
.countdown p{margin:0}.countdown-left{font-size:var(--t-lg);margin-bottom:var(--s1)!important}
.countdown-clock{font-size:var(--t-xl);font-weight:700;font-variant-numeric:tabular-nums}
.countdown[data-countdown-state=ended]{border-left-color:var(--error)}.countdown-ended{margin-top:var(--s2)!important;color:var(--error)}
.pay .pay-button{width:100%;margin-top:var(--s2)}.pay .trust p{margin:var(--s2) 0 0;font-size:var(--t-sm);color:var(--muted)}.card-brand{min-height:1.25em;margin:var(--s1) 0 0}.pay h2,.summary h2{margin-top:0}.field-row{align-items:end}
.notice.declined{border-left-color:var(--error)}.notice.declined h2{margin:0 0 var(--s2);color:var(--error)}
.receipt h2{margin-top:0}.receipt .reference code{font-size:var(--t-lg);font-weight:700;overflow-wrap:anywhere}@media (max-width:480px){.receipt .reference code{font-size:var(--t-base)}}
.receipt dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:var(--s1) var(--s4);margin:0 0 var(--s3)}.receipt dt{color:var(--muted)}.receipt dd{margin:0}
`;

/**
 * A page's Content-Security-Policy: the shared stylesheet plus `styles` (each allowed by its
 * hash), images from the service, data: and `imgSrc`, no script (`scripts: true` allows the
 * pages' own script from the service, http/pages/page-script.ts; `widgets: true` the widgets' modules
 * and their fetches). `formAction` adds origins a form's submission may end on: browsers apply
 * `form-action` to every redirect after the POST, so a form whose answer redirects to the
 * partner's sign-in page (Login Force) needs its origin. `provider` adds exactly what a hosted
 * payment provider's script needs on the checkout (its script, frames, API calls and images:
 * Stripe.js and the Payment Element), and implies `scripts`.
 */
export function cspWith(
  opts: { styles?: readonly string[]; imgSrc?: readonly string[]; widgets?: boolean; scripts?: boolean; fetches?: boolean; formAction?: readonly string[]; provider?: { scriptSrc: readonly string[]; frameSrc: readonly string[]; connectSrc: readonly string[]; imgSrc: readonly string[] } } = {},
): string {
  const styleHashes = [PAGE_CSS, ...(opts.styles ?? [])].map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  const p = opts.provider;
  const img = ["'self'", 'data:', ...(opts.imgSrc ?? []), ...(p?.imgSrc ?? [])].join(' ');
  // The widgets (the seat map): module scripts and their fetches from the service itself only;
  // their styles are constructable stylesheets, which need no style-src entry.
  // `scripts`: the pages' own scripts (http/pages/page-script.ts), served by the service; still no
  // inline script. `fetches`: those scripts may call the service (the console's passkeys).
  const widgets = p
    ? `; script-src 'self' ${p.scriptSrc.join(' ')}; frame-src ${p.frameSrc.join(' ')}; connect-src ${p.connectSrc.join(' ')}`
    : opts.widgets || (opts.scripts && opts.fetches)
      ? "; script-src 'self'; connect-src 'self'"
      : opts.scripts
        ? "; script-src 'self'"
        : '';
  const formAction = ["'self'", ...(opts.formAction ?? [])].join(' ');
  return `default-src 'none'; style-src ${styleHashes.join(' ')}; img-src ${img}${widgets}; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`;
}

/** The default policy: the page's stylesheet, images from the service or data:, no script. */
export const PAGE_CSP = cspWith();

export interface LayoutProps {
  lang: Lang;
  /** The page's own title; the service name is appended. */
  title: string;
  /** Extra elements for `<head>` (for example a `<link rel="preload">`). */
  head?: Child;
  /** Two columns on wide screens (the checkout's form beside its summary). */
  wide?: boolean;
  children?: Child;
}

/**
 * Who a page is for: the partner's name or logo in the header, its colour, its help and terms
 * in the footer, and the checked way back to its site. Set per request with
 * {@link setPageBrand}; pages without one (the landing page, a link of unknown partner) show
 * the service's own header.
 */
export interface PageBrand {
  name: string;
  logoUrl?: string | undefined;
  /** `#rrggbb`, checked for contrast when the operator set it. */
  color?: string | undefined;
  supportUrl?: string | undefined;
  termsUrl?: string | undefined;
  /** The partner page the fan came from (checked against the partner's origins). */
  back?: string | null | undefined;
}

const BrandContext = createContext<PageBrand | null>(null);
const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** Brands the page this request renders (see {@link PageBrand}); call before {@link renderPage}. */
export function setPageBrand(c: Context<any, any, any>, brand: PageBrand): void {
  c.set('pageBrand', brand);
}

/** The brand this request's page renders with (set by {@link setPageBrand}), or null. */
export function pageBrandOf(c: Context<any, any, any>): PageBrand | null {
  return (c.get('pageBrand') as PageBrand | undefined) ?? null;
}

/** The inline rule that gives a page the partner's colour (its own CSP hash), or null. */
function brandCss(brand: PageBrand | null): string | null {
  return brand?.color && HEX_COLOUR.test(brand.color) ? `:root{--brand:${brand.color}}` : null;
}

const hashOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;

/** The page's policy widened for its brand: the colour rule's hash, the logo's origin. */
function brandedCsp(csp: string, brand: PageBrand): string {
  const css = brandCss(brand);
  let out = css ? csp.replace('style-src ', `style-src ${hashOf(css)} `) : csp;
  if (brand.logoUrl) {
    try {
      out = out.replace('img-src ', `img-src ${new URL(brand.logoUrl).origin} `);
    } catch {
      // Settings accept https URLs only; an unparsable one simply shows no logo's origin.
    }
  }
  return out;
}

/**
 * The hosted pages' header: the partner's logo or name with the service's, and the way back
 * to the partner's site when one is known; the service's name alone without a brand. The
 * console's branding preview renders this same header with the typed settings.
 */
export function SiteHeader(props: { lang: Lang; brand: PageBrand | null }) {
  const { brand } = props;
  const service = t(props.lang, 'serviceName');
  return (
    <header class="site">
      <p class="brand">
        {/* The brand is the way back too, whenever one is known (fans click a logo to go home). */}
        {brand?.back ? (
          <a class="brand-link" href={brand.back}>
            {brand.logoUrl ? <img src={brand.logoUrl} alt={brand.name} height="40" /> : brand.name}
          </a>
        ) : brand?.logoUrl ? (
          <img src={brand.logoUrl} alt={brand.name} height="40" />
        ) : (
          (brand?.name ?? service)
        )}
        {brand ? <span class="by">{service}</span> : null}
      </p>
      {brand?.back ? (
        <a class="back" href={brand.back}>
          {t(props.lang, 'backTo', { name: brand.name })}
        </a>
      ) : null}
    </header>
  );
}

/** The HTML document of a hosted page. */
export function Layout(props: LayoutProps) {
  const brand = useContext(BrandContext);
  const service = t(props.lang, 'serviceName');
  const css = brandCss(brand);
  const links = brand ? [brand.supportUrl && { href: brand.supportUrl, label: t(props.lang, 'help') }, brand.termsUrl && { href: brand.termsUrl, label: t(props.lang, 'terms') }].filter((l): l is { href: string; label: string } => Boolean(l)) : [];
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{`${props.title} · ${brand ? brand.name : service}`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <style>{raw(PAGE_CSS)}</style>
        {css ? <style>{raw(css)}</style> : null}
        {props.head ?? null}
      </head>
      <body>
        <a class="skip" href="#main">
          {t(props.lang, 'skipToContent')}
        </a>
        <SiteHeader lang={props.lang} brand={brand} />
        <main id="main" class={props.wide ? 'wide' : undefined}>
          {props.children ?? null}
        </main>
        <footer class="site">
          <p>{brand ? t(props.lang, 'officialResaleOf', { name: brand.name }) : t(props.lang, 'footerService')}</p>
          {links.length > 0 ? (
            <nav aria-label={t(props.lang, 'footerLinks')}>
              {links.map((l) => (
                <a href={l.href}>{l.label}</a>
              ))}
            </nav>
          ) : null}
        </footer>
      </body>
    </html>
  );
}

/** Options of {@link renderPage}. */
export interface RenderOptions {
  /** HTTP status; default 200. */
  status?: number;
  /** A Content-Security-Policy replacing {@link PAGE_CSP}. */
  csp?: string;
}

/** Sets the headers every hosted page carries (see the module comment). */
export function pageHeaders(c: Context<any, any, any>, csp: string = PAGE_CSP): void {
  c.header('Content-Security-Policy', csp);
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
}

/**
 * Answers a rendered page: doctype, status and the page headers.
 *
 * @example return renderPage(c, <Layout lang="en" title="Hi"><h1>Hi</h1></Layout>, { status: 201 });
 */
export async function renderPage(c: Context<any, any, any>, node: Child, opts: RenderOptions = {}): Promise<Response> {
  const brand = pageBrandOf(c);
  const csp = opts.csp ?? PAGE_CSP;
  pageHeaders(c, brand ? brandedCsp(csp, brand) : csp);
  // An async component anywhere in the tree makes toString() a promise (typed as a string).
  const html = await Promise.resolve((<BrandContext.Provider value={brand}>{node}</BrandContext.Provider>).toString());
  return c.html('<!DOCTYPE html>' + html, (opts.status ?? 200) as 200);
}

export interface NoticeProps {
  lang: Lang;
  title: string;
  text: string;
  /** An optional way on (a link styled as a button). */
  link?: { href: string; label: string } | undefined;
}

/** A page that only says something: a heading, a paragraph, maybe a link. */
export function NoticePage(props: NoticeProps) {
  return (
    <Layout lang={props.lang} title={props.title}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      {props.link ? (
        <p>
          <a class="button" href={props.link.href}>
            {props.link.label}
          </a>
        </p>
      ) : null}
    </Layout>
  );
}

/**
 * Answers a {@link NoticePage} with `status` (and `headers`, for example `Retry-After`).
 *
 * @example return noticePage(c, { lang, status: 403, title: t(lang, 'formExpiredTitle'), text: t(lang, 'formExpiredText') });
 */
export function noticePage(c: Context<any, any, any>, props: NoticeProps & { status: number; headers?: Record<string, string> }): Promise<Response> {
  for (const [name, value] of Object.entries(props.headers ?? {})) c.header(name, value);
  return renderPage(c, <NoticePage lang={props.lang} title={props.title} text={props.text} link={props.link} />, { status: props.status });
}
