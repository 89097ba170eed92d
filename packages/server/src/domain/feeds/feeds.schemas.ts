import { z } from '@hono/zod-openapi';
import { toIso } from '../../lib/clock.js';
import { feedSchemas } from '../events/events.schemas.js';
import type { feedRuns } from './feeds.table.js';

/**
 * Schemas of the pull feeds (what the partner's platform serves) and of the operator's
 * view of feed runs.
 *
 * Feed items are parsed leniently (unknown fields ignored, see `feedSchemas`), with three
 * rules on top of the events schema:
 * - a show may omit `date` when `dates.startsAt` is present; when both are sent,
 *   `dates.startsAt` wins (the spec: a RESCHEDULED show's `dates.startsAt` holds the new
 *   schedule);
 * - a show that sends price types must send combinations (spec, price structure rule 3),
 *   otherwise the whole item is malformed: none of its pairs would exist.
 */

const isoInstant = () => z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with an offset, such as 2026-05-01T21:00:00+02:00' });

const ISO_INSTANT = isoInstant();

/** One show of the events feed. */
export const feedShowSchema = feedSchemas.show
  .extend({ date: isoInstant().optional() })
  .superRefine((show, ctx) => {
    if (show.date === undefined && show.dates?.startsAt === undefined) {
      ctx.addIssue({ code: 'custom', path: ['date'], message: 'is required (or dates.startsAt)' });
    }
    if (show.priceTypes !== undefined && show.priceTypes.length > 0 && (show.combinations === undefined || show.combinations.length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['combinations'], message: 'is required when priceTypes are sent (only explicit combinations exist)' });
    }
  })
  .transform(({ date, ...show }) => ({ ...show, date: show.dates?.startsAt ?? date }));

/** One event of the events feed (spec, platform-side contract 1). */
export const feedEventSchema = feedSchemas.eventCreate.extend({
  // Like the API, a single show object is accepted where an array is expected.
  shows: z.preprocess(
    (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : v),
    z.array(feedShowSchema).min(1, 'must hold at least one show').max(500),
  ),
});
export type FeedEvent = z.output<typeof feedEventSchema>;

/**
 * One item of the cancelled-events feed (spec, platform-side contract 2):
 * `{externalReferenceId, cancelledAt, showId?}`. Without `showId` (absent or null) the
 * whole event is cancelled; an empty `showId` is refused rather than read as "every
 * show". `cancelledAt` is read by {@link parseFeedTimestamp}; it is informational (the
 * cancellation is applied when we learn it) and an unreadable one never blocks it.
 */
export const cancelledItemSchema = z.object({
  externalReferenceId: z.string().trim().min(1, 'must not be empty').max(200),
  showId: z
    .string()
    .trim()
    .max(200)
    .refine((id) => id !== '', 'must not be empty; omit it or send null to cancel every show')
    .nullable()
    .optional(),
  cancelledAt: z.unknown().optional(),
});

/** Epoch values below this are seconds, above it milliseconds (1e11 s is the year 5138; 1e11 ms is 1973). */
const SECONDS_BELOW = 1e11;

/**
 * Reads the `cancelledAt` of the cancelled feed to epoch milliseconds, or null when it
 * cannot be read. Accepted forms:
 * - an ISO 8601 date-time with an offset or `Z` (`2026-05-01T21:00:00+02:00`);
 * - epoch seconds or epoch milliseconds, as a number or a string of digits (decimals
 *   allowed): values below 1e11 are seconds, the others milliseconds.
 *
 * @example parseFeedTimestamp(1777662000) === parseFeedTimestamp('2026-05-01T19:00:00Z')
 */
export function parseFeedTimestamp(value: unknown): number | null {
  let n: number | null = null;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    const s = value.trim();
    if (/^\d+(\.\d+)?$/.test(s)) n = Number(s);
    else if (ISO_INSTANT.safeParse(s).success) return Date.parse(s);
    else return null;
  }
  if (n === null || !Number.isFinite(n) || n < 0) return null;
  const ms = n < SECONDS_BELOW ? n * 1000 : n;
  return ms > 8.64e15 ? null : Math.round(ms);
}

// ------------------------------------------------------------------ operator view

export const FeedRunSchema = z
  .object({
    id: z.string().openapi({ example: 'frn_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    partnerId: z.string().openapi({ example: 'ptr_01jd8x3k4f5g6h7j8k9m0n1p2q' }),
    feed: z.enum(['events', 'cancelled']).openapi({ example: 'events', description: 'Which feed was polled.' }),
    startedAt: z.string().openapi({ example: '2026-03-01T12:00:00.000Z' }),
    finishedAt: z.string().openapi({ example: '2026-03-01T12:00:01.250Z' }),
    ok: z.boolean().openapi({
      example: true,
      description: 'Whether the feed was read (a JSON array); false when it was down, slow, too large or not an array, and nothing was changed.',
    }),
    applied: z.number().int().openapi({ example: 12, description: 'Items applied.' }),
    skipped: z.number().int().openapi({ example: 1, description: 'Items skipped as malformed or refused.' }),
    problems: z.array(z.string()).openapi({
      example: ["item 3 (externalReferenceId 'tour-2026'): shows.0.title is required"],
      description: 'Why the feed failed, or why items were skipped (at most 100, each at most 300 characters).',
    }),
  })
  .openapi('FeedRun');

export function feedRunToApi(row: typeof feedRuns.$inferSelect): z.output<typeof FeedRunSchema> {
  return {
    id: row.id,
    partnerId: row.partnerId,
    feed: row.feed,
    startedAt: toIso(row.startedAt),
    finishedAt: toIso(row.finishedAt),
    ok: row.ok,
    applied: row.applied,
    skipped: row.skipped,
    problems: row.problems,
  };
}
