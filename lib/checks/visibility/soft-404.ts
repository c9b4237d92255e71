// Soft 404s: a site whose server answers every path, files that do not exist included, with 200 and one HTML
// page (a single-page app's index.html, a CMS's home page). Asked for /robots.txt, /llms.txt or
// /.well-known/mcp/server-card, such a site sends that page, and a check that only looked at the status would
// call the file published. The check asks the origin once for a path that cannot exist (not-found-probe.ts) and
// compares: a site file that answered 2xx HTML and is the same page as that answer is `soft-404`, never `found`.
// Pure functions over what was fetched, run on the analysis thread; every scan reads a bounded prefix.

import { isHtml, type LlmsTxtAssessment } from './llms-txt';
import type { FetchedFile } from './analysis';
import { wordsOf } from './words';

/** How far into two HTML answers the comparison reads: a catch-all page shows itself in its first bytes. */
const COMPARE_BYTES = 8 * 1024;
/** The share of distinct words two answers must have in common to be one page with small differences (a path echoed, a nonce). */
const SAME_PAGE_WORD_SHARE = 0.9;

/** What a site file is, once its content type and body shape are read. */
type SiteFileState = 'found' | 'missing' | 'invalid' | 'unreachable' | 'soft-404';

/** One entry of `site.siteFiles`. */
export interface SiteFileCheck {
  state: SiteFileState;
  /** The HTTP status it answered; null when it got no answer (or was not requested). */
  status: number | null;
}

/** `site.siteFiles`: each site file's state, and what the path that cannot exist answered. */
export interface SiteFileStates {
  /** The one request for a path that cannot exist: its status, and whether it answered 2xx with an HTML page (the site's catch-all). */
  notFoundProbe: { status: number | null; catchAll: boolean };
  robotsTxt: SiteFileCheck;
  sitemap: SiteFileCheck;
  llmsTxt: SiteFileCheck;
  llmsFullTxt: SiteFileCheck;
}

const ok = (f: Pick<FetchedFile, 'status'>) => f.status !== null && f.status >= 200 && f.status < 300;

/** The `<title>` text of an HTML prefix, whitespace collapsed and lowercased; null when it has none. */
function titleOf(html: string): string | null {
  const m = /<title[^>]{0,200}>([^<]{1,300})<\/title>/i.exec(html);
  const t = m ? m[1].replace(/\s+/g, ' ').trim().toLowerCase() : '';
  return t === '' ? null : t;
}

/**
 * Whether two HTML answers are the same page: the same opening bytes (whitespace aside), the same title, or
 * nearly all their words in common (a catch-all that echoes the path or a per-request nonce is still one page).
 * @example samePage('<title>Shop</title><div id=root>', '<title>Shop</title><div id=root>') // true
 */
export function samePage(a: string, b: string): boolean {
  const x = a.slice(0, COMPARE_BYTES);
  const y = b.slice(0, COMPARE_BYTES);
  if (x.replace(/\s+/g, ' ').trim() === y.replace(/\s+/g, ' ').trim()) return true;
  const title = titleOf(x);
  if (title !== null && title === titleOf(y)) return true;
  const wx = new Set(wordsOf([x.replace(/<[^>]{0,2000}>/g, ' ')]));
  const wy = new Set(wordsOf([y.replace(/<[^>]{0,2000}>/g, ' ')]));
  if (wx.size === 0 || wy.size === 0) return false;
  let shared = 0;
  for (const w of wx) if (wy.has(w)) shared++;
  return shared >= SAME_PAGE_WORD_SHARE * Math.max(wx.size, wy.size);
}

/**
 * The catch-all page of a site: the HTML body the path that cannot exist answered with 2xx, or null when it
 * answered otherwise (a 404, a redirect to an error, no answer), which means the site has no catch-all.
 * @example catchAllOf({ status: 200, contentType: 'text/html', body: '<!doctype html>…', bytesRead: 20, truncated: false }) // '<!doctype html>…'
 */
export function catchAllOf(probe: FetchedFile | null | undefined): string | null {
  if (!probe || !ok(probe) || probe.body === null || !isHtml(probe.contentType, probe.body)) return null;
  return probe.body;
}

/**
 * Whether a file's answer is the site's catch-all page: 2xx, HTML, and the same page as the catch-all.
 * @example isSoftNotFound({ status: 200, contentType: 'text/html', body: shell }, shell) // true
 */
export function isSoftNotFound(file: { status: number | null; contentType: string | null; body: string | null }, catchAll: string | null): boolean {
  if (catchAll === null || !ok(file) || file.body === null || !isHtml(file.contentType, file.body)) return false;
  return samePage(file.body, catchAll);
}

/** The states every file shares: no answer or 5xx, 4xx, the catch-all, another HTML page; null when the body decides. */
function commonState(file: FetchedFile, catchAll: string | null): SiteFileState | null {
  if (file.status === null || file.status >= 500 || file.status === 429) return 'unreachable';
  if (!ok(file)) return 'missing';
  if (isSoftNotFound(file, catchAll)) return 'soft-404';
  // An HTML page at a file's address that is not the catch-all is still not the file: a page, not a document.
  if (isHtml(file.contentType, file.body ?? '')) return 'missing';
  return null;
}

/**
 * Each site file's state: `found` only when its content type and body are what the file must be (robots.txt
 * text, llms.txt Markdown with an H1, llms-full.txt text, a sitemap an XML `<urlset>` or `<sitemapindex>`),
 * `soft-404` when it is the site's catch-all page, `invalid` when it is something else served 2xx.
 * @example siteFileStates({ robots, sitemap, llms, llmsFull, notFoundProbe }, { llms: llmsAssessment, isSitemap: false }).robotsTxt.state // 'soft-404'
 */
export function siteFileStates(
  files: { robots: FetchedFile; sitemap: FetchedFile; llms: FetchedFile; llmsFull: FetchedFile; notFoundProbe?: FetchedFile | null },
  shapes: { llms: LlmsTxtAssessment; isSitemap: boolean },
): SiteFileStates {
  const catchAll = catchAllOf(files.notFoundProbe);
  const check = (file: FetchedFile, shape: () => boolean): SiteFileCheck => ({ status: file.status, state: commonState(file, catchAll) ?? (shape() ? 'found' : 'invalid') });
  return {
    notFoundProbe: { status: files.notFoundProbe?.status ?? null, catchAll: catchAll !== null },
    robotsTxt: check(files.robots, () => true),
    sitemap: check(files.sitemap, () => shapes.isSitemap),
    llmsTxt: check(files.llms, () => shapes.llms.level === 'valid' || shapes.llms.level === 'partial'),
    llmsFullTxt: check(files.llmsFull, () => (files.llmsFull.body ?? '').trim() !== ''),
  };
}

/**
 * The legacy presence state of llms.txt and llms-full.txt with the soft 404 beside it: `found` only for the
 * file itself, `soft-404` for the catch-all page, `missing` otherwise.
 * @example presence({ state: 'soft-404', status: 200 }) // 'soft-404'
 */
export function presence(check: SiteFileCheck): 'found' | 'missing' | 'soft-404' {
  return check.state === 'found' ? 'found' : check.state === 'soft-404' ? 'soft-404' : 'missing';
}
