import { noChange } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

/** Custom properties to set on an element; `undefined` removes one. */
export type CssProps = Record<`--${string}`, string | undefined>;

/**
 * Sets CSS custom properties on the element it is bound to, always through CSSOM
 * (`style.setProperty`). Lit's `styleMap` writes a `style` attribute on its first render, which
 * a page's Content-Security-Policy without `'unsafe-inline'` blocks (and reports), so colours
 * would be lost on exactly the partners with the strictest policies. CSSOM writes are not
 * inline styles and are never blocked.
 *
 * Used as an element binding: `html\`<a ${cssProps({ '--_cta-bg': bg })}>\``.
 */
class CssPropsDirective extends Directive {
  private applied = new Set<string>();

  constructor(info: PartInfo) {
    super(info);
    if (info.type !== PartType.ELEMENT) throw new Error('cssProps() is an element binding: <el ${cssProps({...})}>');
  }

  render(_props: CssProps): typeof noChange {
    return noChange;
  }

  override update(part: ElementPart, [props]: [CssProps]): typeof noChange {
    const { style } = part.element as HTMLElement;
    const next = new Set<string>();
    for (const [name, value] of Object.entries(props)) {
      if (value === undefined) continue;
      style.setProperty(name, value);
      next.add(name);
    }
    for (const name of this.applied) if (!next.has(name)) style.removeProperty(name);
    this.applied = next;
    return noChange;
  }
}

/** See {@link CssPropsDirective}. */
export const cssProps = directive(CssPropsDirective);
