import { css, unsafeCSS } from 'lit';

/**
 * Design tokens and their defaults. A partner overrides any of them as `--resale-<name>` on the
 * element or an ancestor (custom properties cross the shadow boundary). Inside, components read
 * `--_<name>`, which is the partner's value or the default. The defaults meet WCAG 2.2 AA:
 * text pairs at least 4.5:1, interactive zone colours at least 3:1 against the surface
 * (checked by tokens.test.ts).
 */
export const TOKENS = {
  'color-primary': '#0b4fb3',
  'color-on-primary': '#ffffff',
  'color-surface': '#ffffff',
  'color-text': '#1f2328',
  'color-muted': '#57606a',
  'color-border': '#8c959f',
  'color-focus': '#0b4fb3',
  'color-disabled-bg': '#eaeef2',
  'color-disabled-text': '#57606a',
  'color-error': '#cf222e',
  'color-backdrop': 'rgb(0 0 0 / 0.55)',
  'tooltip-bg': '#1f2328',
  'tooltip-text': '#ffffff',
  'zone-none': '#d0d7de',
  'zone-some': '#0b4fb3',
  'zone-cheapest': '#1a7f37',
  'zone-selected': '#8250df',
  radius: '6px',
  space: '1rem',
} as const;

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
