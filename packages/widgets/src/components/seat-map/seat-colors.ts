/**
 * Contrast of the seat map's graphics (WCAG 2.2, 1.4.11: 3:1 for graphics). Pure functions: the
 * map computes, per zone, the colour actually painted behind its seats and draws the seats in
 * the ink that stands out most on it.
 */

/** The two inks seats are drawn in: one of them is never under 3.99:1 against any colour (4.58 with pure black; the dark ink is the text colour). */
export const INK = { dark: '#1f2328', light: '#ffffff' } as const;

/** Which ink to draw on a fill: `light` on dark fills, `dark` on light ones. */
export type Ink = keyof typeof INK;

/** `[r, g, b]` (0-255) of `#rgb`, `#rrggbb`, `rgb(r, g, b)` or `rgb(r g b / a)`; null otherwise. */
export function parseColor(value: string): [number, number, number] | null {
  const v = value.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(v);
  if (hex) {
    const h = hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!;
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(v);
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}

/** Relative luminance (WCAG). */
export function luminance([r, g, b]: readonly [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Contrast ratio of two colours (1 to 21); NaN when either is not a colour {@link parseColor} reads. */
export function contrast(a: string, b: string): number {
  const ca = parseColor(a);
  const cb = parseColor(b);
  if (!ca || !cb) return NaN;
  const [hi, lo] = [luminance(ca), luminance(cb)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The ink with the higher contrast against `fill` (never under 3.99:1 whatever the fill, since the
 * two split the luminance range). An unreadable fill counts as light: the map's
 * surface is.
 *
 * @example
 * inkOn('#0b4fb3'); // 'light'
 * inkOn('#d0d7de'); // 'dark'
 */
export function inkOn(fill: string): Ink {
  return contrast(fill, INK.light) > contrast(fill, INK.dark) ? 'light' : 'dark';
}
