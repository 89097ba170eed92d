import { and, desc, eq } from 'drizzle-orm';
import type { Tx } from '../../db/client.js';
import { serializeOn } from '../../db/dialect.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { issuesToEntries } from '../../lib/validation.js';
import type { PartnerRow } from '../partners/partners.service.js';
import { partnerById } from '../partners/partners.queries.js';
import { platformFetch } from '../platform/platform-request.js';
import { Lanes, untilReleaseOr } from '../../lib/lanes.js';
import { cancelledItemSchema, feedEventSchema, parseFeedTimestamp } from './feeds.schemas.js';
import { feedRuns } from './feeds.table.js';
import { latestFeedRuns } from './feeds.queries.js';
import type { Kernel } from '../../lib/kernel.js';
import type { EventsService } from '../events/events.service.js';
import type { PartnersService } from '../partners/partners.service.js';

/** The two pull feeds of a partner (spec, platform-side contracts 1 and 2). */
export type FeedKind = 'events' | 'cancelled';
export const FEED_KINDS: readonly FeedKind[] = ['events', 'cancelled'];

/** One poll of a feed, as stored. */
export type FeedRun = typeof feedRuns.$inferSelect;

/** A poll whose run is claimed (its row written) and not yet made: {@link FeedsService.claimPollIn}, then {@link FeedsService.runClaimed}. */
export interface ClaimedPoll {
  partner: PartnerRow;
  feed: FeedKind;
  url: string;
  run: FeedRun;
}

/** A feed that should be polled now. */
export interface DuePoll {
  partnerId: string;
  feed: FeedKind;
}

export interface FeedsServiceOptions {
  /** Time limit of one feed request, body included: a hanging feed holds its poll no longer. Default: platformFetch's 10 s. */
  timeoutMs?: number;
  /** Largest feed body accepted. Default: platformFetch's 20 MiB. */
  maxBytes?: number;
  /**
   * Polls in flight at once in this service, every partner together. Default 8. A partner's
   * own two feeds are polled one after the other (events first), never at once.
   */
  concurrency?: number;
}

export const DEFAULT_FEED_CONCURRENCY = 8;
/** How often `pollContinuously` looks for due feeds. Default 1 s (the job's tick). */
export const DEFAULT_FEED_POLL_MS = 1000;

/** What the service needs from the app's dependencies. */
export type FeedsDeps = Pick<Kernel, 'db' | 'clock' | 'logger'> & { partners: PartnersService; events: EventsService };

/** At most this many problems are kept per run … */
export const MAX_PROBLEMS = 100;
/** … each at most this long. */
export const MAX_PROBLEM_CHARS = 300;
/** Items applied between two yields to the event loop, so a long feed never stalls the API. */
const ITEMS_PER_SLICE = 50;
/** What a run says until it finishes (and keeps saying if the process stopped during it). */
const UNFINISHED = 'The poll did not finish (it is still running, or the process stopped during it)';

/**
 * Pull synchronisation: polls each partner's events feed and cancelled-events feed and
 * applies them through the events service.
 *
 * - A feed that is down, slow, too large, or answers anything but a JSON array changes
 *   nothing; the run is recorded as failed and the next tick tries again. Nothing thrown
 *   by a feed ever leaves `tick()`.
 * - Each item is applied in its own transaction: one malformed or refused item is
 *   skipped, with its reason in the run, and the others are applied.
 * - Nothing is removed by omission: an event missing from the feed is left as it is;
 *   cancellations come from the cancelled feed (or the cancellation endpoint).
 * - The schedule lives in `feed_runs`: a run's row is written when it starts, so another
 *   process, or this one after a restart, waits `feedPollSeconds` from that moment.
 * - Partners do not wait for each other: due feeds of different partners are polled at once
 *   (at most `concurrency`), each within its own time limit (`timeoutMs`), so a partner whose
 *   feed hangs holds only its own poll; a partner's two feeds go one after the other.
 *
 * @example
 * const feeds = new FeedsService(deps);
 * await feeds.tick(); // polls what is due, then promotes ANNOUNCED shows whose sales started
 */
export class FeedsService {
  /** One lane per partner (its feeds one after the other), `concurrency` in all. */
  private readonly lanes: Lanes;

  constructor(
    private readonly deps: FeedsDeps,
    private readonly opts: FeedsServiceOptions = {},
  ) {
    this.lanes = new Lanes({ perKey: 1, overall: opts.concurrency ?? DEFAULT_FEED_CONCURRENCY });
  }

  /**
   * Polls the partner's events feed now, whatever the schedule. Resolves to the run, or
   * null when the partner has no `eventsFeedUrl`. Throws only ApiError 404 for an
   * unknown partner; feed failures are in the run.
   */
  pollEvents(partnerId: string): Promise<FeedRun | null> {
    return this.poll(partnerId, 'events');
  }

  /** Polls the partner's cancelled-events feed now; see {@link pollEvents}. */
  pollCancelled(partnerId: string): Promise<FeedRun | null> {
    return this.poll(partnerId, 'cancelled');
  }

  /** Polls one feed now, whatever the schedule; see {@link pollEvents}. */
  async poll(partnerId: string, feed: FeedKind): Promise<FeedRun | null> {
    const claimed = await this.deps.db.transact(async (tx) => await this.claimPollIn(tx, partnerId, feed));
    return claimed ? this.runClaimed(claimed) : null;
  }

  /**
   * The first half of {@link poll}, in the caller's transaction: the run's row written as it
   * starts (whatever the schedule), so what asked for the poll can be recorded with it (the
   * operator's poll and its audit entry). Null when the partner has no URL for `feed`. The
   * fetch happens in {@link runClaimed}, after the transaction: a feed's request never holds
   * one open.
   *
   * @throws ApiError 404 for an unknown partner
   */
  async claimPollIn(tx: Tx, partnerId: string, feed: FeedKind): Promise<ClaimedPoll | null> {
    const partner = await partnerById(tx, partnerId);
    if (!partner) throw ApiError.notFound('partner', partnerId);
    const url = feedUrl(partner, feed);
    if (url === null) return null;
    const run = await this.claimIn(tx, partner, feed, false);
    return run ? { partner, feed, url, run } : null;
  }

  /** The second half of {@link poll}: fetches and applies the claimed feed and finishes its run. Never throws. */
  async runClaimed(claimed: ClaimedPoll): Promise<FeedRun> {
    return this.execute(claimed.partner, claimed.feed, claimed.url, claimed.run);
  }

  /**
   * The feeds to poll at `now`: each feed whose URL is set and whose latest run started
   * at least `feedPollSeconds` before `now` (or that never ran). Read from `feed_runs`,
   * so a restart does not poll again early. A latest run more than one interval in the
   * future (the clock went back) counts as due, so a clock change cannot stall a feed.
   */
  async due(now: number = this.deps.clock.now()): Promise<DuePoll[]> {
    const partners = [...await this.deps.partners.list()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return this.deps.db.read(async (tx) => {
      const out: DuePoll[] = [];
      for (const partner of partners) {
        for (const feed of FEED_KINDS) {
          if (feedUrl(partner, feed) === null) continue;
          if (isDue(await this.lastStart(tx, partner.id, feed), now, partner.settings.feedPollSeconds * 1000)) out.push({ partnerId: partner.id, feed });
        }
      }
      return out;
    });
  }

  /**
   * One round: polls every due feed, feeds of different partners at once (at most
   * `concurrency`; a partner's two feeds one after the other), each within its own time limit,
   * so a partner whose feed hangs never delays another's poll; a failure of one never stops
   * the others. Then makes ANNOUNCED shows whose `dates.salesStartAt` has come ON_SALE.
   * Resolves once every poll of the round has finished, with the runs in the order of `due()`.
   * Never throws.
   */
  async tick(): Promise<{ runs: FeedRun[]; promoted: number }> {
    const pairs = await this.dueOrNone();
    const runs: (FeedRun | null)[] = pairs.map(() => null);
    const inFlight = new Set<Promise<void>>();
    let waiting = pairs.map((pair, index) => ({ ...pair, index }));
    for (;;) {
      waiting = waiting.filter((pair) => {
        const task = this.start(pair, (run) => (runs[pair.index] = run));
        if (!task) return true;
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
        return false;
      });
      if (waiting.length === 0) break;
      await this.lanes.nextRelease();
    }
    await Promise.all(inFlight);
    const promoted = await this.promote();
    return { runs: runs.filter((run): run is FeedRun => run !== null), promoted };
  }

  /**
   * Polls for as long as there is something to poll (the feeds job): a round of `due()` and
   * the promotion of ANNOUNCED shows at least every `pollMs`, each due feed started as soon as
   * its partner's lane is free, without waiting for the polls of other partners; resolves once
   * a round finds nothing to start and nothing is in flight. When `signal` aborts, nothing new
   * starts and it resolves once the polls in flight have finished. Never throws.
   */
  async pollContinuously(opts: { pollMs?: number; signal?: AbortSignal | undefined } = {}): Promise<{ runs: FeedRun[]; promoted: number }> {
    const pollMs = Math.max(1, opts.pollMs ?? DEFAULT_FEED_POLL_MS);
    const { signal } = opts;
    const runs: FeedRun[] = [];
    let promoted = 0;
    const inFlight = new Map<string, Promise<void>>();
    let waiting: DuePoll[] = [];
    let lastRound = Number.NEGATIVE_INFINITY;
    const startWaiting = () => {
      waiting = waiting.filter((pair) => {
        const key = `${pair.partnerId}:${pair.feed}`;
        if (inFlight.has(key)) return false;
        const task = this.start(pair, (run) => runs.push(run));
        if (!task) return true;
        inFlight.set(key, task);
        void task.finally(() => inFlight.delete(key));
        return false;
      });
    };
    try {
      for (;;) {
        if (signal?.aborted) break;
        if (performance.now() - lastRound >= pollMs) {
          lastRound = performance.now();
          waiting = await this.dueOrNone();
          if (signal?.aborted) break;
          startWaiting();
          promoted += await this.promote();
          if (inFlight.size === 0 && waiting.length === 0) break;
        } else {
          // A lane freed: a partner's second feed, or one that waited for a free lane.
          startWaiting();
          if (inFlight.size === 0 && waiting.length === 0) break;
        }
        await untilReleaseOr(this.lanes, pollMs - (performance.now() - lastRound), signal);
      }
      return { runs, promoted };
    } finally {
      await Promise.all(inFlight.values());
    }
  }

  /** The partner's latest runs of both feeds, newest first. */
  async runs(partnerId: string, limit = 50): Promise<FeedRun[]> {
    return this.deps.db.read(async (tx) => await latestFeedRuns(tx, partnerId, limit));
  }

  // ---------------------------------------------------------------- internals

  /** `due()` now, or none when it cannot be worked out (logged). */
  private async dueOrNone(): Promise<DuePoll[]> {
    try {
      return await this.due(this.deps.clock.now());
    } catch (err) {
      this.deps.logger.error({ err: errInfo(err) }, 'feeds: could not work out which feeds are due');
      return [];
    }
  }

  /**
   * Starts polling a due feed in its partner's lane: null when the lane (or the whole) is
   * busy. The poll claims the feed again first (another process may have polled it meanwhile)
   * and hands its run to `done`; the task never rejects.
   */
  private start(pair: DuePoll, done: (run: FeedRun) => void): Promise<void> | null {
    const release = this.lanes.tryTake(pair.partnerId);
    if (!release) return null;
    const { partnerId, feed } = pair;
    return (async () => {
      try {
        const partner = await this.deps.partners.get(partnerId);
        const url = feedUrl(partner, feed);
        if (url === null) return;
        // Claimed again under a write lock: another process may have taken it meanwhile.
        const claimed = await this.claim(partner, feed, true);
        if (claimed) done(await this.execute(partner, feed, url, claimed));
      } catch (err) {
        this.deps.logger.error({ partnerId, feed, err: errInfo(err) }, 'feeds: poll failed unexpectedly');
      } finally {
        release();
      }
    })();
  }

  /** ANNOUNCED shows whose sales started become ON_SALE; how many. Never throws. */
  private async promote(): Promise<number> {
    try {
      const promoted = await this.deps.events.promoteAnnounced();
      if (promoted > 0) this.deps.logger.info({ promoted }, 'feeds: ANNOUNCED shows went ON_SALE');
      return promoted;
    } catch (err) {
      this.deps.logger.error({ err: errInfo(err) }, 'feeds: could not promote ANNOUNCED shows');
      return 0;
    }
  }

  private async lastStart(tx: Tx, partnerId: string, feed: FeedKind): Promise<number | null> {
    const row = (await tx
      .select({ startedAt: feedRuns.startedAt })
      .from(feedRuns)
      .where(and(eq(feedRuns.partnerId, partnerId), eq(feedRuns.feed, feed)))
      .orderBy(desc(feedRuns.startedAt))
      .limit(1))[0];
    return row?.startedAt ?? null;
  }

  /**
   * Writes the run's row as it starts. With `onlyIfDue`, only if the feed is still due, with
   * the check and the write serialised per partner and feed (`serializeOn`), so two processes
   * never both poll it.
   */
  private async claim(partner: PartnerRow, feed: FeedKind, onlyIfDue: boolean): Promise<FeedRun | null> {
    return this.deps.db.transact(async (tx) => await this.claimIn(tx, partner, feed, onlyIfDue));
  }

  /** {@link claim} in the caller's transaction. */
  private async claimIn(tx: Tx, partner: PartnerRow, feed: FeedKind, onlyIfDue: boolean): Promise<FeedRun | null> {
    if (onlyIfDue) await serializeOn(tx, `feed:${partner.id}:${feed}`);
    const now = this.deps.clock.now();
    if (onlyIfDue && !isDue(await this.lastStart(tx, partner.id, feed), now, partner.settings.feedPollSeconds * 1000)) return null;
    return (await tx
      .insert(feedRuns)
      .values({ id: newId('feedRun'), partnerId: partner.id, feed, startedAt: now, finishedAt: now, ok: false, applied: 0, skipped: 0, problems: [UNFINISHED] })
      .returning())[0]!;
  }

  /** Fetches and applies one feed and finishes its run. Never throws. */
  private async execute(partner: PartnerRow, feed: FeedKind, url: string, run: FeedRun): Promise<FeedRun> {
    const { logger } = this.deps;
    const tally = new Tally(logger, partner.id, feed);
    let ok = false;
    try {
      const res = await platformFetch(this.deps, partner, url, { timeoutMs: this.opts.timeoutMs, maxBytes: this.opts.maxBytes });
      if (!res.ok) {
        tally.fail(res.message);
        logger.warn({ partnerId: partner.id, feed, reason: res.reason, status: res.status }, `feeds: ${feed} feed failed: ${res.message}`);
      } else if (!Array.isArray(res.json)) {
        const message = `The feed answered ${describe(res.json)}, not a JSON array; nothing was changed`;
        tally.fail(message);
        logger.warn({ partnerId: partner.id, feed, status: res.status }, `feeds: ${feed} feed failed: ${message}`);
      } else {
        ok = true;
        if (feed === 'events') await this.applyEvents(partner.id, res.json, tally);
        else await this.applyCancellations(partner.id, res.json, tally);
      }
    } catch (err) {
      // A bug of ours, not the partner's: the run says so and the next tick tries again.
      ok = false;
      tally.fail('The poll stopped on an unexpected error of the service (see its log)');
      logger.error({ partnerId: partner.id, feed, err: errInfo(err) }, 'feeds: poll stopped on an unexpected error');
    }

    const finished = {
      finishedAt: this.deps.clock.now(),
      ok,
      applied: tally.applied,
      skipped: tally.skipped,
      problems: tally.list(),
    };
    try {
      const row = await this.deps.db.transact(async (tx) => (await tx.update(feedRuns).set(finished).where(eq(feedRuns.id, run.id)).returning())[0]);
      if (ok) logger.info({ partnerId: partner.id, feed, applied: tally.applied, skipped: tally.skipped, ms: finished.finishedAt - run.startedAt }, `feeds: ${feed} feed polled`);
      return row ?? { ...run, ...finished };
    } catch (err) {
      logger.error({ partnerId: partner.id, feed, err: errInfo(err) }, 'feeds: could not record the run');
      return { ...run, ...finished };
    }
  }

  private async applyEvents(partnerId: string, items: unknown[], tally: Tally): Promise<void> {
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % ITEMS_PER_SLICE === 0) await yieldToEventLoop();
      const item = items[i];
      const ref = readableRef(item);
      const parsed = feedEventSchema.safeParse(item);
      if (!parsed.success) {
        tally.skip(i, ref, zodReasons(parsed.error.issues));
        continue;
      }
      try {
        await this.deps.db.transact(async (tx) => await this.deps.events.upsert(tx, partnerId, parsed.data, 'feed'));
        tally.applied++;
      } catch (err) {
        tally.skip(i, ref, this.reasonsOf(err, partnerId, 'events'));
      }
    }
  }

  private async applyCancellations(partnerId: string, items: unknown[], tally: Tally): Promise<void> {
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % ITEMS_PER_SLICE === 0) await yieldToEventLoop();
      const item = items[i];
      const ref = readableRef(item);
      const parsed = cancelledItemSchema.safeParse(item);
      if (!parsed.success) {
        tally.skip(i, ref, zodReasons(parsed.error.issues));
        continue;
      }
      const { externalReferenceId, showId, cancelledAt } = parsed.data;
      try {
        await this.deps.db.transact(async (tx) => await this.deps.events.cancel(tx, partnerId, externalReferenceId, showId ?? undefined));
        tally.applied++;
      } catch (err) {
        tally.skip(i, ref, this.reasonsOf(err, partnerId, 'cancelled'));
        continue;
      }
      // The timestamp is informational: an unreadable one never holds a cancellation back
      // (seller payouts cannot be recovered once distributed).
      if (cancelledAt !== undefined && cancelledAt !== null && parseFeedTimestamp(cancelledAt) === null) {
        tally.note(i, ref, 'cancelledAt is neither an ISO 8601 date-time nor epoch seconds/milliseconds; cancelled anyway');
      }
    }
  }

  /** Reasons an item was refused: the ApiError's entries, or a neutral line for our own bugs. */
  private reasonsOf(err: unknown, partnerId: string, feed: FeedKind): string[] {
    if (err instanceof ApiError) return err.entries.map((e) => e.message);
    this.deps.logger.error({ partnerId, feed, err: errInfo(err) }, 'feeds: item failed on an unexpected error');
    return ['could not be applied because of an unexpected error of the service (see its log)'];
  }
}

// ------------------------------------------------------------------ helpers

/** Counts and reasons of one run, capped; logs skipped items at warn. */
class Tally {
  applied = 0;
  skipped = 0;
  private readonly problems: string[] = [];
  private overflow = 0;

  constructor(
    private readonly logger: FeedsDeps['logger'],
    private readonly partnerId: string,
    private readonly feed: FeedKind,
  ) {}

  fail(message: string): void {
    this.add(message);
  }

  skip(index: number, ref: string | null, reasons: string[]): void {
    this.skipped++;
    const line = `${itemLabel(index, ref)}: ${reasons.join('; ') || 'refused'}`;
    if (this.add(line)) {
      this.logger.warn({ partnerId: this.partnerId, feed: this.feed, index, externalReferenceId: ref ?? undefined, reasons }, 'feeds: item skipped');
    }
  }

  /** A remark on an item that was applied. */
  note(index: number, ref: string | null, message: string): void {
    if (this.add(`${itemLabel(index, ref)}: ${message}`)) {
      this.logger.warn({ partnerId: this.partnerId, feed: this.feed, index, externalReferenceId: ref ?? undefined }, `feeds: ${message}`);
    }
  }

  list(): string[] {
    if (this.overflow === 0) return [...this.problems];
    return [...this.problems.slice(0, MAX_PROBLEMS - 1), `… and ${this.overflow + 1} more problems not shown`];
  }

  /** Keeps the line if there is room; false when it was only counted. */
  private add(line: string): boolean {
    if (this.problems.length >= MAX_PROBLEMS) {
      this.overflow++;
      return false;
    }
    this.problems.push(line.length > MAX_PROBLEM_CHARS ? `${line.slice(0, MAX_PROBLEM_CHARS - 1)}…` : line);
    return true;
  }
}

/** The messages of a failed parse; each names its field, relative to the item. */
function zodReasons(issues: Parameters<typeof issuesToEntries>[0]): string[] {
  return issuesToEntries(issues, 'body').map((e) => (e.path === undefined ? e.message.replace(/^the request\b/, 'the item') : e.message));
}

function feedUrl(partner: PartnerRow, feed: FeedKind): string | null {
  return (feed === 'events' ? partner.settings.eventsFeedUrl : partner.settings.cancelledFeedUrl) ?? null;
}

function isDue(lastStart: number | null, now: number, intervalMs: number): boolean {
  if (lastStart === null) return true;
  return now - lastStart >= intervalMs || lastStart - now > intervalMs;
}

/** The item's externalReferenceId when it is a readable string (it is the partner's id, not personal data). */
function readableRef(item: unknown): string | null {
  if (item === null || typeof item !== 'object') return null;
  const ref = (item as Record<string, unknown>).externalReferenceId;
  return typeof ref === 'string' && ref.trim() !== '' ? ref.trim().slice(0, 100) : null;
}

function itemLabel(index: number, ref: string | null): string {
  return ref === null ? `item ${index}` : `item ${index} (externalReferenceId '${ref}')`;
}

function describe(json: unknown): string {
  if (json === null) return 'null';
  if (typeof json === 'object') return 'a JSON object';
  return `a JSON ${typeof json}`;
}

function errInfo(err: unknown): { message: string; stack?: string | undefined } {
  return err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
