import type { Tx } from '../../../db/client.js';
import { ApiError } from '../../../lib/errors.js';
import type { EventAggregate } from '../events.model.js';
import type { EventUpdateInput } from '../events.schemas.js';
import type { EventInput } from '../events.service.js';
import { readSheet, type Sheet } from './sheet.read.js';
import { addError, entityKey, sheetToEvents, toRowError, type EventPlan, type RowError } from './sheet.to-events.js';
import type { Kernel } from '../../../lib/kernel.js';
import type { EventsService } from '../events.service.js';
import type { PartnersService } from '../../partners/partners.service.js';

/**
 * Manual load (spec, "Ways to synchronise events"): applies the events of a sheet as the
 * partner's, through the same service calls as the API — `create` for a new event (as
 * `POST /v1/events`), `update` for a stored one (as `PUT /v1/events`) — so merge rules,
 * cross-reference checks and domain events (`show.cancelled` and what follows from it)
 * are the API's.
 *
 * The one code path of both ways in: `npm run import` (src/import.ts, through
 * {@link importEvents}) and the console's manual load (flows/manual-load.ts, through
 * {@link previewSheet} and {@link applySheet}). A sheet is read (sheet.read.ts, or
 * sheet.bytes.ts for an upload), grouped and validated into one plan per event
 * (sheet.to-events.ts), and each plan run through the events service.
 *
 * The unit of all or nothing is the transaction `deps.db` opens: given the database, each
 * event is applied in its own transaction (an event with any bad row is not applied at all;
 * the others are: the command); given a transaction (`{ ...deps, db: tx }`), each event is a
 * savepoint of it, and the caller commits the whole sheet or, when the report has any error,
 * rolls it all back (the console).
 */

export interface ImportOptions {
  partnerId: string;
  /** Path of a .csv or .xlsx file. */
  file: string;
  /** Check everything, write nothing. */
  dryRun?: boolean;
  /** Called after each event with the data rows handled so far (for a progress bar). */
  onProgress?: (done: number, total: number) => void;
}

export type EventOutcome = 'created' | 'updated' | 'rejected';

export interface EventReport {
  externalReferenceId: string;
  outcome: EventOutcome;
  rows: number[];
  shows: number;
  ticketOptions: number;
  priceTypes: number;
  combinations: number;
}

export interface ImportReport {
  file: string;
  partnerId: string;
  dryRun: boolean;
  /** Data rows read (blank rows not counted). */
  rows: number;
  events: EventReport[];
  /** Every bad row, by row number: header problems, rows without an event, rows of rejected events. */
  errors: RowError[];
}

/** Thrown inside an event's transaction to undo it: a dry run, or an event with bad rows. */
class Rollback extends Error {
  constructor(readonly outcome: EventOutcome) {
    super('rollback');
  }
}

/**
 * Imports a file for a partner.
 *
 * @throws ApiError 404 when the partner does not exist; SheetReadError when the file is
 *   not a readable sheet.
 * @example const report = await importEvents(deps, { partnerId: 'ptr_…', file: 'docs/samples/events.csv' });
 */
export async function importEvents(deps: Pick<Kernel, 'db'> & { events: EventsService; partners: PartnersService }, opts: ImportOptions): Promise<ImportReport> {
  await deps.partners.get(opts.partnerId);
  const sheet: Sheet = await readSheet(opts.file);
  return applySheet(deps, sheet, opts);
}

/**
 * The preview of a sheet already read: every check of a real run, the service's included
 * (each event applied in a transaction then rolled back), and what each event would become;
 * nothing is written. What `npm run import -- --dry-run` reports.
 */
export async function previewSheet(deps: Pick<Kernel, 'db'> & { events: EventsService }, sheet: Sheet, opts: { partnerId: string; file?: string }): Promise<ImportReport> {
  return applySheet(deps, sheet, { ...opts, dryRun: true });
}

/** The counts of a report: rows, events by outcome, and the parts of the events (shows, ticket options, price types, combinations). */
export interface ReportTotals {
  rows: number;
  events: number;
  created: number;
  updated: number;
  rejected: number;
  shows: number;
  ticketOptions: number;
  priceTypes: number;
  combinations: number;
}

/** Sums a report's events (see {@link ReportTotals}). */
export function reportTotals(report: Pick<ImportReport, 'rows' | 'events'>): ReportTotals {
  const sum = (k: 'shows' | 'ticketOptions' | 'priceTypes' | 'combinations') => report.events.reduce((n, e) => n + e[k], 0);
  const outcome = (o: EventOutcome) => report.events.filter((e) => e.outcome === o).length;
  return {
    rows: report.rows,
    events: report.events.length,
    created: outcome('created'),
    updated: outcome('updated'),
    rejected: outcome('rejected'),
    shows: sum('shows'),
    ticketOptions: sum('ticketOptions'),
    priceTypes: sum('priceTypes'),
    combinations: sum('combinations'),
  };
}

/**
 * The run over a sheet already read (tests build sheets in memory; the console reads
 * uploads): each event in a transaction of `deps.db` (see the module comment), rolled back
 * when it has a bad row or for a dry run.
 */
export async function applySheet(deps: Pick<Kernel, 'db'> & { events: EventsService }, sheet: Sheet, opts: Omit<ImportOptions, 'file'> & { file?: string }): Promise<ImportReport> {
  const { plans, errors } = sheetToEvents(sheet);
  const report: ImportReport = { file: opts.file ?? '', partnerId: opts.partnerId, dryRun: opts.dryRun === true, rows: sheet.rows.length, events: [], errors: [...errors] };
  let done = 0;
  for (const plan of plans) {
    const outcome = await applyPlan(deps, plan, opts.partnerId, opts.dryRun === true);
    report.events.push(summarise(plan, outcome));
    report.errors.push(...plan.errors);
    done += plan.rows.length;
    opts.onProgress?.(done, sheet.rows.length);
  }
  report.errors.sort((a, b) => a.row - b.row || (a.column ?? '').localeCompare(b.column ?? ''));
  return report;
}

/**
 * One event in one transaction. The service runs even for an event with bad rows (on
 * what is valid, then rolled back), so the service's own checks — a new ticket option
 * without a name, a combination naming an unknown option — are reported in the same run.
 */
async function applyPlan(deps: Pick<Kernel, 'db'> & { events: EventsService }, plan: EventPlan, partnerId: string, dryRun: boolean): Promise<EventOutcome> {
  if (plan.input === null) return 'rejected';
  const input = plan.input;
  try {
    return await deps.db.transact(async (tx) => {
      const existing = await findEvent(deps, tx, partnerId, plan.externalReferenceId);
      const body = withCreateDefaults(input, existing);
      if (existing) await deps.events.update(tx, partnerId, body);
      else await deps.events.create(tx, partnerId, body, 'import');
      const outcome: EventOutcome = existing ? 'updated' : 'created';
      if (plan.errors.length > 0) throw new Rollback('rejected');
      if (dryRun) throw new Rollback(outcome);
      return outcome;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.outcome;
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    for (const entry of err.entries) {
      const spot = plan.locator.locate(entry.path);
      // Already told as a bad value; its absence is not a second problem.
      if (spot.column && plan.reported.has(`${entityKey(spot.entity)}|${spot.column}`)) continue;
      addError(plan, toRowError(entry, spot, plan.externalReferenceId));
    }
    return 'rejected';
  }
}

async function findEvent(deps: { events: EventsService }, tx: Tx, partnerId: string, externalReferenceId: string): Promise<EventAggregate | null> {
  try {
    return await deps.events.get(tx, partnerId, externalReferenceId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return null;
    throw err;
  }
}

/**
 * Fills what a sheet may leave blank for something new: an event without description,
 * location or configuration gets empty ones; a new show gets the event's title, no images
 * and an empty configuration; a new ticket option an empty description. Only for new
 * parts: for stored ones a blank cell keeps the stored value, as an omitted field of
 * `PUT /v1/events` does.
 */
export function withCreateDefaults(input: EventUpdateInput, existing: EventAggregate | null): EventInput {
  const title = input.title ?? existing?.title;
  const shows = input.shows?.map((s) => {
    const stored = existing?.shows.find((x) => x.showId === s.showId);
    const ticketOptions = s.ticketOptions?.map((o) =>
      stored?.ticketOptions.some((x) => x.ticketId === o.ticketId) || o.description !== undefined ? o : { ...o, description: '' },
    );
    if (stored) return { ...s, ticketOptions };
    return { ...s, ticketOptions, title: s.title ?? title, images: s.images ?? [], configuration: s.configuration ?? {} };
  });
  if (existing) return { ...input, shows };
  return {
    ...input,
    shows,
    description: input.description ?? '',
    location: input.location ?? { city: '', state: '', venueName: '', address: '', country: '', postalCode: '' },
    configuration: input.configuration ?? {},
  };
}

function summarise(plan: EventPlan, outcome: EventOutcome): EventReport {
  const shows = plan.model.shows;
  return {
    externalReferenceId: plan.externalReferenceId,
    outcome,
    rows: plan.rows,
    shows: shows.length,
    ticketOptions: shows.reduce((n, s) => n + s.options.length, 0),
    priceTypes: shows.reduce((n, s) => n + s.priceTypes.length, 0),
    combinations: shows.reduce((n, s) => n + s.combos.length, 0),
  };
}
