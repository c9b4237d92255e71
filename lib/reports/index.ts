import type { Store } from '@/lib/store';
import { getRuntime } from '@/lib/runtime';
import { ownReport, reportPage, type ReportList } from './store';

// For server components (the account history, /reports/<id>): the same reads as GET /api/reports and
// GET /api/reports/<id>, on the process's store. The keyHash comes from sessionFromCookies (lib/session).

export { REPORT_ID_PATTERN, isReportCursor, type ReportList, type ReportListItem } from './store';

/**
 * One page of the key's stored reports, newest first; pass `nextCursor` back for the next page.
 * @example
 * const session = await sessionFromCookies(await cookies());
 * if (session) { const { reports, nextCursor } = await listReports(session.keyHash, { limit: 20 }); }
 */
export function listReports(
  keyHash: string,
  page: { limit?: number; cursor?: string | null } = {},
  deps: { store: Store } = getRuntime(),
  now = Date.now(),
): Promise<ReportList> {
  return reportPage(deps.store, keyHash, page, now);
}

/**
 * A stored report of the key (its operation, when it was made, and the 200 body), or null when the id is
 * unknown, expired, or another key's.
 * @example const report = await getReport(session.keyHash, params.id); if (!report) notFound();
 */
export function getReport(
  keyHash: string,
  id: string,
  deps: { store: Store } = getRuntime(),
  now = Date.now(),
): Promise<{ operation: string; createdAt: string; body: unknown } | null> {
  return ownReport(deps.store, keyHash, id, now);
}

/**
 * The `[id]` segment of a report address, or '' when it cannot be decoded (invalid percent-encoding makes Next's
 * params reject): no report has that id, so the caller answers as for any unknown id.
 * @example const id = await reportIdParam(context.params); // '' for /api/reports/%E0%A4%A
 */
export function reportIdParam(params: Promise<{ id: string }>): Promise<string> {
  return params.then(
    (p) => p.id,
    () => '',
  );
}
