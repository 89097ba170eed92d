import type { ErrorEntry } from '../../../lib/errors.js';
import { issuesToEntries } from '../../../lib/validation.js';
import { apiSchemas, type EventUpdateInput } from '../events.schemas.js';
import { excelSerialToDate, hasOffset, parseLocal, wallOfExcelDate } from './sheet.dates.js';
import { isTimeZone, zonedIso } from '../../../lib/zoned-time.js';
import { COLUMN_BY_PATTERN, COLUMNS, columnOf, type Column, type ColumnLevel } from './sheet.layout.js';
import type { CellValue, Sheet } from './sheet.read.js';

/**
 * From rows to the bodies the API accepts. Rows group by eventId, then showId, then
 * ticketOptionId (and priceTypeId in the price-detail model); each group becomes the
 * `PUT /v1/events` body of its event, validated with the API's own schema. Every problem
 * is told as the spreadsheet row and column it comes from, never as a body path.
 */

/** One problem, where the operator can find it. */
export interface RowError {
  /** Spreadsheet row (the header is row 1). */
  row: number;
  column?: string;
  /** The event the row belongs to, when the row names one. */
  eventId?: string;
  message: string;
}

type Value = string | number | boolean | Date;
interface Field {
  value: Value;
  row: number;
}
interface Entity {
  firstRow: number;
  /** Values by column name; the first row that fills a column gives its value. */
  fields: Map<string, Field>;
}
export interface OptionModel extends Entity {
  ticketId: string;
}
export interface PriceTypeModel extends Entity {
  priceTypeId: string;
}
export interface ComboModel extends Entity {
  ticketOptionId: string;
  priceTypeId: string;
}
export interface ShowModel extends Entity {
  showId: string;
  options: OptionModel[];
  priceTypes: PriceTypeModel[];
  combos: ComboModel[];
}
export interface EventModel extends Entity {
  externalReferenceId: string;
  shows: ShowModel[];
}

/** What the rows say about one event, and whether it may be applied. */
export interface EventPlan {
  externalReferenceId: string;
  /** Its data rows, in file order. */
  rows: number[];
  model: EventModel;
  /** Problems found in its rows; any one of them keeps the whole event out. */
  errors: RowError[];
  /**
   * The body, parsed by the API's PUT schema, of what is valid: with errors, the bad parts
   * are left out so the service can still check the rest (and every bad row is reported
   * in one run); null when nothing more can be checked.
   */
  input: EventUpdateInput | null;
  /** Tells body paths (of `input`) as rows and columns. */
  locator: Locator;
  /** `entity|column` pairs already reported, so the service does not report them again as missing. */
  reported: Set<string>;
}

/** A part of the event a body path falls in. */
export type EntityRef =
  | { kind: 'event' }
  | { kind: 'show'; show: ShowModel }
  | { kind: 'ticketOption'; show: ShowModel; option: OptionModel }
  | { kind: 'priceType'; show: ShowModel; priceType: PriceTypeModel }
  | { kind: 'combination'; show: ShowModel; combo: ComboModel };

export interface Spot {
  row: number;
  column: string | undefined;
  /** The value the row holds there, when the path names a value the sheet gave. */
  value?: unknown;
  entity: EntityRef;
}

/**
 * Maps paths of a built body (`shows.1.ticketOptions.0.currency`) back to the row and
 * column the value came from; for a field that is absent (a missing required value),
 * the row of the part it belongs to and the column that would have filled it.
 */
export class Locator {
  private readonly fields = new Map<string, { row: number; column: string; value: unknown }>();
  private readonly entities = new Map<string, { row: number; entity: EntityRef }>();

  field(path: string, row: number, column: string, value: unknown): void {
    this.fields.set(path, { row, column, value });
  }

  entity(path: string, row: number, entity: EntityRef): void {
    this.entities.set(path, { row, entity });
  }

  locate(path: string | undefined): Spot {
    const segments = path ? path.split('.') : [];
    let column: string | undefined;
    let row: number | undefined;
    let value: unknown;
    for (let n = segments.length; n >= 0; n--) {
      const prefix = segments.slice(0, n).join('.');
      if (column === undefined) {
        const f = this.fields.get(prefix);
        if (f) [column, row, value] = [f.column, f.row, n === segments.length ? f.value : undefined];
        else column = COLUMN_BY_PATTERN.get(prefix.replace(/(^|\.)\d+(?=\.|$)/g, '$1*'));
      }
      const e = this.entities.get(prefix);
      if (e) return { row: row ?? e.row, column, ...(value !== undefined ? { value } : {}), entity: e.entity };
    }
    throw new Error('Locator: the event itself is always registered');
  }
}

/** The key of a part of the event, for `EventPlan.reported`. */
export function entityKey(entity: EntityRef): string {
  switch (entity.kind) {
    case 'event':
      return 'event';
    case 'show':
      return `show:${entity.show.showId}`;
    case 'ticketOption':
      return `option:${entity.show.showId}:${entity.option.ticketId}`;
    case 'priceType':
      return `priceType:${entity.show.showId}:${entity.priceType.priceTypeId}`;
    case 'combination':
      return `combination:${entity.show.showId}:${entity.combo.ticketOptionId}:${entity.combo.priceTypeId}`;
  }
}

/**
 * An error entry of the schema or the service, told as a row error: the body path in its
 * message becomes the column name.
 */
export function toRowError(entry: ErrorEntry, spot: Spot, eventId: string): RowError {
  let message = entry.message;
  if (entry.path && spot.column && message.includes(entry.path)) message = message.replace(entry.path, spot.column);
  const found = typeof spot.value === 'string' || typeof spot.value === 'number' ? String(spot.value) : undefined;
  if (found !== undefined && !message.includes(`'${found}'`)) message += ` (found '${found}')`;
  return { row: spot.row, ...(spot.column ? { column: spot.column } : {}), eventId, message };
}

// ------------------------------------------------------------------ rows to models

interface HeaderMap {
  columns: { column: Column; index: number }[];
  errors: RowError[];
}

function mapHeaders(sheet: Sheet): HeaderMap {
  const errors: RowError[] = [];
  const columns: { column: Column; index: number }[] = [];
  const seen = new Map<string, number>();
  sheet.headers.forEach((header, index) => {
    if (header === '') {
      const used = sheet.rows.find((r) => isPresent(r.cells[index]));
      if (used) errors.push({ row: 1, message: `Column ${index + 1} has values (row ${used.row}) but no header` });
      return;
    }
    const column = columnOf(header);
    if (!column) {
      errors.push({ row: 1, column: header, message: `'${header}' is not a column of the layout (see docs/import.md); rename or remove it` });
      return;
    }
    const first = seen.get(column.name);
    if (first !== undefined) {
      errors.push({ row: 1, column: column.name, message: `${column.name} appears twice (columns ${first + 1} and ${index + 1})` });
      return;
    }
    seen.set(column.name, index);
    columns.push({ column, index });
  });
  for (const c of COLUMNS) {
    if (c.requiredHeader && !seen.has(c.name)) errors.push({ row: 1, column: c.name, message: `The header has no ${c.name} column; it is required` });
  }
  return { columns, errors };
}

function isPresent(cell: CellValue | undefined): boolean {
  return cell !== null && cell !== undefined && !(typeof cell === 'string' && cell.trim() === '');
}

/** Reads one cell by its column's kind: the value, nothing when blank, or why it is wrong. */
function readCell(column: Column, cell: CellValue | undefined, decimalComma: boolean): { value?: Value; error?: string } {
  if (!isPresent(cell)) return {};
  const c = cell as Value;
  const text = () => (c instanceof Date ? c.toISOString() : String(c).trim());
  switch (column.kind) {
    case 'text':
      return { value: text() };
    case 'code':
      return { value: text().toUpperCase() };
    case 'decimal': {
      if (typeof c === 'number') return Number.isFinite(c) ? { value: c } : { error: 'must be an amount such as 45.50' };
      if (typeof c !== 'string') return { error: 'must be an amount such as 45.50' };
      const t = c.trim();
      // The schema checks the text; a decimal comma is the only thing we translate.
      return { value: decimalComma && /^\d+,\d+$/.test(t) ? t.replace(',', '.') : t };
    }
    case 'integer': {
      const n = typeof c === 'number' ? c : typeof c === 'string' && /^[+-]?\d+$/.test(c.trim()) ? Number(c.trim()) : NaN;
      return Number.isInteger(n) ? { value: n } : { error: 'must be a whole number' };
    }
    case 'number': {
      const t = typeof c === 'string' ? (decimalComma ? c.trim().replace(',', '.') : c.trim()) : null;
      const n = typeof c === 'number' ? c : t !== null && /^[+-]?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
      return Number.isFinite(n) ? { value: n } : { error: 'must be a number' };
    }
    case 'boolean': {
      if (typeof c === 'boolean') return { value: c };
      const t = String(c).trim().toLowerCase();
      if (['true', 'yes', '1'].includes(t)) return { value: true };
      if (['false', 'no', '0'].includes(t)) return { value: false };
      return { error: 'must be true or false' };
    }
    case 'date':
      if (typeof c === 'number') return { value: excelSerialToDate(c) };
      if (typeof c === 'boolean') return { error: 'must be a date' };
      return { value: c instanceof Date ? c : c.trim() };
  }
}

function sameValue(a: Value, b: Value): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if ((typeof a === 'number' || typeof b === 'number') && String(a).trim() !== '' && Number(a) === Number(b)) return true;
  return a === b;
}

function display(v: Value): string {
  return v instanceof Date ? v.toISOString() : String(v);
}

const LEVEL_NAME: Record<ColumnLevel, string> = { event: 'event', show: 'show', ticketOption: 'ticket option', priceType: 'price type', combination: 'combination' };

/**
 * Groups the rows of a sheet into one plan per event and validates each with the API's
 * schema. Problems that belong to no event (the header, a row without eventId) are in
 * `errors`; with header problems no plan is made, since no row can be trusted.
 */
export function sheetToEvents(sheet: Sheet): { plans: EventPlan[]; errors: RowError[] } {
  const header = mapHeaders(sheet);
  if (header.errors.length > 0) return { plans: [], errors: header.errors };
  const errors: RowError[] = [];
  const models = new Map<string, { model: EventModel; rows: number[]; errors: RowError[] }>();

  for (const { row, cells } of sheet.rows) {
    const values = new Map<string, Field>();
    const cellErrors: RowError[] = [];
    for (const { column, index } of header.columns) {
      const read = readCell(column, cells[index], sheet.decimalComma);
      if (read.error) cellErrors.push({ row, column: column.name, message: `${column.name} ${read.error} (found '${display(cells[index] as Value)}')` });
      else if (read.value !== undefined) values.set(column.name, { value: read.value, row });
    }
    const extra = cells.slice(sheet.headers.length).findIndex(isPresent);
    if (extra >= 0) cellErrors.push({ row, message: `Column ${sheet.headers.length + extra + 1} has a value but no header` });

    const eventId = values.get('eventId')?.value as string | undefined;
    if (eventId === undefined) {
      errors.push({ row, column: 'eventId', message: 'eventId is required on every row' }, ...cellErrors);
      continue;
    }
    let group = models.get(eventId);
    if (!group) {
      group = { model: { externalReferenceId: eventId, firstRow: row, fields: new Map(), shows: [] }, rows: [], errors: [] };
      models.set(eventId, group);
    }
    group.rows.push(row);
    const rowErrors = group.errors;
    rowErrors.push(...cellErrors.map((e) => ({ ...e, eventId })));
    const fail = (column: string, message: string) => rowErrors.push({ row, column, eventId, message });
    const fill = (entity: Entity, level: ColumnLevel, name: string) => {
      for (const c of COLUMNS) {
        if (c.level !== level) continue;
        const v = values.get(c.name);
        if (!v) continue;
        const had = entity.fields.get(c.name);
        if (!had) entity.fields.set(c.name, v);
        else if (!sameValue(had.value, v.value)) {
          fail(c.name, `${c.name} '${display(v.value)}' differs from '${display(had.value)}' on row ${had.row} for the same ${LEVEL_NAME[level]} ${name}; one ${LEVEL_NAME[level]} has one value`);
        }
      }
    };
    const has = (level: ColumnLevel) => COLUMNS.some((c) => c.level === level && !c.key && values.has(c.name));

    const model = group.model;
    fill(model, 'event', `'${eventId}'`);

    const showId = values.get('showId')?.value as string | undefined;
    if (showId === undefined) {
      fail('showId', 'showId is required on every row');
      continue;
    }
    let s = model.shows.find((x) => x.showId === showId);
    if (!s) {
      s = { showId, firstRow: row, fields: new Map(), options: [], priceTypes: [], combos: [] };
      model.shows.push(s);
    }
    fill(s, 'show', `'${showId}'`);

    const ticketId = values.get('ticketOptionId')?.value as string | undefined;
    if (ticketId === undefined) {
      fail('ticketOptionId', 'ticketOptionId is required on every row');
      continue;
    }
    const priceTypeId = values.get('priceTypeId')?.value as string | undefined;
    // A combination row may name an option described on another row (or stored already).
    if (has('ticketOption') || priceTypeId === undefined) {
      let o = s.options.find((x) => x.ticketId === ticketId);
      if (!o) {
        o = { ticketId, firstRow: row, fields: new Map() };
        s.options.push(o);
      }
      fill(o, 'ticketOption', `'${ticketId}' of show '${showId}'`);
    }
    if (priceTypeId === undefined) {
      for (const c of COLUMNS) if ((c.level === 'priceType' || c.level === 'combination') && values.has(c.name)) fail(c.name, `${c.name} needs a priceTypeId on the same row`);
      continue;
    }
    let pt = s.priceTypes.find((x) => x.priceTypeId === priceTypeId);
    if (!pt) {
      pt = { priceTypeId, firstRow: row, fields: new Map() };
      s.priceTypes.push(pt);
    }
    fill(pt, 'priceType', `'${priceTypeId}' of show '${showId}'`);
    const twin = s.combos.find((x) => x.ticketOptionId === ticketId && x.priceTypeId === priceTypeId);
    if (twin) {
      fail('priceTypeId', `The combination ${ticketId} + ${priceTypeId} of show '${showId}' is on row ${twin.firstRow} already`);
      continue;
    }
    if (!values.has('combinationPrice')) {
      // Spec: with price types, only the combinations sent exist; a price type alone sells nothing.
      fail('combinationPrice', 'combinationPrice is required on a row with a priceTypeId');
      continue;
    }
    const combo: ComboModel = { ticketOptionId: ticketId, priceTypeId, firstRow: row, fields: new Map() };
    fill(combo, 'combination', `${ticketId} + ${priceTypeId}`);
    s.combos.push(combo);
  }

  const plans: EventPlan[] = [];
  for (const [eventId, group] of models) {
    const plan: EventPlan = { externalReferenceId: eventId, rows: group.rows, model: group.model, errors: group.errors, input: null, locator: new Locator(), reported: new Set() };
    resolveDates(plan);
    validatePlan(plan);
    plans.push(plan);
  }
  return { plans, errors };
}

/** Turns show dates without an offset (real Excel dates, local text) into ISO 8601 with the event zone's offset. */
function resolveDates(plan: EventPlan): void {
  const tzField = plan.model.fields.get('timezone');
  const tz = typeof tzField?.value === 'string' && isTimeZone(tzField.value) ? tzField.value : null;
  for (const s of plan.model.shows) {
    const date = s.fields.get('showDate');
    if (!date) continue;
    const wall = date.value instanceof Date ? wallOfExcelDate(date.value) : typeof date.value === 'string' && !hasOffset(date.value) ? parseLocal(date.value) : null;
    if (!wall) continue; // With an offset, or not a date at all: the schema says which.
    if (tz === null) {
      plan.errors.push({
        row: date.row,
        column: 'showDate',
        eventId: plan.externalReferenceId,
        message: `showDate '${display(date.value)}' has no UTC offset: write it as 2026-05-01T21:00:00+02:00 or fill the timezone column of the event`,
      });
      s.fields.delete('showDate');
      plan.reported.add(`${entityKey({ kind: 'show', show: s })}|showDate`);
      continue;
    }
    s.fields.set('showDate', { value: zonedIso(wall, tz), row: date.row });
  }
}

// ------------------------------------------------------------------ models to bodies

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let obj = target;
  for (const key of path.slice(0, -1)) obj = (obj[key] ??= {}) as Record<string, unknown>;
  obj[path[path.length - 1]!] = value;
}

const BY_NAME = new Map(COLUMNS.map((c) => [c.name, c]));

function putFields(target: Record<string, unknown>, prefix: string, entity: Entity, locator: Locator): void {
  for (const [name, field] of entity.fields) {
    const column = BY_NAME.get(name)!;
    const value = column.name === 'imageUrl' ? [{ url: field.value, kind: 'main' }] : field.value instanceof Date ? field.value.toISOString() : field.value;
    setPath(target, column.path, value);
    locator.field(prefix + column.path.join('.'), field.row, name, field.value instanceof Date ? field.value.toISOString() : field.value);
  }
}

/** The `PUT /v1/events` body of an event model, and where each of its values came from. */
export function buildBody(model: EventModel): { body: Record<string, unknown>; locator: Locator } {
  const locator = new Locator();
  locator.entity('', model.firstRow, { kind: 'event' });
  const body: Record<string, unknown> = {};
  putFields(body, '', model, locator);
  body.shows = model.shows.map((s, i) => {
    const p = `shows.${i}`;
    locator.entity(p, s.firstRow, { kind: 'show', show: s });
    const out: Record<string, unknown> = {};
    putFields(out, `${p}.`, s, locator);
    out.ticketOptions = s.options.map((o, j) => {
      locator.entity(`${p}.ticketOptions.${j}`, o.firstRow, { kind: 'ticketOption', show: s, option: o });
      const opt: Record<string, unknown> = {};
      putFields(opt, `${p}.ticketOptions.${j}.`, o, locator);
      return opt;
    });
    if (s.priceTypes.length > 0) {
      out.priceTypes = s.priceTypes.map((pt, k) => {
        locator.entity(`${p}.priceTypes.${k}`, pt.firstRow, { kind: 'priceType', show: s, priceType: pt });
        const v: Record<string, unknown> = {};
        putFields(v, `${p}.priceTypes.${k}.`, pt, locator);
        return v;
      });
    }
    if (s.combos.length > 0) {
      out.combinations = s.combos.map((c, m) => {
        const cp = `${p}.combinations.${m}`;
        locator.entity(cp, c.firstRow, { kind: 'combination', show: s, combo: c });
        const v: Record<string, unknown> = { ticketOptionId: c.ticketOptionId, priceTypeId: c.priceTypeId };
        locator.field(`${cp}.ticketOptionId`, c.firstRow, 'ticketOptionId', c.ticketOptionId);
        locator.field(`${cp}.priceTypeId`, c.firstRow, 'priceTypeId', c.priceTypeId);
        putFields(v, `${cp}.`, c, locator);
        return v;
      });
    }
    return out;
  });
  return { body, locator };
}

/**
 * Leaves out what an error was about, so the rest can still be checked: a bad field of
 * the event or a show is dropped (and marked reported, so "is required" does not follow
 * it); a bad ticket option, price type or combination is dropped whole, with the
 * combinations that use it. False when nothing can be left out (the error is about the
 * event as a whole, or it would leave no show).
 */
export function leaveOut(plan: EventPlan, spot: Spot): boolean {
  const model = plan.model;
  const e = spot.entity;
  switch (e.kind) {
    case 'event':
    case 'show': {
      const entity = e.kind === 'event' ? model : e.show;
      if (spot.column !== undefined && entity.fields.has(spot.column) && !BY_NAME.get(spot.column)?.key) {
        entity.fields.delete(spot.column);
        plan.reported.add(`${entityKey(e)}|${spot.column}`);
        return true;
      }
      if (e.kind === 'event' || model.shows.length <= 1) return false;
      model.shows = model.shows.filter((s) => s !== e.show);
      return true;
    }
    case 'ticketOption':
      e.show.options = e.show.options.filter((o) => o !== e.option);
      e.show.combos = e.show.combos.filter((c) => c.ticketOptionId !== e.option.ticketId);
      return true;
    case 'priceType':
      e.show.priceTypes = e.show.priceTypes.filter((p) => p !== e.priceType);
      e.show.combos = e.show.combos.filter((c) => c.priceTypeId !== e.priceType.priceTypeId);
      return true;
    case 'combination':
      e.show.combos = e.show.combos.filter((c) => c !== e.combo);
      return true;
  }
}

/** Adds an error unless the same row, column and reason is there already. */
export function addError(plan: EventPlan, error: RowError): void {
  if (!plan.errors.some((x) => x.row === error.row && x.column === error.column && x.message === error.message)) plan.errors.push(error);
}

/**
 * Validates the plan's body with the API's `PUT /v1/events` schema (strict, as the API),
 * reporting every issue as a row error and leaving the bad parts out until what remains
 * is valid. Sets `plan.input` to that remainder, or null when no remainder can be checked.
 */
export function validatePlan(plan: EventPlan): void {
  // Each round leaves out at least one part, so the rounds are bounded by the parts.
  for (;;) {
    const { body, locator } = buildBody(plan.model);
    plan.locator = locator;
    const parsed = apiSchemas.eventUpdate.safeParse(body);
    if (parsed.success) {
      plan.input = parsed.data;
      return;
    }
    let progressed = false;
    for (const entry of issuesToEntries(parsed.error.issues, 'body')) {
      const spot = locator.locate(entry.path);
      addError(plan, toRowError(entry, spot, plan.externalReferenceId));
      if (leaveOut(plan, spot)) progressed = true;
    }
    if (!progressed) {
      plan.input = null;
      return;
    }
  }
}
