// What changed in the published visibility rubric from one version to the next, and why: shown under the
// rubric on /docs so a site owner can tell why the same site scores differently under a new version.

export interface RubricChange {
  /** Rubric item id (new, changed or re-weighted), or the id of a new 0-point finding (`kind: 'finding'`). */
  item: string;
  /** A rubric item (the default) or a finding that scores nothing. */
  kind?: 'item' | 'finding';
  /** The group of changes the row belongs to (rubric 3.0.0 on). */
  group?: string;
  /** Points under the previous version; null for a new item. */
  before: number | null;
  after: number;
  why: string;
}

export interface RubricChanges {
  from: string;
  to: string;
  summary: string;
  changes: readonly RubricChange[];
}

/**
 * Rubric 1.0.0 → 2.0.0. Still 100 points and deterministic for the same responses.
 * @example RUBRIC_CHANGES_2.changes.filter((c) => c.before === null).map((c) => c.item) // the five new items
 */
export const RUBRIC_CHANGES_2: RubricChanges = {
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

/** One group of rubric 3.0.0's changes, with why the group exists. */
export interface RubricChangeGroup {
  name: string;
  why: string;
  changes: readonly RubricChange[];
}

const finding = (item: string, why: string): RubricChange => ({ item, kind: 'finding', before: null, after: 0, why });

/**
 * The accuracy rows of rubric 3.0.0: the same items and points, scored on what the page really says, plus the
 * 0-point findings that name markup and robots.txt lines the site wrote but that do nothing.
 * @example ACCURACY_CHANGES.map((c) => c.item) // ['content.text', 'canonical.valid', 'index.noindex', 'agents.markdown', 'head-broken', 'robots-lines-ignored']
 */
export const ACCURACY_CHANGES: readonly RubricChange[] = [
  { item: 'content.text', before: 8, after: 8, why: 'Words are counted with Unicode word segmentation (ICU), not whitespace runs: Chinese and Japanese pages, written without spaces, had 4-14 times too few words and lost these points. Counts in other scripts are unchanged. A page cut at the 2 MiB read limit says its count covers only what was read.' },
  { item: 'canonical.valid', before: 4, after: 4, why: 'The same address written twice is one canonical, not "multiple canonicals"; and a canonical counts only in the <head>: one after an element that ends the head early (an <iframe>, an <img>) is ignored, as Google ignores it.' },
  { item: 'index.noindex', before: 12, after: 12, why: 'unavailable_after with a date in the past (robots meta tag or X-Robots-Tag, addressed to Google) counts as noindex: Google documents that it drops the page from its results after that date.' },
  { item: 'agents.markdown', before: 2, after: 2, why: 'A text/markdown answer counts only when it is the page (it carries the page\'s title or most of its words): a 200 error page served as Markdown is markdown-not-the-page.' },
  finding('head-broken', 'New, medium: an element that belongs in the body (an <iframe>, an <img>, text) ends the <head> early for browsers and Google, so the metadata written after it (a canonical, a description) counts as body content and is ignored.'),
  finding('robots-lines-ignored', 'New, info: robots.txt lines every parser skips (a rule before any User-agent line, a pattern that starts with neither / nor *, a directive no crawler reads), listed with their line numbers so the owner knows they do nothing.'),
];

/**
 * Rubric 2.0.0 → 3.0.0, by group. The groups of what a site offers agents score nothing: no site needs an MCP
 * server card, OAuth metadata, a licence or a price to be visible, so points for them would not be fair to
 * every site; a document published broken is a `medium` finding instead. The `accuracy` group holds the
 * changes that make the existing items read real pages right.
 */
export const RUBRIC_CHANGE_GROUPS_3: readonly RubricChangeGroup[] = [
  {
    name: 'agent surfaces',
    why: 'What a site offers agents beyond its pages: reported, and a finding when a published document is invalid.',
    changes: [
      finding('agent-surfaces', 'New, info: the Link header relations, API catalog, MCP server card, A2A agent card, OAuth metadata and Web Bot Auth key directory the site publishes. Not scored: a site need not offer any of them.'),
      finding('agent-surface-invalid', 'New, medium (high when a key directory publishes private keys): a surface that is published but not what its specification requires. Not scored, so a site is never worse off for publishing one than for publishing none; the finding still tells the owner it is broken.'),
      finding('webmcp-tools', 'New, info: the WebMCP tools the rendered page registers by script or declares on its forms. Not scored: a page need not offer tools, and not every check renders the page.'),
      finding('webmcp-tool-invalid', 'New, medium: a WebMCP tool a browser refuses (a name or description the proposal does not allow, an input schema that cannot be serialised) or an agent cannot call (an input schema that is not an object, or requires what it does not define). Not scored.'),
    ],
  },
  {
    name: 'AI use',
    why: 'One answer per use (training, search, input to AI answers) reconciled from every usage signal, with who said so.',
    changes: [
      finding('ai-use-conflict', 'New, low: the usage signals disagree for a use. Not scored beyond signals.consistent (unchanged), which already costs points when a Content-Signal "no" contradicts robots.txt.'),
    ],
  },
  {
    name: 'licensing',
    why: 'The RSL licence named by robots.txt or a Link header is fetched and its terms read.',
    changes: [
      finding('rsl-license-unusable', 'New, medium (low when it does not answer): the named licence is missing or not an RSL 1.0 document, so it states nothing to AI systems.'),
      finding('tdm-policy-unreachable', 'New, low: the TDMRep policy the header or tdmrep.json names does not answer, so the licensing terms it would state reach no one.'),
    ],
  },
  {
    name: 'commerce',
    why: 'What a crawler or agent must pay: pay-per-crawl prices and x402 or MPP challenges.',
    changes: [
      finding('pay-per-crawl', 'New, info: the crawlers answered 402 with a crawler-price, and the price. Charging is the owner\'s choice; the access items already count such crawlers as not getting the page.'),
      finding('payment-challenge', 'New, info: x402 or MPP payment challenges on the page or a probe, with the price and network.'),
    ],
  },
  {
    name: 'accuracy',
    why: 'Fewer false positives and facts read as browsers and search engines read them.',
    changes: ACCURACY_CHANGES,
  },
  {
    name: 'severity',
    why: 'Severity and points agree by one published rule: a finding that costs points is never info.',
    changes: [
      { item: 'site.llms-txt', before: 2, after: 2, why: 'llms-txt-missing, -incomplete and -invalid are low, not info: they cost points, and an info finding never does.' },
      { item: 'score-capped', kind: 'finding', before: 0, after: 0, why: 'Now critical, not info: it carries the points a blocking failure takes, and is listed with the critical findings that cause it.' },
    ],
  },
];

/**
 * Rubric 2.0.0 → 3.0.0. Still 100 points; no item changes weight.
 * @example RUBRIC_CHANGES_3.changes.map((c) => c.group) // ['agent surfaces', 'agent surfaces', 'AI use', …]
 */
export const RUBRIC_CHANGES_3: RubricChanges = {
  from: '2.0.0',
  to: '3.0.0',
  summary:
    'Version 3.0.0 reports what a site offers agents beyond its pages (agent surfaces), answers in one place whether AI may train on, search or answer from the page and who said so, reads the RSL licence the site names, and shows what a crawler or agent must pay. These add findings but no points: none of them is something every site should have. The accuracy changes make existing items read real pages as browsers and search engines do.',
  changes: RUBRIC_CHANGE_GROUPS_3.flatMap((g) => g.changes.map((c) => ({ ...c, group: g.name }))),
};

/**
 * Rubric 3.x → 4.0.0 (visibility check v4). Still 100 points; these rows add findings, not points.
 * @example RUBRIC_CHANGES_4.changes.map((c) => c.item) // ['ai-catalog-invalid', 'agent-surface-invalid', …, 'content.text', …]
 */
export const RUBRIC_CHANGES_4: RubricChanges = {
  from: '3.0.0',
  to: '4.0.0',
  summary:
    'Version 4.0.0 looks for more of what a site offers agents and stops blaming a site for what the check could not see. New surfaces: the AI Catalog of Agentic Resource Discovery (found as Lighthouse\'s ard-schema audit finds it) with the MCP server and A2A agent cards it lists, the Agent Skills index, and Google-Agent, Google\'s user-triggered agent, as a 16th crawler. A site file or agent surface that is the site\'s catch-all page (a soft 404) is no longer counted as found, and Markdown earns credit only when it is Markdown of the checked page, not one document served for every address. What lies past the 2 MiB read is not measured instead of missing, a head cut short is graded by what it loses, and a canonical written only in the body is named as such. The report also lists every request the check sent (downloadable as a HAR file) and whether the site treats a signed agent (Web Bot Auth) differently; neither scores. Still 100 points: no item was re-weighted.',
  changes: [
    finding('ai-catalog-invalid', 'New, medium: the AI Catalog is named (robots.txt Agentmap, a rel="ai-catalog" link or header) but not served, is not an ARD catalog (an object with an "entries" list of identifier URN, displayName, mediaType, data or url), or lists an MCP server card or A2A agent card that is not valid. Not scored: a site without a catalog loses nothing, as Lighthouse counts a missing catalog as not applicable; a broken one misleads the agents that read it.'),
    finding('agent-surface-invalid', 'Now also covers /.well-known/agent-skills/index.json: a published Agent Skills index whose skills lack a valid name, a description, a type (skill-md or archive), a url or a sha256 digest. Still 0 points; a valid index is listed in agent-surfaces.'),
    { item: 'user-fetchers-blocked', kind: 'finding', before: 0, after: 0, why: 'Now also lists a robots.txt Disallow for Google-Agent. Google says its user-triggered fetchers generally ignore robots.txt, so the block states the owner\'s wish; Google-Agent is reported and probed like the other user-triggered fetchers and, like them, scores nothing.' },
    finding('soft-404', 'New, low: the site answers every path with its home page (or one catch-all page) and status 200, found by comparing each site file and agent surface with the answer to one random path that cannot exist. Such files read soft-404, never found; the files themselves score as before (absent).'),
    { item: 'agents.markdown', before: 2, after: 2, why: 'Credit only for Markdown of this page: the page and / are both asked for Markdown, and a document that carries neither the page\'s title nor its first heading and is the very Markdown / sends (one document for every address) is generic, markdown-not-the-page.' },
    { item: 'content.text', before: 8, after: 8, why: 'On a page larger than the 2 MiB read (or whose markup reached the parser\'s limits), too few words in the part read is not-measured: no points lost, and the finding says what was found in the part read. Text past the cut was never read, so its absence is not a fault the check measured.' },
    { item: 'content.h1', before: 2, after: 2, why: 'No <h1> in the part of a cut page that was read is not-measured, as for the text. Several <h1> in the part read still cost their point.' },
    { item: 'sd.jsonld', before: 4, after: 4, why: 'No JSON-LD in the part of a cut page that was read is not-measured: a block past the cut was never read. A block that does not parse still costs points.' },
    { item: 'sd.key-types', before: 3, after: 3, why: 'Key types missing from the JSON-LD of a cut page are not-measured.' },
    { item: 'meta.title', before: 5, after: 5, why: 'Title, description, canonical and Open Graph tags missing when the cut falls inside the <head> are not-measured (the same for meta.description, canonical.valid and social.og).' },
    finding('head-broken', 'Graded by what it loses: medium when a canonical, robots tag, description, title or base follows the element that ends the head, low when only other head tags do, info when nothing that belongs only in the head follows (a tag manager\'s <iframe> just before </head>). It lists the tags read as body.'),
    finding('canonical-missing', 'Says when the page has a canonical only in the <body> (written there, or after an element that ended the head early), where search engines ignore it, and the fix is to move it into the <head>.'),
  ],
};

/** What the rubric in force changed from the one before it: shown under the rubric on /docs/checks. */
export const RUBRIC_CHANGES: RubricChanges = { ...RUBRIC_CHANGES_4 };
