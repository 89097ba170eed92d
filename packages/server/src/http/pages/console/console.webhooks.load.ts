import type { Lang } from '@resale/shared/lang';
import type { AppDeps } from '../../../context.js';
import { can, type ConsoleSession } from '../../../domain/console/console.service.js';
import { partnerById } from '../../../domain/partners/partners.queries.js';
import { settingsPatchSchema, type PartnerSettingsPatch } from '../../../domain/partners/partners.settings.js';
import { WEBHOOK_ACTIONS, type WebhookAction } from '../../../domain/webhooks/webhooks.catalog.js';
import { isTestMessage, WEBHOOK_MESSAGE_STATES, type WebhookAttemptRow, type WebhookMessage, type WebhookMessageState } from '../../../domain/webhooks/webhooks.service.js';
import { ApiError } from '../../../lib/errors.js';
import { wm } from './console.webhooks.messages.js';

/**
 * What the webhooks section shows, read for one person: the endpoint form's values, a page of
 * the delivery log, one message with its attempts; and the endpoint form read back into the
 * API's settings patch. No HTTP here beyond the form's fields.
 */

/** Messages per page of the delivery log. */
export const WEBHOOK_LOG_PAGE_SIZE = 25;

/** The name of the form field (a checkbox) that chooses `action` in the endpoint form. */
export function kindField(action: string): string {
  return `kind-${action}`;
}

/** The endpoint form as typed (or as stored): the URL, every kind or some, and which. */
export interface EndpointForm {
  webhookUrl: string;
  mode: 'all' | 'some';
  chosen: readonly string[];
}

/** The log's filters and page, from the GET query (anything unknown reads as no filter). */
export interface LogQuery {
  state: WebhookMessageState | null;
  action: WebhookAction | null;
  startingAfter: string | null;
}

/** One line of the delivery log. */
export interface LogItem {
  id: string;
  action: string;
  state: WebhookMessageState;
  createdAt: number;
  attempts: number;
  lastStatus: number | null;
  test: boolean;
}

/** The webhooks page's model. */
export interface WebhooksPageModel {
  endpoint: EndpointForm;
  mayDevelop: boolean;
  query: LogQuery;
  items: LogItem[];
  nextCursor: string | null;
  /** The cursor named no message of the partner: the first page is shown instead. */
  badCursor: boolean;
}

/** The log's filters from the query string. */
export function logQueryOf(q: { state?: string | undefined; action?: string | undefined; startingAfter?: string | undefined }): LogQuery {
  const state = (WEBHOOK_MESSAGE_STATES as readonly string[]).includes(q.state ?? '') ? (q.state as WebhookMessageState) : null;
  const action = (WEBHOOK_ACTIONS as readonly string[]).includes(q.action ?? '') ? (q.action as WebhookAction) : null;
  const startingAfter = (q.startingAfter ?? '').trim().slice(0, 100);
  return { state, action, startingAfter: startingAfter || null };
}

/**
 * The webhooks page's model, or null when the person may not see the partner (unknown, or
 * another's: the same answer). The endpoint's stored values, unless `typed` (a refused form).
 */
export async function loadWebhooksPage(deps: Pick<AppDeps, 'db' | 'webhooks'>, session: ConsoleSession, partnerId: string, query: LogQuery, typed?: EndpointForm): Promise<WebhooksPageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  const partner = await deps.db.read(async (tx) => await partnerById(tx, partnerId));
  if (!partner) return null;
  const filter = { limit: WEBHOOK_LOG_PAGE_SIZE, ...(query.state ? { state: query.state } : {}), ...(query.action ? { action: query.action } : {}) };
  let badCursor = false;
  let page;
  try {
    page = await deps.webhooks.page(partnerId, { ...filter, ...(query.startingAfter ? { startingAfter: query.startingAfter } : {}) });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    badCursor = true;
    page = await deps.webhooks.page(partnerId, filter);
  }
  const events = partner.settings.webhookEvents ?? null;
  return {
    endpoint: typed ?? { webhookUrl: partner.settings.webhookUrl ?? '', mode: events === null ? 'all' : 'some', chosen: events ?? [] },
    mayDevelop: can(session, 'develop', partnerId),
    query: badCursor ? { ...query, startingAfter: null } : query,
    items: page.items.map(({ message }) => ({ id: message.id, action: message.action, state: message.state, createdAt: message.createdAt, attempts: message.attempts, lastStatus: message.lastStatus, test: isTestMessage(message) })),
    nextCursor: page.nextCursor,
    badCursor,
  };
}

/** One message as its page shows it. */
export interface WebhookMessageModel {
  message: WebhookMessage;
  attempts: WebhookAttemptRow[];
  test: boolean;
  /** The body as sent, pretty-printed. */
  body: string;
  mayDevelop: boolean;
}

/**
 * One message of the partner with its attempts, or null when the person may not see the
 * partner, or the message is unknown or another partner's (one answer for all three).
 */
export async function loadWebhookMessage(deps: Pick<AppDeps, 'webhooks'>, session: ConsoleSession, partnerId: string, messageId: string): Promise<WebhookMessageModel | null> {
  if (!can(session, 'read', partnerId)) return null;
  try {
    const { message, attempts } = await deps.webhooks.get(partnerId, messageId.slice(0, 100));
    return { message, attempts, test: isTestMessage(message), body: JSON.stringify(message.payload, null, 2), mayDevelop: can(session, 'develop', partnerId) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The endpoint form read into the API's settings patch (`webhookUrl`, `webhookEvents`),
 * checked with the API's own schema: `{ patch }`, or every error at once by field
 * (`webhookUrl`, `webhookEvents`) with what was typed, to show it again.
 */
export function endpointPatchFromForm(form: Record<string, string>, lang: Lang): { ok: true; patch: PartnerSettingsPatch } | { ok: false; errors: Record<string, string>; typed: EndpointForm } {
  const webhookUrl = (form.webhookUrl ?? '').trim();
  const mode = form.webhookEvents;
  const chosen = Object.keys(form)
    .filter((name) => name.startsWith('kind-'))
    .map((name) => name.slice('kind-'.length));
  const typed: EndpointForm = { webhookUrl, mode: mode === 'all' ? 'all' : 'some', chosen };
  const errors: Record<string, string> = {};
  if (mode !== 'all' && mode !== 'some') errors.webhookEvents = wm(lang, 'chooseMode');
  else if (mode === 'some' && chosen.length === 0) errors.webhookEvents = wm(lang, 'chooseKind');
  const parsed = settingsPatchSchema.safeParse({ webhookUrl: webhookUrl === '' ? null : webhookUrl, webhookEvents: mode === 'all' ? null : chosen });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [field, index] = issue.path;
      if (field === 'webhookEvents') errors.webhookEvents ??= typeof index === 'number' ? wm(lang, 'notAKind', { kind: chosen[index] ?? '' }) : issue.message;
      else errors.webhookUrl ??= issue.message;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, typed };
  return { ok: true, patch: parsed.data! };
}

/** The kind a test event form asked for, or null when it is no kind of webhook. */
export function testKindOf(form: Record<string, string>): WebhookAction | null {
  const kind = form.kind ?? '';
  return (WEBHOOK_ACTIONS as readonly string[]).includes(kind) ? (kind as WebhookAction) : null;
}
