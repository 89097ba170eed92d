import { autoUpdate, computePosition, flip, offset, shift } from '@floating-ui/dom';

/**
 * A tooltip positioned with floating-ui: `autoUpdate` runs only while it is shown (started on
 * show, cleaned up on hide), so a page with a map does no layout work for hidden tooltips.
 * `fixed` strategy: the tooltip lives in a shadow root, where offset parents are unreliable.
 * Coordinates are written through CSSOM (`style.left`), allowed under a strict CSP.
 */
export class FloatingTooltip {
  #cleanup: (() => void) | undefined;
  #reference: Element | undefined;

  constructor(private readonly floating: HTMLElement) {}

  /** The element the tooltip currently points at. */
  get reference(): Element | undefined {
    return this.#reference;
  }

  show(reference: Element): void {
    if (this.#reference === reference) return;
    this.hide();
    this.#reference = reference;
    this.floating.hidden = false;
    const floating = this.floating;
    const update = () =>
      computePosition(reference, floating, { strategy: 'fixed', placement: 'top', middleware: [offset(8), flip(), shift({ padding: 8 })] }).then(({ x, y }) => {
        floating.style.left = `${x}px`;
        floating.style.top = `${y}px`;
      });
    this.#cleanup = autoUpdate(reference, floating, update);
  }

  hide(): void {
    this.#cleanup?.();
    this.#cleanup = undefined;
    this.#reference = undefined;
    this.floating.hidden = true;
  }
}
