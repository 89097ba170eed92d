import { css } from 'lit';
import { heldStyles } from '../../styles/held.js';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';
import { waitingStyles } from '../../styles/waiting.js';

export const listStyles = [
  tokenStyles,
  ctaStyles,
  heldStyles,
  waitingStyles,
  css`
    :host {
      display: block;
    }
    .list {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.5rem;
    }
    .category {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem var(--_space);
      padding: 0.75rem var(--_space);
      border: 1px solid var(--_color-border);
      border-radius: var(--_radius);
      background: var(--_color-surface);
    }
    .info {
      flex: 1 1 12rem;
      min-width: 0;
      display: grid;
      gap: 0.125rem;
    }
    .name {
      font-weight: 700;
    }
    .quantity,
    .price {
      color: var(--_color-muted);
    }
    .category[data-empty] .quantity {
      font-style: italic;
    }
    .quantity {
      overflow-wrap: anywhere;
    }
    /* The fan's place in the waiting list, once, above the categories. */
    .waiting-place {
      margin: 0 0 0.5rem;
    }
    /* The fan's own hold takes a row of its own under the category. */
    .your-hold {
      flex: 1 1 100%;
    }
  `,
];
