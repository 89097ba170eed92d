import { css } from 'lit';

/**
 * The fan's own hold (`renderYourHold` in internal/held.ts), shared by the buy button and the
 * categories list: a bordered block marked with the primary colour, its texts wrapping at any
 * width (nothing clipped on a 390 px phone), Continue as a call to action (with `ctaStyles`) and
 * Release as a link of the same 44 px height. Only tokens, so the contrast is theirs.
 */
export const heldStyles = css`
  .your-hold {
    box-sizing: border-box;
    display: grid;
    gap: 0.5rem;
    max-width: 100%;
    padding: 0.75rem;
    border: 1px solid var(--_color-border);
    border-inline-start: 4px solid var(--_color-primary);
    border-radius: var(--_radius);
    background: var(--_color-surface);
    color: var(--_color-text);
    overflow-wrap: anywhere;
  }
  .your-hold[data-ended] {
    border-inline-start-color: var(--_color-border);
  }
  .your-hold-title {
    margin: 0;
    font-weight: 600;
  }
  .your-hold-time {
    font-weight: 400;
    font-variant-numeric: tabular-nums;
    white-space: nowrap;
  }
  .your-hold-actions {
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    gap: 0.5rem var(--_space);
  }
  /* The quieter links beside a call to action (also the waiting list's "See your place", waiting.ts). */
  .your-hold-release,
  .waiting-place-link {
    display: inline-flex;
    align-items: center;
    min-height: 2.75rem;
    color: var(--_color-primary);
    font-weight: 600;
    text-decoration: underline;
  }
  .your-hold-release:focus-visible,
  .waiting-place-link:focus-visible {
    outline: 3px solid var(--_color-focus);
    outline-offset: 2px;
  }
`;
