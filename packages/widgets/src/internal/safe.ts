/**
 * Guards for the only server strings that do not end up as text: colours and URLs. Everything
 * else is rendered through Lit text bindings, which never parse markup.
 */

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * The colour when it is `#rgb` or `#rrggbb`, else undefined (the caller falls back to the
 * `--resale-*` token). Anything richer (`url()`, `var()`, `;`) could smuggle CSS, so it is refused.
 */
export function safeColor(value: unknown): string | undefined {
  return typeof value === 'string' && HEX.test(value) ? value : undefined;
}

/**
 * The absolute URL when it resolves to http(s), else undefined (the CTA renders disabled, the
 * image is left out). `javascript:`, `data:` and friends never reach an `href` or `src`.
 */
export function safeUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  try {
    const base = typeof document === 'undefined' ? undefined : document.baseURI;
    const url = new URL(value, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Colours for a surface, taken pairwise-per-field from the first source with a valid value. */
export function pickColors(...sources: ({ background?: unknown; text?: unknown } | null | undefined)[]): { background?: string; text?: string } {
  const out: { background?: string; text?: string } = {};
  for (const s of sources) {
    if (!s) continue;
    out.background ??= safeColor(s.background);
    out.text ??= safeColor(s.text);
  }
  return out;
}

/** Narrowing helper for objects received from outside. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
