/** Helpers for the component tests (happy-dom). Not part of the bundle. */
import '../index.js';
import type { LitElement } from 'lit';
import type { CtaWaitingList, Reserved, YourHold } from './types.js';

/**
 * happy-dom defines `nodeName`/`nodeType` on Node.prototype as a base getter that subclasses
 * override, while browsers have one polymorphic getter. DOMPurify reads the Node.prototype getter
 * (to resist DOM clobbering) and so sees '' for every element under happy-dom, dropping them all.
 * Make the base getter polymorphic, as in browsers, so the real sanitiser runs in the tests.
 */
function polymorphicNodeGetter(prop: 'nodeName' | 'nodeType'): void {
  const base = Object.getOwnPropertyDescriptor(Node.prototype, prop);
  if (!base?.get) return;
  const baseGet = base.get;
  Object.defineProperty(Node.prototype, prop, {
    configurable: true,
    get(this: Node) {
      for (let p = Object.getPrototypeOf(this); p && p !== Node.prototype; p = Object.getPrototypeOf(p)) {
        const own = Object.getOwnPropertyDescriptor(p, prop);
        if (own?.get) return own.get.call(this);
      }
      return baseGet.call(this);
    },
  });
}
polymorphicNodeGetter('nodeName');
polymorphicNodeGetter('nodeType');

/**
 * happy-dom's NodeIterator loses its place when the node it returned last is removed (the DOM
 * spec's "NodeIterator pre-removing steps" move it to the preceding node). DOMPurify removes
 * nodes while iterating, so under happy-dom it stopped sanitising after the first removal.
 * This iterator follows the spec for the way DOMPurify mutates (insert after, then remove the
 * current node), so the tests exercise the sanitiser as browsers run it.
 */
function specNodeIterator(this: Document, root: Node, whatToShow = 0xffffffff, filter: NodeFilter | null = null): NodeIterator {
  const following = (node: Node): Node | null => {
    if (node.firstChild) return node.firstChild;
    for (let n: Node | null = node; n && n !== root; n = n.parentNode) if (n.nextSibling) return n.nextSibling;
    return null;
  };
  const lastDescendant = (node: Node): Node => {
    let n = node;
    while (n.lastChild) n = n.lastChild;
    return n;
  };
  const accept = (n: Node): boolean => {
    if ((whatToShow & (1 << (n.nodeType - 1))) === 0) return false;
    if (!filter) return true;
    return (typeof filter === 'function' ? filter(n) : filter.acceptNode(n)) === NodeFilter.FILTER_ACCEPT;
  };
  let reference: Node = root;
  let before = true;
  let fallback: Node = root;
  const iterator = {
    root,
    whatToShow,
    filter,
    get referenceNode() {
      return reference;
    },
    get pointerBeforeReferenceNode() {
      return before;
    },
    nextNode(): Node | null {
      if (reference !== root && !root.contains(reference)) {
        reference = fallback; // the pre-removing steps
        before = false;
      }
      let node = reference;
      let first = before;
      for (;;) {
        if (first) first = false;
        else {
          const next = following(node);
          if (!next) return null;
          node = next;
        }
        if (accept(node)) {
          reference = node;
          before = false;
          fallback = node.previousSibling ? lastDescendant(node.previousSibling) : (node.parentNode ?? root);
          return node;
        }
      }
    },
    previousNode(): Node | null {
      throw new Error('not needed by the tests');
    },
    detach() {},
  };
  return iterator as unknown as NodeIterator;
}
// Patch where happy-dom defines it (its window has its own Document classes).
for (let proto = Object.getPrototypeOf(document); proto; proto = Object.getPrototypeOf(proto)) {
  if (Object.prototype.hasOwnProperty.call(proto, 'createNodeIterator')) {
    Object.defineProperty(proto, 'createNodeIterator', { configurable: true, writable: true, value: specNodeIterator });
    break;
  }
}

/** Creates `tag`, assigns `props`, attaches it to the document and waits for its first render. */
export async function mount<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, attrs: Record<string, string> = {}): Promise<HTMLElementTagNameMap[K]> {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  Object.assign(el, props);
  document.body.append(el);
  await (el as unknown as LitElement).updateComplete;
  return el;
}

/** The element's shadow root (they are all open). */
export function shadow(el: Element): ShadowRoot {
  if (!el.shadowRoot) throw new Error(`${el.localName} has no shadow root`);
  return el.shadowRoot;
}

/** The first match in the shadow root, or a thrown error naming the selector. */
export function $(el: Element, selector: string): HTMLElement {
  const found = shadow(el).querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`${selector} not found in ${el.localName}`);
  return found;
}

/** Resolves with the next `name` event dispatched on `target`. */
export function nextEvent<E extends Event>(target: EventTarget, name: string): Promise<E> {
  return new Promise((resolve) => target.addEventListener(name, (e) => resolve(e as E), { once: true }));
}

/** A CTA of the buy access layer (`reserved`, `yourHold` and `waitingList` only when given). */
export const cta = (over: Partial<{ text: string; url: string; enabled: boolean; colors: { background: string; text: string }; reserved: Reserved; yourHold: YourHold; waitingList: CtaWaitingList }> = {}) => ({
  text: 'Buy resale tickets',
  url: 'https://resale.example/market/ptr_1/tour?showId=s1',
  enabled: true,
  ...over,
});

/** A JSON Response in the service's envelope. */
export function envelopeResponse(data: unknown, status = 200): Response {
  return new Response(JSON.stringify({ status, data, errors: status < 400 ? null : [{ code: 'x', message: 'x' }] }), { status, headers: { 'Content-Type': 'application/json' } });
}

/** The text of a node with whitespace collapsed. */
export function text(node: Node | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * An `EventSource` the tests drive: install it with `vi.stubGlobal('EventSource', FakeEventSource)`;
 * every instance is recorded in `FakeEventSource.all` (clear it in `beforeEach`), and the test
 * emits what a server would send.
 */
export class FakeEventSource extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static all: FakeEventSource[] = [];
  /** The instances not closed. */
  static get open(): FakeEventSource[] {
    return FakeEventSource.all.filter((s) => s.readyState !== FakeEventSource.CLOSED);
  }
  /** The one open instance (throws unless exactly one is). */
  static get only(): FakeEventSource {
    const open = FakeEventSource.open;
    if (open.length !== 1) throw new Error(`${open.length} EventSources open`);
    return open[0]!;
  }
  readyState = FakeEventSource.CONNECTING;
  readonly withCredentials = false;
  constructor(readonly url: string) {
    super();
    FakeEventSource.all.push(this);
  }
  close(): void {
    this.readyState = FakeEventSource.CLOSED;
  }
  /** The connection answered 200 with `text/event-stream`. */
  opened(): this {
    this.readyState = FakeEventSource.OPEN;
    this.dispatchEvent(new Event('open'));
    return this;
  }
  /** An event named `type` with `data` (JSON-encoded unless a string) and an `id`. */
  emit(type: string, data: unknown, id = ''): this {
    this.dispatchEvent(new MessageEvent(type, { data: typeof data === 'string' ? data : JSON.stringify(data), lastEventId: id }));
    return this;
  }
  /** `closed`: an HTTP error (a 503) the browser gives up on; else a network error it resumes from. */
  fail(closed: boolean): this {
    this.readyState = closed ? FakeEventSource.CLOSED : FakeEventSource.CONNECTING;
    this.dispatchEvent(new Event('error'));
    return this;
  }
}

/** Sets `document.visibilityState` (happy-dom's is always `visible`) and dispatches `visibilitychange`. */
export function setVisibility(state: 'visible' | 'hidden'): void {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
  document.dispatchEvent(new Event('visibilitychange'));
}
