// What changed in the published visibility rubric from one version to the next, and why: shown under the
// rubric on /docs so a site owner can tell why the same site scores differently under 2.0.0.

export interface RubricChange {
  /** Rubric item id (new, changed or re-weighted). */
  item: string;
  /** Points under the previous version; null for a new item. */
  before: number | null;
  after: number;
  why: string;
}

/**
 * Rubric 1.0.0 → 2.0.0. Still 100 points and deterministic for the same responses.
 * @example RUBRIC_CHANGES.changes.filter((c) => c.before === null).map((c) => c.item) // the five new items
 */
export const RUBRIC_CHANGES: { from: string; to: string; summary: string; changes: readonly RubricChange[] } = {
  from: '1.0.0',
  to: '2.0.0',
  summary:
    'Version 1.0.0 read robots.txt and the page only. A site whose CDN refused GPTBot, challenged ClaudeBot or asked PerplexityBot to pay scored as if every crawler got in, because the check fetched once with its own user agent. Version 2.0.0 scores what each crawler actually got (robots.txt allows it and the live request as that crawler got the page), and adds what agents read beyond the page: a Markdown copy, working llms.txt links, a sitemap that lists the page, complete structured data and usage signals that do not contradict robots.txt. To make room, the HTML-quality items lost a point or two each: they still count, but a page no crawler can fetch, or one agents can only read as heavy HTML, is the bigger problem.',
  changes: [
    { item: 'crawl.search-allowed', before: 12, after: 12, why: 'A search crawler now counts only when robots.txt allows it and the live request with its user agent got the page (probe outcome ok); without probes, robots.txt alone decides as before. A server refusal costs the crawler\'s points but does not cap the score: our probe cannot prove the real crawler, from its own addresses, is refused too.' },
    { item: 'crawl.ai-answers-allowed', before: 10, after: 12, why: 'Same live-access rule; 4 points per crawler instead of round(10 x allowed / 3). Being readable by AI answer engines is what the check is bought for, so it now weighs as much as search.' },
    { item: 'robots.state', before: 4, after: 3, why: 'An unreachable robots.txt already blocks every crawler through the access items and the score cap.' },
    { item: 'index.snippet', before: 5, after: 4, why: 'Re-weighted to make room for live access and the agent items.' },
    { item: 'canonical.valid', before: 5, after: 4, why: 'Re-weighted to make room for live access and the agent items.' },
    { item: 'meta.description', before: 4, after: 3, why: 'Re-weighted; answer engines rarely show it.' },
    { item: 'content.text', before: 10, after: 8, why: 'Re-weighted; partial credit for 80-249 words is now 4.' },
    { item: 'content.h1', before: 3, after: 2, why: 'Re-weighted.' },
    { item: 'sd.jsonld', before: 6, after: 4, why: 'Part of its weight moves to sd.complete: a block that parses but lacks what search engines need helps little. Partial credit is now 2.' },
    { item: 'sd.key-types', before: 4, after: 3, why: 'The publisher (Organization or WebSite) is now 1 point, the content type still 2.' },
    { item: 'sd.complete', before: null, after: 3, why: 'New: Organization, WebSite, Article, Product, FAQPage and BreadcrumbList entities must carry the properties Google\'s structured-data documentation requires (or, for Article and Organization, the basics it recommends).' },
    { item: 'agents.markdown', before: null, after: 2, why: 'New: agents read text and pay per token; a page that answers Accept: text/markdown, or links a Markdown copy, is cheaper and more reliable for them to read.' },
    { item: 'signals.consistent', before: null, after: 2, why: 'New: a Content-Signal "no" for a use (search, ai-input, ai-train) while robots.txt lets in the crawlers that exist for that use is a contradiction; those crawlers obey robots.txt, not Content-Signal.' },
    { item: 'site.https', before: 4, after: 3, why: 'The https address itself is now 2 points, the http redirect still 1.' },
    { item: 'site.sitemap-lists-page', before: null, after: 1, why: 'New: a sitemap that leaves the page out (when the whole sitemap could be read) hides it from the list crawlers work from.' },
    { item: 'site.llms-txt-links', before: null, after: 1, why: 'New: broken llms.txt links (errors, HTML where Markdown is promised, private addresses) send language models to dead ends.' },
  ],
};

/**
 * The "accuracy" group of the next rubric's changes: the same items and points, scored on what the page really
 * says. Kept apart from the table above until the next version's table takes these rows in.
 * @example ACCURACY_CHANGES.map((c) => c.item) // ['content.text', 'canonical.valid', 'index.noindex', 'agents.markdown']
 */
export const ACCURACY_CHANGES: readonly RubricChange[] = [
  { item: 'content.text', before: 8, after: 8, why: 'Words are counted with Unicode word segmentation (ICU), not whitespace runs: Chinese and Japanese pages, written without spaces, had 4-14 times too few words and lost these points. Counts in other scripts are unchanged. A page cut at the 2 MiB read limit says its count covers only what was read.' },
  { item: 'canonical.valid', before: 4, after: 4, why: 'The same address written twice is one canonical, not "multiple canonicals"; and a canonical counts only in the <head>: one after an element that ends the head early (an <iframe>, an <img>) is ignored, as Google ignores it.' },
  { item: 'index.noindex', before: 12, after: 12, why: 'unavailable_after with a date in the past (robots meta tag or X-Robots-Tag, addressed to Google) counts as noindex: Google documents that it drops the page from its results after that date.' },
  { item: 'agents.markdown', before: 2, after: 2, why: 'A text/markdown answer counts only when it is the page (it carries the page\'s title or most of its words): a 200 error page served as Markdown is markdown-not-the-page.' },
];
