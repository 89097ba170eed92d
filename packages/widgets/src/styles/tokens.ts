import { css, unsafeCSS } from 'lit';
import { TOKENS } from '@resale/shared/tokens';

export { TOKENS };

export type TokenName = keyof typeof TOKENS;

/** `:host` block mapping every `--resale-*` token to its private `--_*` variable. */
export const tokenStyles = css`
  :host {
    ${unsafeCSS(
      Object.entries(TOKENS)
        .map(([name, value]) => `--_${name}: var(--resale-${name}, ${value});`)
        .join('\n'),
    )}
    font-family: var(--resale-font-family);
    color: var(--_color-text);
    line-height: 1.4;
  }
  :host([hidden]) {
    display: none !important;
  }
  .visually-hidden {
    position: absolute;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
`;

/** The call-to-action look shared by every component (a link, or a disabled button). */
export const ctaStyles = css`
  .cta {
    box-sizing: border-box;
    display: inline-flex;
    align-items: center;
    justify-content: center;
    min-height: 2.75rem;
    min-width: 2.75rem;
    padding: 0.5rem 1.25rem;
    border: 1px solid transparent;
    border-radius: var(--_radius);
    background: var(--_cta-bg, var(--_color-primary));
    color: var(--_cta-fg, var(--_color-on-primary));
    font: inherit;
    font-weight: 600;
    text-decoration: none;
    text-align: center;
    cursor: pointer;
  }
  .cta:hover {
    text-decoration: underline;
  }
  .cta:focus-visible {
    outline: 3px solid var(--_color-focus);
    outline-offset: 2px;
  }
  .cta:disabled {
    background: var(--_color-disabled-bg);
    color: var(--_color-disabled-text);
    border-color: var(--_color-border);
    cursor: not-allowed;
    text-decoration: none;
  }
`;
