import type { Store } from '@/lib/store';
import { getRuntime } from '@/lib/runtime';
import { ownReport, reportPage, type OwnReport, type ReportList } from './store';
import { compareReports, previousReport, type ReportComparison } from './compare';
import { isShared, sharedReport } from './share';

// For server components (the account history, /reports/<id>): the same reads as GET /api/reports and
// GET /api/reports/<id>, on the process's store. The keyHash comes from sessionFromCookies (lib/session).

export { REPORT_ID_PATTERN, isReportCursor, type OwnReport, type ReportList, type ReportListItem } from './store';
export type { ReportComparison } from './compare';
export { hasRequestList } from './har';

/**
 * One page of the key's stored reports, newest first; pass `nextCursor` back for the next page.
 * @example
 * const session = await sessionFromCookies(await cookies());
 * if (session) { const { reports, nextCursor } = await listReports(session.keyHash, { limit: 20 }); }
 */
export function listReports(
  keyHash: string,
  page: { limit?: number; cursor?: string | null; check?: string | null } = {},
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
): Promise<OwnReport | null> {
  return ownReport(deps.store, keyHash, id, now);
}

/**
 * The report compared with the key's previous report of the same check and target, or null when it has none.
 * @example const change = await compareWithPrevious(session.keyHash, report); change?.scoreChange // 12
 */
export async function compareWithPrevious(
  keyHash: string,
  report: OwnReport,
  deps: { store: Store } = getRuntime(),
  now = Date.now(),
): Promise<ReportComparison | null> {
  const previous = await previousReport(deps.store, keyHash, report, now);
  return previous ? compareReports(deps.store, keyHash, report.id, previous.id, now) : null;
}

/**
 * Whether the report has a live share link (its owner's page offers revoking it).
 * @example const shared = await reportIsShared(id);
 */
export function reportIsShared(id: string, deps: { store: Store } = getRuntime(), now = Date.now()): Promise<boolean> {
  return isShared(deps.store, id, now);
}

/**
 * The report a share link opens (`/r/<token>`), or null: unknown, revoked or replaced link, expired report, or the key
 * that paid for it revoked.
 * @example const report = await getSharedReport(token); if (!report) notFound();
 */
export function getSharedReport(token: string, deps: { store: Store } = getRuntime(), now = Date.now()): Promise<OwnReport | null> {
  return sharedReport(deps.store, token, now);
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
