import { randomBytes } from 'node:crypto';
import type { DbVersion } from '../../db/change-counter.js';
import { ACCESS_LAYER_MAX_STREAMS_DEFAULT } from '../../lib/config.js';
import { ApiError } from '../../lib/errors.js';
import type { Kernel } from '../../lib/kernel.js';
import { apiKeyExpiry, partnerById } from '../../domain/partners/partners.queries.js';
import type { PartnerRow } from '../../domain/partners/partners.service.js';
import type { BuyAccessLayerSettings } from '../../domain/partners/partners.settings.js';
import { BuyAccessLayer, buyConfig, type BuyAccessLayerDeps, floorPriceOf, mapAreas, reservedOf, resaleOpen, showMarket } from './accesslayer.buy.js';
import type { ShowSnapshot } from './accesslayer.buy.cache.js';

/**
 * The live stock of the buy access layer (GET /v1/wrapper/accesslayer/stream): the numbers a
 * widget shows (tickets for sale, floor prices, holds, per category and area) pushed to every
 * open page of a show as they change, instead of stock that sold minutes ago.
 *
 * ## One subscription per show, never one query per stream
 * {@link StockStreams} keeps, per (partner, event, show) with at least one open stream, a
 * *topic*: its subscribers, the last stock sent (as JSON text) and the database version it was
 * computed at. One timer per process ({@link STOCK_CHECK_MS}, only while something is
 * subscribed, `unref`ed) reads the change counter (db/change-counter.ts: an O(1) read on
 * SQLite, the change feed's count on PostgreSQL); when it moved, each topic asks the buy access
 * layer's own snapshot cache (`ShowSnapshots`, shared with the GET routes: a hot show's
 * snapshot is usually fresh already) and, if the stock's JSON differs from the last one sent,
 * pushes it to its subscribers. So N streams of a show cost one fingerprint or rebuild per
 * write, as one page view after that write would, and nothing while nothing is written.
 * A stream joining a topic is served the topic's stock (brought up to date first when the
 * counter moved), without a read of its own.
 *
 * Why a timer: SQLite has no notification across processes (the counter is what tells). On
 * PostgreSQL the change feed also calls the hub on every commit it counts (`onChange`), so a
 * sale reaches the streams {@link STOCK_SOON_MS} after its notification; the timer remains for
 * a notification connection that is down.
 *
 * Time alone changes the stock once: when the show starts, resale closes (`enabled` false, no
 * `reserved`). A topic remembers that moment and is checked then, written or not.
 *
 * ## A budget of frames, not a frame per write
 * In an on-sale the stock changes at every tick, and every change is one frame per open stream:
 * 2,000 streams at 4 changes a second are 8,000 writes a second, and the on-sale benchmark
 * showed that fan-out, not the sales, taking the service's core. So the process spends at most
 * {@link STOCK_FRAMES_PER_SECOND} frames a second: a show's next change goes out no sooner than
 * `open streams / budget` seconds after its last one (never later than {@link STOCK_MAX_GAP_MS}),
 * carrying whatever changed meanwhile, so the last stock always arrives (a timer checks the show at
 * its turn, between the ticks). Below the budget
 * (fewer than 1,000 streams at the tick's rate) nothing is held back. A stream joining a show
 * held back this way gets the stock last sent, and the next one with the others. Each frame is
 * encoded once for all the streams of its show (the HTTP side keeps the bytes of the last one).
 *
 * ## Keys
 * A stream is opened with a key and outlives the request that checked it, so the hub checks the
 * keys of its open streams again: once a second at most, after a write (a rotation or a revoked
 * key is a write), each distinct key once (by its hash: no plain key is kept), and at the moment
 * a key's grace period ends. A stream whose key is no longer valid gets `bye` (`revoked`) and
 * ends; reconnecting with that key answers 401.
 *
 * Not seen by the stream until the next write: a buyer fee changed while the price stays the
 * same (the snapshot cache's own blind spot, bounded there by its full rebuild on the next
 * request, see accesslayer.buy.cache.ts).
 *
 * ## Ids
 * An event's id is `<epoch>-<seq>`: `epoch` is random per process start, `seq` grows with every
 * stock this process sends (one counter for all shows, so an id names one stock of one show).
 * A client resuming with the id of the stock still current gets no snapshot again; any other
 * id (an older stock, another show, another process, an earlier start) gets one. The last stock
 * of a show whose last stream closed is kept (up to {@link RETAINED_LIMIT} shows), so the common
 * case, the one page of a show reconnecting after a dropped connection, resumes quietly.
 */

/** How often the change counter is read while streams are open (milliseconds). */
export const STOCK_CHECK_MS = 250;
/** PostgreSQL: how long after a commit notification the shows are checked (the commits of a burst share the check). */
export const STOCK_SOON_MS = 10;
/** How often every open stream gets a comment line, so proxies and browsers keep it open (milliseconds). */
export const STOCK_HEARTBEAT_MS = 15_000;
/** The reconnection delay a stream tells the browser's EventSource (`retry:`), milliseconds. */
export const STOCK_RETRY_MS = 3_000;
/** `Retry-After` of a stream refused because the process has `ACCESS_LAYER_MAX_STREAMS` open. */
export const STREAMS_FULL_RETRY_AFTER_SECONDS = 10;
/** `Retry-After` of a stream refused because the process is shutting down (another one will take it). */
export const STREAMS_CLOSED_RETRY_AFTER_SECONDS = 3;
/** Shows whose last stock is kept after their last stream closed, least recently closed out first (see "Ids"). */
export const RETAINED_LIMIT = 10_000;
/** Stock frames a process sends a second at most, all shows together (see "A budget of frames"). */
export const STOCK_FRAMES_PER_SECOND = 4_000;
/** The longest a show's change is held back by the frame budget (milliseconds). */
export const STOCK_MAX_GAP_MS = 1_000;
/** How often, at most, the keys of open streams are checked again after writes (milliseconds). */
export const STOCK_KEY_CHECK_MS = 1_000;

/** The stock of one show: what the stream's `snapshot` and `stock` events carry (see accesslayer.stream.schemas.ts). */
export interface ShowStock {
  eventId: string;
  showId: string;
  enabled: boolean;
  totalCount: number;
  reserved?: StockReserved;
  /** Fans in the show's waiting list, while the organiser has it on and resale is open (the call to action's `waitingList.fans`). */
  waitingFans?: number;
  categories: StockCategory[];
  areas: StockArea[];
}

/** Held tickets of a scope (see `reservedOf`): always `whose: 'any'`, the stream being the same for everyone. */
export interface StockReserved {
  tickets: number;
  backAt: string;
  whose: 'others' | 'any';
}

export interface StockCategory {
  ticketOptionId: string;
  quantityForSale: number;
  floorPrice: number;
  currency: string;
  enabled: boolean;
  reserved?: StockReserved;
}

export interface StockArea {
  area: string;
  quantityForSale: number;
  floorPrice: number;
}

/**
 * The stock of a show at `now`: the numbers of the unsigned buy access layer answer (the same
 * `showMarket`, floors, holds and areas as its components), without texts or URLs.
 *
 * @example const stock = showStock(buyConfig(partner), snapshot, clock.now()); stock.categories[0].floorPrice
 */
export function showStock(cfg: BuyAccessLayerSettings, s: ShowSnapshot, now: number): ShowStock {
  const { options, total, open, enabled, holds } = showMarket(cfg, s, now);
  const reserved = reservedOf(holds, null);
  return {
    eventId: s.eventId,
    showId: s.showId,
    enabled,
    totalCount: total,
    ...(reserved ? { reserved } : {}),
    ...(open && s.waitingList ? { waitingFans: s.waitingList.fans } : {}),
    categories: options.map((o) => {
      const held = reservedOf(holds, null, o.ticketOptionId);
      return { ticketOptionId: o.ticketOptionId, quantityForSale: o.quantityForSale, floorPrice: floorPriceOf(o), currency: o.currency, enabled: open && o.quantityForSale > 0, ...(held ? { reserved: held } : {}) };
    }),
    areas: mapAreas(options).map((a) => ({ area: a.area, quantityForSale: a.quantityForSale, floorPrice: a.floorPrice })),
  };
}

/** The first event of a stream (`snapshot`) or a later change (`stock`). */
export type StockEvent = 'snapshot' | 'stock';
/**
 * Why the hub ends a stream: the service is shutting down (reconnect), the show (or its partner)
 * no longer exists, or the key the stream was opened with was rotated away or revoked (a
 * reconnection with it answers 401).
 */
export type ByeReason = 'shutdown' | 'gone' | 'revoked';

/** One open stream as the hub sees it: the HTTP side writes what it is told. Calls never overlap. */
export interface StockListener {
  /** A stock to send, with its id and its JSON text. */
  stock(event: StockEvent, id: string, json: string): void;
  /** Nothing to say, but say something (every {@link STOCK_HEARTBEAT_MS}). */
  heartbeat(): void;
  /** The hub has let go of this stream: say why and end it. */
  bye(reason: ByeReason): void;
}

/** A stream's hold on its topic. */
export interface StockSubscription {
  /** Lets go (the client went away, or the stream was dropped). Harmless twice, and after a `bye`. */
  end(): void;
}

/** Timing and limits of {@link StockStreams}; tests shorten or stretch them and drive the hub themselves. */
export interface StockStreamsOptions {
  /** See {@link STOCK_CHECK_MS}. */
  checkEveryMs?: number;
  /** See {@link STOCK_HEARTBEAT_MS}. */
  heartbeatEveryMs?: number;
  /** Open streams at most; default `config.accessLayerMaxStreams`, else `ACCESS_LAYER_MAX_STREAMS_DEFAULT` (lib/config.ts). */
  maxStreams?: number;
  /** See {@link STOCK_FRAMES_PER_SECOND}. */
  framesPerSecond?: number;
  /** See {@link STOCK_KEY_CHECK_MS}. */
  keyCheckEveryMs?: number;
}

/** What a stream was opened with, beside its show. */
export interface StockStreamKey {
  /** The SHA-256 of the key the stream was opened with (`hashSecret`), checked again while it is open. */
  keyHash: string;
}

/** The open streams of one key, and what is known of it. */
interface KeyEntry {
  streams: Map<StockListener, Topic>;
  /** When its grace period ends (clock ms), as last read; null: it does not expire. */
  expiresAt: number | null;
  /** Not read yet since its first stream opened. */
  unchecked: boolean;
}

interface Topic {
  key: string;
  eventId: string;
  showId: string;
  /** The partner as last read: its `buyAccessLayer` setting decides which options count. */
  partner: PartnerRow;
  subscribers: Set<StockListener>;
  /** The change counter the stock below was computed at. */
  version: DbVersion;
  /** The last stock sent, and its seq. */
  json: string;
  seq: number;
  /** When time alone changes the stock (the show starts while resale is open), clock ms; null: never. */
  edge: number | null;
  /** A refresh under way (one at a time per topic). */
  pending: Promise<void> | null;
  /** The show or its partner no longer exists: the topic is closed. */
  gone: boolean;
  /** The frame budget: no stock is sent before this (clock ms). */
  nextAt: number;
}

/**
 * The hub of the live stock streams of one process. See the module comment.
 *
 * @example
 * const streams = new StockStreams(deps, buy);
 * const sub = await streams.subscribe(partner, { eventId: 'tour', showId: 'show-1' }, undefined, listener);
 * // … listener.stock('snapshot', '3f9a0c41d2e7-1', '{"eventId":"tour",…}') already called
 * sub.end();
 */
export class StockStreams {
  /** The buy access layer whose snapshot cache the streams read (the GET routes' own, when app.ts is given this hub). */
  readonly buy: BuyAccessLayer;
  /** Names this process start in every event id. */
  readonly epoch = randomBytes(6).toString('hex');
  /** Open streams at most (beyond: 503 with Retry-After). */
  readonly maxStreams: number;
  private readonly checkEveryMs: number;
  private readonly heartbeatEveryMs: number;
  private readonly framesPerSecond: number;
  private readonly keyCheckEveryMs: number;
  private readonly topics = new Map<string, Topic>();
  private readonly keys = new Map<string, KeyEntry>();
  private readonly keyOfListener = new Map<StockListener, string>();
  /** When the keys were last read (clock ms), and the database version they were read at. */
  private keysCheckedAt = Number.NEGATIVE_INFINITY;
  private keysVersion: DbVersion | null = null;
  private readonly retained = new Map<string, { seq: number; json: string }>();
  private seq = 0;
  private subscribed = 0;
  /** Streams being opened (their slot is taken while their first stock is read). */
  private opening = 0;
  private closed = false;
  private checkTimer: NodeJS.Timeout | null = null;
  /** PostgreSQL: a check asked by a commit notification, not yet run (bursts of commits share it). */
  private soon: NodeJS.Timeout | null = null;
  /** A check at the turn of a show held back by the frame budget (see `armTurn`). */
  private turn: NodeJS.Timeout | null = null;
  private unlisten: (() => void) | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  /** Topic refreshes since start (each one snapshot read through the cache, however many streams): tests read it. */
  refreshes = 0;

  constructor(
    private readonly deps: Pick<Kernel, 'logger'> & BuyAccessLayerDeps,
    buy?: BuyAccessLayer,
    opts: StockStreamsOptions = {},
  ) {
    this.buy = buy ?? new BuyAccessLayer(deps);
    this.maxStreams = opts.maxStreams ?? deps.config.accessLayerMaxStreams ?? ACCESS_LAYER_MAX_STREAMS_DEFAULT;
    this.checkEveryMs = opts.checkEveryMs ?? STOCK_CHECK_MS;
    this.heartbeatEveryMs = opts.heartbeatEveryMs ?? STOCK_HEARTBEAT_MS;
    this.framesPerSecond = opts.framesPerSecond ?? STOCK_FRAMES_PER_SECOND;
    this.keyCheckEveryMs = opts.keyCheckEveryMs ?? STOCK_KEY_CHECK_MS;
  }

  /** Streams open now, and being opened (`resale_accesslayer_streams`). */
  get open(): number {
    return this.subscribed + this.opening;
  }

  /** Shows with at least one open stream. */
  get shows(): number {
    return this.topics.size;
  }

  /** Whether the timers run (they do exactly while a stream is open). */
  get ticking(): boolean {
    return this.checkTimer !== null;
  }

  /**
   * The stock of a show now, once (the stream's JSON answer, for a client that does not ask for
   * `text/event-stream`): from the open topic when there is one and nothing was written since,
   * else through the snapshot cache.
   *
   * @throws ApiError 404 when the partner has no such event or show
   */
  async current(partner: PartnerRow, ref: { eventId: string; showId: string }): Promise<ShowStock> {
    const version = this.buy.snapshots.counter.read();
    const topic = this.topics.get(keyOf(partner.id, ref));
    if (topic && this.buy.snapshots.counter.same(topic.version, version) && !this.timeChanged(topic, this.deps.clock.now())) return JSON.parse(topic.json) as ShowStock;
    const r = await this.buy.snapshots.get(partner.id, ref.eventId, ref.showId, version);
    if (!r.found) throw notFound(r.missing, ref);
    return showStock(buyConfig(partner), r.snapshot, this.deps.clock.now());
  }

  /**
   * Opens a stream of a show's stock for `listener`: a `snapshot` first (synchronously, before
   * this resolves) unless `lastEventId` names the stock that is still current, then a `stock`
   * at every change, a heartbeat every {@link STOCK_HEARTBEAT_MS}, until `end()` or a `bye`.
   *
   * @throws ApiError 503 `rate_limited` (Retry-After) when {@link maxStreams} are open
   * @throws ApiError 503 `not_ready` (Retry-After) once {@link close}d (the process is shutting down)
   * `key`: the key the stream was opened with, checked again while it is open (see "Keys").
   *
   * @throws ApiError 404 when the partner has no such event or show
   */
  async subscribe(partner: PartnerRow, ref: { eventId: string; showId: string }, lastEventId: string | undefined, listener: StockListener, key?: StockStreamKey): Promise<StockSubscription> {
    if (this.closed) throw notServing();
    if (this.open >= this.maxStreams) {
      throw new ApiError(503, 'rate_limited', `This server has ${this.maxStreams} live stock streams open, its most; retry in ${STREAMS_FULL_RETRY_AFTER_SECONDS} s, or read GET /v1/wrapper/accesslayer meanwhile`, {
        headers: { 'Retry-After': String(STREAMS_FULL_RETRY_AFTER_SECONDS) },
      });
    }
    // The slot is taken before the first read, so streams opening together cannot overshoot the limit.
    this.opening++;
    let topic: Topic;
    try {
      topic = await this.topicFor(partner, ref);
    } finally {
      this.opening--;
    }
    if (this.closed) {
      this.dropIfIdle(topic);
      throw notServing();
    }
    // Its last stream may have closed while this one waited, which let the topic go: take it back.
    const current = this.topics.get(topic.key);
    if (current === undefined) {
      this.topics.set(topic.key, topic);
      this.retained.delete(topic.key);
    } else topic = current;
    // From here to the snapshot, nothing awaits: no change can fall between the two.
    topic.subscribers.add(listener);
    this.subscribed++;
    if (key) this.holdKey(key.keyHash, listener, topic);
    this.startTimers();
    const id = this.idOf(topic.seq);
    if (lastEventId !== id) listener.stock('snapshot', id, topic.json);
    return { end: () => this.unsubscribe(topic, listener) };
  }

  /**
   * Checks every subscribed show now, as the timer does every {@link STOCK_CHECK_MS}: a show
   * whose database version moved (or whose start has come) is refreshed through the snapshot
   * cache, and its subscribers get a `stock` if it changed. Checks run one after another; the
   * promise settles when this one is done. Never rejects (a failed read is logged and tried
   * again at the next check).
   */
  checkNow(): Promise<void> {
    const next = (this.checking ?? Promise.resolve()).then(() => this.check());
    this.checking = next;
    void next.finally(() => {
      if (this.checking === next) this.checking = null;
    });
    return next;
  }

  /** Sends every open stream a heartbeat now, as the timer does every {@link STOCK_HEARTBEAT_MS}. */
  heartbeatNow(): void {
    for (const topic of [...this.topics.values()]) for (const listener of [...topic.subscribers]) this.tell(topic, listener, (l) => l.heartbeat());
  }

  /**
   * The shutdown (main.ts's drain, once the server stops accepting connections): every open
   * stream gets `bye` (`shutdown`) and ends, so the drain does not wait for them, and every
   * stream asked for afterwards is refused (503 `not_ready`). The clients reconnect, through the
   * load balancer, to another process. Harmless twice.
   */
  close(): void {
    this.closed = true;
    const topics = [...this.topics.values()];
    this.topics.clear();
    for (const topic of topics) this.bye(topic, 'shutdown');
    this.stopTimers();
  }

  private idOf(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  private timeChanged(topic: Topic, now: number): boolean {
    return topic.edge !== null && now >= topic.edge;
  }

  /** The topic of a show, made (its stock read) or brought up to date; throws 404 when the show is not there. */
  private async topicFor(partner: PartnerRow, ref: { eventId: string; showId: string }): Promise<Topic> {
    const key = keyOf(partner.id, ref);
    const counter = this.buy.snapshots.counter;
    const known = this.topics.get(key);
    if (known) {
      const now = this.deps.clock.now();
      // Held back by the frame budget: the stock last sent, the next one with the others.
      if ((!counter.same(known.version, counter.read()) && now >= known.nextAt) || this.timeChanged(known, now)) await this.refresh(known);
      if (known.gone) throw notFound('show', ref);
      return known;
    }
    const version = counter.read();
    const r = await this.buy.snapshots.get(partner.id, ref.eventId, ref.showId, version);
    if (!r.found) throw notFound(r.missing, ref);
    // Another stream of the show may have made the topic meanwhile: one topic per show.
    const made = this.topics.get(key);
    if (made) return made;
    const now = this.deps.clock.now();
    const json = JSON.stringify(showStock(buyConfig(partner), r.snapshot, now));
    const kept = this.retained.get(key);
    this.retained.delete(key);
    const topic: Topic = {
      key,
      eventId: ref.eventId,
      showId: ref.showId,
      partner,
      subscribers: new Set(),
      version,
      json,
      // The same stock as when its last stream closed: the same id, so a resuming client gets no snapshot.
      seq: kept?.json === json ? kept.seq : ++this.seq,
      edge: edgeOf(r.snapshot, now),
      pending: null,
      gone: false,
      nextAt: now,
    };
    this.topics.set(key, topic);
    return topic;
  }

  private async check(): Promise<void> {
    try {
      const counter = this.buy.snapshots.counter;
      const version = counter.read();
      const now = this.deps.clock.now();
      // The partners read in this check (their settings decide which options count): once each.
      const partners = new Map<string, Promise<PartnerRow | undefined>>();
      for (const topic of [...this.topics.values()]) {
        if (this.timeChanged(topic, now)) {
          // The show's start: sent whatever the budget says.
        } else if (counter.same(topic.version, version) || now < topic.nextAt) continue;
        try {
          await this.refresh(topic, partners);
        } catch (err) {
          // The database may be down: the topic keeps its version, so the next check tries again.
          this.deps.logger.warn({ err: { message: (err as Error).message }, eventId: topic.eventId, showId: topic.showId }, 'live stock: a show could not be read; trying again at the next check');
        }
      }
      await this.checkKeys(version, now);
      this.armTurn(now);
    } catch (err) {
      this.deps.logger.warn({ err: { message: (err as Error).message } }, 'live stock: the check failed');
    }
  }

  /** Reads a topic's stock again (one refresh at a time per topic) and sends it if it changed. */
  private refresh(topic: Topic, partners?: Map<string, Promise<PartnerRow | undefined>>): Promise<void> {
    if (topic.pending) return topic.pending;
    const pending = this.load(topic, partners).finally(() => {
      topic.pending = null;
    });
    topic.pending = pending;
    return pending;
  }

  private async load(topic: Topic, partners?: Map<string, Promise<PartnerRow | undefined>>): Promise<void> {
    this.refreshes++;
    const counter = this.buy.snapshots.counter;
    const version = counter.read();
    let partner: PartnerRow | undefined = topic.partner;
    if (!counter.same(topic.version, version)) {
      // Something was written: perhaps the partner's settings (a category disabled).
      const id = topic.partner.id;
      let read = partners?.get(id);
      if (!read) {
        read = this.deps.db.read(async (tx) => await partnerById(tx, id));
        partners?.set(id, read);
      }
      partner = await read;
    }
    const r = partner ? await this.buy.snapshots.get(partner.id, topic.eventId, topic.showId, version) : null;
    if (!partner || !r?.found) return this.gone(topic);
    const now = this.deps.clock.now();
    const json = JSON.stringify(showStock(buyConfig(partner), r.snapshot, now));
    topic.partner = partner;
    topic.version = version;
    topic.edge = edgeOf(r.snapshot, now);
    if (json === topic.json) return;
    topic.json = json;
    topic.seq = ++this.seq;
    topic.nextAt = now + this.gapMs();
    const id = this.idOf(topic.seq);
    for (const listener of [...topic.subscribers]) this.tell(topic, listener, (l) => l.stock('stock', id, json));
  }

  /** Calls a listener; one that throws (its stream already gone) is let go, the others still hear. */
  private tell(topic: Topic, listener: StockListener, call: (l: StockListener) => void): void {
    try {
      call(listener);
    } catch (err) {
      this.deps.logger.debug({ err: { message: (err as Error).message } }, 'live stock: a stream could not be written; dropped');
      this.unsubscribe(topic, listener);
    }
  }

  /**
   * How long a show's next stock waits after one is sent: the open streams' share of the frame
   * budget, at most {@link STOCK_MAX_GAP_MS}; 0 (the next check) while under the budget at the
   * tick's rate.
   */
  private gapMs(): number {
    const gap = (this.subscribed * 1000) / this.framesPerSecond;
    return gap <= STOCK_CHECK_MS ? 0 : Math.min(gap, STOCK_MAX_GAP_MS);
  }

  /**
   * A show held back by the budget is checked at its turn, not at the next tick after it: a
   * timer for the earliest turn when it comes before the tick. The check it runs decides by the
   * clock, as every check.
   */
  private armTurn(now: number): void {
    if (this.turn || this.closed) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const topic of this.topics.values()) if (topic.nextAt > now && topic.nextAt < earliest) earliest = topic.nextAt;
    if (earliest - now >= this.checkEveryMs) return;
    this.turn = setTimeout(() => {
      this.turn = null;
      if (!this.checking) void this.checkNow();
    }, earliest - now).unref();
  }

  private holdKey(hash: string, listener: StockListener, topic: Topic): void {
    let entry = this.keys.get(hash);
    if (!entry) this.keys.set(hash, (entry = { streams: new Map(), expiresAt: null, unchecked: true }));
    entry.streams.set(listener, topic);
    this.keyOfListener.set(listener, hash);
  }

  private letGoOfKey(listener: StockListener): void {
    const hash = this.keyOfListener.get(listener);
    if (hash === undefined) return;
    this.keyOfListener.delete(listener);
    const entry = this.keys.get(hash);
    entry?.streams.delete(listener);
    if (entry?.streams.size === 0) this.keys.delete(hash);
  }

  /**
   * The keys of the open streams, read again when something was written (at most every
   * {@link STOCK_KEY_CHECK_MS}) or first seen, and held against the clock at every check: the
   * streams of a key that is gone or expired get `bye` (`revoked`).
   */
  private async checkKeys(version: DbVersion, now: number): Promise<void> {
    // Something was written since the keys were last read (a rotation that came within the last
    // second stays "written" until a check reads them).
    const written = this.keysVersion === null || !this.buy.snapshots.counter.same(this.keysVersion, version);
    const due = written && now - this.keysCheckedAt >= this.keyCheckEveryMs;
    if (due) {
      this.keysCheckedAt = now;
      this.keysVersion = version;
    }
    for (const [hash, entry] of [...this.keys]) {
      if (due || entry.unchecked) {
        entry.unchecked = false;
        const expiresAt = await this.deps.db.read(async (tx) => await apiKeyExpiry(tx, hash));
        if (expiresAt === undefined) {
          this.revoke(hash);
          continue;
        }
        entry.expiresAt = expiresAt;
      }
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.revoke(hash);
    }
  }

  /** Ends the streams opened with a key that is no longer valid. */
  private revoke(hash: string): void {
    const entry = this.keys.get(hash);
    if (!entry) return;
    this.keys.delete(hash);
    for (const [listener, topic] of entry.streams) {
      this.keyOfListener.delete(listener);
      if (!topic.subscribers.delete(listener)) continue;
      this.subscribed--;
      try {
        listener.bye('revoked');
      } catch {
        // Its stream is gone already.
      }
      this.dropIfIdle(topic);
    }
  }

  private unsubscribe(topic: Topic, listener: StockListener): void {
    if (!topic.subscribers.delete(listener)) return;
    this.subscribed--;
    this.letGoOfKey(listener);
    this.dropIfIdle(topic);
  }

  /** Forgets a topic nobody follows any more (its last stock kept for a resume), and stops the timers when none is left. */
  private dropIfIdle(topic: Topic): void {
    if (topic.subscribers.size > 0 || this.topics.get(topic.key) !== topic) return;
    this.topics.delete(topic.key);
    this.retained.delete(topic.key);
    this.retained.set(topic.key, { seq: topic.seq, json: topic.json });
    if (this.retained.size > RETAINED_LIMIT) this.retained.delete(this.retained.keys().next().value!);
    if (this.topics.size === 0) this.stopTimers();
  }

  /** The show (or its partner) no longer exists: its streams end. */
  private gone(topic: Topic): void {
    topic.gone = true;
    if (this.topics.get(topic.key) === topic) this.topics.delete(topic.key);
    this.retained.delete(topic.key);
    this.bye(topic, 'gone');
    if (this.topics.size === 0) this.stopTimers();
  }

  private bye(topic: Topic, reason: ByeReason): void {
    const listeners = [...topic.subscribers];
    topic.subscribers.clear();
    this.subscribed -= listeners.length;
    for (const listener of listeners) {
      this.letGoOfKey(listener);
      try {
        listener.bye(reason);
      } catch {
        // Its stream is gone already: nothing to say goodbye to.
      }
    }
  }

  private startTimers(): void {
    if (this.checkTimer) return;
    // Neither keeps the process alive: a stream is no reason not to exit.
    this.checkTimer = setInterval(() => {
      // A slow check (a database that answers slowly) is not stacked up behind.
      if (!this.checking) void this.checkNow();
    }, this.checkEveryMs).unref();
    this.heartbeatTimer = setInterval(() => this.heartbeatNow(), this.heartbeatEveryMs).unref();
    // Where the database says when something was committed (PostgreSQL's notifications), a
    // commit is pushed within a few milliseconds instead of at the next tick; the tick stays,
    // for a notification connection that is down. Commits in a burst share one check.
    this.unlisten = this.buy.snapshots.counter.onChange?.(() => {
      this.soon ??= setTimeout(() => {
        this.soon = null;
        if (!this.checking) void this.checkNow();
      }, STOCK_SOON_MS).unref();
    }) ?? null;
  }

  private stopTimers(): void {
    if (this.checkTimer) clearInterval(this.checkTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.soon) clearTimeout(this.soon);
    if (this.turn) clearTimeout(this.turn);
    this.turn = null;
    this.unlisten?.();
    this.checkTimer = null;
    this.heartbeatTimer = null;
    this.soon = null;
    this.unlisten = null;
  }
}

/** One show of one partner (the ids are the partner's own, so its id is part of the key). */
function keyOf(partnerId: string, ref: { eventId: string; showId: string }): string {
  return `${partnerId}\u0000${ref.eventId.length}:${ref.eventId}\u0000${ref.showId}`;
}

/** When time alone changes a show's stock: its start, while resale is open (it closes then); null when nothing will. */
function edgeOf(s: ShowSnapshot, now: number): number | null {
  return resaleOpen(s, now) ? s.startsAt : null;
}

function notFound(missing: 'event' | 'show', ref: { eventId: string; showId: string }): ApiError {
  return missing === 'event' ? ApiError.notFound('event', ref.eventId) : ApiError.notFound('show', ref.showId);
}

function notServing(): ApiError {
  return new ApiError(503, 'not_ready', `This server is shutting down; retry in ${STREAMS_CLOSED_RETRY_AFTER_SECONDS} s (another one will serve the stream)`, {
    headers: { 'Retry-After': String(STREAMS_CLOSED_RETRY_AFTER_SECONDS) },
  });
}
