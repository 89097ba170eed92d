import { html, nothing, svg, type PropertyDeclarations, type PropertyValues } from 'lit';
import { ResaleElement } from '../../internal/base-element.js';
import { isOffered, renderCta, returnAddress } from '../../internal/cta.js';
import { t } from '../../internal/i18n.js';
import { safeUrl } from '../../internal/safe.js';
import type { BuyModalComponent } from '../../internal/types.js';
import { modalStyles } from './buy-modal.styles.js';

/** Whether the modal has something to show: visible, with a call to action that leads to offers. */
function offers(modal: BuyModalComponent['buyModal'] | undefined): boolean {
  return modal?.visible === true && isOffered(modal.callToAction);
}

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The focused element, looking through open shadow roots. */
function deepActiveElement(): HTMLElement | null {
  let el: Element | null = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el instanceof HTMLElement ? el : null;
}

/**
 * A modal dialog announcing resale, built on the native `<dialog>` with `showModal()`: top
 * layer, inert page behind, Escape. The component supplies what the spec leaves to the partner:
 * the overlay (`::backdrop`), a close button, Escape, a click on the overlay, a focus trap and
 * focus return to the element focused before opening.
 *
 * It opens by itself the first time it receives a visible `buyModal` with offers, unless `manual`
 * is set; then the partner calls `show()` (or sets `open`). Closed once, it stays closed until
 * `show()`. It never opens (and closes if open) while its call to action is disabled (nothing for
 * sale, resale closed) or has no http(s) URL: a modal over the page must lead somewhere. Its link
 * carries `returnTo` (the `return-to` attribute, else the page's address).
 *
 * @csspart dialog - the `<dialog>`
 * @csspart panel - its content box
 * @csspart close - the close button
 * @csspart image - the image (http(s) only)
 * @csspart title - the heading (the dialog's accessible name)
 * @csspart description - the text (the dialog's description)
 * @csspart cta - the call to action
 * @cssproperty --resale-color-backdrop - the overlay
 * @event resale-cta-click - before the call to action navigates; cancelable
 */
export class ResaleBuyModal extends ResaleElement {
  static override styles = modalStyles;
  static override properties: PropertyDeclarations = {
    component: { attribute: false },
    open: { type: Boolean, reflect: true },
    manual: { type: Boolean },
    returnTo: { type: String, attribute: 'return-to' },
  };

  /** The `buyModal` item of the buy access layer. */
  declare component: BuyModalComponent | undefined;
  /** Whether the dialog is showing. */
  declare open: boolean;
  /** Do not open automatically. */
  declare manual: boolean;
  /**
   * The partner page the market links back to ("Back to …"); default: this page's address. The
   * market shows it only when it is on one of the partner's allowed origins.
   */
  declare returnTo: string | undefined;

  #autoOpened = false;
  #opener: HTMLElement | null = null;

  constructor() {
    super();
    this.open = false;
    this.manual = false;
  }

  /** Opens the dialog and remembers the focused element to return focus to it; does nothing without offers. */
  show(): void {
    if (!offers(this.component?.buyModal)) return;
    if (!this.open) this.#opener = deepActiveElement();
    this.open = true;
  }

  /** Closes the dialog; focus goes back to where it was. */
  close(): void {
    this.open = false;
  }

  private get dialog(): HTMLDialogElement | null {
    return this.renderRoot.querySelector('dialog');
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const offered = offers(this.component?.buyModal);
    if (changed.has('component') && !this.#autoOpened && !this.manual && offered && this.isConnected) {
      this.#autoOpened = true;
      this.show();
    }
    if (!offered) this.open = false;
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (!changed.has('open') && !changed.has('component')) return;
    const dialog = this.dialog;
    if (this.open && dialog && !dialog.open) {
      if (!this.#opener) this.#opener = deepActiveElement();
      if (typeof dialog.showModal === 'function') dialog.showModal();
      else dialog.setAttribute('open', '');
      this.renderRoot.querySelector<HTMLElement>('.close')?.focus();
    } else if (!this.open && changed.get('open') === true) {
      if (dialog?.open) dialog.close();
      const opener = this.#opener;
      this.#opener = null;
      if (opener?.isConnected) opener.focus();
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.open = false;
  }

  #onKeydown = (e: KeyboardEvent): void => {
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab') return;
    // showModal() already makes the page inert; wrapping Tab keeps focus inside the panel
    // instead of leaving for the browser's chrome, and covers engines without inert support.
    const items = [...this.renderRoot.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    const current = this.shadowRoot?.activeElement;
    if (e.shiftKey && current === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && current === last) {
      e.preventDefault();
      first.focus();
    }
  };

  #onCancel = (e: Event): void => {
    e.preventDefault();
    this.close();
  };

  /** The browser closed it (form method=dialog, close request): keep `open` in step. */
  #onClose = (): void => {
    if (this.open) this.close();
  };

  /** A click on the overlay lands on the `<dialog>` itself, outside the panel. */
  #onClick = (e: MouseEvent): void => {
    if (e.target === this.dialog) this.close();
  };

  override render() {
    const modal = this.component?.buyModal;
    if (!modal || !offers(modal)) return nothing;
    const lang = this.locale;
    const image = safeUrl(modal.image);
    return html`<dialog part="dialog" aria-labelledby="title" aria-describedby="description" @keydown=${this.#onKeydown} @cancel=${this.#onCancel} @close=${this.#onClose} @click=${this.#onClick}>
      <div class="panel" part="panel">
        <button class="close" part="close" type="button" aria-label=${t(lang, 'close')} @click=${() => this.close()}>
          <svg viewBox="0 0 20 20" aria-hidden="true" focusable="false">${svg`<path d="M4 4l12 12M16 4L4 16" stroke="currentColor" stroke-width="2" stroke-linecap="round" />`}</svg>
        </button>
        ${image ? html`<img class="image" part="image" src=${image} alt="" />` : nothing}
        <h2 class="title" part="title" id="title">${modal.title}</h2>
        <p class="description" part="description" id="description">${modal.description}</p>
        ${renderCta({ cta: modal.callToAction, host: this, detail: { componentClass: 'buyModal' }, returnTo: returnAddress(this.returnTo) })}
      </div>
    </dialog>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'resale-buy-modal': ResaleBuyModal;
  }
}
