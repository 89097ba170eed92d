import { css } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

export const bannerStyles = [
  tokenStyles,
  ctaStyles,
  css`
    :host {
      display: block;
    }
    .base {
      box-sizing: border-box;
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: var(--_space);
      padding: var(--_space);
      border-radius: var(--_radius);
      background: var(--_banner-bg, var(--_color-surface));
      color: var(--_banner-fg, var(--_color-text));
      border: 1px solid var(--_color-border);
    }
    .image {
      display: block;
      max-width: 8rem;
      max-height: 6rem;
      object-fit: contain;
      border-radius: var(--_radius);
    }
    .body {
      flex: 1 1 14rem;
      min-width: 0;
    }
    .title {
      margin: 0 0 0.25rem;
      font-size: 1.125rem;
      font-weight: 700;
    }
    .description {
      margin: 0;
    }
  `,
];
