/**
 * The one typed exception of the service and the closed set of error codes.
 *
 * Every error response carries entries of one shape, `{code, message, path?, in?}`:
 * - `code` is stable and machine readable (the set below only grows within /v1);
 * - `message` is for humans and may change;
 * - `path` names the offending field, dotted from the root of its part of the
 *   request (`shows.0.date`), when one field is to blame;
 * - `in` says which part of the request `path` is in (`body`, `query`, `path`, `header`).
 */

/** Stable machine-readable error codes. Additive only within /v1. */
export const ERROR_CODES = [
  // 400
  'missing_field',
  'invalid_type',
  'invalid_value',
  'invalid_format',
  'out_of_range',
  'unknown_field',
  'invalid_json',
  'deprecated_field',
  'bad_request',
  /** A payment provider's event whose signature does not verify. */
  'invalid_signature',
  // 401, 403
  'unauthorized',
  'forbidden_key_kind',
  'origin_not_allowed',
  'step_up_required',
  // 404, 405
  'not_found',
  'route_not_found',
  'method_not_allowed',
  // 409
  'conflict',
  'idempotency_in_progress',
  // 413, 415, 422, 429
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limited',
  // 410
  'endpoint_moved',
  // 5xx
  'internal_error',
  'upstream_unavailable',
  /** 503 while the database cannot be used (unreachable, restarting, its disk full or read-only): retry after Retry-After. */
  'database_unavailable',
  /** 503 of /readyz and of a process not serving yet or any more (starting, draining, migrations missing). */
  'not_ready',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Why a domain rule refused, for callers that are not the API: a page picks its notice by
 * `reason`, never by message text or a bare status. The API still answers `code` (and the
 * message); `reason` is additive and internal. Closed: add a reason here when a page needs to
 * tell a refusal apart.
 */
export const DOMAIN_REASONS = [
  /** A listing (or one of several) is no longer ACTIVE: reserved, sold or ended. */
  'listing_unavailable',
  /** A listing is in a buyer's checkout (RESERVED): it cannot be changed or removed now. */
  'listing_reserved',
  /** A row changed between the read and the conditional write; read it again. */
  'changed_meanwhile',
  /** A buyer picked their own listing. */
  'own_listing',
  /** One checkout holds listings of one show and one ticket option. */
  'mixed_items',
  /** The show is not open for resale (cancelled, hidden or resale off). */
  'resale_closed',
  /** The show has started. */
  'show_started',
  /** The seller reached the rules' maxSell for the show. */
  'max_sell_reached',
  /** A ticket cannot be listed in its state (already listed, sold, used or cancelled). */
  'ticket_not_listable',
  /** A price outside the rules (minimum, maximum, fixed price, or not above the seller fee). */
  'price_rejected',
  /** A hold limit (see HoldLimitError). */
  'hold_limit',
  /** A buy intention is not PENDING any more. */
  'intention_ended',
  /** A pick of seats would leave a single empty seat in a row (the seat map's rule, on every path). */
  'orphan_seat',
  /** The show's waiting list is not enabled (joins and offers are paused or were never on). */
  'waitinglist_closed',
  /** The fan already has a live entry (waiting or holding an offer) for the show. */
  'already_waiting',
  /** The waiting-list entry is final (left, bought, expired, declined or closed). */
  'waitinglist_ended',
  /** An offer for a waiting-list entry that is not waiting (offered already, or final). */
  'not_waiting',
  /** A ticket has no rotating code in its state (listed, sold, admitted, deleted or cancelled). */
  'ticket_not_valid',
  /** The ticket's code is not shown yet (before its unlock moment). */
  'code_locked',
  /** The show's venue does not scan rotating codes (ticketShield off, or the partner's own QR). */
  'codes_off',
  /** A ticket's code was moved to new phones too often in a day. */
  'too_many_devices',
  /** A live door link of the show already has that name (a form sent twice makes no second door). */
  'door_name_taken',
  /** A key or secret was rotated after the form that would rotate it was read (a reload sends the form again). */
  'key_changed',
  /** A partner has that name already, and the console asked before making a second one. */
  'partner_name_taken',
] as const;

export type DomainReason = (typeof DOMAIN_REASONS)[number];

/** Where in the request an offending value is. */
export type ErrorLocation = 'body' | 'query' | 'path' | 'header';

/** One entry of the envelope's `errors` array. */
export interface ErrorEntry {
  code: ErrorCode;
  message: string;
  path?: string;
  in?: ErrorLocation;
}

/**
 * The exception services throw. `onError` turns it into the envelope.
 *
 * @example
 * throw ApiError.notFound('event', externalReferenceId);
 * throw new ApiError(409, 'conflict', 'The show is cancelled', { path: 'showId' });
 */
export class ApiError extends Error {
  readonly status: number;
  readonly entries: ErrorEntry[];
  /** Extra response headers (for example `Retry-After`). */
  readonly headers: Record<string, string>;
  /** The domain's reason, for pages (see DOMAIN_REASONS); undefined for plain request errors. */
  readonly reason: DomainReason | undefined;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    opts: { path?: string; in?: ErrorLocation; headers?: Record<string, string>; entries?: ErrorEntry[]; reason?: DomainReason } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.headers = opts.headers ?? {};
    this.reason = opts.reason;
    const first: ErrorEntry = { code, message };
    if (opts.path !== undefined) first.path = opts.path;
    if (opts.in !== undefined) first.in = opts.in;
    this.entries = opts.entries ?? [first];
  }

  /** The stable code of the (first) entry: what callers branch on, with `reason`. */
  get code(): ErrorCode {
    return this.entries[0]?.code ?? 'bad_request';
  }

  /** Several field errors at once (validation). */
  static invalid(entries: ErrorEntry[]): ApiError {
    const first = entries[0] ?? { code: 'bad_request' as const, message: 'Invalid request' };
    return new ApiError(400, first.code, first.message, { entries });
  }

  /** A 400 naming one field. */
  static field(code: ErrorCode, path: string, message: string, where: ErrorLocation = 'body', reason?: DomainReason): ApiError {
    return new ApiError(400, code, message, { path, in: where, ...(reason ? { reason } : {}) });
  }

  /** A 404 that reads the same for an unknown id and another partner's id. */
  static notFound(kind: string, id?: string): ApiError {
    const what = id === undefined ? kind : `${kind} '${id}'`;
    return new ApiError(404, 'not_found', `No ${what} was found`);
  }

  /** A 409: the request is fine but the state of things refuses it (`reason` says which rule). */
  static conflict(message: string, path?: string, reason?: DomainReason): ApiError {
    return new ApiError(409, 'conflict', message, { ...(path === undefined ? {} : { path }), ...(reason ? { reason } : {}) });
  }
}
