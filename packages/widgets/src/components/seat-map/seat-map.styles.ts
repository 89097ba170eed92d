import { css, unsafeCSS } from 'lit';
import type { SeatPalette } from '@resale/shared/contrast';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

/** The shapes a zone may be drawn with; a zone may be the shape itself or a group of them. */
const shapes = unsafeCSS('path, rect, polygon, polyline, circle, ellipse');

/** The colours seats and labels can stand on: the zone colours and the surface (tokens). */
export const FILL_TOKENS = ['zone-none', 'zone-some', 'zone-cheapest', 'color-surface'] as const;
/** One of {@link FILL_TOKENS}: what the map writes in `data-on`. */
export type FillToken = (typeof FILL_TOKENS)[number];

/** The roles of a {@link SeatPalette}, each a custom property `--_<fill token>-<role>` that the map sets on `.base`. */
export const PALETTE_ROLES = ['ink', 'muted', 'label', 'selected'] as const satisfies readonly (keyof SeatPalette)[];

/**
 * `data-on="<fill token>"` (on a zone, inherited by its seats and labels; on a seat or label
 * beside its zone; on the legend's swatches) selects the palette of that fill: `--_ink`,
 * `--_muted`, `--_label`, `--_selected`. The chart itself is on the surface. No fallbacks: the
 * map sets the palettes in the same task as it first draws the chart, before any paint.
 */
const onFill = unsafeCSS(FILL_TOKENS.map((fill) => `${fill === 'color-surface' ? '.chart,' : ''}[data-on='${fill}']{${PALETTE_ROLES.map((role) => `--_${role}:var(--_${fill}-${role})`).join(';')}}`).join(''));

/**
 * Seats (in the chart and the legend), by state, in colour AND shape, from one definition (the
 * legend draws the same elements with the same attributes on a swatch of the same fill):
 * - not for sale (no `data-state`): a thin hollow ring in `--_muted` (just 3:1 against the fill:
 *   it shows, and recedes);
 * - for sale (`sale`): a solid disc in `--_ink` (the ink with the most contrast on the fill,
 *   3:1 at least whatever the colour), larger where the spacing allows: the boldest mark;
 * - selected (`selected`): a larger disc of `--_selected` in a thick `--_ink` ring.
 * Labels (text) on a zone are drawn in `--_label` (4.5:1 at least). The colours are computed
 * per fill (`seatPalette` in @resale/shared/contrast) from the zone colours as resolved on the
 * host, so a partner's `--resale-zone-*` counts. Zone shapes inside a group are marked
 * `data-zone-shape` by the map: attribute selectors only, since a descendant selector is matched
 * against every one of 20,000 seats (`[data-area] text` is matched against text elements only).
 * The ring is a share of the seat (`--_ring`, set by the map once it has measured a seat; 15 %
 * of the legend's seats), so it looks the same at every zoom. The legend's swatches are outlined
 * (white shows on white). An offer's text wraps; its Select button never shrinks under its
 * label ("Selected", "Elegida"). Seats for sale grow through the CSS `scale` property (not
 * `transform`, which would replace a seat's own transform) by `--_seat-scale`, set from the
 * seats' spacing. Seats not for sale get no transform at all: a stadium has tens of thousands,
 * and each transform costs.
 */
export const seatMapStyles = [
  tokenStyles,
  ctaStyles,
  css`
    :host {
      display: block;
    }
    .base {
      display: grid;
      grid-template-columns: minmax(0, 2fr) minmax(14rem, 1fr);
      gap: var(--_space);
      align-items: start;
    }
    @media (max-width: 40rem) {
      .base {
        grid-template-columns: minmax(0, 1fr);
      }
    }
    .main,
    .sidebar {
      display: grid;
      gap: 0.5rem;
      min-width: 0;
    }
    .toolbar,
    .legend,
    .summary {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem;
    }
    .chart {
      overflow: hidden;
      border: 1px solid var(--_color-border);
      border-radius: var(--_radius);
      /* The fill behind seats drawn outside any zone shape (the map picks their ink for it). */
      background: var(--_color-surface);
      /* At full view a finger scrolls the page; zoomed in, drags and pinches are the map's. */
      touch-action: pan-y;
      user-select: none;
    }
    .chart[data-zoomed] {
      touch-action: none;
    }
    .chart svg,
    .chart img {
      display: block;
      width: 100%;
      height: auto;
      max-height: 70vh;
    }
    /* Labels are drawing: a tap on a row label that grew over a seat reaches the seat. */
    .chart text {
      pointer-events: none;
    }
    .legend {
      gap: 0.25rem 1rem;
      font-size: 0.875rem;
    }
    .legend svg {
      width: 1.25rem;
      height: 1.25rem;
      margin-inline-end: 0.375rem;
      vertical-align: middle;
      --_ring: 1.8px;
    }
    .legend rect {
      stroke: var(--_color-border);
    }
    h3 {
      margin: 0 0 0.5rem;
      font-size: 1rem;
    }
    ul {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.5rem;
    }
    details {
      margin: 0 0 0.5rem;
      border: 1px solid var(--_color-border);
      border-radius: var(--_radius);
    }
    summary {
      box-sizing: border-box;
      min-height: 2.75rem;
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: 0 0.5rem;
      padding: 0.5rem 0.75rem;
      cursor: pointer;
    }
    details ul {
      padding: 0 0.5rem 0.5rem;
    }
    .listing > span {
      min-width: 0;
      overflow-wrap: anywhere;
    }
    .listing {
      display: flex;
      justify-content: space-between;
      align-items: center;
      gap: 0.5rem;
      padding: 0.5rem;
      border: 1px solid var(--_color-border);
      border-radius: var(--_radius);
    }
    .listing[data-selected] {
      border-color: var(--_zone-selected);
      box-shadow: inset 0 0 0 1px var(--_zone-selected);
    }
    button:focus-visible,
    summary:focus-visible,
    [role='button']:focus-visible {
      outline: 3px solid var(--_color-focus);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_color-muted);
    }
    .toggle {
      flex: none;
      white-space: nowrap;
    }
    .toggle,
    .toolbar button {
      min-width: 2.75rem;
      min-height: 2.75rem;
      padding: 0.25rem 0.75rem;
      border: 1px solid var(--_color-primary);
      border-radius: var(--_radius);
      background: var(--_color-surface);
      color: var(--_color-primary);
      font: inherit;
      font-weight: 600;
      cursor: pointer;
    }
    .toggle[aria-pressed='true'] {
      background: var(--_color-primary);
      color: var(--_color-on-primary);
    }
    .toolbar button:disabled {
      border-color: var(--_color-border);
      color: var(--_color-disabled-text);
      cursor: not-allowed;
    }
    .message {
      margin: 0;
      color: var(--_color-error);
      font-weight: 600;
    }
    .clear {
      border: 0;
      background: none;
      color: var(--_color-primary);
      text-decoration: underline;
      font: inherit;
      cursor: pointer;
      min-height: 2.75rem;
    }
    .tooltip {
      position: fixed;
      top: 0;
      left: 0;
      z-index: 1;
      max-width: 16rem;
      padding: 0.375rem 0.5rem;
      border-radius: var(--_radius);
      background: var(--_tooltip-bg);
      color: var(--_tooltip-text);
      font-size: 0.875rem;
      pointer-events: none;
    }
    .tooltip[hidden] {
      display: none;
    }
    [role='button'] {
      cursor: pointer;
    }
    [data-availability='none'] {
      --_zone: var(--_zone-none);
    }
    [data-availability='some'] {
      --_zone: var(--_zone-some);
    }
    [data-availability='cheapest'] {
      --_zone: var(--_zone-cheapest);
    }
    /* Zones (a shape, or the shapes of a group, marked by the map) in their colour, outlined against the surface; never their seats. */
    [data-area]:is(${shapes}),
    [data-zone-shape] {
      fill: var(--_zone);
      stroke: var(--_color-muted);
      stroke-width: 1px;
      vector-effect: non-scaling-stroke;
    }
    [data-area][data-active]:is(${shapes}),
    [data-active] [data-zone-shape] {
      stroke: var(--_color-text);
      stroke-width: 3px;
    }
    ${onFill}
    [data-area] text,
    text[data-on] {
      fill: var(--_label);
    }
    [data-seat] {
      fill: transparent;
      stroke: var(--_muted);
      stroke-width: calc(var(--_ring, 1px) * 0.5);
    }
    [data-seat][data-state] {
      transform-box: fill-box;
      transform-origin: center;
      scale: var(--_seat-scale, 1);
      stroke-width: var(--_ring, 1px);
    }
    [data-seat][data-state='sale'] {
      fill: var(--_ink);
      stroke: var(--_ink);
    }
    [data-seat][data-state='selected'] {
      fill: var(--_selected);
      stroke: var(--_ink);
      stroke-width: calc(var(--_ring, 1px) * 2.5);
      scale: calc(var(--_seat-scale, 1) * 1.15);
    }
  `,
];
