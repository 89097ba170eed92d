import { css, unsafeCSS } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';
import { INK } from './seat-colors.js';

/** The shapes a zone may be drawn with; a zone may be the shape itself or a group of them. */
const shapes = unsafeCSS('path, rect, polygon, polyline, circle, ellipse');
const inkDark = unsafeCSS(INK.dark);
const inkLight = unsafeCSS(INK.light);

/**
 * Seats (in the chart and the legend), by state, in colour AND shape:
 * - not for sale (no `data-state`): a hollow ring;
 * - for sale (`sale`): a solid disc;
 * - selected (`selected`): a larger disc of the selected colour in a thick ring.
 * Each is drawn in the ink (`--_ink`) chosen per zone from the fill behind the seats (dark on
 * light fills, white on dark ones: never under 3.99:1, above the 3:1 graphics need); the map sets
 * `data-ink-light` on a zone around seats (its seats inherit `--_ink`), or on a seat beside its
 * zone. Zone shapes inside a group are marked `data-zone-shape` by the map: attribute selectors
 * only, since a descendant selector is matched against every one of 20,000 seats. The ring is a share of
 * the seat (`--_ring`, set by the map once it has measured a seat), so it looks the same at every
 * zoom. Seats for sale grow through the CSS `scale` property (not `transform`, which would
 * replace a seat's own transform) by `--_seat-scale`, set from the seats' spacing. Seats not for
 * sale get no transform at all: a stadium has tens of thousands, and each transform costs.
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
    [data-seat] {
      fill: transparent;
      stroke: var(--_ink, ${inkDark});
      stroke-width: var(--_ring, 1px);
    }
    /* Inherited by the seats of a zone: no descendant selector over thousands of seats. */
    [data-ink-light] {
      --_ink: ${inkLight};
    }
    [data-seat][data-state] {
      transform-box: fill-box;
      transform-origin: center;
      scale: var(--_seat-scale, 1);
    }
    [data-seat][data-state='sale'] {
      fill: var(--_ink, ${inkDark});
    }
    [data-seat][data-state='selected'] {
      fill: var(--_zone-selected);
      stroke-width: calc(var(--_ring, 1px) * 2.5);
      scale: calc(var(--_seat-scale, 1) * 1.15);
    }
  `,
];
