// A check's request log as a HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/), the format browser
// developer tools import: one page (the check), one entry per line of the log, in the order the requests started.
// The log keeps what a reader needs to audit a check, not whole exchanges: the headers the check sent that it
// records (User-Agent), the response's Content-Type and Location, and sizes; no bodies. A request that was never
// sent keeps status 0 and says who refused it in `_refusedBy` and `comment`, as tools do for a blocked request.

import type { Entry, Har, Header } from 'har-format';
import type { RequestList, RequestLogEntry } from './request-log';

/** Status texts of the answers a check meets; any other status has an empty text, which HAR allows. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 206: 'Partial Content', 301: 'Moved Permanently', 302: 'Found', 303: 'See Other',
  304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized',
  402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable', 410: 'Gone',
  429: 'Too Many Requests', 451: 'Unavailable For Legal Reasons', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

function queryString(url: string): Array<{ name: string; value: string }> {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    // A cut address (the report keeps 512 characters) may no longer parse: its query is left out, not guessed.
    return [];
  }
}

function harEntry(line: RequestLogEntry, pageref: string): Entry {
  const requestHeaders: Header[] = line.userAgent === null ? [] : [{ name: 'User-Agent', value: line.userAgent }];
  const responseHeaders: Header[] = [
    ...(line.contentType !== null ? [{ name: 'Content-Type', value: line.contentType }] : []),
    ...(line.redirectTo !== null ? [{ name: 'Location', value: line.redirectTo }] : []),
  ];
  const note = line.refusedBy !== null ? `Not sent (${line.refusedBy}): ${line.why ?? ''}` : line.failed !== null ? `Failed (${line.failed}): ${line.why ?? ''}` : null;
  return {
    pageref,
    startedDateTime: line.startedAt,
    time: line.ms,
    request: {
      method: line.method,
      url: line.url,
      httpVersion: 'HTTP/1.1',
      headers: requestHeaders,
      queryString: queryString(line.url),
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status: line.status ?? 0,
      statusText: line.status === null ? '' : (STATUS_TEXT[line.status] ?? ''),
      httpVersion: line.status === null ? '' : 'HTTP/1.1',
      headers: responseHeaders,
      cookies: [],
      content: { size: line.bytes, mimeType: line.contentType ?? '' },
      redirectURL: line.redirectTo ?? '',
      headersSize: -1,
      bodySize: line.status === null ? -1 : line.bytes,
    },
    cache: {},
    // The log measures each request whole: the phases it does not split are -1, and `wait` carries the time.
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: line.ms, receive: 0 },
    _purpose: line.purpose,
    ...(line.refusedBy !== null ? { _refusedBy: line.refusedBy } : {}),
    ...(line.failed !== null ? { _failed: line.failed } : {}),
    ...(note !== null ? { comment: note } : {}),
  };
}

/**
 * A request log as HAR 1.2: one page named `title` and started `startedAt`, and each line an entry of it.
 * @example
 * const har = toHar(report.requests, { pageId: 'rep_…', title: 'AI visibility of https://example.com/', startedAt, creator: { name: 'Paid Agent Checks', version: '4.0.0' } });
 * har.log.entries.length // report.requests.entries.length
 */
export function toHar(list: RequestList, page: { pageId: string; title: string; startedAt: string; creator: { name: string; version: string } }): Har {
  const startedDateTime = list.entries[0]?.startedAt ?? page.startedAt;
  return {
    log: {
      version: '1.2',
      creator: page.creator,
      pages: [{ id: page.pageId, title: page.title, startedDateTime, pageTimings: {} }],
      entries: list.entries.map((line) => harEntry(line, page.pageId)),
      ...(list.omitted > 0 ? { comment: `${list.omitted} more requests were made than the report lists.` } : {}),
    },
  };
}
