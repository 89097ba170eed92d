import type { Tx } from '../db/client.js';
import { toIso } from '../lib/clock.js';
import { ApiError } from '../lib/errors.js';
import { inOrder } from '../lib/in-order.js';
import type { Kernel } from '../lib/kernel.js';
import { auditChange, REDACTED, type AuditContext, type AuditService } from '../domain/audit/audit.service.js';
import { eventByRef, showOfEvent, showsOfEventByShowId } from '../domain/events/events.queries.js';
import type { EventsService } from '../domain/events/events.service.js';
import { FEED_KINDS, FeedsService, type ClaimedPoll, type FeedRun } from '../domain/feeds/feeds.service.js';
import { partnerById } from '../domain/partners/partners.queries.js';
import { DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS, publicSettings, type PartnerChange, type PartnerRow, type PartnerSecrets, type PartnersService, type RotatableKind } from '../domain/partners/partners.service.js';
import { DEFAULT_SETTINGS, type PartnerSettingsPatch } from '../domain/partners/partners.settings.js';
import { admissionCodesOf, type ShowAdmissionCodes } from '../domain/events/events.model.js';
import type { VenueScans } from '@resale/shared/admission-code';
import type { WebhookMessageWithAttempts, WebhooksService } from '../domain/webhooks/webhooks.service.js';

/**
 * The operator's changes: each use case makes its change and records it in the audit log
 * (domain/audit) in ONE transaction, so a change never lands without its entry nor an entry
 * without its change, and a change refused (404, 400, 409) leaves none. Whoever asks gives an
 * {@link AuditContext}: the operator API (`/admin/v1`, `http/middleware/auth.ts`,
 * `operatorAuditContext`) says `{ kind: 'operator_token' }`, the console its signed-in user.
 *
 * Secrets never reach an entry: a rotation is recorded as having happened (its kind and grace,
 * `webhookSecret: '[redacted]'`), a platform secret set or cleared as `'[redacted]'` or null,
 * and the audit service redacts again whatever a field's name says is secret.
 */

/**
 * The stable action names of the operator's changes, as the audit log stores them (and
 * `GET /admin/v1/audit?action=` filters them). Dotted: the thing changed, then what was done.
 */
export const OPERATOR_ACTIONS = {
  /** A partner created: `after` holds its name and the settings that differ from the defaults. */
  createPartner: 'partner.create',
  /** A partner's name or settings changed: the fields that changed, before → after (a platform secret as `[redacted]` or null). */
  updatePartner: 'partner.update',
  /** A private, public or channels key replaced: `after` holds `kind` and `graceSeconds`. */
  rotatePartnerKey: 'partner.key.rotate',
  /** The webhook signing secret replaced (by either rotation endpoint): `after` holds `webhookSecret: '[redacted]'` and `graceSeconds`. */
  rotatePartnerWebhookSecret: 'partner.webhook_secret.rotate',
  /** A webhook message queued again: its state, attempts and next attempt, before → after; the target is the message. */
  replayWebhook: 'webhook.replay',
  /** A partner's feeds polled on demand: `after.runs` names each feed run started. */
  pollFeeds: 'feeds.poll',
  /** ticketShield switched for an event or a show: each show whose flag changed, `shows.<showId>`, before → after; the target is `<eventId>` or `<eventId>/<showId>`. */
  setTicketShield: 'partner.ticket_shield.set',
} as const;

/** One of {@link OPERATOR_ACTIONS}. */
export type OperatorAction = (typeof OPERATOR_ACTIONS)[keyof typeof OPERATOR_ACTIONS];

/** What the operator's changes need: the kernel's database, clock and logger, and the modules they change. */
export type OperatorChangesDeps = Pick<Kernel, 'db' | 'clock' | 'logger'> & {
  partners: PartnersService;
  events: EventsService;
  webhooks: WebhooksService;
  audit: AuditService;
};

/** A partner as its audit entries compare it: name and settings (defaults filled in), never a secret. */
function partnerSnapshot(p: PartnerRow): { name: string; settings: Record<string, unknown> } {
  const { platformSecretSet: _set, ...settings } = publicSettings(p);
  return { name: p.name, settings };
}

/** The platform secret as an entry shows it: `[redacted]` when one is set, null when none. */
function platformSecretMark(set: boolean): string | null {
  return set ? REDACTED : null;
}

/**
 * Creates a partner with its keys and webhook secret (answered once, never recorded) and
 * records `partner.create` with the partner's name and the settings that differ from the
 * defaults (`settings.platformSecret: '[redacted]'` when one was given). With `nameFree` only
 * if no partner has the name yet (the console's form, unless asked for a second one).
 *
 * @throws ApiError 409 `partner_name_taken` with `nameFree` when one has it (nothing recorded)
 * @example const { partner, secrets } = await createPartner(deps, ctx, { name: 'Acme Tickets', settings: { webhookUrl: 'https://acme.example/hooks' } });
 */
export async function createPartner(deps: OperatorChangesDeps, ctx: AuditContext, input: { name: string; settings?: PartnerSettingsPatch | undefined; nameFree?: boolean }): Promise<{ partner: PartnerRow; secrets: PartnerSecrets }> {
  return deps.db.transact(async (tx) => {
    const created = input.nameFree ? await deps.partners.createNamedIn(tx, input.name, input.settings ?? {}) : await deps.partners.createIn(tx, input.name, input.settings ?? {});
    const { partner } = created;
    const snapshot = partnerSnapshot(partner);
    snapshot.settings.platformSecret = platformSecretMark(partner.platformSecretSealed !== null);
    // Compared with a partner of the default settings: `after` says what this one was given.
    const defaults = { name: null, settings: { ...DEFAULT_SETTINGS, platformSecret: null } };
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.createPartner, partnerId: partner.id, target: partner.id, after: auditChange(defaults, snapshot).after });
    return created;
  });
}

/**
 * Changes a partner's name or settings (settings sent replace the stored ones, the others
 * keep their values; `platformSecret: null` clears it) and records `partner.update` with the
 * fields that changed, before → after, as dotted paths (`settings.qrLockHoursBeforeShow`). A platform
 * secret sent reads `[redacted]` (null when cleared), never its value.
 *
 * @throws ApiError 404 for an unknown partner (nothing recorded)
 * @example await updatePartner(deps, ctx, 'ptr_…', { settings: { qrLockHoursBeforeShow: 24 } }); // before { 'settings.qrLockHoursBeforeShow': 3 } → after { … 24 }
 */
export async function updatePartner(deps: OperatorChangesDeps, ctx: AuditContext, partnerId: string, change: PartnerChange): Promise<PartnerRow> {
  return deps.db.transact(async (tx) => {
    const { before, partner } = await deps.partners.updateIn(tx, partnerId, change);
    const was = partnerSnapshot(before);
    const is = partnerSnapshot(partner);
    const secret = change.settings?.platformSecret;
    // Shown only when sent: a secret set again reads the same `[redacted]`, yet it changed.
    if (secret !== undefined) {
      was.settings.platformSecret = platformSecretMark(before.platformSecretSealed !== null);
      is.settings.platformSecret = platformSecretMark(secret !== null);
    }
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.updatePartner, partnerId, target: partnerId, ...auditChange(was, is) });
    return partner;
  });
}

/**
 * Issues a new private, public or channels key (or webhook secret, then recorded as
 * {@link rotatePartnerWebhookSecret} records it), answered once; the previous one keeps working
 * for `graceSeconds` (default 0: revoked at once). Records `partner.key.rotate` with
 * `{ kind, graceSeconds }`, never the key. With `ifVersion` (the console's form: what
 * `PartnersService.keyVersionsIn` read when it was shown) only if the kind was not rotated since.
 *
 * @throws ApiError 404 for an unknown partner; 409 `key_changed` past `ifVersion` (nothing recorded)
 * @example const { secret, previousValidUntil } = await rotatePartnerKey(deps, ctx, 'ptr_…', { kind: 'private', graceSeconds: 3600 });
 */
export async function rotatePartnerKey(
  deps: OperatorChangesDeps,
  ctx: AuditContext,
  partnerId: string,
  input: { kind: RotatableKind; graceSeconds?: number | undefined; ifVersion?: string | undefined },
): Promise<{ secret: string; previousValidUntil: number | null }> {
  const graceSeconds = input.graceSeconds ?? 0;
  if (input.kind === 'webhookSecret') return rotatePartnerWebhookSecret(deps, ctx, partnerId, { graceSeconds, ifVersion: input.ifVersion });
  const kind = input.kind;
  return deps.db.transact(async (tx) => {
    const rotated = await deps.partners.rotateIn(tx, partnerId, kind, graceSeconds, input.ifVersion);
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.rotatePartnerKey, partnerId, target: partnerId, after: { kind, graceSeconds } });
    return rotated;
  });
}

/**
 * Replaces the partner's webhook signing secret, answered once; the previous one keeps signing
 * beside it for `graceSeconds` (default a day, {@link DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS}).
 * Records `partner.webhook_secret.rotate` with `{ webhookSecret: '[redacted]', graceSeconds }`.
 *
 * @throws ApiError 404 for an unknown partner (nothing recorded)
 * @example const { secret } = await rotatePartnerWebhookSecret(deps, ctx, 'ptr_…', { graceSeconds: 86_400 });
 */
export async function rotatePartnerWebhookSecret(
  deps: OperatorChangesDeps,
  ctx: AuditContext,
  partnerId: string,
  input: { graceSeconds?: number | undefined; ifVersion?: string | undefined } = {},
): Promise<{ secret: string; previousValidUntil: number | null }> {
  const graceSeconds = input.graceSeconds ?? DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS;
  return deps.db.transact(async (tx) => {
    const rotated = await deps.partners.rotateIn(tx, partnerId, 'webhookSecret', graceSeconds, input.ifVersion);
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.rotatePartnerWebhookSecret, partnerId, target: partnerId, after: { webhookSecret: REDACTED, graceSeconds } });
    return rotated;
  });
}

/**
 * Queues a webhook message for delivery again, now, with the same webhook-id (see
 * `WebhooksService.replay`), and records `webhook.replay` with the message as target and its
 * state, attempts and next attempt, before → after. `webhooks` defaults to `deps.webhooks`
 * (tests pass one with a short time limit).
 *
 * @throws ApiError 404 for an unknown partner, message, or another partner's message (nothing recorded)
 * @example const { message } = await replayWebhook(deps, ctx, 'ptr_…', 'msg_…'); // message.state === 'pending'
 */
export async function replayWebhook(deps: OperatorChangesDeps, ctx: AuditContext, partnerId: string, messageId: string, webhooks: WebhooksService = deps.webhooks): Promise<WebhookMessageWithAttempts> {
  return deps.db.transact(async (tx) => {
    const { before, replayed } = await webhooks.replayIn(tx, partnerId, messageId);
    const view = (x: { state: string; attempts: number; nextAttemptAt: number | null }) => ({ state: x.state, attempts: x.attempts, nextAttemptAt: x.nextAttemptAt === null ? null : toIso(x.nextAttemptAt) });
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.replayWebhook, partnerId, target: messageId, ...auditChange(view(before), view(replayed.message)) });
    return replayed;
  });
}

/**
 * Polls the partner's events feed, then its cancelled-events feed, now, whatever the schedule,
 * and answers the runs (a feed without a URL is not polled; a feed that fails is a run with
 * ok false). The runs' rows and the `feeds.poll` entry naming them (`after.runs`, each
 * `{ feed, id }`) are written in one transaction before the feeds are fetched; each feed's
 * items are then applied in transactions of their own, as every poll does, so a slow feed
 * never holds a transaction open. `feeds` defaults to a service built from `deps` (tests pass
 * one with a short time limit).
 *
 * @throws ApiError 404 for an unknown partner (nothing recorded, nothing polled)
 * @example const runs = await pollFeeds(deps, ctx, 'ptr_…'); // [{ feed: 'events', ok: true, applied: 3, … }, { feed: 'cancelled', … }]
 */
export async function pollFeeds(deps: OperatorChangesDeps, ctx: AuditContext, partnerId: string, feeds: FeedsService = new FeedsService(deps)): Promise<FeedRun[]> {
  const claimed = await deps.db.transact(async (tx) => {
    const polls: ClaimedPoll[] = [];
    for (const feed of FEED_KINDS) {
      const poll = await feeds.claimPollIn(tx, partnerId, feed);
      if (poll) polls.push(poll);
    }
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.pollFeeds, partnerId, target: partnerId, after: { runs: polls.map((p) => ({ feed: p.feed, id: p.run.id })) } });
    return polls;
  });
  const runs: FeedRun[] = [];
  for (const poll of claimed) runs.push(await feeds.runClaimed(poll));
  return runs;
}

/** What {@link setTicketShield} switches: one show of an event, or every show of it without `showId`. */
export interface TicketShieldSwitch {
  /** The partner's event id. */
  eventId: string;
  /** The partner's show id; without it, every show of the event. */
  showId?: string | undefined;
  /** true activates ticketShield, false deactivates it. */
  status: boolean;
  /**
   * Which code the venue scans at these shows and the rotating code's step, overriding the
   * partner's `admissionCodes`; null returns them to the partner's; absent leaves them as they are.
   */
  admissionCodes?: { venueScans: VenueScans; rotationSeconds?: number | undefined } | null | undefined;
}

/** A show after {@link setTicketShield}: its flag, whether this switch changed it, and its admission codes then in force. */
export interface TicketShieldResult {
  showId: string;
  status: boolean;
  changed: boolean;
  admissionCodes: ShowAdmissionCodes;
}

/**
 * Switches ticketShield for an event's shows (or one show). Each show whose flag changes emits
 * the spec's `ticketShield.updated` webhook ({status, eventId, showId}) in the same
 * transaction, so the partner flips between the secure view and its own; a switch that
 * changes nothing emits none. Records `partner.ticket_shield.set` with target `<eventId>` (or
 * `<eventId>/<showId>`) and each show whose flag changed, `shows.<showId>`, before → after.
 *
 * @throws ApiError 404 for an unknown partner, event or show (nothing switched, nothing recorded)
 * @example await setTicketShield(deps, ctx, 'ptr_…', { eventId: 'tour-2026', status: true }); // [{ showId: 'show-1', status: true, changed: true }, …]
 */
export async function setTicketShield(deps: OperatorChangesDeps, ctx: AuditContext, partnerId: string, input: TicketShieldSwitch): Promise<TicketShieldResult[]> {
  return deps.db.transact(async (tx) => {
    const results = await switchTicketShield(deps, tx, partnerId, input);
    const was = Object.fromEntries(results.map((r) => [r.showId, r.changed ? !r.status : r.status]));
    const is = Object.fromEntries(results.map((r) => [r.showId, r.status]));
    const target = input.showId === undefined ? input.eventId : `${input.eventId}/${input.showId}`;
    // The show's own override of the codes, before → after, for the shows whose override changed.
    const moved = results.filter((r) => r.codesWere !== null);
    const codesWere = moved.length ? { admissionCodes: Object.fromEntries(moved.map((r) => [r.showId, r.codesWere!.override])) } : {};
    const codesAre = moved.length ? { admissionCodes: Object.fromEntries(moved.map((r) => [r.showId, input.admissionCodes ?? null])) } : {};
    await deps.audit.record(tx, ctx, { action: OPERATOR_ACTIONS.setTicketShield, partnerId, target, ...auditChange({ shows: was, ...codesWere }, { shows: is, ...codesAre }) });
    return results.map(({ codesWere: _c, ...r }) => r);
  });
}

/** The switch itself, in `tx`: the events module writes each flag, the webhook is the switch's own. */
async function switchTicketShield(deps: Pick<OperatorChangesDeps, 'events' | 'webhooks'>, tx: Tx, partnerId: string, input: TicketShieldSwitch): Promise<(TicketShieldResult & { codesWere: { override: { venueScans: VenueScans; rotationSeconds: number | null } | null } | null })[]> {
  const partner = await partnerById(tx, partnerId);
  if (!partner) throw ApiError.notFound('partner', partnerId);
  const event = await eventByRef(tx, partnerId, input.eventId);
  if (!event) throw ApiError.notFound('event', input.eventId);
  const one = input.showId === undefined ? undefined : await showOfEvent(tx, event.id, input.showId);
  const targets = input.showId === undefined ? await showsOfEventByShowId(tx, event.id) : one ? [one] : [];
  if (targets.length === 0) throw ApiError.notFound('show', input.showId);
  const codes = input.admissionCodes;
  return await inOrder(targets, async (show) => {
    const changed = await deps.events.setTicketShield(tx, show.id, input.status);
    const override = show.venueScans === null ? null : { venueScans: show.venueScans, rotationSeconds: show.rotationSeconds };
    const codesChanged = codes === undefined ? false : await deps.events.setAdmissionCodes(tx, show.id, codes && { venueScans: codes.venueScans, rotationSeconds: codes.rotationSeconds ?? null });
    const now = codes === undefined ? show : { ...show, venueScans: codes?.venueScans ?? null, rotationSeconds: codes?.rotationSeconds ?? null };
    if (changed) {
      await deps.webhooks.enqueue(tx, partnerId, {
        action: 'ticketShield.updated',
        resourceKey: `show:${input.eventId}/${show.showId}`,
        data: { status: input.status, eventId: input.eventId, showId: show.showId },
      });
    }
    return { showId: show.showId, status: input.status, changed, codesWere: codesChanged ? { override } : null, admissionCodes: admissionCodesOf({ ...now, ticketShield: input.status }, partner.settings) };
  });
}
