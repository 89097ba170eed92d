import { exportRowCells } from '../../../domain/waitinglist/waitinglist.schemas.js';
import { HISTORY_EXPORT_COLUMNS, type HistoryExportRow } from '../../../domain/waitinglist/waitinglist.service.js';
import { csvText } from './console.money.load.js';

/**
 * The CSV of a show's waiting-list history, built here once for both places that serve it: the
 * operator's export (`GET /admin/v1/partners/{partnerId}/waitinglist?format=csv`) and the
 * console's download (`…/shows/:showId/waiting-list.csv`). It lives beside the console's other
 * CSVs rather than in the domain because the cells are written by the console's `csvText` (the
 * byte order mark, RFC 4180 quoting, formula neutralising), which the domain may not import.
 */

/** A CSV answer: its text and the headers that make it a download. */
export interface CsvDownload {
  body: string;
  headers: Record<string, string>;
}

/** An id as part of a file name: anything but letters, digits, `.`, `_` and `-` becomes `_` (no quote or path can escape the header). */
function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
}

/**
 * A show's history (`WaitingListService.exportHistory`, in the show's sequence) as a CSV
 * download: the header row {@link HISTORY_EXPORT_COLUMNS}, then one row per history row
 * (booleans `true`/`false`, a fan's e-mail quoted when it holds a comma or a quote), UTF-8 with a
 * byte order mark, CRLF; named `waitinglist-<partner>-<event>-<show>.csv`, never cached.
 *
 * @example const csv = waitingListHistoryCsv(partner.id, { externalReferenceEventId: 'tour', showId: 'show-1' }, rows); return c.body(csv.body, 200, csv.headers);
 */
export function waitingListHistoryCsv(partnerId: string, show: { externalReferenceEventId: string; showId: string }, rows: readonly HistoryExportRow[]): CsvDownload {
  const name = `waitinglist-${fileSafe(partnerId)}-${fileSafe(show.externalReferenceEventId)}-${fileSafe(show.showId)}.csv`;
  return {
    body: csvText([HISTORY_EXPORT_COLUMNS, ...rows.map(exportRowCells)]),
    headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"`, 'Cache-Control': 'no-store' },
  };
}
