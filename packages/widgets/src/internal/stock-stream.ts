import { isObject } from './safe.js';
import type { Reserved } from './types.js';

/** A category of the live stock (see {@link Stock}). */
export interface StockCategory {
  ticketOptionId: string;
  quantityForSale: number;
  floorPrice: number;
  currency: string;
  enabled: boolean;
  reserved?: Reserved | undefined;
}

/** An area of the live stock (the seat map's `results`). */
export interface StockArea {
  area: string;
  quantityForSale: number;
  floorPrice: number;
}

/**
 * The stock of a show, as `snapshot` and `stock` events of
 * `GET /v1/wrapper/accesslayer/stream` carry it: the numbers of the unsigned buy access layer,
 * without texts or URLs.
 */
export interface Stock {
  eventId: string;
  showId: string;
  enabled: boolean;
  totalCount: number;
  /** Fans in the show's waiting list while it is on and resale is open; absent otherwise. */
  waitingFans?: number | undefined;
  categories: StockCategory[];
  areas: StockArea[];
}

/** The first wait after the stream failed (HTTP error, 503 when the server is full), doubled up to {@link MAX_BACKOFF_MS}. */
export const BACKOFF_MS = 30_000;
export const MAX_BACKOFF_MS = 300_000;

const isCount = (v: unknown): v is number => typeof v === 'number' && v >= 0 && v < Infinity;
const isReserved = (r: unknown): boolean => r === undefined || (isObject(r) && isCount(r['tickets']) && typeof r['backAt'] === 'string' && (r['whose'] === 'any' || r['whose'] === 'others'));
const isNumbers = (x: unknown): x is Record<string, unknown> => isObject(x) && isCount(x['quantityForSale']) && isCount(x['floorPrice']);

/** The stock in an event's data, or undefined when it is not JSON or any field is off (then the event is ignored). */
export function parseStock(data: unknown): Stock | undefined {
  let s: unknown;
  try {
    s = JSON.parse(String(data));
  } catch {
    return undefined;
  }
  const ok =
    isObject(s) &&
    typeof s['eventId'] === 'string' &&
    typeof s['showId'] === 'string' &&
    typeof s['enabled'] === 'boolean' &&
    isCount(s['totalCount']) &&
    (s['waitingFans'] === undefined || isCount(s['waitingFans'])) &&
    Array.isArray(s['categories']) &&
    Array.isArray(s['areas']) &&
    s['categories'].every((c) => isNumbers(c) && typeof c['ticketOptionId'] === 'string' && typeof c['enabled'] === 'boolean' && isReserved(c['reserved'])) &&
    s['areas'].every((a) => isNumbers(a) && typeof a['area'] === 'string');
  return ok ? (s as unknown as Stock) : undefined;
}

/** Whether a `bye` says there is nothing to come back to: the show is gone, or the key was rotated away. */
function isFinalBye(data: unknown): boolean {
  try {
    const reason = (JSON.parse(String(data)) as { reason?: unknown } | null)?.reason;
    return reason === 'gone' || reason === 'revoked';
  } catch {
    return false;
  }
}

/**
 * The live stock stream of one show, over `EventSource` (nothing at all where there is none):
 * - `open(url)` connects, `close()` lets go (and stops listening to the page's visibility);
 * - a network error is the browser's to resume (it sends `Last-Event-ID` itself); an HTTP error
 *   (a 503 when the server is full, any non-200) closes the EventSource: it is opened again after
 *   {@link BACKOFF_MS}, doubling up to {@link MAX_BACKOFF_MS}, back to the first wait once open;
 * - `bye` (the server is shutting down): opened again after 1 to 5 s, at random, so the pages of
 *   a server do not all come back at once; but a `bye` that says the show is `gone` or the key
 *   `revoked` ends the streaming (reconnecting would only be refused): the page keeps its numbers;
 * - a hidden page (`visibilitychange`) closes it, and a visible one opens it again, with the last
 *   event's id as `lastEventId` in the query (a new EventSource cannot set the header), unless a
 *   wait is running: then the wait opens it;
 * - each valid `snapshot` or `stock` is given to `onStock`; anything malformed is ignored, and
 *   nothing here throws into the page.
 * Timers are the global `setTimeout` and `clearTimeout`, read when used (fake timers work).
 */
export class StockStream {
  #url: string | undefined;
  #source: EventSource | undefined;
  #lastId = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  #backoff = 0;
  readonly #onStock: (stock: Stock) => void;

  /** `onStock`: called with each valid stock, in order. */
  constructor(onStock: (stock: Stock) => void) {
    this.#onStock = onStock;
  }

  /** Connects to `url` (closing what was open); the last id is another stream's, so it is forgotten. */
  open(url: string): void {
    this.close();
    this.#url = url;
    document.addEventListener('visibilitychange', this.#connect);
    this.#connect();
  }

  close(): void {
    this.#url = undefined;
    this.#lastId = '';
    this.#backoff = 0;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#drop();
    document.removeEventListener('visibilitychange', this.#connect);
  }

  /** Opens the EventSource when it should be: a URL, no wait running, the page visible, EventSource there; closes it when hidden. */
  #connect = (): void => {
    if (document.visibilityState === 'hidden') return this.#drop();
    if (!this.#url || this.#timer || this.#source || typeof EventSource !== 'function') return;
    try {
      const source = (this.#source = new EventSource(this.#url + (this.#lastId && `&lastEventId=${encodeURIComponent(this.#lastId)}`)));
      // Only the current EventSource is heard: one closed may still have an event queued.
      const on = (type: string, listener: (e: MessageEvent) => unknown) => source.addEventListener(type, (e) => source === this.#source && listener(e as MessageEvent));
      on('snapshot', this.#onEvent);
      on('stock', this.#onEvent);
      on('bye', ({ data }) => (isFinalBye(data) ? this.close() : this.#retry(1000 + Math.random() * 4000)));
      on('open', () => (this.#backoff = 0));
      // CLOSED: an HTTP error (a 503 when the server is full), or a failure the browser gave up on;
      // CONNECTING: a network error the browser resumes from by itself, with `Last-Event-ID`.
      on('error', () => source.readyState === 2 && this.#retry((this.#backoff = Math.min(this.#backoff * 2 || BACKOFF_MS, MAX_BACKOFF_MS))));
    } catch {
      // An address EventSource refuses: no live stock, the page works as before.
    }
  };

  #drop(): void {
    this.#source?.close();
    this.#source = undefined;
  }

  #retry(ms: number): void {
    this.#drop();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#connect();
    }, ms);
  }

  #onEvent = ({ data, lastEventId }: MessageEvent): void => {
    const stock = parseStock(data);
    if (!stock) return;
    if (lastEventId) this.#lastId = lastEventId;
    try {
      this.#onStock(stock);
    } catch {
      // A failing update is not the page's problem.
    }
  };
}
