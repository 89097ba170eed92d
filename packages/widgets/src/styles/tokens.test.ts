import { describe, expect, it } from 'vitest';
import { TOKENS, type TokenName } from './tokens.js';

/** WCAG 2.2 relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const n = parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: TokenName, b: TokenName) => {
  const [x, y] = [luminance(TOKENS[a]), luminance(TOKENS[b])];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};

describe('design token defaults meet WCAG 2.2 AA', () => {
  it.each<[TokenName, TokenName]>([
    ['color-text', 'color-surface'],
    ['color-muted', 'color-surface'],
    ['color-on-primary', 'color-primary'],
    ['color-error', 'color-surface'],
    ['color-primary', 'color-surface'],
    ['color-disabled-text', 'color-disabled-bg'],
    ['tooltip-text', 'tooltip-bg'],
    ['color-on-primary', 'zone-selected'],
  ])('text %s on %s: at least 4.5:1', (fg, bg) => {
    expect(contrast(fg, bg)).toBeGreaterThanOrEqual(4.5);
  });

  it.each<[TokenName, TokenName]>([
    ['zone-some', 'color-surface'],
    ['zone-cheapest', 'color-surface'],
    ['zone-selected', 'color-surface'],
    ['color-focus', 'color-surface'],
    ['color-border', 'color-surface'],
  ])('non-text %s on %s: at least 3:1', (fg, bg) => {
    expect(contrast(fg, bg)).toBeGreaterThanOrEqual(3);
  });
});
