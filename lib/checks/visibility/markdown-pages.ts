// Markdown of this page, or a generic page (visibility check v4). A site may answer `Accept: text/markdown`
// with the page's own Markdown, with one Markdown document for every address (often the home page's), or not
// at all. The check asks twice, the checked page and `/`, and tells these apart: only the page's own Markdown
// earns agents.markdown. Pure functions over the two answers and the page, run on the analysis thread.

import type { MarkdownAnswer } from './analysis';
import { markdownIsPage } from './site-signals';

/** What one address answered to `Accept: text/markdown`. */
type MarkdownOf = 'this-page' | 'generic' | 'nothing';

/** The members `site.markdown` gains in v4. */
export interface MarkdownPages {
  /** The checked page: its own Markdown, Markdown of another page, or no Markdown (any other answer). */
  page: MarkdownOf;
  /**
   * `/` of the same origin. When the checked page is `/` this is `page`. Otherwise `generic` when `/` sent the
   * very Markdown the checked page sent (one document for two addresses is not both pages'), `this-page` for any
   * other Markdown (the home page's HTML is not fetched, so no other comparison is made), `nothing` without one.
   */
  home: MarkdownOf;
}

const collapseLower = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** A 2xx text/markdown body, or null. */
function markdownBody(answer: MarkdownAnswer | null): string | null {
  if (!answer || answer.status === null || answer.status < 200 || answer.status > 299) return null;
  if ((answer.contentType ?? '').split(';')[0].trim().toLowerCase() !== 'text/markdown') return null;
  return typeof answer.body === 'string' ? answer.body : null;
}

/** The text of the first ATX heading of a Markdown body (`# Title`), collapsed and lowercased; null when none. */
function firstHeading(markdown: string): string | null {
  for (const line of markdown.slice(0, 16 * 1024).split(/\r\n|\r|\n/)) {
    // The heading marker by pattern, the closing #s and spaces by trimming: one pattern for both backtracks.
    const m = /^ {0,3}#{1,6}[ \t](.*)$/.exec(line);
    if (!m) continue;
    let text = m[1];
    while (text.endsWith('#') || text.endsWith(' ') || text.endsWith('\t')) text = text.slice(0, -1);
    if (text.trim() !== '') return collapseLower(text);
  }
  return null;
}

/** The text of the page's first `<h1>`, tags dropped, collapsed and lowercased; null when none. */
function pageHeading(html: string): string | null {
  const m = /<h1[^>]{0,200}>([\s\S]{0,500}?)<\/h1>/i.exec(html.slice(0, 512 * 1024));
  const t = m ? collapseLower(m[1].replace(/<[^<>]*>/g, ' ')) : '';
  return t === '' ? null : t;
}

/**
 * Whether each address answered with Markdown of that page, of a generic page, or nothing. The checked page's
 * Markdown is its own when it carries the page's title or first heading, or most of its words
 * (site-signals.ts markdownIsPage) while not being the very document `/` sent for another address.
 * @example markdownPages({ status: 200, contentType: 'text/markdown', body: '# Home' }, { status: 200, contentType: 'text/markdown', body: '# Home' }, false, { title: 'About', html: '<h1>About</h1>', text: ['About'] }).page // 'generic'
 */
export function markdownPages(
  pageAnswer: MarkdownAnswer,
  homeAnswer: MarkdownAnswer | null,
  pageIsHome: boolean,
  page: { title: string | null; html: string; text: readonly string[] },
): MarkdownPages {
  const md = markdownBody(pageAnswer);
  const homeMd = pageIsHome ? md : markdownBody(homeAnswer);
  let kind: MarkdownOf = 'nothing';
  if (md !== null) {
    const heading = firstHeading(md);
    const title = page.title === null ? null : collapseLower(page.title);
    const h1 = pageHeading(page.html);
    const named = (title !== null && title.length >= 3 && collapseLower(md).includes(title)) || (heading !== null && (heading === h1 || heading === title));
    const sharedWithHome = !pageIsHome && homeMd !== null && homeMd === md;
    kind = named || (!sharedWithHome && markdownIsPage(md, page)) ? 'this-page' : 'generic';
  }
  if (pageIsHome) return { page: kind, home: kind };
  return { page: kind, home: homeMd === null ? 'nothing' : homeMd === md ? 'generic' : 'this-page' };
}
