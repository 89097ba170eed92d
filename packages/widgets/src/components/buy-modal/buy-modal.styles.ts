import { css } from 'lit';
import { ctaStyles, tokenStyles } from '../../styles/tokens.js';

export const modalStyles = [
  tokenStyles,
  ctaStyles,
  css`
    :host {
      display: contents;
    }
    dialog {
      box-sizing: border-box;
      width: min(32rem, calc(100vw - 2rem));
      max-height: calc(100vh - 2rem);
      padding: 0;
      border: 0;
      border-radius: var(--_radius);
      background: var(--_color-surface);
      color: var(--_color-text);
      box-shadow: 0 0.5rem 2rem rgb(0 0 0 / 0.3);
    }
    dialog::backdrop {
      background: var(--_color-backdrop);
    }
    .panel {
      position: relative;
      padding: calc(var(--_space) * 1.5);
      display: grid;
      gap: var(--_space);
      justify-items: start;
    }
    .close {
      position: absolute;
      top: 0.5rem;
      right: 0.5rem;
      width: 2.75rem;
      height: 2.75rem;
      display: grid;
      place-items: center;
      border: 0;
      border-radius: var(--_radius);
      background: transparent;
      color: var(--_color-text);
      cursor: pointer;
    }
    .close:focus-visible {
      outline: 3px solid var(--_color-focus);
      outline-offset: 2px;
    }
    .close svg {
      width: 1.25rem;
      height: 1.25rem;
    }
    .image {
      display: block;
      max-width: 100%;
      max-height: 12rem;
      object-fit: contain;
    }
    .title {
      margin: 0;
      padding-right: 2.5rem;
      font-size: 1.25rem;
      font-weight: 700;
    }
    .description {
      margin: 0;
    }
  `,
];
