import { css } from 'lit';

/**
 * The show's waiting list (internal/waiting.ts), shared by the buy button and the categories
 * list: the count and the fan's place as muted text under the call to action (the list puts the
 * place above itself), wrapping at any width. The place's link is styled with the hold's Release
 * (held.ts): a 44 px target. Only tokens.
 */
export const waitingStyles = css`
  .waiting-fans,
  .waiting-place {
    margin: 0.5rem 0 0;
    color: var(--_color-muted);
    overflow-wrap: anywhere;
  }
`;
