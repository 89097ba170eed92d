import { css } from 'lit';

/**
 * The show's waiting list (internal/waiting.ts), shared by the buy button and the categories
 * list: the count and the fan's place as muted text under the call to action (the list puts the place above itself), wrapping
 * at any width, and the place's link with a 44 px target like the hold's Release. Only tokens.
 */
export const waitingStyles = css`
  .waiting-fans,
  .waiting-place {
    margin: 0.5rem 0 0;
    color: var(--_color-muted);
    overflow-wrap: anywhere;
  }
  .waiting-place-link {
    display: inline-flex;
    align-items: center;
    min-height: 2.75rem;
    color: var(--_color-primary);
    font-weight: 600;
    text-decoration: underline;
  }
  .waiting-place-link:focus-visible {
    outline: 3px solid var(--_color-focus);
    outline-offset: 2px;
  }
`;
