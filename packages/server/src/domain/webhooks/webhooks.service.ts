import { quietCommit, wakeWorkers } from '../../db/dialect.js';
import { aliasedTable, and, asc, desc, eq, inArray, isNull, lt, lte, notExists, or, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db, Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PartnerRow, PartnersService } from '../partners/partners.service.js';
import { WEBHOOK_ACTIONS, WEBHOOK_DATA_SCHEMAS, WEBHOOK_EXAMPLES, familyOf, type WebhookAction, type WebhookBody, type WebhookData } from './webhooks.catalog.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, postWebhook, retryDelayMs, signedHeaders, type AttemptOutcome } from './webhooks.delivery.js';
import { webhookAttempts, webhookMessages } from './webhooks.table.js';
import { partnerById } from '../partners/partners.queries.js';
import { perConnection, prepared } from '../../db/statements.js';
import { affected } from '../../db/affected.js';
import type { Metrics } from '../metrics/metrics.service.js';
import { Lanes, untilReleaseOr } from '../../lib/lanes.js';
import type { Kernel } from '../../lib/kernel.js';

/** A `webhook_messages` row as stored: `payload` is the body's exact text (see webhooks.table.ts). */
export type WebhookMessageRow = typeof webhookMessages.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
import type { WebhookMessageState } from './webhooks.model.js';
export { WEBHOOK_MESSAGE_STATES, type WebhookMessageState } from './webhooks.model.js';

/**
 * A message as the service answers it: the row, with its body (`payload`) read back as the
 * object `{family, action, data}` (a {@link WebhookBody}).
 */
export type WebhookMessage = Omit<WebhookMessageRow, 'payload'> & { payload: Record<string, unknown> };

/** A message with its delivery log, oldest attempt first. */
export interface WebhookMessageWithAttempts {
  message: WebhookMessage;
  attempts: WebhookAttemptRow[];
}

/** The body of a stored message as an object (what the operator API shows, and tests read). */
export function webhookBodyOf(row: Pick<WebhookMessageRow, 'payload'>): WebhookBody & Record<string, unknown> {
  return JSON.parse(row.payload) as WebhookBody & Record<string, unknown>;
}

/**
 * The insert of an outbox message, every column a placeholder of its name, prepared once per
 * connection: every change that tells a partner runs it (a door's admissions, thousands a
 * minute), where drizzle building its SQL cost more than the write.
 */
const insertMessageStatement = perConnection((tx) =>
  prepared(
    tx.insert(webhookMessages).values({
      id: sql.placeholder('id'),
      partnerId: sql.placeholder('partnerId'),
      action: sql.placeholder('action'),
      family: sql.placeholder('family'),
      resourceKey: sql.placeholder('resourceKey'),
      payload: sql.placeholder('payload'),
      state: sql.placeholder('state'),
      attempts: sql.placeholder('attempts'),
      nextAttemptAt: sql.placeholder('nextAttemptAt'),
      deliveredAt: sql.placeholder('deliveredAt'),
      lastStatus: sql.placeholder('lastStatus'),
      lastError: sql.placeholder('lastError'),
      createdAt: sql.placeholder('createdAt'),
    } satisfies Record<keyof WebhookMessageRow, unknown>),
    'webhooks_insertMessage',
  ),
);

function toMessage(row: WebhookMessageRow): WebhookMessage {
  return { ...row, payload: webhookBodyOf(row) };
}

/**
 * The start of the resource key of a test event (`test:<message id>`, see
 * {@link WebhooksService.enqueueTestIn}): each test is a resource of its own, so it never waits
 * for, nor holds back, a real message.
 */
export const TEST_RESOURCE_PREFIX = 'test:';

/** Whether a message is a test event someone asked for (console), not one a change caused. */
export function isTestMessage(message: Pick<WebhookMessageRow, 'resourceKey'>): boolean {
  return message.resourceKey.startsWith(TEST_RESOURCE_PREFIX);
}

/** A page of a partner's messages, newest first; `nextCursor` (a message id) asks for the next, null at the last. */
export interface WebhookMessagePage {
  items: WebhookMessageWithAttempts[];
  nextCursor: string | null;
}

/** What `enqueue` takes. `resourceKey` orders delivery: messages of one key go out in order (e.g. `listing:lst_…`, `show:tour-2026/show-1`). */
export interface EnqueueInput<A extends WebhookAction> {
  action: A;
  resourceKey: string;
  data: WebhookData<A>;
}

/** What one `deliverDue()` did. */
export interface DeliveryReport {
  /** Attempts made (messages claimed and sent). */
  attempted: number;
  /** Messages claimed and put aside because the partner has no webhookUrl (no attempt made or counted). */
  waiting: number;
  /** Attempts answered with a 2xx. */
  delivered: number;
  /** Failed attempts with a retry scheduled. */
  retrying: number;
  /** Failed attempts after which the schedule was exhausted: the message is now `failed`. */
  failed: number;
  /** Due messages another worker claimed first, or that changed since they were read (not sent by this call). */
  claimedElsewhere: number;
}

export interface WebhooksServiceOptions {
  /** Time limit of one attempt: a partner's lane is never held longer by one message. Default 10 s. */
  timeoutMs?: number;
  /** The HTTP client; default the global fetch. */
  fetch?: typeof fetch;
  /** Due messages read per look at the outbox, taken round-robin across partners. Default 50. */
  batchSize?: number;
  /** At most this many of one partner's messages per look, so no partner fills a batch. Default 20. */
  perPartnerBatch?: number;
  /** A partner's attempts in flight at once in this process: its lanes. Default 4. */
  perPartnerConcurrency?: number;
  /** Attempts in flight at once in this process, every partner together. Default 32. */
  concurrency?: number;
  /** Added to the time limit to form the lease of a claim. Default 30 s. */
  leaseMarginMs?: number;
}

export const DEFAULT_BATCH_SIZE = 50;
export const DEFAULT_PER_PARTNER_BATCH = 20;
export const DEFAULT_PER_PARTNER_CONCURRENCY = 4;
export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_LEASE_MARGIN_MS = 30_000;
export const MAX_LIST_LIMIT = 200;
/** How often `deliverContinuously` looks at the outbox while nothing else makes it look. Default 1 s (the job's tick). */
export const DEFAULT_POLL_MS = 1000;
/**
 * The `lastError` of a message put aside because its partner has no `webhookUrl`: it is not
 * attempted (no retries against nothing, no attempts used up) and goes out once a URL is set
 * (`resumeWaiting`, on the partner's `partner.webhook_url.set`).
 */
export const WAITING_FOR_URL = 'Waiting: the partner has no webhookUrl (settings.webhookUrl); sent once one is set';
/** Looks at the outbox asked for by finished attempts are at least this far apart. */
const MIN_READ_GAP_MS = 10;

const m = webhookMessages;
const a = webhookAttempts;

/** What WebhooksService is built from (see deps.ts); tuning knobs are the second argument. */
export interface WebhooksServiceDeps {
  db: Db;
  clock: Clock;
  /** The partner's webhookUrl and signing secrets. */
  partners: Pick<PartnersService, 'get' | 'webhookSigningSecrets'>;
  logger: Logger;
  /** Where outcomes are counted (`resale_webhook_outcomes_total`); absent: not counted. */
  metrics?: Pick<Metrics, 'webhook'> | undefined;
}

/**
 * The webhook outbox and its delivery.
 *
 * - `enqueue` writes a message in the caller's transaction: it commits with the change that
 *   caused it, or not at all. An action the partner does not subscribe to
 *   (`settings.webhookEvents`, null = every action) is stored as `skipped` and never sent.
 * - `deliverDue` sends due messages (at least once): POST to the partner's `webhookUrl`,
 *   signed by the Standard Webhooks scheme. Any 2xx delivers; anything else is retried
 *   on `RETRY_SCHEDULE_MS` (about 3 days), then the message is `failed`.
 * - Order per resource: a message is not sent while an older message of the same partner
 *   and `resourceKey` is `pending` (it waits without spending attempts). A `failed`
 *   message no longer holds the ones after it back.
 * - Claims: before sending, a worker moves `nextAttemptAt` to a lease (time limit + margin)
 *   with a conditional update; only the worker whose update matched sends. If the process
 *   dies after the claim, the message is due again when the lease ends. Safe with several
 *   workers and several processes on one database.
 * - Partners do not wait for each other: each has its own lanes (`perPartnerConcurrency`
 *   attempts in flight in this process, `concurrency` in all), due messages are read
 *   round-robin across partners (at most `perPartnerBatch` of one partner per read), and
 *   `deliverContinuously` (the job) refills a partner's lane as soon as it frees, so a partner
 *   whose endpoint hangs holds only its own lanes, each for at most `timeoutMs`. When slots
 *   are scarce, a free one goes to the partner with the fewest attempts in flight.
 *
 * No HTTP framework here; every instant comes from the injected clock (the HTTP call's
 * latency is measured on the wall clock).
 *
 * @example
 * await db.transact((tx) => {
 *   // … the change …
 *   webhooks.enqueue(tx, partnerId, {
 *     action: 'ticketShield.updated',
 *     resourceKey: `show:${eventId}/${showId}`,
 *     data: { status: true, eventId, showId },
 *   });
 * });
 * await webhooks.deliverDue(); // one pass; the job runs deliverContinuously()
 */
export class WebhooksService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly partners: Pick<PartnersService, 'get' | 'webhookSigningSecrets'>;
  private readonly logger: Logger;
  private readonly metrics: Pick<Metrics, 'webhook'> | undefined;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;
  private readonly batchSize: number;
  private readonly perPartnerBatch: number;
  private readonly leaseMarginMs: number;
  /** This process's lanes (per partner and in all), shared by every delivery pass of this instance. */
  private readonly lanes: Lanes;
  /** Messages whose attempt this instance has started and not yet recorded. */
  private readonly started = new Set<string>();

  constructor(deps: WebhooksServiceDeps, opts: WebhooksServiceOptions = {}) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.partners = deps.partners;
    this.logger = deps.logger;
    this.metrics = deps.metrics;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH_SIZE);
    this.perPartnerBatch = Math.max(1, opts.perPartnerBatch ?? DEFAULT_PER_PARTNER_BATCH);
    this.lanes = new Lanes({ perKey: opts.perPartnerConcurrency ?? DEFAULT_PER_PARTNER_CONCURRENCY, overall: opts.concurrency ?? DEFAULT_CONCURRENCY });
    this.leaseMarginMs = opts.leaseMarginMs ?? DEFAULT_LEASE_MARGIN_MS;
  }

  /**
   * Puts a webhook in the outbox, in the caller's transaction (`tx`). The body will be
   * `{family, action, data}`, `family` being the part of `action` before the first dot.
   *
   * @throws ApiError 404 for an unknown partner; Error when `data` does not match the
   *   action's schema in the catalog, `resourceKey` is empty or one of the test events'
   *   (`test:…`) (all programming errors: they roll the caller's transaction back).
   */
  async enqueue<A extends WebhookAction>(tx: Tx, partnerId: string, input: EnqueueInput<A>): Promise<WebhookMessage> {
    knownAction(input.action);
    if (typeof input.resourceKey !== 'string' || input.resourceKey === '') throw new Error('A webhook needs a resourceKey');
    if (input.resourceKey.startsWith(TEST_RESOURCE_PREFIX)) throw new Error(`The resource keys '${TEST_RESOURCE_PREFIX}…' are the test events'`);
    return this.insert(tx, partnerId, input, { id: newId('webhookMessage'), test: false });
  }

  /**
   * Puts a test event of `action` in the outbox, in the caller's transaction: the kind's
   * documented example as `data` (`example` in webhooks.kinds.ts), signed and delivered exactly
   * like a real message (same body shape, same retries), on a resource key of its own
   * (`test:<message id>`, {@link isTestMessage}) so it never holds back a real message. It is
   * sent even when the partner does not subscribe to `action`: someone asked for it.
   *
   * @throws ApiError 404 for an unknown partner; Error for an action that is no kind.
   */
  async enqueueTestIn(tx: Tx, partnerId: string, action: WebhookAction): Promise<WebhookMessage> {
    knownAction(action);
    const id = newId('webhookMessage');
    return this.insert(tx, partnerId, { action, resourceKey: `${TEST_RESOURCE_PREFIX}${id}`, data: WEBHOOK_EXAMPLES[action] }, { id, test: true });
  }

  /** The outbox row of a message (see {@link enqueue}); a test is pending whatever the subscription. */
  private async insert<A extends WebhookAction>(tx: Tx, partnerId: string, input: EnqueueInput<A>, opts: { id: string; test: boolean }): Promise<WebhookMessage> {
    const { action, resourceKey } = input;
    const parsed = WEBHOOK_DATA_SCHEMAS[action].safeParse(input.data);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
      throw new Error(`The data of webhook ${action} does not match its schema: ${problems}`);
    }
    // Read in the caller's transaction, like everything an enqueue does.
    const partner = await partnerById(tx, partnerId);
    if (!partner) throw ApiError.notFound('partner', partnerId);
    const now = this.clock.now();
    const subscribed = opts.test || isSubscribed(partner, action);
    // Nowhere to send it yet: pending, but not due until the partner sets a URL.
    const waiting = subscribed && !partner.settings.webhookUrl;
    const body: WebhookBody = { family: familyOf(action), action, data: parsed.data as Record<string, unknown> };
    if (!subscribed) this.metrics?.webhook('skipped', tx);
    const row: WebhookMessageRow = {
      id: opts.id,
      partnerId,
      action,
      family: body.family,
      resourceKey,
      // The exact text every attempt signs and sends.
      payload: JSON.stringify(body),
      state: subscribed ? 'pending' : 'skipped',
      attempts: 0,
      nextAttemptAt: subscribed && !waiting ? now : null,
      deliveredAt: null,
      lastStatus: null,
      lastError: waiting ? WAITING_FOR_URL : subscribed ? null : `Not sent: the partner does not subscribe to ${action} (settings.webhookEvents)`,
      createdAt: now,
    };
    // Every column is given: the row as stored, without reading it back.
    await insertMessageStatement(tx).execute(row);
    // Every process's deliveries start as this commits (PostgreSQL; see webhooks.job.ts).
    if (subscribed && !waiting) wakeWorkers(tx, 'webhooks');
    return toMessage(row);
  }

  /**
   * One pass over what is due: reads the due pending messages once (round-robin across
   * partners, oldest first within each, at most `perPartnerBatch` of one partner and
   * `batchSize` in all, skipping any with an older pending message of the same resource) and
   * sends them through the partners' lanes, then resolves with what was done. Each message is
   * claimed right before it is sent, so concurrent calls (here or in another process) never
   * send the same attempt twice. A message held back by an older one goes out at a later pass,
   * after that one is delivered. Never throws for a remote failure.
   */
  async deliverDue(): Promise<DeliveryReport> {
    return this.drive(null);
  }

  /**
   * Delivers for as long as there is something to deliver (the webhooks job): like
   * `deliverDue`, but a lane that frees is filled again at once from the messages read, the
   * outbox is read again when a partner has nothing left in hand and at least every `pollMs`,
   * and it resolves once nothing is due or in flight. So a partner whose endpoint hangs holds
   * its own lanes, and the others' messages (new ones included) keep going out meanwhile.
   * When `signal` aborts, nothing new starts and it resolves once the attempts in flight are
   * recorded. Never throws for a remote failure.
   */
  async deliverContinuously(opts: { pollMs?: number; signal?: AbortSignal | undefined } = {}): Promise<DeliveryReport> {
    return this.drive({ pollMs: Math.max(1, opts.pollMs ?? DEFAULT_POLL_MS), signal: opts.signal });
  }

  /** `deliverDue` (one read) or `deliverContinuously` (reads until idle). */
  private async drive(continuous: { pollMs: number; signal: AbortSignal | undefined } | null): Promise<DeliveryReport> {
    const report: DeliveryReport = { attempted: 0, waiting: 0, delivered: 0, retrying: 0, failed: 0, claimedElsewhere: 0 };
    // The messages read and not started yet, per partner; the order of the map is the turn.
    const queues = new Map<string, WebhookMessageRow[]>();
    const inFlight = new Set<Promise<void>>();
    let lastRead = Number.NEGATIVE_INFINITY;
    let readWanted = true;
    let attemptsSinceRead = 0;
    const stopped = () => continuous?.signal?.aborted === true;
    const queued = () => [...queues.values()].some((q) => q.length > 0);

    const read = async () => {
      readWanted = false;
      attemptsSinceRead = 0;
      lastRead = performance.now();
      const rows = await this.db.read(async (tx) => await this.pick(tx, this.clock.now()));
      queues.clear();
      for (const row of rows) {
        if (this.started.has(row.id)) continue;
        const queue = queues.get(row.partnerId);
        if (queue) queue.push(row);
        else queues.set(row.partnerId, [row]);
      }
    };

    // Fair share: each free slot goes to the partner with the fewest attempts in flight (ties:
    // whose turn it is; a partner that got one goes to the back of the turn). So the batch is
    // started round-robin, and when slots are scarce (other partners' attempts hanging), a
    // partner with nothing in flight is served first.
    const startFree = () => {
      for (;;) {
        let chosen: string | null = null;
        for (const [partnerId, queue] of queues) {
          if (queue.length === 0 || !this.lanes.canTake(partnerId)) continue;
          if (chosen === null || this.lanes.inFlight(partnerId) < this.lanes.inFlight(chosen)) chosen = partnerId;
        }
        if (chosen === null) return;
        const partnerId = chosen;
        const queue = queues.get(partnerId)!;
        const release = this.lanes.tryTake(partnerId)!;
        const row = queue.shift()!;
        queues.delete(partnerId);
        if (queue.length > 0) queues.set(partnerId, queue);
        this.started.add(row.id);
        const task: Promise<void> = this.deliverOne(row, report)
          .then((attempted) => {
            if (attempted) attemptsSinceRead++;
            // The partner may have more due (the next message of this resource, say).
            if (attempted && !queues.get(partnerId)?.length) readWanted = true;
          })
          .finally(() => {
            this.started.delete(row.id);
            release();
            inFlight.delete(task);
          });
        inFlight.add(task);
      }
    };

    try {
      if (!continuous) {
        await read();
        for (;;) {
          startFree();
          if (!queued()) break;
          // Lanes taken by other passes of this instance: wait for one to free.
          await this.lanes.nextRelease();
        }
        return report;
      }
      const { pollMs, signal } = continuous;
      // Milliseconds until the next read: soon after a finished attempt asked for one, else at the poll.
      const nextReadIn = () => (readWanted ? MIN_READ_GAP_MS : pollMs) - (performance.now() - lastRead);
      for (;;) {
        if (stopped()) break;
        let justRead = false;
        if (nextReadIn() <= 0) {
          await read();
          justRead = true;
          if (stopped()) break;
        }
        startFree();
        if (inFlight.size === 0 && !queued()) {
          // Idle: nothing due at the last read, or every claim of it lost to another worker.
          if (justRead || attemptsSinceRead === 0) break;
          readWanted = true;
        }
        const wait = nextReadIn();
        if (wait > 0) await untilReleaseOr(this.lanes, wait, signal);
      }
      return report;
    } finally {
      // Whatever ends the pass (a stop, a database error), the attempts started are recorded first.
      await Promise.all(inFlight);
    }
  }

  /** Claims and sends one message read as due; false when another worker had it. Never throws. */
  private async deliverOne(row: WebhookMessageRow, report: DeliveryReport): Promise<boolean> {
    try {
      const leaseUntil = await this.claim(row);
      if (leaseUntil === null) {
        report.claimedElsewhere++;
        return false;
      }
      const result = await this.attempt(row, leaseUntil);
      if (result === 'waiting') {
        report.waiting++;
        return false;
      }
      report.attempted++;
      report[result]++;
      return true;
    } catch (err) {
      // The database failed under the claim or the record: the message is due again once its
      // lease (if any) ends, here or in another process.
      this.logger.error({ messageId: row.id, partnerId: row.partnerId, err: { message: (err as Error).message, stack: (err as Error).stack } }, 'webhook delivery could not be claimed or recorded');
      return false;
    }
  }

  /**
   * Claims one attempt of a message read from the database: moves `nextAttemptAt` to the
   * lease end, only if the message is still pending with the `nextAttemptAt` and
   * `attempts` that were read. Returns the lease end, or null when another worker (or an
   * operator's replay) changed the message first. Used by `deliverDue`; public for tests.
   */
  async claim(row: Pick<WebhookMessageRow, 'id' | 'nextAttemptAt' | 'attempts'>): Promise<number | null> {
    const leaseUntil = this.clock.now() + this.timeoutMs + this.leaseMarginMs;
    const claimed = await this.db.transact(async (tx) => {
      // Delivery bookkeeping: no cache reads the outbox.
      quietCommit(tx);
      return await tx
        .update(m)
        .set({ nextAttemptAt: leaseUntil })
        .where(
          and(
            eq(m.id, row.id),
            eq(m.state, 'pending'),
            eq(m.attempts, row.attempts),
            row.nextAttemptAt === null ? isNull(m.nextAttemptAt) : eq(m.nextAttemptAt, row.nextAttemptAt),
            // Order per resource is checked again at the claim: a replay may have made an
            // older message of the resource pending since the batch was read.
            notExists(this.olderPending(tx)),
          ),
        );
    });
    return affected(claimed) === 1 ? leaseUntil : null;
  }

  /**
   * A partner's messages, newest first, each with its delivery log.
   *
   * @throws ApiError 404 for an unknown partner.
   */
  async list(partnerId: string, filter: { state?: WebhookMessageState; action?: WebhookAction; limit?: number } = {}): Promise<WebhookMessageWithAttempts[]> {
    const limit = Math.min(Math.max(1, filter.limit ?? 50), MAX_LIST_LIMIT);
    return this.db.read(async (tx) => {
      await knownPartner(tx, partnerId);
      const rows = await tx
        .select()
        .from(m)
        .where(and(eq(m.partnerId, partnerId), filter.state ? eq(m.state, filter.state) : undefined, filter.action ? eq(m.action, filter.action) : undefined))
        .orderBy(desc(m.createdAt), desc(m.id))
        .limit(limit);
      return await this.withAttempts(tx, partnerId, rows);
    });
  }

  /**
   * A page of a partner's messages, newest first (by creation, then id), each with its delivery
   * log: `limit` of them (at most {@link MAX_LIST_LIMIT}) after the message `startingAfter`
   * (a `nextCursor` answered before), so messages written meanwhile never shift a page.
   *
   * @throws ApiError 404 for an unknown partner; 400 (`startingAfter`, in query) when the cursor is no message of the partner.
   */
  async page(partnerId: string, filter: { state?: WebhookMessageState | undefined; action?: WebhookAction | undefined; limit?: number | undefined; startingAfter?: string | undefined } = {}): Promise<WebhookMessagePage> {
    const limit = Math.min(Math.max(1, filter.limit ?? 50), MAX_LIST_LIMIT);
    return this.db.read(async (tx) => {
      await knownPartner(tx, partnerId);
      let after: SQL | undefined;
      if (filter.startingAfter !== undefined) {
        const cursor = (await tx.select({ createdAt: m.createdAt, id: m.id }).from(m).where(and(eq(m.id, filter.startingAfter), eq(m.partnerId, partnerId))).limit(1))[0];
        if (!cursor) throw ApiError.field('invalid_value', 'startingAfter', 'startingAfter is not a message of this partner (pass a nextCursor as it was answered)', 'query');
        after = or(lt(m.createdAt, cursor.createdAt), and(eq(m.createdAt, cursor.createdAt), lt(m.id, cursor.id)));
      }
      const rows = await tx
        .select()
        .from(m)
        .where(and(eq(m.partnerId, partnerId), filter.state ? eq(m.state, filter.state) : undefined, filter.action ? eq(m.action, filter.action) : undefined, after))
        .orderBy(desc(m.createdAt), desc(m.id))
        .limit(limit + 1);
      const items = await this.withAttempts(tx, partnerId, rows.slice(0, limit));
      return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.message.id : null };
    });
  }

  /**
   * One message of a partner with its delivery log.
   *
   * @throws ApiError 404 for an unknown partner, an unknown message or another partner's.
   */
  async get(partnerId: string, messageId: string): Promise<WebhookMessageWithAttempts> {
    return this.db.read(async (tx) => await this.getIn(tx, partnerId, messageId));
  }

  private async getIn(tx: Tx, partnerId: string, messageId: string): Promise<WebhookMessageWithAttempts> {
    await knownPartner(tx, partnerId);
    const row = (await tx.select().from(m).where(and(eq(m.id, messageId), eq(m.partnerId, partnerId))).limit(1))[0];
    if (!row) throw ApiError.notFound('webhook message', messageId);
    return (await this.withAttempts(tx, partnerId, [row]))[0]!;
  }

  /**
   * Sends a message again, with the same `webhook-id` (partners deduplicate on it).
   * A pending message is made due now (its retry count is kept). A delivered, failed or
   * skipped one becomes pending again, due now, with a fresh retry schedule (attempt
   * numbers start again at 1; the earlier attempts stay in the log). A skipped message is
   * sent even though the partner does not subscribe to its action: the operator asked.
   * Order per resource still applies.
   *
   * @throws ApiError 404 for an unknown partner, an unknown message or another partner's.
   */
  async replay(partnerId: string, messageId: string): Promise<WebhookMessageWithAttempts> {
    return (await this.db.transact(async (tx) => await this.replayIn(tx, partnerId, messageId))).replayed;
  }

  /**
   * {@link replay} inside the caller's transaction, answering the message as it was before
   * too (what an audit entry compares).
   *
   * @throws ApiError 404 for an unknown partner, an unknown message or another partner's.
   */
  async replayIn(tx: Tx, partnerId: string, messageId: string): Promise<{ before: WebhookMessage; replayed: WebhookMessageWithAttempts }> {
    const current = (await this.getIn(tx, partnerId, messageId)).message;
    const now = this.clock.now();
    const change = current.state === 'pending' ? { nextAttemptAt: now } : { state: 'pending' as const, attempts: 0, nextAttemptAt: now, deliveredAt: null };
    await tx.update(m).set(change).where(and(eq(m.id, messageId), eq(m.partnerId, partnerId)));
    const replayed = await this.getIn(tx, partnerId, messageId);
    this.logger.info({ partnerId, messageId, action: current.action, previousState: current.state }, 'webhook replay requested');
    return { before: current, replayed };
  }

  // ---------------------------------------------------------------- internals

  /**
   * Due pending messages that no older pending message of their resource holds back, taken
   * fairly: each partner's oldest first, then each partner's second, and so on (round-robin),
   * at most `perPartnerBatch` of one partner and `batchSize` in all. So a partner with a
   * thousand due messages never pushes another partner's single one out of the batch.
   */
  private async pick(tx: Tx, now: number): Promise<WebhookMessageRow[]> {
    // The rank of each due message within its partner's, oldest first (row_number(): SQLite 3.25+, PostgreSQL).
    const turn = sql<number>`row_number() over (partition by ${m.partnerId} order by ${m.createdAt}, ${m.id})`.as('turn');
    const ranked = tx
      .select({ id: m.id, createdAt: m.createdAt, turn })
      .from(m)
      .where(and(eq(m.state, 'pending'), lte(m.nextAttemptAt, now), notExists(this.olderPending(tx))))
      .as('ranked');
    const picked = await tx
      .select({ id: ranked.id })
      .from(ranked)
      .where(lte(ranked.turn, this.perPartnerBatch))
      .orderBy(asc(ranked.turn), asc(ranked.createdAt), asc(ranked.id))
      .limit(this.batchSize);
    if (picked.length === 0) return [];
    const order = new Map(picked.map((p, i) => [p.id, i]));
    // Still due: on PostgreSQL another worker may have claimed one between the two statements,
    // and a row read under its lease would pass the claim's check against that very lease.
    const rows = await tx
      .select()
      .from(m)
      .where(and(inArray(m.id, picked.map((p) => p.id)), eq(m.state, 'pending'), lte(m.nextAttemptAt, now)));
    return rows.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  }

  /** Correlated subquery: an older pending message of the same partner and resource as the `webhook_messages` row at hand. */
  private olderPending(tx: Tx) {
    // drizzle's dialect-neutral alias (what sqlite-core's `alias` does), so no SQLite import here.
    const older = aliasedTable(webhookMessages, 'older');
    return tx
      .select({ one: sql`1` })
      .from(older)
      .where(
        and(
          eq(older.partnerId, m.partnerId),
          eq(older.resourceKey, m.resourceKey),
          eq(older.state, 'pending'),
          or(lt(older.createdAt, m.createdAt), and(eq(older.createdAt, m.createdAt), lt(older.id, m.id))),
        ),
      );
  }

  /** Makes one claimed attempt and records it. Never throws. */
  private async attempt(row: WebhookMessageRow, leaseUntil: number): Promise<'delivered' | 'retrying' | 'failed' | 'waiting'> {
    const attempt = row.attempts + 1;
    const at = this.clock.now();
    let url = '';
    let outcome: AttemptOutcome;
    try {
      const partner = await this.partners.get(row.partnerId);
      url = partner.settings.webhookUrl ?? '';
      if (!url) {
        // The URL was removed since the message was queued: put aside, not attempted.
        await this.putAside(row, leaseUntil);
        return 'waiting';
      } else {
        // The current secret, and the previous one while a rotation's grace lasts (at the attempt's instant).
        const secrets = this.partners.webhookSigningSecrets(partner, at);
        const body = row.payload;
        outcome = await postWebhook(url, signedHeaders(secrets, row.id, body, at), body, { timeoutMs: this.timeoutMs, fetch: this.fetch, redact: secrets });
      }
    } catch (err) {
      // Not a remote failure (the partner vanished, the secret cannot be opened): count it
      // as a failed attempt so the message is retried, and tell the logs.
      this.logger.error({ messageId: row.id, partnerId: row.partnerId, err: { message: (err as Error).message, stack: (err as Error).stack } }, 'webhook attempt failed internally');
      outcome = { ok: false, statusCode: null, latencyMs: 0, error: 'Not sent: internal error of the service (see its logs)', answer: null };
    }
    return this.record(row, attempt, leaseUntil, url, at, outcome);
  }

  /** A claimed message whose partner has no URL: no longer due, until `resumeWaiting` (if the claim still holds). */
  private async putAside(row: WebhookMessageRow, leaseUntil: number): Promise<void> {
    await this.db.transact(async (tx) => {
      quietCommit(tx);
      await tx
        .update(m)
        .set({ nextAttemptAt: null, lastError: WAITING_FOR_URL })
        .where(and(eq(m.id, row.id), eq(m.state, 'pending'), eq(m.attempts, row.attempts), eq(m.nextAttemptAt, leaseUntil)));
    });
    this.logger.info({ messageId: row.id, partnerId: row.partnerId, action: row.action }, 'webhook waiting: the partner has no webhookUrl');
  }

  /**
   * The partner has set a webhookUrl: its messages put aside for want of one are due now, in
   * their order (each resource's oldest first, as always). In the caller's transaction (the
   * settings change's: wired in flows/reactions.ts). Returns how many.
   */
  async resumeWaiting(tx: Tx, partnerId: string): Promise<number> {
    const resumed = affected(
      await tx
        .update(m)
        .set({ nextAttemptAt: this.clock.now(), lastError: null })
        .where(and(eq(m.partnerId, partnerId), eq(m.state, 'pending'), isNull(m.nextAttemptAt))),
    );
    if (resumed > 0) wakeWorkers(tx, 'webhooks');
    return resumed;
  }

  /** Writes the attempt to the log and moves the message on, if the claim still holds. */
  private async record(row: WebhookMessageRow, attempt: number, leaseUntil: number, url: string, at: number, outcome: AttemptOutcome): Promise<'delivered' | 'retrying' | 'failed'> {
    const finishedAt = this.clock.now();
    const delay = outcome.ok ? null : retryDelayMs(attempt);
    const result = outcome.ok ? 'delivered' : delay === null ? 'failed' : 'retrying';
    const nextAttemptAt = result === 'retrying' ? finishedAt + delay! : null;
    const held = await this.db.transact(async (tx) => {
      quietCommit(tx);
      await tx.insert(a)
        .values({
          id: newId('webhookAttempt'),
          messageId: row.id,
          partnerId: row.partnerId,
          attempt,
          url,
          at,
          statusCode: outcome.statusCode,
          latencyMs: outcome.latencyMs,
          error: outcome.error,
          nextAttemptAt,
          answer: outcome.answer,
        });
      return (
        affected(
          await tx
            .update(m)
            .set({
              state: result === 'retrying' ? 'pending' : result,
              attempts: attempt,
              nextAttemptAt,
              ...(outcome.ok ? { deliveredAt: finishedAt } : {}),
              lastStatus: outcome.statusCode,
              lastError: outcome.error,
            })
            .where(and(eq(m.id, row.id), eq(m.state, 'pending'), eq(m.attempts, row.attempts), eq(m.nextAttemptAt, leaseUntil))),
        ) === 1
      );
    });
    const log = { messageId: row.id, partnerId: row.partnerId, action: row.action, attempt, statusCode: outcome.statusCode, latencyMs: outcome.latencyMs };
    if (!held) {
      // Replayed during the attempt, or the lease ran out and another worker took it: the
      // attempt stays in the log, the message follows the newer decision.
      this.logger.warn({ ...log, error: outcome.error }, 'webhook message changed during the attempt; attempt logged only');
      this.metrics?.webhook('superseded');
    } else if (outcome.ok) {
      this.logger.info(log, 'webhook delivered');
      this.metrics?.webhook('delivered');
    } else {
      this.logger.warn({ ...log, error: outcome.error, nextAttemptAt }, result === 'failed' ? 'webhook failed for good' : 'webhook attempt failed; will retry');
      this.metrics?.webhook(result === 'failed' ? 'gave_up' : 'failed_attempt');
    }
    return result;
  }

  private async withAttempts(tx: Tx, partnerId: string, rows: WebhookMessageRow[]): Promise<WebhookMessageWithAttempts[]> {
    if (rows.length === 0) return [];
    const logs = await tx
      .select()
      .from(a)
      .where(and(eq(a.partnerId, partnerId), inArray(a.messageId, rows.map((r) => r.id))))
      .orderBy(asc(a.at), asc(a.id));
    const byMessage = new Map<string, WebhookAttemptRow[]>();
    for (const log of logs) {
      const list = byMessage.get(log.messageId) ?? [];
      list.push(log);
      byMessage.set(log.messageId, list);
    }
    return rows.map((message) => ({ message: toMessage(message), attempts: byMessage.get(message.id) ?? [] }));
  }
}

/** @throws Error for an action that is no kind of webhook (a programming error). */
function knownAction(action: string): void {
  if (!(WEBHOOK_ACTIONS as readonly string[]).includes(action)) throw new Error(`Unknown webhook action '${action}'`);
}

/** @throws ApiError 404 for an unknown partner. */
async function knownPartner(tx: Tx, partnerId: string): Promise<void> {
  if (!(await partnerById(tx, partnerId))) throw ApiError.notFound('partner', partnerId);
}

/** Whether the partner receives `action` (`webhookEvents` null or absent: every action). */
export function isSubscribed(partner: PartnerRow, action: WebhookAction): boolean {
  const events = partner.settings.webhookEvents ?? null;
  return events === null || events.includes(action);
}

const fallbacks = new WeakMap<object, WebhooksService>();

/**
 * The app's WebhooksService: `deps.webhooks` once AppDeps carries it, otherwise one built
 * from the deps (and kept per deps object).
 */
export function webhooksServiceOf(deps: Pick<Kernel, 'db' | 'clock' | 'logger'> & { partners: PartnersService } & { webhooks?: WebhooksService }): WebhooksService {
  if (deps.webhooks) return deps.webhooks;
  let service = fallbacks.get(deps);
  if (!service) {
    service = new WebhooksService(deps);
    fallbacks.set(deps, service);
  }
  return service;
}
