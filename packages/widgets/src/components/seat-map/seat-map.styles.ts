import { css, unsafeCSS } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

/** The shapes a zone may be drawn with; a zone may be the shape itself or a group of them. */
const shapes = unsafeCSS('path, rect, polygon, polyline, circle, ellipse');

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
    .chart svg,
    .chart img {
      display: block;
      width: 100%;
      height: auto;
      max-height: 70vh;
    }
    .sidebar {
      display: grid;
      gap: var(--_space);
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
    .area,
    .listing {
      box-sizing: border-box;
      width: 100%;
      display: flex;
      justify-content: space-between;
      align-items: center;
      gap: 0.5rem;
      min-height: 2.75rem;
      padding: 0.5rem 0.75rem;
      border: 1px solid var(--_color-border);
      border-radius: var(--_radius);
      background: var(--_color-surface);
      color: var(--_color-text);
      font: inherit;
      text-align: start;
    }
    .area {
      cursor: pointer;
    }
    .area[data-active],
    .listing[data-selected] {
      border-color: var(--_zone-selected);
      box-shadow: inset 0 0 0 1px var(--_zone-selected);
    }
    .area:disabled {
      cursor: not-allowed;
      color: var(--_color-muted);
    }
    .area:focus-visible,
    .toggle:focus-visible,
    .chart [role='button']:focus-visible {
      outline: 3px solid var(--_color-focus);
      outline-offset: 2px;
    }
    .muted {
      color: var(--_color-muted);
    }
    .toggle {
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
    .message {
      margin: 0;
      color: var(--_color-error);
      font-weight: 600;
    }
    .summary {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem;
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
    .chart [role='button'] {
      cursor: pointer;
    }
    :is([data-area][data-availability='none']):is(${shapes}),
    [data-area][data-availability='none'] :is(${shapes}) {
      fill: var(--_zone-none);
    }
    :is([data-area][data-availability='some']):is(${shapes}),
    [data-area][data-availability='some'] :is(${shapes}) {
      fill: var(--_zone-some);
    }
    :is([data-area][data-availability='cheapest']):is(${shapes}),
    [data-area][data-availability='cheapest'] :is(${shapes}) {
      fill: var(--_zone-cheapest);
    }
    [data-area][data-active] :is(${shapes}),
    [data-area][data-active]:is(${shapes}) {
      stroke: var(--_color-text);
      stroke-width: 2;
    }
    .chart [data-seat][data-availability='none'] {
      fill: var(--_zone-none);
    }
    .chart [data-seat][data-availability='some'] {
      fill: var(--_zone-some);
    }
    .chart [data-seat][data-selected] {
      fill: var(--_zone-selected);
    }
  `,
];
