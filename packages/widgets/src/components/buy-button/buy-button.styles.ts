import { css } from 'lit';
import { heldStyles } from '../../styles/held.js';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';
import { waitingStyles } from '../../styles/waiting.js';

export const buttonStyles = [
  tokenStyles,
  ctaStyles,
  heldStyles,
  waitingStyles,
  css`
    :host {
      display: inline-block;
      max-width: 100%;
    }
    .your-hold {
      margin-block-end: 0.5rem;
    }
    .reserved {
      margin: 0.5rem 0 0;
      color: var(--_color-muted);
      overflow-wrap: anywhere;
    }
  `,
];
