import { describe, expect, it } from 'vitest';
import { contrastRatio, GRAPHIC_CONTRAST, seatPalette, TEXT_CONTRAST } from '@resale/shared/contrast';
import { TOKENS } from '../../styles/tokens.js';
import { FILL_TOKENS, PALETTE_ROLES, seatMapStyles } from './seat-map.styles.js';

/** The stylesheet without comments. */
const text = seatMapStyles
  .map((s) => String(s))
  .join('\n')
  .replace(/\/\*[\s\S]*?\*\//g, '');
/** The declarations of the rule whose selector list is exactly `selector`. */
const rule = (selector: string) => [...text.matchAll(/([^{}]+)\{([^{}]*)\}/g)].find(([, sel]) => sel!.trim().replace(/\s+/g, ' ') === selector)?.[2] ?? '';

describe('seat colours', () => {
  it('paints zones, never seats, with the zone colours', () => {
    // The one rule that fills with a zone colour targets a zone shape itself or the shapes the map marks as a zone's own.
    const fills = [...text.matchAll(/([^{}]+)\{([^{}]*)\}/g)].filter(([, , body]) => /fill: var\(--_zone\)/.test(body!));
    expect(fills).toHaveLength(1);
    for (const sel of fills[0]![1]!.split(/,(?![^(]*\))/)) expect(sel.trim()).toMatch(/^\[data-area\]:is\(|^\[data-zone-shape\]$/);
  });

  it('draws each state as the legend does, by colour and shape, from the palette of the fill behind it', () => {
    // Not for sale: a thin hollow ring, muted.
    expect(rule('[data-seat]')).toMatch(/fill: transparent;[\s\S]*stroke: var\(--_muted\);[\s\S]*stroke-width: calc\(var\(--_ring, 1px\) \* 0\.5\)/);
    // For sale: a solid disc in the ink, full ring.
    expect(rule('[data-seat][data-state]')).toMatch(/stroke-width: var\(--_ring, 1px\)/);
    expect(rule("[data-seat][data-state='sale']")).toMatch(/fill: var\(--_ink\);[\s\S]*stroke: var\(--_ink\)/);
    // Selected: the selected colour inside a thick ring of the ink, larger.
    expect(rule("[data-seat][data-state='selected']")).toMatch(/fill: var\(--_selected\);[\s\S]*stroke: var\(--_ink\);[\s\S]*stroke-width: calc\(var\(--_ring, 1px\) \* 2\.5\);[\s\S]*scale: calc/);
    // Labels on a zone: the label ink.
    expect(rule('[data-area] text, text[data-on]')).toMatch(/fill: var\(--_label\)/);
  });

  it('maps every fill to its palette (the chart itself is on the surface)', () => {
    for (const fill of FILL_TOKENS) {
      const body = rule(fill === 'color-surface' ? `.chart,[data-on='${fill}']` : `[data-on='${fill}']`);
      for (const role of PALETTE_ROLES) expect(body, `${fill} ${role}`).toContain(`--_${role}:var(--_${fill}-${role})`);
    }
  });

  it('meets 3:1 for every state and 4.5:1 for labels on the default fills (the computation itself: shared/contrast.test.ts)', () => {
    for (const fill of FILL_TOKENS) {
      const p = seatPalette(TOKENS[fill], TOKENS['zone-selected']);
      for (const c of [p.ink, p.muted]) expect(contrastRatio(c, TOKENS[fill]), `${c} on ${fill}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(contrastRatio(p.selected, p.ink)).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(contrastRatio(p.label, TOKENS[fill])).toBeGreaterThanOrEqual(TEXT_CONTRAST);
    }
  });
});
