/**
 * Design tokens and their defaults. A partner overrides any of them as `--resale-<name>` on the
 * element or an ancestor (custom properties cross the shadow boundary). Inside, components read
 * `--_<name>`, which is the partner's value or the default. The defaults meet WCAG 2.2 AA:
 * text pairs at least 4.5:1, interactive zone colours at least 3:1 against the surface
 * (checked by tokens.test.ts).
 *
 * Plain data without Lit, so the hosted pages of the service use the same values
 * (packages/server/src/http/pages/design.ts imports this file): one palette for widgets and pages.
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

