// A stored report's request log as a HAR file (lib/outbound/har.ts), for GET /api/reports/<id>/har. Any check
// whose report carries a `requests` member in the request log's shape has one; any other report (another check,
// or one kept before the log existed) has none, and the route says so.

import { ProblemError } from '@/lib/problems';
import { RequestList } from '@/lib/outbound/request-log';
import { toHar } from '@/lib/outbound/har';
import { fieldsOf } from '@/lib/checks/entry';
import type { OwnReport } from './store';

/** The request list a report's body carries, or null when it has none (another check, an older version). */
function requestListOf(report: OwnReport): { list: RequestList; checkVersion: unknown } | null {
  const body = fieldsOf(fieldsOf(report.body).report);
  const list = RequestList.safeParse(body.requests);
  return list.success ? { list: list.data, checkVersion: body.checkVersion } : null;
}

/**
 * Whether the report lists its requests, so its page offers them as HAR.
 * @example if (hasRequestList(report)) offer(`/api/reports/${report.id}/har`);
 */
export function hasRequestList(report: OwnReport): boolean {
  return requestListOf(report) !== null;
}

/**
 * The report's requests as HAR 1.2; 404 `not-found` (in words that say why) when the report lists none.
 * @example const har = reportHar(await ownReport(store, keyHash, id, Date.now())); har.log.entries[0].request.url
 */
export function reportHar(report: OwnReport) {
  const found = requestListOf(report);
  if (!found) {
    throw new ProblemError(
      'not-found',
      'This report has no request list to export: only AI Visibility reports from check version 4 on list the requests they sent. Run the check again for one that does.',
    );
  }
  const version = typeof found.checkVersion === 'string' ? found.checkVersion : 'unknown';
  return toHar(found.list, {
    pageId: report.id,
    title: `${report.operation} check of ${report.target}`,
    startedAt: report.createdAt,
    creator: { name: `Paid Agent Checks (${report.operation})`, version },
  });
}
