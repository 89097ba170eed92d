import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../styles/tokens.js';
import { contrast, INK, inkOn, parseColor } from './seat-colors.js';
import { seatMapStyles } from './seat-map.styles.js';

/** Every fill a seat can stand on with the default tokens: the three zone colours and the surface. */
const FILLS = [TOKENS['zone-none'], TOKENS['zone-some'], TOKENS['zone-cheapest'], TOKENS['color-surface']];

describe('seat colours', () => {
  it('reads hex and rgb() colours', () => {
    expect(parseColor('#0b4fb3')).toEqual([11, 79, 179]);
    expect(parseColor('#fff')).toEqual([255, 255, 255]);
    expect(parseColor('rgb(26, 127, 55)')).toEqual([26, 127, 55]);
    expect(parseColor('rgb(26 127 55 / 0.5)')).toEqual([26, 127, 55]);
    expect(parseColor('var(--x)')).toBeNull();
  });

  it('measures the defects: seats painted in zone colours were 1:1, 1.49:1 and 1.01:1 against their zones', () => {
    expect(contrast(TOKENS['zone-some'], TOKENS['zone-some'])).toBe(1); // a for-sale seat on its own zone
    expect(contrast(TOKENS['zone-some'], TOKENS['zone-cheapest'])).toBeCloseTo(1.49, 2); // a for-sale seat on the cheapest zone
    expect(contrast(TOKENS['zone-selected'], TOKENS['zone-cheapest'])).toBeCloseTo(1.01, 2); // a selected seat there
  });

  it('draws every seat state at 3:1 or more against every zone fill and the surface, whatever the fill', () => {
    for (const fill of FILLS) expect(contrast(INK[inkOn(fill)], fill), fill).toBeGreaterThanOrEqual(4.5);
    // Any fill at all: the two inks split the luminance range, so one of them is >= 3.99:1.
    for (let v = 0; v < 256; v += 5) {
      for (const fill of [`rgb(${v}, ${v}, ${v})`, `rgb(${v}, 0, 0)`, `rgb(0, ${v}, 0)`, `rgb(0, 0, ${v})`, `rgb(${v}, ${255 - v}, 128)`]) {
        expect(contrast(INK[inkOn(fill)], fill), fill).toBeGreaterThanOrEqual(3.99);
      }
    }
    expect(inkOn(TOKENS['zone-some'])).toBe('light');
    expect(inkOn(TOKENS['zone-cheapest'])).toBe('light');
    expect(inkOn(TOKENS['zone-none'])).toBe('dark');
  });

  it('paints zones, never seats, with the zone colours; seats take the ink (solid, ring or selected centre in a ring)', () => {
    const text = seatMapStyles.map((s) => String(s)).join('\n').replace(/\/\*[\s\S]*?\*\//g, '');
    // The one rule that fills with a zone colour targets a zone shape itself or the shapes the map marks as a zone's own.
    const fills = [...text.matchAll(/([^{}]+)\{([^{}]*)\}/g)].filter(([, , body]) => /fill: var\(--_zone\)/.test(body!));
    expect(fills).toHaveLength(1);
    for (const sel of fills[0]![1]!.split(/,(?![^(]*\))/)) expect(sel.trim()).toMatch(/^\[data-area\]:is\(|^\[data-zone-shape\]$/);
    expect(text).toMatch(/\[data-seat\]\s*\{[^}]*stroke: var\(--_ink, #1f2328\)/);
    expect(text).toMatch(/\[data-seat\]\[data-state='sale'\]\s*\{[^}]*fill: var\(--_ink, #1f2328\)/);
    expect(text).toMatch(/\[data-seat\]\[data-state='selected'\]\s*\{[^}]*stroke-width: calc\(var\(--_ring, 1px\) \* 2\.5\)/);
  });
});
