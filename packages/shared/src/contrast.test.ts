import { describe, expect, it } from 'vitest';
import { bestContrast, contrastRatio, GRAPHIC_CONTRAST, INK, parseColor, seatPalette, TEXT_CONTRAST, toHex } from './contrast.js';
import { TOKENS } from './tokens.js';

/** Partner colours at the extremes: black, white, pure yellow (the lightest saturated colour), the default green, and the mid-greys where neither ink reaches 4.5:1. */
const EXTREMES = ['#000000', '#ffffff', '#ffff00', '#1a7f37', '#777777', '#808080'];
/** Colours a partner may give the selected seats: the default, and the extremes again. */
const SELECTED = [TOKENS['zone-selected'], '#000000', '#ffffff', '#ffff00', '#1f2328', '#777777'];

/** Every state of a seat on `fill` against it, and the label. */
function figures(fill: string, selected: string = TOKENS['zone-selected']) {
  const p = seatPalette(fill, selected);
  return { forSale: contrastRatio(p.ink, fill), notForSale: contrastRatio(p.muted, fill), selectedRing: contrastRatio(p.ink, fill), centreInRing: contrastRatio(p.selected, p.ink), label: contrastRatio(p.label, fill) };
}

/** Fills across the whole colour space: greys, the primaries' ramps, and a mixed sweep, every 5 steps. */
function* sweep(): Generator<string> {
  for (let v = 0; v < 256; v += 5) for (const c of [[v, v, v], [v, 0, 0], [0, v, 0], [0, 0, v], [v, 255 - v, 128], [255, v, 0], [v, 255, 255]] as const) yield toHex(c);
}

describe('contrast', () => {
  it('reads hex and rgb() colours, and computes WCAG ratios', () => {
    expect(parseColor('#0b4fb3')).toEqual([11, 79, 179]);
    expect(parseColor('#fff')).toEqual([255, 255, 255]);
    expect(parseColor('#1a7f37cc')).toEqual([26, 127, 55]);
    expect(parseColor('rgb(26, 127, 55)')).toEqual([26, 127, 55]);
    expect(parseColor('rgba(26, 127, 55, 0.5)')).toEqual([26, 127, 55]);
    expect(parseColor('rgb(26 127 55 / 0.5)')).toEqual([26, 127, 55]);
    expect(parseColor('var(--x)')).toBeNull();
    expect(contrastRatio('#000000', '#ffffff')).toBe(21);
    expect(contrastRatio('#777777', '#777777')).toBe(1);
    expect(contrastRatio('#0b4fb3', '#ffffff')).toBeCloseTo(7.54, 2);
    expect(contrastRatio('nope', '#ffffff')).toBeNaN();
    expect(bestContrast('#ffff00', [INK.light, INK.dark])).toBe(INK.dark);
  });

  it('measures the defects the seat map had: row letters #33333d on #1a7f37 at 2.46:1, seats in zone colours at 1:1', () => {
    expect(contrastRatio('#33333d', TOKENS['zone-cheapest'])).toBeCloseTo(2.46, 2);
    expect(contrastRatio(TOKENS['zone-some'], TOKENS['zone-some'])).toBe(1);
    expect(contrastRatio(TOKENS['zone-selected'], TOKENS['zone-cheapest'])).toBeCloseTo(1.01, 2);
  });
});

describe('seatPalette: every seat state 3:1 and labels 4.5:1 against the fill, for any colour', () => {
  it.each(EXTREMES)('on %s', (fill) => {
    for (const selected of SELECTED) {
      const f = figures(fill, selected);
      expect(f.forSale, `for sale on ${fill}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(f.notForSale, `not for sale on ${fill}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(f.selectedRing, `selected on ${fill}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(f.centreInRing, `selected ${selected}: centre against its ring on ${fill}`).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(f.label, `label on ${fill}`).toBeGreaterThanOrEqual(TEXT_CONTRAST);
      // Not for sale is muted: never bolder than for sale.
      expect(f.notForSale).toBeLessThanOrEqual(f.forSale);
    }
  });

  it('gives these figures at the extremes (rounded down; written down in seat-map.md)', () => {
    const table = Object.fromEntries(EXTREMES.map((fill) => [fill, Object.fromEntries(Object.entries(figures(fill)).map(([k, v]) => [k, Math.floor(v * 100) / 100]))]));
    expect(table).toEqual({
      '#000000': { forSale: 21, notForSale: 3.14, selectedRing: 21, centreInRing: 5.04, label: 21 },
      '#ffffff': { forSale: 15.79, notForSale: 3, selectedRing: 15.79, centreInRing: 3.13, label: 15.79 },
      '#ffff00': { forSale: 14.71, notForSale: 3.13, selectedRing: 14.71, centreInRing: 3.13, label: 14.71 },
      '#1a7f37': { forSale: 5.07, notForSale: 3.04, selectedRing: 5.07, centreInRing: 5.04, label: 5.07 },
      '#777777': { forSale: 4.47, notForSale: 3.08, selectedRing: 4.47, centreInRing: 5.04, label: 4.68 },
      '#808080': { forSale: 3.99, notForSale: 3.02, selectedRing: 3.99, centreInRing: 3.13, label: 5.31 },
    });
  });

  it('holds across the colour space, and with unreadable colours', () => {
    for (const fill of sweep()) {
      const f = figures(fill);
      expect(Math.min(f.forSale, f.notForSale, f.selectedRing, f.centreInRing), fill).toBeGreaterThanOrEqual(GRAPHIC_CONTRAST);
      expect(f.label, fill).toBeGreaterThanOrEqual(TEXT_CONTRAST);
    }
    // An unreadable fill is the surface (white); an unreadable selected colour the default.
    expect(seatPalette('var(--x)', 'nope')).toEqual(seatPalette('#ffffff', TOKENS['zone-selected']));
  });

  it('draws the default zones with the house inks and keeps the partner’s selected colour when it already stands out', () => {
    expect(seatPalette(TOKENS['zone-cheapest'], TOKENS['zone-selected'])).toEqual({ ink: INK.light, muted: '#add1b7', label: INK.light, selected: TOKENS['zone-selected'] });
    expect(seatPalette(TOKENS['zone-some'], TOKENS['zone-selected']).ink).toBe(INK.light);
    expect(seatPalette(TOKENS['zone-none'], TOKENS['zone-selected']).ink).toBe(INK.dark);
    // Mid-grey: white is 4.48:1, enough for a seat, not for a letter: letters go black (4.69:1).
    expect(seatPalette('#777777', TOKENS['zone-selected'])).toMatchObject({ ink: INK.light, label: '#000000' });
    // A selected colour as dark as the dark ink is lightened until its ring shows around it.
    const p = seatPalette('#ffffff', '#1f2328');
    expect(p.ink).toBe(INK.dark);
    expect(p.selected).not.toBe('#1f2328');
    expect(contrastRatio(p.selected, p.ink)).toBeGreaterThanOrEqual(3);
  });
});
