import type { Lang } from '@resale/shared/lang';
import { quietCommit, skipLocked, wakeWorkers } from '../../db/dialect.js';
import { and, desc, eq, lte, sql } from 'drizzle-orm';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { AppConfig } from '../../lib/config.js';
import type { Db, Tx } from '../../db/client.js';
import { affected } from '../../db/affected.js';
import type { Clock } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { messages, type StoredAttachment } from './email.table.js';
import { renderMessage, type Channel, type TemplateName, type TemplateVars } from './email.templates.js';
import { mailboxSms, mailboxTransport, smtpTransport, type Attachment, type SmsSender, type Transport } from './email.transport.js';

/**
 * Outbox of e-mails and SMS. `send` renders a template and stores a `pending` row in the
 * caller's transaction (a rolled-back change sends nothing); `deliverDue` (the email job)
 * claims due rows with a conditional update and hands them to the transport, retrying
 * failures with a back-off. A crash can delay a message, never lose it.
 */

/** A stored message. */
export type MessageRow = typeof messages.$inferSelect;

/** Waits after the 1st, 2nd, … failed attempt; after the last one the message is `failed`. */
export const BACKOFF_MS: readonly number[] = [30_000, 2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 60 * 60_000];

/**
 * A claimed message is invisible to other workers for this long. Longer than the worst
 * case of one SMTP attempt (see the timeouts in smtpTransport), so a message is only sent
 * again by another worker when the claiming process died mid-send.
 */
export const CLAIM_LEASE_MS = 5 * 60_000;

/** Rows one `deliverDue` call looks at. */
export const DELIVERY_BATCH = 20;

/** Largest total size of a message's attachments (they are stored base64 with the row). */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

/** What `send` takes. `vars` is typed by `template`. */
export interface SendInput<K extends TemplateName = TemplateName> {
  partnerId?: string | null;
  channel: Channel;
  /** An e-mail address, or for SMS a phone number in international format (`+34 612 34 56 78`). */
  to: string;
  template: K;
  lang: Lang;
  vars: TemplateVars[K];
  /** E-mail only (the ticket PDF of `ticketUnlocked`, for example). */
  attachments?: Attachment[];
  /** Not sent before this instant (epoch ms; a waiting-list offer made in the show's quiet hours). Default: at once. */
  notBefore?: number;
}

/** What one `deliverDue` call did. */
export interface DeliveryReport {
  /** Accepted by the transport (or kept in the mailbox) and marked `sent`. */
  sent: number;
  /** Failed and scheduled again after the back-off. */
  retried: number;
  /** Failed for the last time and marked `failed`. */
  failed: number;
}

const EmailAddress = z.email();

/**
 * Validates and normalises a recipient: an e-mail address (trimmed, domain lower-cased) or
 * a phone number (stored E.164). Callers taking the address from a request can call it
 * first, naming their own field in `path`.
 *
 * @throws ApiError 400 `invalid_format` naming `path` (default `to`)
 * @example normaliseAddress('sms', '+34 612 34 56 78') // '+34612345678'
 * @example normaliseAddress('sms', '612 34 56 78', { defaultCountry: 'ES' }) // '+34612345678'
 */
export function normaliseAddress(channel: Channel, to: string, opts: { path?: string; defaultCountry?: CountryCode } = {}): string {
  const path = opts.path ?? 'to';
  const raw = typeof to === 'string' ? to.trim() : '';
  if (channel === 'email') {
    if (raw.length > 254 || !EmailAddress.safeParse(raw).success) throw ApiError.field('invalid_format', path, `${path} must be a valid e-mail address`);
    const at = raw.lastIndexOf('@');
    return raw.slice(0, at) + raw.slice(at).toLowerCase();
  }
  if (channel === 'sms') {
    const phone = raw.length <= 40 ? parsePhoneNumberFromString(raw, opts.defaultCountry ? { defaultCountry: opts.defaultCountry } : {}) : undefined;
    if (!phone || !phone.isValid()) {
      throw ApiError.field('invalid_format', path, `${path} must be a valid phone number in international format, such as +34612345678`);
    }
    return phone.number;
  }
  throw ApiError.field('invalid_value', 'channel', 'channel must be email or sms');
}

/** A short, single-line error for `lastError`: no stack, no credentials. */
export function shortError(err: unknown, secrets: readonly string[] = []): string {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { code?: unknown; message?: unknown };
  let msg = typeof e.message === 'string' ? e.message : String(err);
  if (typeof e.code === 'string' && !msg.includes(e.code)) msg = `${e.code}: ${msg}`;
  for (const s of secrets) if (s.length >= 3) msg = msg.split(s).join('***');
  return msg
    .replace(/\/\/[^\s/@]+@/g, '//***@')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/**
 * The outbox of messages.
 *
 * @example
 * await db.transact((tx) => {
 *   listings.markSold(tx, listing);
 *   messages.send(tx, { partnerId, channel: 'email', to: seller.email, template: 'listingSold', lang: 'es',
 *     vars: { eventTitle, showTitle, amount: { minor: 4500, currency: 'EUR' }, payoutDate: '2026-06-01' } });
 * });
 * await messages.deliverDue(); // normally the email job does this
 */
export class MessagesService {
  private readonly transport: Transport;
  private readonly sms: SmsSender;
  private readonly logger: Logger | undefined;
  private readonly secrets: readonly string[];
  private readonly batchSize: number;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    opts: {
      /** E-mail transport; default: the development mailbox. */
      transport?: Transport;
      /** SMS sender; default: the development mailbox. */
      sms?: SmsSender;
      logger?: Logger;
      /** Strings never written to `lastError` or logs (SMTP credentials). */
      secrets?: string[];
      batchSize?: number;
    } = {},
  ) {
    this.transport = opts.transport ?? mailboxTransport;
    this.sms = opts.sms ?? mailboxSms;
    this.logger = opts.logger;
    this.secrets = opts.secrets ?? [];
    this.batchSize = opts.batchSize ?? DELIVERY_BATCH;
  }

  /** Name of the e-mail transport (`smtp` or `mailbox`). */
  get transportName(): string {
    return this.transport.name;
  }

  /**
   * Renders the template and stores the message as `pending`, due now, in `tx` (the
   * caller's transaction, so it is sent only if the caller's change commits).
   *
   * @returns the message id (`eml_…`)
   * @throws ApiError 400 `invalid_format` (path `to`) for a bad e-mail address or phone number;
   *   400 `invalid_value` (path `attachments`) for attachments on an SMS
   * @throws Error when `vars` do not fit the template (a programming error)
   */
  async send<K extends TemplateName>(tx: Tx, input: SendInput<K>): Promise<string> {
    const to = normaliseAddress(input.channel, input.to);
    const attachments = input.attachments ?? [];
    if (input.channel === 'sms' && attachments.length > 0) throw ApiError.field('invalid_value', 'attachments', 'An SMS cannot carry attachments');
    const total = attachments.reduce((n, a) => n + a.content.length, 0);
    if (total > MAX_ATTACHMENT_BYTES) throw new Error(`Attachments of ${total} bytes exceed ${MAX_ATTACHMENT_BYTES}`);
    const rendered = renderMessage(input.template, input.lang, input.vars, input.channel);
    const id = newId('message');
    const now = this.clock.now();
    await tx.insert(messages)
      .values({
        id,
        partnerId: input.partnerId ?? null,
        channel: input.channel,
        to,
        template: input.template,
        lang: input.lang,
        subject: rendered.subject,
        text: rendered.text,
        html: rendered.html,
        attachments: attachments.map(
          (a): StoredAttachment => ({ filename: a.filename, contentType: a.contentType, contentBase64: a.content.toString('base64') }),
        ),
        state: 'pending',
        attempts: 0,
        nextAttemptAt: Math.max(now, input.notBefore ?? now),
        sentAt: null,
        lastError: null,
        createdAt: now,
      });
    // Every process's delivery starts as this commits (PostgreSQL; see email.job.ts).
    wakeWorkers(tx, 'email');
    return id;
  }

  /**
   * Sends a template to a user the way they can be reached: by e-mail when they have an
   * address, else by SMS to their phone; nothing (null) when they have neither. Attachments
   * go with the e-mail only (an SMS carries none).
   *
   * @example messages.toUser(tx, partnerId, seller, 'payoutDetailsChanged', 'es', { accountHint: '3000', holderName: 'Ana' });
   */
  async toUser<K extends TemplateName>(
    tx: Tx,
    partnerId: string,
    user: { email: string | null; phone: string | null },
    template: K,
    lang: Lang,
    vars: TemplateVars[K],
    opts: { attachments?: Attachment[]; notBefore?: number } = {},
  ): Promise<string | null> {
    if (user.email) return await this.send(tx, { partnerId, channel: 'email', to: user.email, template, lang, vars, ...opts } as SendInput<K>);
    const later = opts.notBefore === undefined ? {} : { notBefore: opts.notBefore };
    if (user.phone) return await this.send(tx, { partnerId, channel: 'sms', to: user.phone, template, lang, vars, ...later } as SendInput<K>);
    return null;
  }

  /**
   * Sends the due messages (`pending`, `nextAttemptAt <= now`), oldest due first, one
   * batch. Each is claimed with a conditional update first, so concurrent calls (or
   * processes) never send the same message twice. Never throws for a transport failure.
   */
  async deliverDue(): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, retried: 0, failed: 0 };
    for (let n = 0; n < this.batchSize; n++) {
      const claimed = await this.claimNext();
      if (claimed === null) break;
      const outcome = await this.deliverOne(claimed.row, claimed.lease);
      if (outcome) report[outcome] += 1;
    }
    return report;
  }

  /**
   * Takes the next due message for this worker and reads it; the lease time is the claim token.
   * null when nothing is due that no other worker is taking. On PostgreSQL the due row is
   * locked with `FOR UPDATE SKIP LOCKED`, so processes claiming at the same moment each take a
   * different message instead of queueing behind one row; the conditional update then moves it
   * to the lease (on SQLite, whose write transaction is the only one, it alone decides).
   */
  private async claimNext(): Promise<{ lease: number; row: MessageRow } | null> {
    const now = this.clock.now();
    const lease = now + CLAIM_LEASE_MS;
    const due = and(eq(messages.state, 'pending'), lte(messages.nextAttemptAt, now));
    return this.db.transact(async (tx) => {
      // Delivery bookkeeping here and below: no cache reads the outbox.
      quietCommit(tx);
      const next = (await skipLocked(tx.select({ id: messages.id }).from(messages).where(due).orderBy(messages.nextAttemptAt, messages.id).limit(1)))[0];
      if (!next) return null;
      const claimed = await tx.update(messages).set({ nextAttemptAt: lease }).where(and(eq(messages.id, next.id), due));
      if (affected(claimed) !== 1) return null;
      const row = (await tx.select().from(messages).where(eq(messages.id, next.id)).limit(1))[0];
      return row ? { lease, row } : null;
    });
  }

  private async deliverOne(row: MessageRow, lease: number): Promise<keyof DeliveryReport | null> {
    const id = row.id;
    // Only our claim may write the outcome: the lease value identifies it.
    const ours = and(eq(messages.id, id), eq(messages.state, 'pending'), eq(messages.nextAttemptAt, lease));
    const attempts = row.attempts + 1;
    try {
      if (row.channel === 'sms') {
        await this.sms.sendSms({ id: row.id, to: row.to, text: row.text });
      } else {
        await this.transport.sendEmail({
          id: row.id,
          to: row.to,
          subject: row.subject,
          text: row.text,
          html: row.html,
          attachments: row.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: Buffer.from(a.contentBase64, 'base64') })),
        });
      }
    } catch (err) {
      const lastError = shortError(err, this.secrets);
      const delay = BACKOFF_MS[attempts - 1];
      const final = delay === undefined;
      await this.db.transact(async (tx) => {
        quietCommit(tx);
        await tx
          .update(messages)
          .set(final ? { state: 'failed', attempts, lastError, nextAttemptAt: null } : { attempts, lastError, nextAttemptAt: this.clock.now() + delay })
          .where(ours);
      });
      const log = { messageId: id, channel: row.channel, template: row.template, attempts, error: lastError };
      if (final) this.logger?.error(log, 'message failed for good');
      else this.logger?.warn(log, 'message delivery failed; will retry');
      return final ? 'failed' : 'retried';
    }
    const sentAt = this.clock.now();
    await this.db.transact(async (tx) => {
      quietCommit(tx);
      await tx.update(messages).set({ state: 'sent', attempts, sentAt, nextAttemptAt: null, lastError: null }).where(ours);
    });
    this.logger?.info({ messageId: id, channel: row.channel, template: row.template, via: row.channel === 'sms' ? this.sms.name : this.transport.name }, 'message sent');
    return 'sent';
  }

  /**
   * Stored messages, newest first (the development mailbox). `to` filters by recipient,
   * case-insensitively; a phone number may be written in any international form.
   */
  async list(filter: { to?: string | undefined; limit?: number } = {}): Promise<MessageRow[]> {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 1), 500);
    let to = filter.to?.trim();
    if (to && to.startsWith('+')) {
      const phone = parsePhoneNumberFromString(to);
      if (phone) to = phone.number;
    }
    return this.db.read(async (tx) => {
      const q = tx.select().from(messages);
      const filtered = to ? q.where(sql`lower(${messages.to}) = ${to.toLowerCase()}`) : q;
      return await filtered.orderBy(desc(messages.createdAt), desc(messages.id)).limit(limit);
    });
  }

  /** One stored message. @throws ApiError 404 */
  async get(id: string): Promise<MessageRow> {
    const row = await this.db.read(async (tx) => (await tx.select().from(messages).where(eq(messages.id, id)).limit(1))[0]);
    if (!row) throw ApiError.notFound('message', id);
    return row;
  }

  /** Attachment `n` (0-based) of a message. @throws ApiError 404 */
  async attachment(id: string, n: number): Promise<Attachment> {
    const a = Number.isInteger(n) && n >= 0 ? (await this.get(id)).attachments[n] : undefined;
    if (!a) throw ApiError.notFound('attachment', `${id}/${n}`);
    return { filename: a.filename, contentType: a.contentType, content: Buffer.from(a.contentBase64, 'base64') };
  }

  /** Closes the transport's connections (at shutdown). */
  close(): void {
    this.transport.close?.();
  }
}

/** The SMTP URL's user and password, so they never reach `lastError`. */
function smtpSecrets(smtpUrl: string): string[] {
  try {
    const u = new URL(smtpUrl);
    return [u.password, decodeURIComponent(u.password), u.username, decodeURIComponent(u.username)].filter((s) => s.length > 0);
  } catch {
    return [];
  }
}

/**
 * The service as configured: SMTP when `config.smtpUrl` is set, otherwise the development
 * mailbox (messages are marked sent and read on `/dev/mailbox`). SMS always goes to the
 * mailbox until a provider implements `SmsSender` (see email.transport.ts).
 *
 * @example const messages = createMessagesService({ db, clock, config, logger });
 */
export function createMessagesService(deps: { db: Db; clock: Clock; config: Pick<AppConfig, 'smtpUrl' | 'mailFrom'>; logger?: Logger }): MessagesService {
  const { smtpUrl, mailFrom } = deps.config;
  return new MessagesService(deps.db, deps.clock, {
    transport: smtpUrl ? smtpTransport(smtpUrl, mailFrom) : mailboxTransport,
    sms: mailboxSms,
    ...(deps.logger ? { logger: deps.logger } : {}),
    secrets: smtpUrl ? smtpSecrets(smtpUrl) : [],
  });
}
