import { fieldsOf, listOf, type PassedAudit, type ReportCategory } from '@/lib/checks/entry';

// The visibility rubric in a reader's words: each item's label (what the item asks for, said as what a page that
// earns it does, so the same words serve the score table and the list of passed audits), and the six categories
// the report's gauges show. The rubric's own categories are finer (usage signals, technical, discovery); the
// gauges fold them into the six groups the rubric's items are kept in (rubric-items/). Pure and browser-safe.

/** Each rubric item's label; an item a later rubric adds and this table lacks reads as its criterion instead. */
const ITEM_LABELS: Readonly<Record<string, string>> = {
  'fetch.ok': 'The page answers with HTML',
  'crawl.search-allowed': 'Search crawlers may fetch the page',
  'crawl.ai-answers-allowed': 'AI answer crawlers may fetch the page',
  'robots.state': 'robots.txt can be read',
  'index.noindex': 'The page may be indexed',
  'index.snippet': 'Search and AI answers may quote the page',
  'canonical.valid': 'The page names one valid canonical address',
  'meta.title': 'The page has a title of a useful length',
  'meta.description': 'The page has a description of a useful length',
  'content.text': 'The page has enough text without JavaScript',
  'content.h1': 'The page has one main heading',
  'content.lang': 'The page states its language',
  'sd.jsonld': 'The page carries valid structured data (JSON-LD)',
  'sd.key-types': 'The structured data names what the page is about',
  'sd.complete': 'The structured data has the properties search engines require',
  'social.og': 'The page has Open Graph tags for link previews',
  'agents.markdown': 'A Markdown version of the page is offered to agents',
  'signals.consistent': 'The usage signals agree with robots.txt',
  'site.https': 'The site is served over HTTPS',
  'site.sitemap': 'The site has a sitemap',
  'site.sitemap-lists-page': 'The sitemap lists this page',
  'site.llms-txt': 'The site has an llms.txt',
  'site.llms-txt-links': 'The links in llms.txt answer',
};

/** The gauges' groups, in the rubric's order, and which of the rubric's categories each one holds. */
const GROUPS: ReadonlyArray<{ key: string; label: string; categories: readonly string[] }> = [
  { key: 'access', label: 'Access', categories: ['access'] },
  { key: 'indexability', label: 'Indexability', categories: ['indexability'] },
  { key: 'content', label: 'Content', categories: ['content'] },
  { key: 'structured-data', label: 'Structured data', categories: ['structured data'] },
  { key: 'agents', label: 'Agents', categories: ['agents', 'usage signals'] },
  { key: 'site', label: 'Site', categories: ['technical', 'discovery', 'site'] },
];

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * A rubric item's label in words; the criterion when the item is not in the table, never its id.
 * @example rubricItemLabel('sd.complete') // 'The structured data has the properties search engines require'
 */
export function rubricItemLabel(id: string, criterion?: string): string {
  return ITEM_LABELS[id] ?? (criterion || 'A rubric item this version of the site does not name');
}

/**
 * The anchor of a category's section in the report (after the view's prefix).
 * @example visibilityCategoryAnchor('structured-data') // 'category-structured-data'
 */
export function visibilityCategoryAnchor(key: string): string {
  return `category-${key}`;
}

/** Each scoring line with its rubric item's category and label, in the report's order. */
function scoredItems(body: unknown) {
  const report = fieldsOf(fieldsOf(body).report);
  const rubric = new Map(listOf(report.rubric).map((item) => [text(item.id), item]));
  return listOf(report.scoring).map((line) => {
    const item = rubric.get(text(line.id)) ?? {};
    const category = text(item.category);
    return {
      id: text(line.id),
      group: GROUPS.find((g) => g.categories.includes(category))?.key ?? 'site',
      label: rubricItemLabel(text(line.id), text(item.criterion)),
      criterion: text(item.criterion),
      earned: num(line.earned),
      points: num(line.points),
    };
  });
}

/**
 * The score table by category, for the view: each group with its items in words.
 * @example visibilityScoreGroups(body)[0] // { key: 'access', label: 'Access', earned: 35, max: 35, items: [...] }
 */
export function visibilityScoreGroups(body: unknown) {
  const items = scoredItems(body);
  return GROUPS.map((g) => {
    const own = items.filter((i) => i.group === g.key);
    return { key: g.key, label: g.label, earned: own.reduce((s, i) => s + i.earned, 0), max: own.reduce((s, i) => s + i.points, 0), items: own };
  }).filter((g) => g.items.length > 0);
}

/**
 * The score per category for the gauges under the header: the points each group's items earned (before any cap on
 * the total, as the score table shows them).
 * @example visibilityCategories(body).map((c) => `${c.label} ${c.earned}/${c.max}`) // ['Access 35/35', …]
 */
export function visibilityCategories(body: unknown): ReportCategory[] {
  return visibilityScoreGroups(body).map((g) => ({ label: g.label, earned: g.earned, max: g.max, anchor: visibilityCategoryAnchor(g.key) }));
}

/**
 * The rubric items that earned all their points, in words.
 * @example visibilityPassed(body)[0] // { key: 'fetch.ok', title: 'The page answers with HTML' }
 */
export function visibilityPassed(body: unknown): PassedAudit[] {
  return scoredItems(body).filter((i) => i.points > 0 && i.earned >= i.points).map((i) => ({ key: i.id, title: i.label }));
}
