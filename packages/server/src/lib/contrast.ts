/**
 * WCAG 2.2 contrast of sRGB colours written `#rrggbb` (the only form settings accept).
 * Used to refuse a partner brand colour that would make its own pages unreadable.
 */

/** Relative luminance (WCAG 2.2, 1.4.3) of `#rrggbb`. */
export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1, 7), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio of two colours, from 1 (same) to 21 (black on white).
 *
 * @example contrastRatio('#0b4fb3', '#ffffff') // ≈ 7.6
 */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}
