import { describe, expect, it } from 'vitest';
import { contrastRatio } from '@resale/shared/contrast';
import { TOKENS, type TokenName } from './tokens.js';

const contrast = (a: TokenName, b: TokenName) => contrastRatio(TOKENS[a], TOKENS[b]);

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
