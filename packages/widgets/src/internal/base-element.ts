import { LitElement, type PropertyDeclarations } from 'lit';
import type { Lang } from '@resale/shared/lang';
import { resolveLang } from './i18n.js';

/** The package version, exposed as `ResaleElement.version` for support requests. */
export const VERSION = '0.1.0';

/**
 * The base of every resale element: safe definition, language resolution, typed dispatch.
 * Reactive properties are declared with Lit's `static properties` (no decorators: nothing to
 * configure in TypeScript or Vite) and `declare`d fields, so class fields never shadow Lit's
 * accessors.
 */
export abstract class ResaleElement extends LitElement {
  static readonly version = VERSION;

  static override properties: PropertyDeclarations = {
    lang: { type: String },
  };

  /** `en` or `es`; empty: the page's `<html lang>`. */
  declare lang: string;

  /**
   * Defines the element unless the tag is taken (the script included twice, or two versions on
   * one page): the first definition wins and nothing throws.
   */
  static define(tag: string, ctor: CustomElementConstructor = this as unknown as CustomElementConstructor): void {
    if (typeof customElements !== 'undefined' && !customElements.get(tag)) customElements.define(tag, ctor);
  }

  /** The resolved language of the texts the element owns. */
  protected get locale(): Lang {
    return resolveLang(this.lang);
  }
}
