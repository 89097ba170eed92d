import { css } from 'lit';
import { tokenStyles } from '../../styles/tokens.js';

export const accessLayerStyles = [
  tokenStyles,
  css`
    :host {
      display: block;
    }
    .stack {
      display: grid;
      gap: var(--_space);
      justify-items: stretch;
    }
    .stack > resale-buy-button {
      justify-self: start;
    }
  `,
];
