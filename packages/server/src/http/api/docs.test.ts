import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../testing/harness.js';

/** The directives of a Content-Security-Policy header, by name. */
function parseCsp(header: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of header.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) directives.set(name.toLowerCase(), sources);
  }
  return directives;
}

/** Every `<script …>` start tag of a page, with its attributes and content. */
function scripts(html: string): { attrs: string; content: string }[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)].map((m) => ({ attrs: m[1]!, content: m[2]! }));
}

function attr(attrs: string, name: string): string | null {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? null;
}

describe('API reference (/docs)', () => {
  it('is served from our own origin under a strict CSP: no other origin, no inline or eval script', async () => {
    const t = createTestApp();
    const res = await t.app.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');

    const csp = parseCsp(res.headers.get('content-security-policy') ?? '');
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    // The one relaxation is inline style (the bundle injects its stylesheet); nothing else.
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    for (const [name, sources] of csp) {
      for (const source of sources) {
        // Keywords and data: only: no scheme://host, no bare host, no wildcard.
        expect(source, `${name} ${source}`).toMatch(/^(?:'self'|'none'|'unsafe-inline'|data:)$/);
        if (source === "'unsafe-inline'") expect(name).toBe('style-src');
      }
    }

    const html = await res.text();
    expect(html).not.toMatch(/cdn/i);
    expect(html).not.toContain('https://');
    expect(html).not.toContain('http://');
    const tags = scripts(html);
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) {
      const src = attr(tag.attrs, 'src');
      if (src !== null) {
        // Same origin: a path, never protocol-relative.
        expect(src).toMatch(/^\/(?!\/)/);
        expect(tag.content).toBe('');
      } else {
        // The configuration block: a data block the browser never executes.
        expect(attr(tag.attrs, 'type')).toBe('application/json');
        expect(tag.content.trim()).toBe('');
      }
    }
    const config = tags.find((s) => attr(s.attrs, 'id') === 'api-reference')!;
    expect(attr(config.attrs, 'data-url')).toBe('/v1/openapi.json');
    const settings = JSON.parse(attr(config.attrs, 'data-configuration')!.replace(/&#34;/g, '"')) as Record<string, unknown>;
    // The default web fonts come from fonts.scalar.com: off.
    expect(settings).toMatchObject({ withDefaultFonts: false, telemetry: false });
    expect((await t.app.request(attr(config.attrs, 'data-url')!)).status).toBe(200);
  });

  it('serves the pinned bundle as JavaScript, immutable, with an ETag and gzip', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    const pinned = pkg.dependencies['@scalar/api-reference']!;
    // An exact version: an upgrade is a reviewed change, never a silent one.
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(pkg.dependencies['@scalar/hono-api-reference']).toBeUndefined();

    const t = createTestApp();
    const html = await (await t.app.request('/docs')).text();
    const src = scripts(html)
      .map((s) => attr(s.attrs, 'src'))
      .find(Boolean)!;
    expect(src).toBe(`/docs/assets/api-reference-${pinned}.js`);

    const res = await t.app.request(src);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeGreaterThan(100_000);
    expect(body.toString('utf8', 0, 2000)).not.toMatch(/<html/i);

    const again = await t.app.request(src, { headers: { 'if-none-match': `W/${etag}` } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');

    const zipped = await t.app.request(src, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    const compressed = Buffer.from(await zipped.arrayBuffer());
    expect(compressed.length).toBeLessThan(body.length / 2);
    expect(gunzipSync(compressed).equals(body)).toBe(true);

    // Only the pinned version's path exists.
    expect((await t.app.request('/docs/assets/api-reference-0.0.1.js')).status).toBe(404);
  });
});
