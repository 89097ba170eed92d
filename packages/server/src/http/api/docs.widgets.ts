import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_ROOT } from '../../lib/paths.js';

/**
 * The widgets' guide in the API reference (`/docs`): how a partner developer puts resale on
 * their pages with one script tag, and every element's attributes, events, CSS custom
 * properties and parts. The how-to is written here; the element reference is generated from
 * the custom elements manifest (`packages/widgets/dist/custom-elements.json`, written by the
 * widgets' build from the components' JSDoc), so it says what the shipped bundle has.
 *
 * It reaches the document as the second part of `info.description`, after the API's overview:
 * Scalar renders that Markdown in full at the top of the reference, and its `# Widgets` heading
 * is the anchor `/docs#description/widgets` that the landing page links to. (A tag's
 * description was tried first: Scalar shows it in a box of a few lines that scrolls.)
 */

/** The reference's address of the guide: the anchor Scalar gives the `# Widgets` heading. */
export const WIDGETS_GUIDE_PATH = '/docs#description/widgets';

/** The part of a custom elements manifest the guide reads (schema 2.x). */
interface Manifest {
  modules: { declarations?: Declaration[] }[];
}
interface Declaration {
  customElement?: boolean;
  tagName?: string;
  name: string;
  description?: string;
  attributes?: { name: string; fieldName?: string; type?: { text: string }; default?: string; description?: string }[];
  events?: { name: string; type?: { text: string }; description?: string }[];
  cssProperties?: { name: string; description?: string; default?: string }[];
  cssParts?: { name: string; description?: string }[];
}

/** Where the widgets' build writes the manifest (the service serves the same dist/ at /widgets/v1/). */
export const WIDGETS_MANIFEST = join(SERVER_ROOT, '../widgets/dist/custom-elements.json');

/** The manifest, read once per process; null when the widgets are not built. */
let cached: Manifest | null | undefined;
function readManifest(): Manifest | null {
  if (cached !== undefined) return cached;
  try {
    cached = JSON.parse(readFileSync(WIDGETS_MANIFEST, 'utf8')) as Manifest;
  } catch {
    cached = null;
  }
  return cached;
}

/** Text of a manifest description for a Markdown table cell: one line, pipes escaped. */
function cell(text: string | undefined): string {
  return (text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
}

/** The element reference: one section per custom element, from the manifest. */
export function elementReference(manifest: Manifest): string {
  const elements = manifest.modules
    .flatMap((m) => m.declarations ?? [])
    .filter((d): d is Declaration & { tagName: string } => Boolean(d.customElement && d.tagName))
    .sort((a, b) => a.tagName.localeCompare(b.tagName));
  return elements
    .map((el) => {
      const parts: string[] = [`### ${el.tagName}`, '', (el.description ?? '').trim()];
      if (el.attributes?.length) {
        parts.push('', '| Attribute | Property | Type | Description |', '|---|---|---|---|');
        for (const a of el.attributes) parts.push(`| \`${a.name}\` | ${a.fieldName ? `\`${a.fieldName}\`` : ''} | \`${cell(a.type?.text)}\` | ${cell(a.description)}${a.default ? ` Default: \`${cell(a.default)}\`.` : ''} |`);
      }
      if (el.events?.length) {
        parts.push('', '| Event | Type | When |', '|---|---|---|');
        for (const e of el.events) parts.push(`| \`${e.name}\` | ${e.type ? `\`${cell(e.type.text)}\`` : ''} | ${cell(e.description)} |`);
      }
      if (el.cssProperties?.length) {
        parts.push('', '| CSS custom property | What it sets |', '|---|---|');
        for (const p of el.cssProperties) parts.push(`| \`${p.name}\` | ${cell(p.description)}${p.default ? ` Default: \`${cell(p.default)}\`.` : ''} |`);
      }
      if (el.cssParts?.length) {
        parts.push('', '| Part (`::part(…)`) | What it is |', '|---|---|');
        for (const p of el.cssParts) parts.push(`| \`${p.name}\` | ${cell(p.description)} |`);
      }
      return parts.join('\n');
    })
    .join('\n\n');
}

/**
 * The guide's Markdown for a service at `baseUrl`, with the element reference from `manifest`
 * (by default the built widgets'; without one, the guide says how to build it).
 *
 * @example widgetsGuide('https://resale.example') // '## One script tag\n…'
 */
export function widgetsGuide(baseUrl: string, manifest: Manifest | null = readManifest()): string {
  const base = baseUrl.replace(/\/+$/, '');
  const origin = (() => {
    try {
      return new URL(base).origin;
    } catch {
      return base;
    }
  })();
  return `# Widgets

Web components that put resale on the partner's own pages: the buy banner, modal, button
and categories list of the buy access layer, the seat map, and the sell banner and actions of a
My tickets page. They fetch with the **public key**, render server strings as text only, and
style themselves inside their shadow roots.

## One script tag

\`\`\`html
<script type="module" src="${base}/widgets/v1/resale.js"></script>
<resale-access-layer event-id="tour-2026" show-id="show-1" public-key="pk_live_…"></resale-access-layer>
\`\`\`

\`<resale-access-layer>\` fetches the buy access layer (\`GET /v1/wrapper/accesslayer\`) for the
event's show and renders each component it receives, in the partner's branding and language
(\`lang\`, else the page's \`<html lang>\`; \`en\` and \`es\`). When nothing is for sale it renders
nothing. The seat map, and DOMPurify for SVG charts, load as separate chunks only when a map is
shown.

Partners that call the API from their own server (the sell access layer, Login Trust) pass what
it answered instead: \`.components\` on \`<resale-access-layer>\`, \`.component\` on a single
component, \`.entry\` on \`<resale-sell-actions>\`.

## Allow your site's origin first

The public key works only from the partner's **allowed origins**: a request from any other
origin answers 403 \`origin_not_allowed\`, and the element renders nothing and fires
\`resale-error\`. The operator sets them, origins only (scheme, host and port; no path):

\`\`\`http
PATCH ${base}/admin/v1/partners/{partnerId}
Authorization: Bearer <OPERATOR_TOKEN>
Content-Type: application/json

{"settings": {"allowedOrigins": ["https://tickets.partner.example"]}}
\`\`\`

## Content-Security-Policy

A page with a CSP needs these entries, and nothing else (no \`'unsafe-inline'\`, no
\`'unsafe-eval'\`):

- \`script-src ${origin}\`
- \`connect-src ${origin}\`
- \`img-src\` the hosts of the images your components carry (the event's images, the seat map's chart)

The widgets set colours through CSSOM and use constructable stylesheets, so \`style-src\` needs
no exception.

## Theming

Each element reads \`--resale-*\` CSS custom properties (colours, radius, font) from the page,
and exposes its pieces as \`::part\`s; colours sent by the server (a partner's branding, a call to
action's colours) are used only when they are \`#rgb\` or \`#rrggbb\`. Both are listed per element
below.

\`\`\`css
resale-buy-button { --resale-color-primary: #0b4fb3; --resale-color-on-primary: #fff; }
resale-buy-banner::part(title) { font-family: "Partner Sans", system-ui, sans-serif; }
\`\`\`

## Events

All bubble out of the shadow root (\`composed\`) and are typed in \`GlobalEventHandlersEventMap\`:

- \`resale-cta-click\` (\`ResaleCtaClickEvent\`): before a call to action navigates;
  \`preventDefault()\` to navigate yourself (\`event.detail.url\`; the seat map adds
  \`detail.listingIds\`).
- \`resale-ready\`: the element has rendered what it received.
- \`resale-error\`: a fetch failed (an origin not allowed, a wrong key, the network); the element
  renders nothing.

\`\`\`js
document.addEventListener('resale-cta-click', (event) => {
  event.preventDefault();
  router.navigate(event.detail.url);
});
\`\`\`

## The way back

Every buy widget carries the page's address to the market as \`returnTo\` (its \`return-to\`
attribute, else the page it is on); the market, the checkout and the receipt link back to it
when it is on one of the allowed origins.

## With a bundler

The package \`@resale/widgets\` ships the same elements as ES modules with types:
\`import '@resale/widgets'\` defines every element but the map, \`import '@resale/widgets/seat-map'\`
the map. Give \`<resale-access-layer>\` an explicit \`api-base="${base}"\` there (its default is
the origin the script was loaded from, which in a bundle is your own site).

## Elements

${manifest ? elementReference(manifest) : '_The element reference is generated from the widgets\' custom elements manifest, which this server cannot find: build the widgets (`npm run build`)._'}
`;
}
