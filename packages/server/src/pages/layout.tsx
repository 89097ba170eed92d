/** @jsxImportSource hono/jsx */
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import { createHash } from 'node:crypto';
import { t, type Lang } from './i18n.js';

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

/** The stylesheet of every page: readable, high contrast, visible focus, no remote fonts. */
export const PAGE_CSS = `*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,Arial,sans-serif;margin:0;background:#f4f4f6;color:#1a1a1f;line-height:1.5;font-size:1rem}
.skip{position:absolute;left:-10000px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
.default-action{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
header{background:#fff;border-bottom:1px solid #d0d0d7;padding:.75rem 1.5rem}.brand{margin:0;font-weight:700}
main{max-width:34rem;margin:0 auto;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
label{display:block;font-weight:600;margin:0 0 .25rem}
input[type=text],input[type=email],input[type=tel]{display:block;width:100%;font:inherit;padding:.6rem .75rem;border:1px solid #6b6b76;border-radius:6px}
input[aria-invalid=true]{border-color:#b00020}
.hint{color:#4a4a55;font-size:.9rem;margin:.25rem 0 1rem}
.error{color:#b00020;font-weight:600;margin:.25rem 0 1rem}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:6px;background:#0b4fb3;color:#fff;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:#fff;color:#0b4fb3;border:1px solid #0b4fb3}
button.danger{background:#b00020}button.danger-outline{background:#fff;color:#b00020;border:1px solid #b00020}
.long{overflow-wrap:anywhere}.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:1rem}
a{color:#0b4fb3}
a:focus,button:focus,input:focus{outline:3px solid #0b4fb3;outline-offset:2px}
table.money{width:100%;border-collapse:collapse;margin:1rem 0}table.money caption{text-align:left;font-weight:600;margin-bottom:.25rem}
table.money th{text-align:left;font-weight:400;padding:.2rem 0}table.money td{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
table.money tr.total th,table.money tr.total td{border-top:1px solid #d0d0d7;padding-bottom:.6rem}table.money tr.total th{font-weight:600}
.confirm{margin:1rem 0}.confirm label{display:inline;font-weight:400}.confirm.invalid{border-left:4px solid #b00020;padding-left:.75rem}`;

/**
 * A page's Content-Security-Policy: the shared stylesheet plus `styles` (each allowed by its
 * hash), images from the service, data: and `imgSrc`, no script. `formAction` adds origins a
 * form's submission may end on: browsers apply `form-action` to every redirect after the POST,
 * so a form whose answer redirects to the partner's sign-in page (Login Force) needs its origin.
 */
export function cspWith(opts: { styles?: readonly string[]; imgSrc?: readonly string[]; widgets?: boolean; formAction?: readonly string[] } = {}): string {
  const styleHashes = [PAGE_CSS, ...(opts.styles ?? [])].map((css) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  const img = ["'self'", 'data:', ...(opts.imgSrc ?? [])].join(' ');
  // The widgets (the seat map): module scripts and their fetches from the service itself only;
  // their styles are constructable stylesheets, which need no style-src entry.
  const widgets = opts.widgets ? "; script-src 'self'; connect-src 'self'" : '';
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
  children?: Child;
}

/** The HTML document of a hosted page. */
export function Layout(props: LayoutProps) {
  const service = t(props.lang, 'serviceName');
  return (
    <html lang={props.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{`${props.title} · ${service}`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <style>{raw(PAGE_CSS)}</style>
        {props.head ?? null}
      </head>
      <body>
        <a class="skip" href="#main">
          {t(props.lang, 'skipToContent')}
        </a>
        <header>
          <p class="brand">{service}</p>
        </header>
        <main id="main">{props.children ?? null}</main>
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
export async function renderPage(c: Context<any, any, any>, node: { toString(): string | Promise<string> }, opts: RenderOptions = {}): Promise<Response> {
  pageHeaders(c, opts.csp);
  const html = await node.toString();
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
