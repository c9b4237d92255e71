import { fieldsOf, listOf } from '@/lib/checks/entry';

// The visibility report's facts in words: ONE table of labels and formats that the report view and the Markdown
// export both read, so a fact is named the same wherever a person meets it and no field name reaches them.
// Pure and browser-safe (the site's bundle loads it). The body is read member by member: a report from another
// check version shows what it has, and a fact whose value is empty is left out rather than shown as a dash.
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const percent = (share: number) => `${Math.round(share * 100)} %`;
const http = (status: unknown) => (num(status) !== null ? ` (HTTP ${num(status)})` : '');

/** One fact as a person reads it; `url` marks a value that is an address (the only text allowed to break anywhere). */
export interface Fact {
  label: string;
  value: string;
  url?: boolean;
}

export interface FactSection {
  id: string;
  title: string;
  facts: Fact[];
}

/** What a format gets: the member's value, and the whole report for the few facts that read two members. */
type Format = (value: unknown, report: Record<string, unknown>) => string | null;

interface FactLabel {
  /** Where the fact is in the report: `page.title`, `site.agentSurfaces.apiCatalog`. Its members are part of it. */
  key: string;
  label: string;
  format: Format;
  /** Other members this fact's value already states (a length beside its text, a flag beside its address). */
  also?: readonly string[];
  url?: boolean;
}

const STATE_WORDS: Record<string, string> = {
  found: 'found',
  missing: 'not found',
  unreachable: 'did not answer',
  invalid: 'found, but not valid',
  valid: 'found and valid',
  partial: 'found, incomplete',
  error: 'did not answer',
  'soft-404': 'not found: the address answers with the site\'s catch-all page (a soft 404)',
};
const state = (v: unknown) => (str(v) ? (STATE_WORDS[str(v)!] ?? str(v)) : null);

const AI_USE_DECISION: Record<string, string> = { allowed: 'allowed', refused: 'refused', unstated: 'not stated' };
const AI_USE_SOURCE: Record<string, string> = {
  'robots.txt': 'robots.txt',
  'content-signal': 'Content-Signal line in robots.txt',
  'content-signal-header': 'Content-Signal header',
  'content-usage': 'Content-Usage rule in robots.txt (IETF aipref draft)',
  'content-usage-header': 'Content-Usage header (IETF aipref draft)',
  tdmrep: 'TDMRep',
  rsl: 'RSL licence',
  noindex: 'noindex',
};

const IGNORED_LINE: Record<string, string> = {
  'rule-before-user-agent': 'a rule before any User-agent line',
  'pattern-not-a-path': 'a pattern that starts with neither / nor *',
  'unknown-directive': 'a directive no crawler reads',
};

const INCOMPLETE_WORDS: Record<string, string> = {
  title: 'title',
  metaDescription: 'description',
  canonical: 'canonical address',
  robots: 'robots directives',
  openGraph: 'Open Graph tags',
  jsonLd: 'structured data',
  h1Count: 'main headings',
  wordCount: 'word count',
  textLength: 'text length',
  textToHtmlRatio: 'share of text',
};

const RENDERING_STATE: Record<string, string> = { rendered: 'rendered', partial: 'rendering incomplete', unavailable: 'not rendered', failed: 'rendering failed', skipped: 'not rendered' };

const CATALOG_FOUND_BY: Record<string, string> = {
  'robots-agentmap': 'named by the Agentmap line of robots.txt',
  'link-element': 'named by the page\'s <link rel="ai-catalog">',
  'link-header': 'named by the page\'s Link header',
  'well-known': 'at /.well-known/ai-catalog.json',
};
const CARD_KIND: Record<string, string> = { mcpServerCard: 'MCP server card', a2aAgentCard: 'A2A agent card' };
const CARD_SOURCE: Record<string, string> = { data: 'inline', url: 'fetched', 'not-followed': 'not fetched' };

function aiCatalog(v: unknown): string | null {
  const c = fieldsOf(v);
  const words = surface(v);
  if (words === null || str(c.status) === 'missing' || str(c.status) === 'unreachable') return words;
  const cards = listOf(c.cards).map((card) => {
    const s = fieldsOf(card.surface);
    const verdict = str(card.source) === 'not-followed' ? strings(s.problems)[0] ?? 'not fetched' : str(s.status) === 'found' ? 'valid' : (surface(card.surface) ?? 'not valid');
    return `${CARD_KIND[str(card.kind) ?? ''] ?? 'card'}${str(card.identifier) ? ` ${str(card.identifier)}` : ''} (${CARD_SOURCE[str(card.source) ?? ''] ?? ''}): ${verdict}`;
  });
  return `${words}; ${CATALOG_FOUND_BY[str(c.discoveredVia) ?? ''] ?? ''}${cards.length ? `; lists ${cards.join('; ')}` : ''}`;
}

function surface(v: unknown): string | null {
  const s = fieldsOf(v);
  const status = str(s.status);
  if (!status) return null;
  if (status === 'missing') return `not published${http(s.httpStatus)}`;
  if (status === 'soft-404') return `not published: the address answers with the site's catch-all page${http(s.httpStatus)} (a soft 404)`;
  if (status === 'unreachable') return 'did not answer';
  const name = str(s.name);
  const entries = num(s.entries);
  const problems = strings(s.problems);
  const what = [name ? `“${name}”` : null, entries !== null ? count(entries, 'entry', 'entries') : null].filter(Boolean).join(', ');
  if (status === 'invalid') return `published but not valid${problems.length ? `: ${problems.join('; ')}` : ''} (${str(s.url)})`;
  return `published and valid${what ? `: ${what}` : ''} (${str(s.url)})`;
}

const MARKDOWN_OF: Record<string, string> = { 'this-page': 'Markdown of this page', generic: 'Markdown, but of another page (one document for every address)', nothing: 'no Markdown' };
const MARKDOWN_OF_HOME: Record<string, string> = { 'this-page': 'Markdown', generic: 'the same Markdown as the checked page', nothing: 'no Markdown' };
const SITE_FILE_NAMES: Record<string, string> = { robotsTxt: 'robots.txt', sitemap: 'the sitemap', llmsTxt: 'llms.txt', llmsFullTxt: 'llms-full.txt' };

/** `site.siteFiles` in words: whether the site has a catch-all page, and which files answered with it. */
function softNotFound(v: unknown, report: Record<string, unknown>): string | null {
  const f = fieldsOf(v);
  const probe = fieldsOf(f.notFoundProbe);
  if (typeof probe.catchAll !== 'boolean') return null;
  const surfaces = fieldsOf(fieldsOf(report.site).agentSurfaces);
  const soft = [
    ...Object.keys(SITE_FILE_NAMES).filter((k) => str(fieldsOf(f[k]).state) === 'soft-404').map((k) => SITE_FILE_NAMES[k]),
    ...Object.values(surfaces).filter((x) => str(fieldsOf(x).status) === 'soft-404').map((x) => str(fieldsOf(x).url)).filter((x): x is string => x !== null),
  ];
  if (!probe.catchAll) return num(probe.status) !== null ? `none: a path that cannot exist answered HTTP ${num(probe.status)}` : 'not known: a path that cannot exist got no answer';
  return `the site answers every path with its home page (HTTP ${num(probe.status)} for a path that cannot exist)${soft.length ? `; answered with it: ${soft.join(', ')}` : ''}`;
}

/**
 * One use's answer in words. The answer is "refused" only when every crawler of that use is refused; when robots.txt
 * refuses some of them, the words say so, so the fact never reads "not stated" beside a finding quoting the refusal.
 */
const aiUse = (role: string): Format => (v, report) => {
  const a = fieldsOf(v);
  const decision = str(a.decision);
  if (!decision) return null;
  const sources = listOf(a.sources).map((s) => `${AI_USE_SOURCE[str(s.source) ?? ''] ?? str(s.source)} says ${str(s.says) === 'refused' ? 'no' : 'yes'}${str(s.detail) ? ` (${str(s.detail)})` : ''}`);
  const conflicts = strings(a.conflicts);
  const ofRole = listOf(report.crawlers).filter((c) => str(c.role) === role);
  const refused = ofRole.filter((c) => c.allowed === false).map((c) => str(c.token)).filter((t): t is string => t !== null);
  const partly = decision !== 'refused' && refused.length > 0 && refused.length < ofRole.length;
  const head = partly
    ? `${decision === 'allowed' ? 'allowed, ' : ''}refused for some crawlers: robots.txt refuses ${new Intl.ListFormat('en', { type: 'conjunction' }).format(refused)}, and lets the other ${ofRole.length - refused.length} in`
    : `${AI_USE_DECISION[decision] ?? decision}${sources.length ? '' : ': no source says'}`;
  return [
    `${head}${sources.length ? `${partly ? '; ' : ': '}${sources.join('; ')}` : ''}`,
    conflicts.length ? `sources disagree: ${conflicts.join('; ')}` : null,
  ].filter(Boolean).join('. ');
};

function robotsDirectives(v: unknown): string | null {
  const r = fieldsOf(v);
  const raw = [...listOf(r.meta), ...listOf(r.header)].map((d) => str(d.raw)).filter((x): x is string => x !== null);
  const after = str(r.unavailableAfter);
  const parts = [...new Set(raw)];
  if (after) parts.push(`unavailable after ${after}${r.unavailableAfterPassed === true ? ' (passed: treated as noindex)' : ''}`);
  return parts.length ? parts.join('; ') : null;
}

function jsonLd(v: unknown): string | null {
  const j = fieldsOf(v);
  const blocks = num(j.blocks);
  if (blocks === null) return null;
  if (blocks === 0) return 'none';
  const types = strings(j.types);
  const invalid = num(j.invalid) ?? 0;
  const problems = listOf(j.problems).map((p) => `${str(p.type)} without ${strings(p.missing).join(', ')}`);
  return [
    `${count(blocks, 'block')}${invalid ? `, ${invalid} not valid JSON` : ''}${types.length ? `: ${types.join(', ')}` : ''}`,
    problems.length ? `incomplete: ${problems.join('; ')}` : null,
  ].filter(Boolean).join('. ');
}

function openGraph(v: unknown): string | null {
  const og = Object.entries(fieldsOf(v)).filter(([, x]) => typeof x === 'boolean');
  if (!og.length) return null;
  const present = og.filter(([, x]) => x).map(([k]) => `og:${k}`);
  const missing = og.filter(([, x]) => !x).map(([k]) => `og:${k}`);
  return [present.length ? present.join(', ') : 'none', missing.length ? `missing ${missing.join(', ')}` : null].filter(Boolean).join('; ');
}

function rendering(v: unknown): string | null {
  const r = fieldsOf(v);
  const st = str(r.state);
  if (!st) return null;
  // A stored reason may name the server's setting ("RENDERER=off"); a reader is told what it meant instead.
  const reason = str(r.reason)?.replace(/^Rendering is turned off \(RENDERER=off\)\.?$/, 'rendering was off on the server that ran this check').replace(/ ?\([A-Z][A-Z0-9_]*=[^)]*\)/g, '') ?? null;
  if (st !== 'rendered') return `${RENDERING_STATE[st] ?? st}${reason ? `: ${reason}` : ''}`;
  const words = num(r.wordCount);
  return `rendered in a browser${words !== null ? `: ${count(words, 'word')}` : ''}${num(r.h1Count) !== null ? `, ${count(num(r.h1Count)!, 'main heading')}` : ''}${num(r.requests) !== null ? `, ${count(num(r.requests)!, 'request')}` : ''}${num(r.refused) ? ` (${num(r.refused)} refused)` : ''}`;
}

function challenges(v: unknown): string | null {
  const items = listOf(v).map((c) => {
    const price = [str(c.amount), str(c.currency)].filter(Boolean).join(' ');
    const proto = str(c.protocol) === 'mpp' ? 'MPP' : str(c.protocol) === 'x402' ? 'x402' : 'pay-per-crawl';
    const who = str(c.source) === 'page' ? 'the page' : str(c.source);
    return `${who}: ${proto}${price ? ` ${price}` : ''}${str(c.network) ? ` on ${str(c.network)}` : ''}${str(c.error) ? ` (${str(c.error)})` : ''}`;
  });
  return items.length ? items.join('; ') : null;
}

function contentUsage(v: unknown): string | null {
  const rows = listOf(v).map((u) => {
    const signals = Object.entries(fieldsOf(u.signals)).filter(([, x]) => x !== null).map(([k, x]) => `${k}=${String(x)}`);
    const lines = (Array.isArray(u.lines) ? u.lines : []).filter((n): n is number => typeof n === 'number');
    return `${str(u.userAgent) ?? '*'}: ${signals.join(', ') || 'nothing'}${lines.length ? ` (line${lines.length === 1 ? '' : 's'} ${lines.join(', ')})` : ''}`;
  });
  return rows.length ? rows.join('; ') : null;
}

/** The sections of facts, in the order the report shows them, each fact with its label and format. */
const SECTIONS: ReadonlyArray<{ id: string; title: string; facts: readonly FactLabel[] }> = [
  {
    id: 'page',
    title: 'The page',
    facts: [
      { key: 'status', label: 'HTTP status', format: (v) => str(v) },
      { key: 'page.title', label: 'Title', also: ['page.titleLength'], format: (v, r) => (str(v) ? `${str(v)} (${count(num(fieldsOf(r.page).titleLength) ?? 0, 'character')})` : 'missing') },
      { key: 'page.metaDescription', label: 'Description', also: ['page.metaDescriptionLength'], format: (v, r) => (str(v) ? `${str(v)} (${count(num(fieldsOf(r.page).metaDescriptionLength) ?? 0, 'character')})` : 'missing') },
      {
        key: 'page.canonical', label: 'Canonical address', url: true, also: ['page.canonicalCount', 'page.canonicalDistinct', 'page.canonicalIsSelf', 'page.canonicalInBody'],
        format: (v, r) => {
          const p = fieldsOf(r.page);
          if ((num(p.canonicalDistinct) ?? 0) > 1) return `${num(p.canonicalDistinct)} different addresses; the first is ${str(v)}`;
          if (!str(v) && p.canonicalInBody === true) return 'none in the head; one in the body, which search engines ignore';
          return str(v) ? `${str(v)} (${p.canonicalIsSelf === true ? 'this page' : 'another address'})` : 'none';
        },
      },
      { key: 'page.noindexMeta', label: 'Search indexing', also: ['page.noindexHeader'], format: (v, r) => (v === true ? 'refused: noindex in a robots meta tag' : fieldsOf(r.page).noindexHeader === true ? 'refused: noindex in the X-Robots-Tag header' : 'allowed') },
      { key: 'page.robots', label: 'Robots directives', format: robotsDirectives },
      { key: 'page.headBrokenAt', label: 'Head ended early by', format: (v) => (str(fieldsOf(v).element) ? `${str(fieldsOf(v).element) === '#text' ? 'text' : `an <${str(fieldsOf(v).element)}>`} on line ${num(fieldsOf(v).line)}` : null) },
      { key: 'page.lang', label: 'Language', format: (v) => str(v) ?? 'not declared' },
      { key: 'page.h1Count', label: 'Main headings (h1)', format: (v) => str(v) },
      { key: 'page.wordCount', label: 'Words in the HTML', format: (v) => (num(v) !== null ? num(v)!.toLocaleString('en-US') : null) },
      { key: 'page.textLength', label: 'Characters of text', format: (v) => (num(v) !== null ? num(v)!.toLocaleString('en-US') : null) },
      { key: 'page.textToHtmlRatio', label: 'Share of the HTML that is text', format: (v) => (num(v) !== null ? percent(num(v)!) : null) },
      { key: 'page.truncated', label: 'Page read in full', format: (v) => (v === true ? 'no: cut at the read limit' : v === false ? 'yes' : null) },
      { key: 'page.incomplete', label: 'Facts that may be incomplete', format: (v) => (strings(v).length ? strings(v).map((k) => INCOMPLETE_WORDS[k] ?? k).join(', ') : null) },
      { key: 'page.jsonLd', label: 'Structured data (JSON-LD)', format: jsonLd },
      { key: 'page.openGraph', label: 'Open Graph tags', format: openGraph },
      { key: 'page.rendering', label: 'Rendered view', format: rendering },
      { key: 'page.rendering.jsOnlyShare', label: 'Share of words that need JavaScript', format: (v) => (num(v) !== null ? percent(num(v)!) : null) },
    ],
  },
  {
    id: 'site',
    title: 'Site files',
    facts: [
      { key: 'site.requestedUrl', label: 'Address asked for', url: true, format: (v) => str(v) },
      { key: 'site.redirects', label: 'Redirects', url: true, format: (v) => (listOf(v).length ? listOf(v).map((x) => `${str(x.status)} → ${str(x.url)}`).join(', ') : 'none') },
      { key: 'site.https', label: 'HTTPS', format: (v) => { const h = fieldsOf(v); if (typeof h.finalUrlHttps !== 'boolean') return null; return `${h.finalUrlHttps ? 'yes' : 'no'}${h.httpRedirectsToHttps === true ? '; http:// redirects to https://' : h.httpRedirectsToHttps === false ? '; http:// does not redirect to https://' : ''}`; } },
      { key: 'site.ttfbMs', label: 'Time to first byte', format: (v) => (num(v) !== null ? `${num(v)} ms (one sample, not scored)` : null) },
      { key: 'site.robotsTxt', label: 'robots.txt', also: ['site.robotsTxt.state', 'site.robotsTxt.status'], format: (v) => (state(fieldsOf(v).state) ? `${state(fieldsOf(v).state)}${http(fieldsOf(v).status)}` : null) },
      { key: 'site.robotsTxt.sitemaps', label: 'Sitemaps named in robots.txt', url: true, format: (v) => (strings(v).length ? strings(v).join(', ') : null) },
      { key: 'site.robotsTxt.contentSignals', label: 'Content-Signal lines', format: (v) => (strings(v).length ? strings(v).join('; ') : null) },
      { key: 'site.robotsTxt.ignoredLines', label: 'robots.txt lines crawlers ignore', format: (v) => (listOf(v).length ? listOf(v).map((l) => `line ${num(l.line)}: ${IGNORED_LINE[str(l.reason) ?? ''] ?? str(l.reason)}`).join('; ') : null) },
      { key: 'site.contentUsage', label: 'Content-Signal by crawler', format: contentUsage },
      { key: 'site.sitemapXml', label: 'Sitemap', url: true, format: (v) => { const s = fieldsOf(v); if (typeof s.isSitemap !== 'boolean') return null; return s.isSitemap ? (str(s.url) ?? 'found') : `not found${http(s.status)}`; } },
      { key: 'site.sitemapListsPage', label: 'Sitemap lists this page', format: (v) => (v === true ? 'yes' : v === false ? 'no' : null) },
      { key: 'site.llmsTxt', label: 'llms.txt', format: state },
      { key: 'site.llmsTxtLinks', label: 'llms.txt links', format: (v) => { const l = fieldsOf(v); const checked = num(l.checked) ?? 0; return checked ? `${count(checked, 'link')} checked, ${num(l.broken) ?? 0} broken` : null; } },
      { key: 'site.llmsFullTxt', label: 'llms-full.txt', format: state },
      {
        key: 'site.markdown', label: 'Markdown version', also: ['site.markdown.offered', 'site.markdown.contentType', 'site.markdown.alternate'],
        format: (v) => {
          const m = fieldsOf(v);
          if (typeof m.offered !== 'boolean') return null;
          if (!m.offered) return 'not offered';
          const how = [/markdown/i.test(str(m.contentType) ?? '') ? `answered as ${str(m.contentType)}` : null, str(m.alternate) ? `linked at ${str(m.alternate)}` : null].filter(Boolean);
          return `offered${how.length ? ` (${how.join('; ')})` : ''}`;
        },
      },
      {
        key: 'site.markdown.matchesPage', label: 'Markdown answer is this page',
        format: (v, r) => (v === true ? 'yes' : v === false ? (str(fieldsOf(fieldsOf(r.site).markdown).home) === 'generic' ? 'no: it is the same Markdown / sends, without the page\'s title or first heading' : 'no: it has neither the page\'s title nor most of its words') : null),
      },
      { key: 'site.markdown.page', label: 'Markdown asked for at this page', format: (v) => (str(v) ? (MARKDOWN_OF[str(v)!] ?? str(v)) : null) },
      { key: 'site.markdown.home', label: 'Markdown asked for at /', format: (v) => (str(v) ? (MARKDOWN_OF_HOME[str(v)!] ?? str(v)) : null) },
      { key: 'site.siteFiles', label: 'Catch-all page (soft 404)', format: softNotFound },
    ],
  },
  {
    id: 'agents',
    title: 'What the site offers agents',
    facts: [
      { key: 'site.agentSurfaces.linkHeaders', label: 'Link header relations', url: true, format: (v) => (listOf(v).length ? listOf(v).map((l) => `${str(l.rel)}: ${str(l.href)}${str(l.type) ? ` (${str(l.type)})` : ''}`).join('; ') : 'none') },
      { key: 'site.agentSurfaces.apiCatalog', label: 'API catalog (RFC 9727)', format: surface },
      { key: 'site.agentSurfaces.mcpServerCard', label: 'MCP server card', format: surface },
      { key: 'site.agentSurfaces.a2aAgentCard', label: 'A2A agent card', format: surface },
      { key: 'site.agentSurfaces.oauthAuthorizationServer', label: 'OAuth authorization server metadata (RFC 8414)', format: surface },
      { key: 'site.agentSurfaces.oauthProtectedResource', label: 'OAuth protected resource metadata (RFC 9728)', format: surface },
      { key: 'site.agentSurfaces.webBotAuthDirectory', label: 'Web Bot Auth key directory', format: surface },
      { key: 'site.agentSurfaces.agentSkills', label: 'Agent Skills index', format: surface },
      { key: 'site.agentSurfaces.aiCatalog', label: 'AI Catalog (Agentic Resource Discovery)', format: aiCatalog },
      { key: 'site.agentSurfaces.webMcp', label: 'WebMCP tools', format: (v) => (Array.isArray(v) ? (v.length ? count(v.length, 'tool') : 'none') : 'not observed (the page\'s scripts are not asked for them)') },
    ],
  },
  {
    id: 'ai-use',
    title: 'May AI use this content?',
    facts: [
      { key: 'site.aiUse.train', label: 'Training AI models', format: aiUse('ai-training') },
      { key: 'site.aiUse.search', label: 'Search', format: aiUse('search') },
      { key: 'site.aiUse.aiInput', label: 'Input to AI answers', format: aiUse('ai-answers') },
    ],
  },
  {
    id: 'licensing',
    title: 'Licensing',
    facts: [
      { key: 'site.licensing.tdmReservation', label: 'TDMRep reservation', also: ['site.licensing.tdmSource'], format: (v, r) => { const l = fieldsOf(fieldsOf(r.site).licensing); const from = str(l.tdmSource) === 'file' ? '/.well-known/tdmrep.json' : str(l.tdmSource) === 'header' ? 'the tdm-reservation header' : str(l.tdmSource) === 'meta' ? 'a tdm-reservation meta tag' : null; return v === 1 ? `text and data mining rights reserved${from ? ` (${from})` : ''}` : v === 0 ? `not reserved${from ? ` (${from})` : ''}` : null; } },
      { key: 'site.licensing.tdmPolicy', label: 'TDMRep policy', url: true, also: ['site.licensing.tdmPolicyReachable'], format: (v, r) => { const reachable = fieldsOf(fieldsOf(r.site).licensing).tdmPolicyReachable; return str(v) ? `${str(v)}${reachable === true ? ' (answers)' : reachable === false ? ' (does not answer)' : ''}` : null; } },
      { key: 'site.licensing.rslLicense', label: 'RSL licence named', url: true, format: (v) => str(v) },
      {
        key: 'site.licensing.rsl', label: 'RSL licence terms',
        format: (v) => {
          const l = fieldsOf(v);
          const st = str(l.status);
          if (!st) return null;
          if (st !== 'found') return `${state(st)}${http(l.httpStatus)}${str(l.problem) ? `: ${str(l.problem)}` : ''}`;
          const pay = fieldsOf(l.payment);
          return [
            strings(l.permits).length ? `permits ${strings(l.permits).join(', ')}` : null,
            strings(l.prohibits).length ? `prohibits ${strings(l.prohibits).join(', ')}` : null,
            str(pay.type) ? `payment: ${str(pay.type)}${str(pay.amount) ? ` ${str(pay.amount)}` : ''}${str(pay.currency) ? ` ${str(pay.currency)}` : ''}` : null,
          ].filter(Boolean).join('; ') || 'valid, with no usage terms';
        },
      },
    ],
  },
  {
    id: 'commerce',
    title: 'What a crawler or agent must pay',
    facts: [
      { key: 'site.commerce', label: 'Payment asked', also: ['site.commerce.x402', 'site.commerce.mpp', 'site.commerce.payPerCrawl'], format: (v) => { const c = fieldsOf(v); if (typeof c.x402 !== 'boolean') return null; const seen = [(num(c.payPerCrawl) ?? 0) > 0 ? `pay-per-crawl for ${count(num(c.payPerCrawl)!, 'crawler')}` : null, c.x402 ? 'x402' : null, c.mpp ? 'MPP' : null].filter(Boolean); return seen.length ? seen.join(', ') : 'none seen'; } },
      { key: 'site.commerce.challenges', label: 'Payment challenges', format: challenges },
    ],
  },
  {
    id: 'requests',
    title: 'How the check fetched',
    facts: [
      { key: 'site.access', label: 'Live requests as each crawler', also: ['site.access.browserUserAgent'], format: (v) => { const a = fieldsOf(v); if (num(a.probes) === null) return null; return `${count(num(a.probes)!, 'crawler request')}; the browser baseline got ${num(a.browserStatus) !== null ? `HTTP ${num(a.browserStatus)}` : 'no answer'}`; } },
      { key: 'site.access.signedAgent', label: 'Signed as this service (Web Bot Auth)', format: (v) => str(fieldsOf(v).words) },
      { key: 'scoreBasis', label: 'Part of the page read', format: (v) => { const b = fieldsOf(v); const read = num(b.bytesRead); if (read === null) return null; const size = (n: number) => (n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`); return b.truncated === true ? `the first ${size(read)}${num(b.pageBytes) !== null ? ` of ${size(num(b.pageBytes)!)}` : ''}: what lies past it was not measured` : `all of it (${size(read)})`; } },
      { key: 'site.outbound', label: 'Requests sent', format: (v) => { const o = fieldsOf(v); if (num(o.requests) === null) return null; const refused = fieldsOf(o.refused); const held = (num(refused.budget) ?? 0) + (num(refused.thirdPartyCap) ?? 0); return `${count(num(o.requests)!, 'request')} to ${count(num(o.domains) ?? 0, 'domain')}${held ? `; ${held} not sent (over a request budget)` : ''}`; } },
    ],
  },
];

function at(report: Record<string, unknown>, key: string): unknown {
  let v: unknown = report;
  for (const part of key.split('.')) v = fieldsOf(v)[part];
  return v;
}

/**
 * The report's facts in words, by section, empty facts left out: what the view lays out and the Markdown lists.
 * @example visibilityFacts(body.report)[0].facts[0] // { label: 'HTTP status', value: '200' }
 */
export function visibilityFacts(report: Record<string, unknown>): FactSection[] {
  return SECTIONS.map((section) => ({
    id: section.id,
    title: section.title,
    facts: section.facts.flatMap((f): Fact[] => {
      if (at(report, f.key) === undefined) return [];
      const value = f.format(at(report, f.key), report);
      return value === null || value === '' ? [] : [{ label: f.label, value, ...(f.url ? { url: true } : {}) }];
    }),
  })).filter((s) => s.facts.length > 0);
}

/**
 * Whether the label table names a report member: the member is a fact, a part of one, or a value a fact states.
 * @example hasFactLabel('page.titleLength') // true: the Title fact states it
 */
export function hasFactLabel(key: string): boolean {
  return SECTIONS.some((s) => s.facts.some((f) => key === f.key || key.startsWith(`${f.key}.`) || f.also?.includes(key)));
}

const TITLE_WORDS: Record<string, string> = {
  llms: 'llms.txt', llmsfull: 'llms-full.txt', jsonld: 'JSON-LD', ai: 'AI', h1: 'h1', http: 'HTTP', https: 'HTTPS', rsl: 'RSL', tdm: 'TDM', og: 'Open Graph', noai: 'noai',
  noarchive: 'noarchive', noindex: 'noindex', mcp: 'MCP', a2a: 'A2A', '404': '404',
};

/**
 * A finding's title in words, from its id: `llms-txt-missing` → "llms.txt missing".
 * @example findingTitle('description-missing') // 'Description missing'
 */
export function findingTitle(id: string): string {
  const words = id.replace(/llms-full-txt/g, 'llmsfull').replace(/llms-txt/g, 'llms').replace(/open-graph/g, 'og').split('-');
  const out = words.map((w) => TITLE_WORDS[w] ?? w).join(' ');
  return /^[a-z]/.test(out) && !/^(llms|noai|noarchive|noindex|h1\b)/.test(out) ? out[0].toUpperCase() + out.slice(1) : out;
}

const ROLE_WORDS: Record<string, string> = { search: 'Search', 'ai-answers': 'AI answers', 'ai-training': 'AI training' };

/**
 * A crawler's role in words.
 * @example crawlerRoleWords('ai-training') // 'AI training'
 */
export function crawlerRoleWords(role: string): string {
  return ROLE_WORDS[role] ?? role.replace(/-/g, ' ');
}

/** Crawler outcomes worth a person's eye: everything but "allowed and served". */
const ACCESS_WORDS: Record<string, string> = {
  ok: 'Served',
  blocked: 'Blocked',
  challenge: 'Challenged',
  'payment-required': 'Payment required',
  'rate-limited': 'Rate limited',
  different: 'Different page',
  error: 'Error',
  'not-probed': 'Not probed',
};

/**
 * What a crawler's live request got, in words.
 * @example accessWords('challenge') // 'Challenged'
 */
export function accessWords(outcome: string): string {
  return ACCESS_WORDS[outcome] ?? outcome;
}

/**
 * Whether a crawler needs the reader's attention: refused by robots.txt, or its live request blocked,
 * challenged, asked to pay, rate limited, answered with a different page or an error. The report shows these and
 * folds the rest.
 * @example crawlerNeedsAttention({ allowed: true, access: { outcome: 'ok' } }) // false
 */
export function crawlerNeedsAttention(c: Record<string, unknown>): boolean {
  const outcome = str(fieldsOf(c.access).outcome);
  return c.allowed === false || (outcome !== null && outcome !== 'ok' && outcome !== 'not-probed');
}
