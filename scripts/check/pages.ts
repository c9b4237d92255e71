import { sitemapEntries } from '@/lib/checks/visibility/site-signals';
import { causeOf, checkThroughService, reportGist, type ServiceAnswer, type ServiceTarget } from './remote';

// `--urls <file>` and `--sitemap <url> --limit N`: several pages, one paid call each, two at a time, one table.

/** Two checks in flight: a CI job finishes sooner without taking more than its share of the service's per-site budget. */
const CONCURRENCY = 2;
/** The sitemap is read once, by the CLI itself: one request, this many bytes at most, this long at most. */
const SITEMAP_MAX_BYTES = 2 * 1024 * 1024;
const SITEMAP_TIMEOUT_MS = 15_000;

/** A page list or sitemap the CLI cannot use: said in words, exit 2, nothing sent to the service. */
export class PageListError extends Error {}

/**
 * The page URLs of a --urls file: one per line; blank lines and `#` comments (whole line or after the URL) skipped.
 * @example pageUrlsOfList('# shop\nhttps://s.test/a\n\nhttps://s.test/b  # pricing\n') // ['https://s.test/a', 'https://s.test/b']
 */
export function pageUrlsOfList(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line.length > 0);
}

/**
 * The first `limit` page URLs a sitemap lists, in its order, fetched in one request (no redirect followed,
 * SITEMAP_MAX_BYTES read at most, SITEMAP_TIMEOUT_MS): a body cut at the cap still gives the pages before
 * the cut. A sitemap index is refused (naming its first child), since reading it would take a second request.
 * @example await sitemapPageUrls('https://example.com/sitemap.xml', 2) // ['https://example.com/', 'https://example.com/pricing']
 */
export async function sitemapPageUrls(sitemapUrl: string, limit: number): Promise<string[]> {
  let res: Response;
  try {
    res = await fetch(sitemapUrl, { redirect: 'manual', signal: AbortSignal.timeout(SITEMAP_TIMEOUT_MS), headers: { accept: 'application/xml, text/xml;q=0.9, */*;q=0.1', 'user-agent': 'paid-agent-checks-cli' } });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    throw new PageListError(`The sitemap ${sitemapUrl} could not be fetched: ${timedOut ? `no answer within ${SITEMAP_TIMEOUT_MS / 1000} s` : causeOf(error)}`);
  }
  if (res.status >= 300 && res.status < 400) {
    const to = res.headers.get('location');
    throw new PageListError(`The sitemap ${sitemapUrl} redirects${to ? ` to ${new URL(to, sitemapUrl).href}` : ''}: pass the final address as --sitemap`);
  }
  if (res.status !== 200) throw new PageListError(`The sitemap ${sitemapUrl} answered HTTP ${res.status}`);
  const { index, locs } = sitemapEntries(await cappedText(res, SITEMAP_MAX_BYTES));
  if (index) throw new PageListError(`${sitemapUrl} is a sitemap index${locs[0] ? ` (first child ${locs[0]})` : ''}: pass one of its sitemaps as --sitemap`);
  const pages = locs.filter((loc) => /^https?:\/\//i.test(loc)).slice(0, limit);
  if (pages.length === 0) throw new PageListError(`The sitemap ${sitemapUrl} lists no page URLs`);
  return pages;
}

/** One row of the table: a page and what the service answered for it. */
interface PageRow {
  url: string;
  answer: ServiceAnswer;
}

/**
 * Checks every page through the service, CONCURRENCY at a time, answers in the pages' order. Each page is
 * its own paid call: a page the service refuses costs nothing and does not stop the others; a 429 is waited out
 * (checkThroughService) while the other worker goes on.
 * @example const rows = await checkPages({ base, key }, ['https://s.test/a', 'https://s.test/b']);
 */
export async function checkPages(target: ServiceTarget, urls: string[], onWait?: (seconds: number, refusal: string) => void): Promise<PageRow[]> {
  const rows: PageRow[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      rows[i] = { url: urls[i], answer: await checkThroughService(target, urls[i], onWait) };
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, urls.length) }, worker));
  return rows;
}

/**
 * The batch's table: url, score, verdict, top finding, report URL; a refused page says its status and
 * title in the verdict column. A page under `failUnder` is marked.
 * @example console.log(pagesTable(rows, 80));
 */
export function pagesTable(rows: PageRow[], failUnder: number | undefined): string {
  const header = ['url', 'score', 'verdict', 'top finding', 'report'];
  const cells = rows.map(({ url, answer }) => {
    if (answer.kind === 'refused') return [url, '-', `refused: ${answer.status === 0 ? '' : `${answer.status} `}${answer.title}`, answer.detail || '-', '-'];
    const { verdict, topFinding } = reportGist(answer.body);
    const below = failUnder !== undefined && answer.score < failUnder ? ` < ${failUnder}` : '';
    return [url, `${answer.score}${below}`, verdict, topFinding, answer.reportUrl ?? '-'];
  });
  const width = (i: number) => Math.max(header[i].length, ...cells.map((r) => r[i].length));
  const line = (row: string[]) => row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(width(i)) : cell)).join('  ');
  return [line(header), ...cells.map(line)].join('\n');
}

/** The body as text, read no further than `maxBytes` (the rest is dropped: the first pages are what is wanted). */
async function cappedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value.subarray(0, Math.max(0, maxBytes - size)));
    size += value.byteLength;
    if (size >= maxBytes) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
