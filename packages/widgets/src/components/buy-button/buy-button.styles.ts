import { css } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

export const buttonStyles = [
  tokenStyles,
  ctaStyles,
  css`
    :host {
      display: inline-block;
    }
  `,
];
