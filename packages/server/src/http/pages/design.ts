import { TOKENS } from '@resale/shared/tokens';

/**
 * The design system of the hosted pages, as CSS: tokens, type scale, spacing and the
 * components every page is built from. The colours are the widgets' own tokens (imported from
 * the widgets package, plain data), so a fan moving from a widget on the partner's page to a
 * hosted page sees one palette; a partner's brand colour (settings `branding.color`) replaces
 * `--brand` per page.
 *
 * Why a relative import of the widgets' file and not a package export: the server's production
 * build bundles relative imports and leaves packages external (`esbuild --packages=external`),
 * and the file is plain data with no imports, so nothing of Lit reaches the server.
 *
 * Components (class names pages use):
 * - layout: `header.site` (brand, way back), `main`, `footer.site`; `main.wide` for two columns;
 * - `.card` (a surface), `.summary` (order summary), `table.money` (sums that add up);
 * - `.notice` with `.info`, `.ok`, `.warn`, `.error` (role set by the page);
 * - buttons: `button`/`.button` (primary, brand colour), `.secondary`, `.danger`, `.danger-outline`,
 *   `.link-button`; `.actions` (a row of them);
 * - form fields: `label`, `input`, `select`, `.hint`, `.error` (an inline field error);
 * - `.empty` (nothing to show, said kindly), `.muted`, `.long` (wraps long links).
 */

/** Spacing scale (rem): 4, 8, 12, 16, 24, 32, 48 px at the default size. */
const SPACE = ['.25rem', '.5rem', '.75rem', '1rem', '1.5rem', '2rem', '3rem'] as const;
/** Type scale (rem), a major third from 14 px. */
const TYPE = { sm: '.875rem', base: '1rem', lg: '1.25rem', xl: '1.5625rem', xxl: '1.95rem' } as const;

const tokens = [
  `--brand:${TOKENS['color-primary']}`,
  `--on-brand:${TOKENS['color-on-primary']}`,
  `--surface:${TOKENS['color-surface']}`,
  `--canvas:#f6f8fa`,
  `--text:${TOKENS['color-text']}`,
  `--muted:${TOKENS['color-muted']}`,
  `--border:${TOKENS['color-border']}`,
  `--line:${TOKENS['zone-none']}`,
  `--error:${TOKENS['color-error']}`,
  `--ok:${TOKENS['zone-cheapest']}`,
  `--warn:#9a6700`,
  `--radius:${TOKENS.radius}`,
  ...SPACE.map((v, i) => `--s${i + 1}:${v}`),
  ...Object.entries(TYPE).map(([k, v]) => `--t-${k}:${v}`),
].join(';');

/**
 * The stylesheet's design-system part (the start of every page's one stylesheet). `[hidden]` is
 * restored first: the rules below that set `display` (buttons, rows) would otherwise show what
 * a page marks hidden until the pages' script reveals it.
 */
export const DESIGN_CSS = `:root{${tokens}}
*{box-sizing:border-box}
[hidden]{display:none!important}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:0;background:var(--canvas);color:var(--text);line-height:1.5;font-size:var(--t-base);display:flex;flex-direction:column;min-height:100vh}
.skip{position:absolute;left:-10000px}.skip:focus{left:1rem;top:1rem;background:var(--surface);padding:var(--s2);z-index:1}
.default-action{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.visually-hidden{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
header.site{background:var(--surface);border-bottom:1px solid var(--line);padding:var(--s3) var(--s4);display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:center;justify-content:space-between}
header.site .brand{margin:0;font-weight:700;font-size:var(--t-lg);display:flex;align-items:center;gap:var(--s2)}header.site .brand img{display:block;max-height:40px;max-width:12rem;width:auto}
header.site .by{font-size:var(--t-sm);color:var(--muted);font-weight:400}header.site .brand-link{color:inherit;text-decoration:none}header.site .brand-link:hover{text-decoration:underline}
header.site .back{font-weight:600}
main{width:100%;max-width:40rem;margin:0 auto;padding:var(--s5) var(--s4);flex:1}main.wide{max-width:64rem}
footer.site{border-top:1px solid var(--line);background:var(--surface);color:var(--muted);font-size:var(--t-sm);padding:var(--s4);text-align:center}footer.site p{margin:0 0 var(--s1)}footer.site a{color:var(--muted)}
footer.site nav{display:flex;justify-content:center;flex-wrap:wrap;gap:var(--s2) var(--s4)}
h1{font-size:var(--t-xxl);line-height:1.2;margin:0 0 var(--s4)}h2{font-size:var(--t-lg);margin:var(--s5) 0 var(--s3)}h3{font-size:var(--t-base);margin:var(--s4) 0 var(--s2)}
p{margin:0 0 var(--s3)}form:not(:last-child){margin-bottom:var(--s4)}
.muted{color:var(--muted)}.long{overflow-wrap:anywhere}
.card{background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s4);margin:0 0 var(--s4)}
.summary{background:var(--surface);border:1px solid var(--line);border-radius:12px;padding:var(--s4)}.card>:first-child,.summary>:first-child{margin-top:0}.card>:last-child{margin-bottom:0}
.notice{border-left:4px solid var(--brand);background:var(--surface);padding:var(--s3) var(--s4);border-radius:0 var(--radius) var(--radius) 0;margin:0 0 var(--s4)}
.notice.ok{border-color:var(--ok)}.notice.warn{border-color:var(--warn)}.notice.error{border-color:var(--error)}.notice>:last-child{margin-bottom:0}
.empty{text-align:center;color:var(--muted);padding:var(--s5) var(--s4);border:1px dashed var(--border);border-radius:12px;background:var(--surface)}
label{display:block;font-weight:600;margin:0 0 var(--s1)}
fieldset{border:1px solid var(--line);border-radius:var(--radius);padding:var(--s3) var(--s4);margin:var(--s4) 0;min-width:0}legend{font-weight:600;padding:0 var(--s1)}
input[type=checkbox],input[type=radio]{width:1.25rem;height:1.25rem;vertical-align:-.2rem;accent-color:var(--brand)}
input[type=text],input[type=email],input[type=tel],input[type=number],input[type=password],input:not([type]),select{display:block;width:100%;min-height:2.75rem;font:inherit;padding:var(--s2) var(--s3);border:1px solid var(--border);border-radius:var(--radius);background:var(--surface);color:var(--text)}
input[aria-invalid=true]{border:2px solid var(--error)}
.hint{color:var(--muted);font-size:var(--t-sm);margin:var(--s1) 0 var(--s3)}
.error{color:var(--error);font-weight:600;margin:var(--s1) 0 var(--s3)}
button,.button{display:inline-flex;align-items:center;justify-content:center;min-height:2.75rem;font:inherit;font-weight:600;padding:var(--s2) var(--s4);border:1px solid var(--brand);border-radius:var(--radius);background:var(--brand);color:var(--on-brand);cursor:pointer;text-decoration:none;text-align:center}
button:hover,.button:hover{filter:brightness(.92)}
button.secondary,.button.secondary{background:var(--surface);color:var(--brand)}
button.danger{background:var(--error);border-color:var(--error);color:#fff}button.danger-outline{background:var(--surface);color:var(--error);border-color:var(--error)}
button.link-button{background:none;border:0;padding:0;min-height:0;color:var(--brand);text-decoration:underline;font-weight:400}
button:disabled{background:#eaeef2;color:var(--muted);border-color:var(--border);cursor:not-allowed;filter:none}
.actions{display:flex;flex-wrap:wrap;gap:var(--s2);align-items:center;margin-top:var(--s4)}
a{color:var(--brand)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--brand);outline-offset:2px}
table.money{width:100%;border-collapse:collapse;margin:var(--s3) 0}table.money caption{text-align:left;font-weight:600;margin-bottom:var(--s1)}
table.money th{text-align:left;font-weight:400;padding:var(--s1) 0}table.money td{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
table.money tr.total th,table.money tr.total td{border-top:1px solid var(--line);padding-bottom:var(--s2);font-weight:700}
.confirm{margin:var(--s3) 0}.confirm label{display:inline;font-weight:400}.confirm.invalid{border-left:4px solid var(--error);padding-left:var(--s3)}
@media (max-width:480px){main{padding:var(--s4) var(--s3)}header.site{padding:var(--s2) var(--s3)}h1{font-size:var(--t-xl)}}`;
