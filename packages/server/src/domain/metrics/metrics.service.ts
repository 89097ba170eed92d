import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db, Tx } from '../../db/client.js';
import { ENGINE } from '../../db/engine.js';
import type { Clock } from '../../lib/clock.js';
import { pendingMessageBacklog } from '../email/email.queries.js';
import { duePayoutBacklog } from '../payouts/payouts.queries.js';
import { ticketJobBacklog } from '../tickets/tickets.queries.js';
import { pendingWebhookBacklog } from '../webhooks/webhooks.queries.js';
import { afterCommit, type DbTimings } from './metrics.db.js';
import { availabilityOf } from '../../db/availability.js';

/**
 * What an operator scrapes at `GET /metrics` (docs/operating.md, "Metrics"): one prom-client Registry per
 * instance, never the library's global one (tests build many apps in one process, and the
 * ingestion thread builds dependencies of its own). Built in deps.ts as `deps.metrics`, so
 * modules count through it instead of importing a singleton.
 *
 * Label values are closed sets (methods, route templates, status codes, outcome and reason
 * codes, queue names): nothing a client sends becomes a label.
 *
 * @example
 * const metrics = new Metrics({ db, clock, logger });
 * metrics.webhook('delivered');
 * const text = await metrics.scrape();
 */
export class Metrics implements DbTimings {
  readonly registry = new Registry();

  /** Requests being answered now (the HTTP middleware keeps it; read at scrape time). */
  inFlight = 0;

  private readonly httpDuration: Histogram<'method' | 'route' | 'status_class'>;
  /**
   * Per route template, then per `method + status`: the request count (published to the
   * counter at scrape time) and the bound histogram. The templates are the router's own
   * strings (V8 keeps their hash), so a request costs two small Map lookups and no label hashing.
   */
  private readonly httpSeries = new Map<string, Map<string, HttpSeries>>();
  private readonly dbDuration: Histogram<'engine' | 'call'>;
  private readonly dbSeries: Record<'transact' | 'read', (seconds: number) => void>;
  private readonly webhooks: Counter<'outcome'>;
  private readonly intentions: Counter<'outcome' | 'reason'>;
  private readonly attention: Counter<'what'>;
  /** The buy access layer's snapshot caches (one per app built over these deps), summed at scrape time. */
  private readonly snapshotCaches = new Set<SnapshotCacheCounts>();
  /** The hubs of the buy access layer's live stock streams (one per app), summed at scrape time. */
  private readonly stockStreams = new Set<OpenStreamCount>();
  private processMetrics = false;

  constructor(private readonly deps: { db: Db; clock: Clock; logger: Logger }) {
    const registers = [this.registry];

    const httpSeries = this.httpSeries;
    new Counter({
      name: 'resale_http_requests_total',
      help: 'HTTP requests answered, by method, route template (unmatched for no route) and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
      // Counted per request in plain numbers (observeRequest), handed over here: half the cost of an inc() per request.
      collect() {
        this.reset();
        for (const byRoute of httpSeries.values()) for (const series of byRoute.values()) this.inc(series.labels, series.count);
      },
    });
    this.httpDuration = new Histogram({
      name: 'resale_http_request_duration_seconds',
      help: 'Time from the request reaching the app to its response being ready, by method, route template and status class (2xx, 4xx, 5xx…).',
      labelNames: ['method', 'route', 'status_class'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const self = this;
    new Gauge({
      name: 'resale_database_available',
      help: 'Whether this process can use the database (1) or its last call failed for want of it (0: unreachable, restarting, disk full or read-only); alert on 0.',
      registers,
      collect() {
        this.set(availabilityOf(self.deps.db)?.down ? 0 : 1);
      },
    });
    new Gauge({
      name: 'resale_http_requests_in_flight',
      help: 'HTTP requests being answered at the moment of the scrape (the scrape included).',
      registers,
      collect() {
        this.set(self.inFlight);
      },
    });

    this.dbDuration = new Histogram({
      name: 'resale_db_duration_seconds',
      help: 'Duration of the root db.transact (a transaction, queue wait included) and db.read calls, by engine (sqlite, postgres).',
      labelNames: ['engine', 'call'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    const transact = this.dbDuration.labels(ENGINE, 'transact');
    const read = this.dbDuration.labels(ENGINE, 'read');
    this.dbSeries = { transact: (s) => transact.observe(s), read: (s) => read.observe(s) };

    this.webhooks = new Counter({
      name: 'resale_webhook_outcomes_total',
      help:
        'Webhook outcomes: delivered (a 2xx), failed_attempt (a retry is scheduled), gave_up (the retry schedule is exhausted; the message is failed), ' +
        'skipped (the partner does not subscribe to the action; never sent), superseded (the message was replayed or re-claimed during the attempt).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of WEBHOOK_OUTCOMES) this.webhooks.inc({ outcome }, 0);

    this.intentions = new Counter({
      name: 'resale_buy_intentions_total',
      help:
        'Buy intentions by outcome: created, refused (reason: the refusal’s reason or error code), paid, failed (payment declined or risk high), ' +
        'expired, cancelled. Counted when the transaction commits.',
      labelNames: ['outcome', 'reason'],
      registers,
    });
    for (const outcome of INTENTION_OUTCOMES) if (outcome !== 'refused') this.intentions.inc({ outcome }, 0);

    this.attention = new Counter({
      name: 'resale_payment_provider_attention_total',
      help:
        'Money moved at the payment provider by someone else, for an operator to act on: dispute (a buyer’s chargeback: answer it in the provider’s dashboard before its deadline), ' +
        'transfer_reversed (a delivered payout reversed in the dashboard). Alert on any increase.',
      labelNames: ['what'],
      registers,
    });
    for (const what of ATTENTION_KINDS) this.attention.inc({ what }, 0);

    const caches = this.snapshotCaches;
    const cacheCounter = (name: string, help: string, field: keyof SnapshotCacheCounts) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          let total = 0;
          for (const cache of caches) total += cache[field];
          this.reset();
          this.inc(total);
        },
      });
    cacheCounter('resale_buy_accesslayer_cache_hits_total', 'Buy access layer answers served from a cached snapshot without any query (the database unchanged since).', 'hits');
    cacheCounter('resale_buy_accesslayer_cache_checks_total', 'Fingerprint checks of a cached snapshot after something was written (kept or rebuilt).', 'checks');
    cacheCounter('resale_buy_accesslayer_cache_rebuilds_total', 'Snapshots built from the database (first request of a show, or its fingerprint changed).', 'rebuilds');
    const hubs = this.stockStreams;
    new Gauge({
      name: 'resale_accesslayer_streams',
      help: 'Live stock streams of the buy access layer open in this process (GET /v1/wrapper/accesslayer/stream), at most ACCESS_LAYER_MAX_STREAMS.',
      registers,
      collect() {
        let open = 0;
        for (const hub of hubs) open += hub.open;
        this.set(open);
      },
    });

    this.queueGauges(registers);
  }

  /** The Content-Type of {@link scrape}'s text (Prometheus text exposition 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition of every metric, queue depths read now (one `db.read`). */
  async scrape(): Promise<string> {
    return await this.registry.metrics();
  }

  /**
   * Adds the process metrics of prom-client (`collectDefaultMetrics`, default names: CPU,
   * memory, heap, handles, GC, event-loop lag `nodejs_eventloop_lag_*`). Started by main.ts
   * only: the event-loop monitor samples the loop continuously, which tests, tools and the
   * ingestion thread do not need. Harmless twice.
   */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request (http/middleware/http-metrics.ts). `route` is a template or `unmatched`. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.httpSeries.get(route);
    if (!byRoute) this.httpSeries.set(route, (byRoute = new Map()));
    const key = method + status;
    let series = byRoute.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { labels, count: 0, histogram: this.httpDuration.labels(method, route, `${Math.floor(status / 100)}xx`) };
      byRoute.set(key, series);
    }
    series.count++;
    series.histogram.observe(seconds);
  }

  /** A root `db.transact` or `db.read` ended (metrics.db.ts). */
  observeDb(call: 'transact' | 'read', seconds: number): void {
    this.dbSeries[call](seconds);
  }

  /**
   * A webhook outcome. `skipped` happens inside the enqueuing transaction: pass it as `tx`, and
   * it counts when that commits.
   */
  webhook(outcome: WebhookOutcome, tx?: Tx): void {
    afterCommit(tx, () => this.webhooks.inc({ outcome }));
  }

  /**
   * A buy intention's outcome, counted when `tx` commits (a refusal counts at once: nothing
   * commits). `reason` only for `refused`: the error's domain reason or code, a closed set.
   */
  intention(tx: Tx | null, outcome: IntentionOutcome, reason?: string): void {
    afterCommit(tx, () => this.intentions.inc(outcome === 'refused' ? { outcome, reason: reason ?? 'unknown' } : { outcome }));
  }

  /** A provider event an operator must act on (see `resale_payment_provider_attention_total`). */
  providerAttention(what: AttentionKind): void {
    this.attention.inc({ what });
  }

  /** Exposes the number of open live stock streams of a hub (`resale_accesslayer_streams`). */
  watchStockStreams(hub: OpenStreamCount): void {
    this.stockStreams.add(hub);
  }

  /** Exposes a buy access layer snapshot cache's counts (its hits, checks and rebuilds since start). */
  watchSnapshotCache(cache: SnapshotCacheCounts): void {
    this.snapshotCaches.add(cache);
  }

  /**
   * `resale_queue_depth` and `resale_queue_oldest_age_seconds` per queue, read at scrape time
   * through the owners' queries in one `db.read` (both gauges' collect share it). Ages are on
   * the injectable clock. A failed read leaves both empty for that scrape (and logs): the
   * readiness probe is what reports a database that does not answer.
   */
  private queueGauges(registers: Registry[]): void {
    let reading: Promise<QueueRead | null> | null = null;
    const read = (): Promise<QueueRead | null> => {
      // Both collects run in the same synchronous stretch of one scrape: the second gets the first's read.
      if (reading) return reading;
      const now = this.deps.clock.now();
      reading = this.deps.db
        .read(async (tx): Promise<QueueRead> => {
          const jobs = await ticketJobBacklog(tx);
          const webhooks = await pendingWebhookBacklog(tx);
          const messages = await pendingMessageBacklog(tx);
          const payouts = await duePayoutBacklog(tx, now);
          const channel = (name: 'email' | 'sms') => messages.find((m) => m.channel === name) ?? { count: 0, oldestAt: null };
          return { now, queues: { ticket_jobs: jobs, webhooks, email: channel('email'), sms: channel('sms'), payouts: { count: payouts.count, oldestAt: payouts.oldestDueAt } } };
        }, { snapshot: true })
        .catch((err: unknown) => {
          this.deps.logger.warn({ err: { message: (err as Error).message } }, 'metrics: the queue depths could not be read');
          return null;
        })
        .finally(() => (reading = null));
      return reading;
    };
    new Gauge({
      name: 'resale_queue_depth',
      help: 'Items waiting per queue: ticket_jobs (ingestion jobs not yet applied), webhooks, email and sms (outbox messages pending, retries included), payouts (scheduled and due now).',
      labelNames: ['queue'],
      registers,
      async collect() {
        const r = await read();
        this.reset();
        if (r) for (const queue of QUEUES) this.set({ queue }, r.queues[queue].count);
      },
    });
    new Gauge({
      name: 'resale_queue_oldest_age_seconds',
      help: 'Age of the oldest waiting item per queue, 0 when empty: since it was written, or for payouts since it fell due.',
      labelNames: ['queue'],
      registers,
      async collect() {
        const r = await read();
        this.reset();
        if (!r) return;
        for (const queue of QUEUES) {
          const oldestAt = r.queues[queue].oldestAt;
          this.set({ queue }, oldestAt === null ? 0 : Math.max(0, (r.now - oldestAt) / 1000));
        }
      },
    });
  }
}

/** One (method, route, status) of resale_http_requests_total and its histogram series. */
interface HttpSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  histogram: { observe(seconds: number): void };
}

/** What a buy access layer snapshot cache counts (accesslayer.buy.cache.ts). */
/** What `resale_accesslayer_streams` reads of a live stock hub (flows/accesslayer/accesslayer.stream.ts). */
export interface OpenStreamCount {
  readonly open: number;
}

export interface SnapshotCacheCounts {
  readonly hits: number;
  readonly checks: number;
  readonly rebuilds: number;
}

export const WEBHOOK_OUTCOMES = ['delivered', 'failed_attempt', 'gave_up', 'skipped', 'superseded'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/** Provider events an operator must act on (flows/hosted-payment.ts). */
export const ATTENTION_KINDS = ['dispute', 'transfer_reversed'] as const;
export type AttentionKind = (typeof ATTENTION_KINDS)[number];

export const INTENTION_OUTCOMES = ['created', 'refused', 'paid', 'failed', 'expired', 'cancelled'] as const;
export type IntentionOutcome = (typeof INTENTION_OUTCOMES)[number];

export const QUEUES = ['ticket_jobs', 'webhooks', 'email', 'sms', 'payouts'] as const;
export type Queue = (typeof QUEUES)[number];

/** One scrape's read of the queues: the clock's instant and each queue's backlog. */
interface QueueRead {
  now: number;
  queues: Record<Queue, { count: number; oldestAt: number | null }>;
}
