/**
 * WCAG 2.2 contrast, written down once for the server (a partner's brand colour is refused when
 * its own pages would be unreadable) and the widgets (the seat map draws every seat state and
 * label from the colour actually behind it, whatever colours a partner gives its zones).
 * Pure functions of sRGB colours; no DOM.
 */

/** An sRGB colour, each channel 0-255. */
export type Rgb = readonly [number, number, number];

/** What text needs against its background (WCAG 2.2, 1.4.3 AA). */
export const TEXT_CONTRAST = 4.5;
/** What graphics and the parts of controls need against what is next to them (WCAG 2.2, 1.4.11). */
export const GRAPHIC_CONTRAST = 3;

/**
 * The two inks the seat map draws with: the service's text colour and white. On any colour one
 * of them reaches 3.99:1 at least (the worst fill is a grey of luminance 0.18), enough for
 * graphics but not always for text: labels fall back to pure black or white (4.58:1 at least).
 */
export const INK = { dark: '#1f2328', light: '#ffffff' } as const;

/** `[r, g, b]` of `#rgb`, `#rrggbb` (`#rrggbbaa`: alpha ignored), `rgb(r, g, b)`, `rgba(…)` or `rgb(r g b / a)`; null otherwise. */
export function parseColor(value: string): Rgb | null {
  const v = value.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(v);
  if (hex) {
    const h = hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!;
    return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as unknown as Rgb;
  }
  const rgb = /^rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)/.exec(v);
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}

/** `#rrggbb` of a colour (channels rounded and clamped). */
export function toHex(rgb: Rgb): string {
  return `#${rgb.map((c) => Math.min(255, Math.max(0, Math.round(c))).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2.2), 0 (black) to 1 (white). */
export function luminance(color: Rgb | string): number {
  const rgb = typeof color === 'string' ? parseColor(color) : color;
  if (!rgb) return NaN;
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio of two colours, from 1 (the same) to 21 (black on white); NaN when either
 * is not a colour {@link parseColor} reads.
 *
 * @example contrastRatio('#0b4fb3', '#ffffff') // ≈ 7.6
 */
export function contrastRatio(a: Rgb | string, b: Rgb | string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

/** Of `candidates`, the one with the highest contrast against `background` (the first on a tie). */
export function bestContrast(background: string, candidates: readonly string[]): string {
  let best = candidates[0]!;
  for (const c of candidates) if (contrastRatio(c, background) > contrastRatio(best, background)) best = c;
  return best;
}

/**
 * The colours on the way from `from` to `to` in 2 % steps (as `#rrggbb`, channel by channel),
 * while `keep` holds: the last one for which it does (`from` itself when the first step fails),
 * or with `past`, the first for which it does not. Stepping from the start, never bisecting, so
 * a path that is not monotonic never skips a colour that fails.
 */
function walk(from: Rgb, to: Rgb, keep: (c: Rgb) => boolean, past = false): string {
  let kept = from;
  for (let i = 1; i <= 50; i++) {
    const next = parseColor(toHex(from.map((c, k) => c + (to[k]! - c) * (i / 50)) as unknown as Rgb))!;
    if (!keep(next)) return toHex(past ? next : kept);
    kept = next;
  }
  return toHex(kept);
}

/**
 * The colours of the seat map's seats and labels on one fill (a zone's colour, or the surface
 * behind seats outside any zone shape). One definition: the map's seats, its legend and the
 * tests all read it.
 */
export interface SeatPalette {
  /** A seat for sale (a solid disc) and the ring of a selected seat: the ink with the most contrast on the fill, 3:1 at least. */
  ink: string;
  /** A seat not for sale (a thin hollow ring): the ink faded toward the fill until it is just 3:1 against it, so it recedes and still shows. */
  muted: string;
  /** Text on the fill (row letters): 4.5:1 at least. */
  label: string;
  /** The centre of a selected seat: the partner's colour, darkened or lightened until it is 3:1 against the ink ring around it (so the ring reads as a ring). */
  selected: string;
}

/**
 * The {@link SeatPalette} for seats drawn on `fill`, with `selected` (the `zone-selected` token)
 * as the centre of picked seats. Any colour works: an unreadable `fill` counts as white (the
 * map's surface), an unreadable `selected` as the default purple.
 *
 * @example
 * seatPalette('#1a7f37', '#8250df');
 * // { ink: '#ffffff' (5.07:1), muted: '#add1b7' (3.04:1), label: '#ffffff', selected: '#8250df' (5.04:1 in its ring) }
 */
export function seatPalette(fill: string, selected: string): SeatPalette {
  const bg = parseColor(fill) ?? ([255, 255, 255] as const);
  const ink = bestContrast(toHex(bg), [INK.dark, INK.light]);
  const inkRgb = parseColor(ink)!;
  const sel = parseColor(selected) ?? ([130, 80, 223] as const);
  return {
    ink,
    // Toward the fill while it keeps 3:1.
    muted: walk(inkRgb, bg, (c) => contrastRatio(c, bg) >= GRAPHIC_CONTRAST),
    label: contrastRatio(ink, bg) >= TEXT_CONTRAST ? ink : bestContrast(toHex(bg), ['#000000', '#ffffff']),
    // Away from the ink (toward black under a white ring, white under a dark one): the first
    // colour that reaches 3:1 against it.
    selected:
      contrastRatio(sel, inkRgb) >= GRAPHIC_CONTRAST ? toHex(sel) : walk(sel, parseColor(ink === INK.light ? '#000000' : '#ffffff')!, (c) => contrastRatio(c, inkRgb) < GRAPHIC_CONTRAST, true),
  };
}
