import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKOFF_MS, MAX_BACKOFF_MS, parseStock, StockStream, type Stock } from './stock-stream.js';
import { FakeEventSource, setVisibility } from './test-utils.js';

const URL_ = 'https://resale.example/v1/wrapper/accesslayer/stream?type=buy&eventId=tour&showId=s1&lang=en&publicKey=pk_1';

const STOCK: Stock = {
  eventId: 'tour',
  showId: 's1',
  enabled: true,
  totalCount: 3,
  categories: [
    { ticketOptionId: 'opt-a', quantityForSale: 3, floorPrice: 44.5, currency: 'EUR', enabled: true },
    { ticketOptionId: 'opt-b', quantityForSale: 0, floorPrice: 0, currency: 'EUR', enabled: false, reserved: { tickets: 2, backAt: '2026-06-01T18:42:00.000Z', whose: 'any' } },
  ],
  areas: [{ area: 'Field', quantityForSale: 3, floorPrice: 44.5 }],
};

let stream: StockStream | undefined;
function start(onStock = vi.fn()) {
  stream = new StockStream(onStock);
  stream.open(URL_);
  return onStock;
}

beforeEach(() => {
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});
afterEach(() => {
  stream?.close();
  stream = undefined;
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Reflect.deleteProperty(document, 'visibilityState');
});

describe('parseStock', () => {
  it('takes the stock of a snapshot or stock event, and nothing malformed', () => {
    expect(parseStock(JSON.stringify(STOCK))).toEqual(STOCK);
    // Fields a newer server adds are no reason to refuse it.
    expect(parseStock(JSON.stringify({ ...STOCK, reserved: { tickets: 2, backAt: 'x', whose: 'any' }, next: 1 }))).toBeDefined();
    const cat = STOCK.categories[0]!;
    for (const bad of [
      'not json',
      'null',
      '[]',
      JSON.stringify({ ...STOCK, enabled: 'yes' }),
      JSON.stringify({ ...STOCK, totalCount: -1 }),
      JSON.stringify({ ...STOCK, eventId: 1 }),
      JSON.stringify({ ...STOCK, categories: {} }),
      JSON.stringify({ ...STOCK, areas: undefined }),
      JSON.stringify({ ...STOCK, categories: [null] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, quantityForSale: '3' }] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, floorPrice: null }] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, ticketOptionId: 7 }] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, enabled: 1 }] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, reserved: { tickets: 'two', backAt: 'x', whose: 'any' } }] }),
      JSON.stringify({ ...STOCK, categories: [{ ...cat, reserved: { tickets: 2, backAt: 'x', whose: 'me' } }] }),
      JSON.stringify({ ...STOCK, areas: [{ area: 'Field', quantityForSale: 1 }] }),
    ]) {
      expect(parseStock(bad), bad).toBeUndefined();
    }
  });
});

describe('StockStream', () => {
  it('opens one EventSource on the URL and gives each valid snapshot and stock to the callback', () => {
    const onStock = start();
    expect(FakeEventSource.all.map((s) => s.url)).toEqual([URL_]);
    const source = FakeEventSource.only.opened();
    source.emit('snapshot', STOCK, 'e1-1');
    source.emit('stock', { ...STOCK, totalCount: 2 }, 'e1-2');
    source.emit('stock', '{"broken', 'e1-3');
    source.emit('stock', { ...STOCK, categories: 'none' }, 'e1-4');
    source.emit('message', STOCK, 'e1-5');
    expect(onStock.mock.calls.map(([s]) => (s as Stock).totalCount)).toEqual([3, 2]);
  });

  it('never throws into the page: a failing callback, an address EventSource refuses', () => {
    start(vi.fn(() => {
      throw new Error('boom');
    }));
    expect(() => FakeEventSource.only.emit('snapshot', STOCK, 'e1-1')).not.toThrow();
    vi.stubGlobal(
      'EventSource',
      class {
        constructor() {
          throw new SyntaxError('bad URL');
        }
      },
    );
    const refused = new StockStream(vi.fn());
    expect(() => refused.open('::nope')).not.toThrow();
    refused.close();
  });

  it('does nothing without EventSource', () => {
    vi.stubGlobal('EventSource', undefined);
    expect(() => start()).not.toThrow();
    expect(() => setVisibility('hidden')).not.toThrow();
    expect(() => setVisibility('visible')).not.toThrow();
    expect(FakeEventSource.all).toHaveLength(0);
  });

  it('closes when the page is hidden and opens again when visible, with the last valid id as lastEventId', () => {
    start();
    const first = FakeEventSource.only.opened();
    first.emit('snapshot', STOCK, 'e1-7');
    first.emit('stock', 'malformed', 'e1-8'); // not taken: its id is not the stock shown
    setVisibility('hidden');
    expect(first.readyState).toBe(FakeEventSource.CLOSED);
    expect(FakeEventSource.open).toHaveLength(0);
    setVisibility('hidden');
    expect(FakeEventSource.all).toHaveLength(1);
    setVisibility('visible');
    expect(FakeEventSource.only.url).toBe(`${URL_}&lastEventId=e1-7`);
    setVisibility('visible'); // already open: not twice
    expect(FakeEventSource.all).toHaveLength(2);
  });

  it('leaves a network error to the browser, which resumes by itself', () => {
    vi.useFakeTimers();
    start();
    FakeEventSource.only.opened().fail(false);
    vi.advanceTimersByTime(MAX_BACKOFF_MS);
    expect(FakeEventSource.all).toHaveLength(1);
    expect(FakeEventSource.all[0]!.readyState).toBe(FakeEventSource.CONNECTING);
  });

  it('after an HTTP error (503) waits 30 s, doubling up to 5 min, and back to 30 s once a stream opens', () => {
    vi.useFakeTimers();
    start();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      FakeEventSource.only.fail(true);
      expect(FakeEventSource.open).toHaveLength(0);
      const before = FakeEventSource.all.length;
      let waited = 0;
      while (FakeEventSource.all.length === before) {
        vi.advanceTimersByTime(1000);
        waited += 1000;
      }
      waits.push(waited);
    }
    expect(BACKOFF_MS).toBe(30_000);
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000, 300_000, 300_000]);
    // Opened: the next failure waits the first wait again.
    FakeEventSource.only.opened().fail(true);
    vi.advanceTimersByTime(29_999);
    expect(FakeEventSource.open).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.open).toHaveLength(1);
  });

  it('keeps waiting while hidden, and does not cut the wait short when the page turns visible', () => {
    vi.useFakeTimers();
    start();
    FakeEventSource.only.fail(true);
    setVisibility('hidden');
    setVisibility('visible');
    expect(FakeEventSource.all).toHaveLength(1);
    setVisibility('hidden');
    vi.advanceTimersByTime(BACKOFF_MS);
    expect(FakeEventSource.all).toHaveLength(1); // hidden at the end of the wait
    setVisibility('visible');
    expect(FakeEventSource.open).toHaveLength(1);
  });

  it('reconnects 1 to 5 s after a bye, with the last id', () => {
    vi.useFakeTimers();
    for (const [random, wait] of [
      [0, 1000],
      [0.999, 4996],
    ] as const) {
      FakeEventSource.all = [];
      vi.spyOn(Math, 'random').mockReturnValue(random);
      start();
      FakeEventSource.only.opened().emit('snapshot', STOCK, 'e1-3').emit('bye', { reason: 'shutdown' });
      expect(FakeEventSource.open).toHaveLength(0);
      vi.advanceTimersByTime(wait - 1);
      expect(FakeEventSource.open).toHaveLength(0);
      vi.advanceTimersByTime(1);
      expect(FakeEventSource.only.url).toBe(`${URL_}&lastEventId=e1-3`);
      stream!.close();
    }
  });

  it('stops for good after a bye that says the show is gone or the key revoked, keeping what it has', () => {
    vi.useFakeTimers();
    for (const reason of ['gone', 'revoked']) {
      FakeEventSource.all = [];
      const onStock = start();
      FakeEventSource.only.opened().emit('snapshot', STOCK, 'e1-3').emit('bye', { reason });
      expect(onStock).toHaveBeenCalledTimes(1);
      expect(FakeEventSource.open).toHaveLength(0);
      vi.advanceTimersByTime(MAX_BACKOFF_MS);
      setVisibility('hidden');
      setVisibility('visible');
      expect(FakeEventSource.all).toHaveLength(1);
    }
  });

  it('close() stops everything: the stream, a wait, the page’s visibility; events of a closed source are not heard', () => {
    vi.useFakeTimers();
    const onStock = start();
    const source = FakeEventSource.only;
    source.fail(true);
    stream!.close();
    vi.advanceTimersByTime(MAX_BACKOFF_MS);
    setVisibility('hidden');
    setVisibility('visible');
    expect(FakeEventSource.all).toHaveLength(1);
    source.emit('snapshot', STOCK, 'x');
    expect(onStock).not.toHaveBeenCalled();
    // Opened again: a fresh start, the earlier stream's id forgotten.
    stream!.open(URL_);
    expect(FakeEventSource.only.url).toBe(URL_);
  });
});
