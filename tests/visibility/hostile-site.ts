// The worst site files found for the visibility check, for tests and `npm run bench`. Each one alone stalls
// the server's event loop under a careless parser: the sitemap for hours (a prolog expression that doubles
// its work per comment), the llms.txt line for minutes (a cubic link expression), the robots.txt for about
// 13 s per check (every rule scanning the long path, twice per crawler).
import type { FixtureRoute } from './fixture-site';

/** A page path of 1,900 characters: every `Disallow: /*ab` rule scans all of it, comparing at each `a`. */
export const HOSTILE_PAGE_PATH = '/' + 'a'.repeat(1_899);
/** 500 KiB of `Disallow: /*ab` (about 34,000 rules), the most robots.txt that is read. */
export const HOSTILE_ROBOTS = 'User-agent: *\n' + 'Disallow: /*ab\n'.repeat(34_000);
/** A prolog of 48 comments and no root element. */
export const HOSTILE_SITEMAP = '<!-- -->'.repeat(48);
/** An H2 section whose one 16 KB line keeps opening links it never closes. */
export const HOSTILE_LLMS = '# Hostile\n\n> A summary.\n\n## Links\n' + '[a](b'.repeat(3_300) + '\n';

const PAGE = `<!doctype html><html lang="en"><head><title>A hostile page</title></head><body><h1>Hostile</h1><p>${'word '.repeat(300)}</p></body></html>`;

/** Routes serving all four at once, plus the same page with ordinary site files under /plain. */
export function hostileRoutes(): Record<string, FixtureRoute> {
  const text = (body: string): FixtureRoute => ({ headers: { 'content-type': 'text/plain' }, body });
  return {
    [HOSTILE_PAGE_PATH]: { headers: { 'content-type': 'text/html' }, body: PAGE },
    '/robots.txt': text(HOSTILE_ROBOTS),
    '/sitemap.xml': { headers: { 'content-type': 'application/xml' }, body: HOSTILE_SITEMAP },
    '/llms.txt': text(HOSTILE_LLMS),
    '/llms-full.txt': { status: 404, body: '' },
  };
}

/** The page cap the check reads (safe-fetch.ts DEFAULT_MAX_BYTES): the hostile pages below stay just under it. */
const PAGE_BYTES = 512 * 1024;

/** `head`, then `unit` repeated as often as fits under the page cap with `tail`. */
function filled(head: string, unit: string, tail: string): string {
  return head + unit.repeat(Math.floor((PAGE_BYTES - 1 - head.length - tail.length) / unit.length)) + tail;
}

const DOC_HEAD = '<!doctype html><html lang="en"><head><title>Hostile markup</title></head><body>';

/**
 * 50 distinct unclosed formatting elements (`<b id=1>…<b id=50>`) closed by `</p>`, then `<p>x</p>` up to
 * 512 KiB: HTML parsers reopen all 50 inside every paragraph, so the tree grows with the square of the page.
 */
export function unclosedFormattingPage(tag: 'b' | 'a' | 'i' | 'font'): string {
  const open = Array.from({ length: 50 }, (_, i) => `<${tag} id=${i + 1}>`).join('');
  return filled(`${DOC_HEAD}<p>${open}</p>`, '<p>x</p>', '</body></html>');
}

/** Tables nested in cells of tables, as deep as 512 KiB allows (about 35,000 levels). */
export const NESTED_TABLES_PAGE = filled(DOC_HEAD, '<table><tr><td>x', '');
