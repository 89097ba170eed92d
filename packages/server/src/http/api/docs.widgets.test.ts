import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';
import { elementReference, widgetsGuide, WIDGETS_MANIFEST } from './docs.widgets.js';

type Json = any;

/** The custom elements the widgets' build wrote (npm test builds the widgets before Vitest runs). */
function builtElements(): { tagName: string; attributes?: { name: string }[]; events?: { name: string }[]; cssParts?: { name: string }[]; cssProperties?: { name: string }[] }[] {
  const manifest = JSON.parse(readFileSync(WIDGETS_MANIFEST, 'utf8')) as Json;
  return manifest.modules.flatMap((m: Json) => m.declarations ?? []).filter((d: Json) => d.customElement && d.tagName);
}

describe('the widgets’ guide in the API reference', () => {
  it('is part of the OpenAPI document, after the overview, with the service’s own script URL, allowed origins, CSP, theming and events', async () => {
    const t = createTestApp();
    const doc = (await (await t.app.request('/v1/openapi.json')).json()) as Json;
    const description = String(doc.info.description);
    const [overview, ...guide] = description.split('\n\n# Widgets\n\n');
    // The API's overview (with the 405 rule) comes first, the guide after it.
    expect(overview).toMatch(/^The official resale market for a ticketing platform\..*Allow` header naming the methods it has\.$/s);
    expect(guide).toHaveLength(1);
    const text = guide[0]!;
    const base = t.deps.config.publicBaseUrl.replace(/\/+$/, '');
    expect(text).toContain(`<script type="module" src="${base}/widgets/v1/resale.js"></script>`);
    for (const heading of ['## One script tag', '## Allow your site\'s origin first', '## Content-Security-Policy', '## Theming', '## Events', '## The way back', '## With a bundler', '## Elements']) expect(text).toContain(heading);
    expect(text).toContain('{"settings": {"allowedOrigins": ["https://tickets.partner.example"]}}');
    expect(text).toContain(`script-src ${new URL(base).origin}`);
  });

  it('lists every element the widgets’ build defines, with each attribute, event, custom property and part it has', async () => {
    expect(existsSync(WIDGETS_MANIFEST)).toBe(true);
    const t = createTestApp();
    const text = String(((await (await t.app.request('/v1/openapi.json')).json()) as Json).info.description);
    const elements = builtElements();
    expect(elements.map((e) => e.tagName)).toEqual(expect.arrayContaining(['resale-access-layer', 'resale-buy-button', 'resale-seat-map', 'resale-sell-actions']));
    for (const el of elements) {
      const start = text.indexOf(`\n### ${el.tagName}\n`);
      expect(start, el.tagName).toBeGreaterThan(0);
      const next = text.indexOf('\n### ', start + 1);
      const section = text.slice(start, next === -1 ? undefined : next);
      for (const a of el.attributes ?? []) expect(section, `${el.tagName} ${a.name}`).toContain(`| \`${a.name}\` |`);
      for (const e of el.events ?? []) expect(section, `${el.tagName} ${e.name}`).toContain(`| \`${e.name}\` |`);
      for (const p of el.cssProperties ?? []) expect(section, `${el.tagName} ${p.name}`).toContain(`| \`${p.name}\` |`);
      for (const p of el.cssParts ?? []) expect(section, `${el.tagName} ${p.name}`).toContain(`| \`${p.name}\` |`);
    }
  });

  it('keeps each table cell on one line with its pipes escaped, and says how to get the reference when the widgets are not built', () => {
    const reference = elementReference({
      modules: [
        {
          declarations: [
            { name: 'NotAnElement' },
            {
              customElement: true,
              tagName: 'resale-demo',
              name: 'ResaleDemo',
              description: 'A demo.',
              attributes: [{ name: 'mode', fieldName: 'mode', type: { text: "'a' | 'b'" }, default: "'a'", description: 'Which\nmode.' }],
              events: [{ name: 'resale-ready', type: { text: 'ResaleReadyEvent' }, description: 'rendered' }],
            },
          ],
        },
      ],
    });
    expect(reference).toBe(
      ['### resale-demo', '', 'A demo.', '', '| Attribute | Property | Type | Description |', '|---|---|---|---|', "| `mode` | `mode` | `'a' \\| 'b'` | Which mode. Default: `'a'`. |", '', '| Event | Type | When |', '|---|---|---|', '| `resale-ready` | `ResaleReadyEvent` | rendered |'].join('\n'),
    );
    expect(widgetsGuide('https://resale.example/', null)).toContain('build the widgets (`npm run build`)');
    expect(widgetsGuide('https://resale.example/', null)).toContain('<script type="module" src="https://resale.example/widgets/v1/resale.js"></script>');
  });
});
