import { css } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

export const sellActionsStyles = [
  tokenStyles,
  ctaStyles,
  css`
    :host {
      display: block;
    }
    .base {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem var(--_space);
    }
    .status {
      display: inline-block;
      padding: 0.125rem 0.5rem;
      border: 1px solid var(--_color-border);
      border-radius: 999px;
      font-size: 0.875rem;
      font-weight: 600;
      background: var(--_color-surface);
      color: var(--_color-text);
    }
    .actions {
      list-style: none;
      margin: 0;
      padding: 0;
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }
  `,
];
