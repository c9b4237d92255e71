// The bounds of a visibility report. Much of a report is text the checked site chose (its title, its
// robots.txt lines, its addresses, its header values), and a report is stored, replayed and rendered for
// free afterwards, so every string and list in it has a ceiling. The ceilings live in one zod schema:
// the OpenAPI document and the MCP tool publish it (`maxLength`, `maxItems`), and `capReport` cuts a
// report to it, so what is promised and what is sent cannot drift apart.

import { z } from 'zod';
import { ACCESS_OUTCOMES, ACCESS_VERIFICATIONS } from './access-types';
import { CRAWLERS } from './crawlers';
import { INCOMPLETE_FACTS, KEY_JSON_LD_TYPES } from './extract';
import { OUTBOUND_REPORT_MAX_DOMAINS } from '@/lib/outbound/outbound';
import { RequestList } from '@/lib/outbound/request-log';
import { JSONLD_PROBLEMS_MAX } from './jsonld-requirements';
import { IGNORED_LINE_REASONS, ROBOTS_IGNORED_LINES_MAX, ROBOTS_MAX_BYTES } from './robots';
import { RUBRIC } from './rubric';
import { MAX_REDIRECTS } from '@/lib/outbound/safe-fetch';
import { CONTENT_USAGE_MAX_AGENTS, CONTENT_USAGE_MAX_LINES, LLMS_LINKS_MAX } from './site-signals';
import { LINK_RELATIONS_MAX, SURFACE_PROBLEMS_MAX } from './agent-surfaces';
import { AI_CATALOG_CARDS_MAX, AI_CATALOG_PROBLEMS_MAX } from './ai-catalog';
import { AI_USE_SOURCES_MAX } from './ai-use';
import { COMMERCE_CHALLENGES_MAX } from './commerce';
import { RSL_USAGES_MAX } from './rsl';
import { WEBMCP_LISTED } from './webmcp';
import { FINDING_STATES } from './finding';
import { HEAD_DISPLACED_MAX } from './head-break';
import { PAGE_READ_MAX_BYTES } from './published';
import { RENDER_MILESTONES } from './render/compare';

/**
 * The longest string and the longest list of each kind a report carries. A string's cap counts the bytes
 * of its JSON text (UTF-8, escapes included), so it is also a cap on its characters (`maxLength`).
 */
export const REPORT_CAPS = {
  /** Any address the site named: the checked page, redirects, canonical, sitemaps, llms.txt links, policy and licence. */
  url: 2048,
  /** The page's `<title>` (served and rendered). */
  title: 512,
  /** The page's meta description. */
  description: 1024,
  /** A short name or value: language, bot and group names, user-agent tokens, JSON-LD types, content types, directives, ids. */
  token: 128,
  /** The check's own names: finding, rubric and category ids, crawler tokens, vendors and roles, states and outcomes. */
  id: 64,
  /** A property path a JSON-LD entity lacks (`mainEntity[3].acceptedAnswer.text`); a robots directive (`max-snippet:50`). */
  path: 64,
  /** One line of the site quoted back: a robots.txt rule, a robots meta tag or header, a Content-Signal line. */
  quote: 512,
  /** A user-agent string the check sent; a crawler's purpose and documentation address. */
  short: 256,
  /** What a finding observed: it quotes the site. */
  observed: 512,
  /** The check's own prose: why and the fix of a finding, a rubric criterion, why rendering did not run. */
  prose: 640,
  /** Robots meta tags, and X-Robots-Tag rule sets, each. */
  robotsTags: 8,
  /** Directives of one robots meta tag or header rule set. */
  directives: 8,
  /** JSON-LD types listed. */
  jsonLdTypes: 30,
  /** Properties one JSON-LD problem lists as missing. */
  jsonLdMissing: 8,
  /** `Sitemap:` lines of robots.txt listed. */
  sitemaps: 5,
  /** Content-Signal lines of robots.txt quoted. */
  contentSignals: 10,
  /**
   * Findings (one per rubric item at most, plus the informational ones). 39, not 40: each finding may carry a
   * `state`, and one finding fewer keeps the report's bound under REPORT_MAX_BYTES.
   */
  findings: 39,
  /** Rubric items and scoring lines: the published rubric. */
  rubric: RUBRIC.length,
  /** Redirects followed to the page. */
  redirects: MAX_REDIRECTS,
  /** Links of llms.txt followed. */
  llmsLinks: LLMS_LINKS_MAX,
  /** JSON-LD entities reported with missing properties. */
  jsonLdProblems: JSONLD_PROBLEMS_MAX,
  /** User-agents of `site.contentUsage`, and the line numbers of each. */
  contentUsage: CONTENT_USAGE_MAX_AGENTS,
  contentUsageLines: CONTENT_USAGE_MAX_LINES,
  /** Crawlers reported: the published crawler table. */
  crawlers: CRAWLERS.length,
  /** The address of an agent surface or a Link header target: the origin and a short path. */
  surfaceUrl: 256,
  /** A problem of an agent surface, a source's words on AI use: the check's words with a short quote. */
  note: 160,
  /** Link header relations of the page listed. */
  linkRelations: LINK_RELATIONS_MAX,
  /** Problems listed per agent surface. */
  surfaceProblems: SURFACE_PROBLEMS_MAX,
  /** Problems listed for the AI Catalog, and the card entries it lists that are checked. */
  aiCatalogProblems: AI_CATALOG_PROBLEMS_MAX,
  aiCatalogCards: AI_CATALOG_CARDS_MAX,
  /** Sources listed per AI use. */
  aiUseSources: AI_USE_SOURCES_MAX,
  /** Payment challenges listed (the page and one per probe). */
  challenges: COMMERCE_CHALLENGES_MAX,
  /** Usage tokens of an RSL licence's permits and prohibits, each. */
  rslUsages: RSL_USAGES_MAX,
  /** WebMCP tools listed (the first few; webMcp.toolCount counts them all), a tool's name and description. */
  webMcpTools: WEBMCP_LISTED.tools,
  webMcpName: WEBMCP_LISTED.name,
  webMcpText: WEBMCP_LISTED.text,
  /** Forms of the rendered page listed, the address each submits to, and the field names listed per form. */
  webMcpForms: WEBMCP_LISTED.forms,
  webMcpAction: WEBMCP_LISTED.action,
  webMcpFields: WEBMCP_LISTED.fields,
  webMcpField: WEBMCP_LISTED.field,
  /** Key JSON-LD types: the ones the check looks for. */
  keyTypes: KEY_JSON_LD_TYPES.length,
} as const;

/**
 * What a whole report's JSON stays under: the schema's bounds add up to less (tests/visibility/report-caps.test.ts
 * adds them up from the published schema). Most of it is the request log's bound (`requests`: 200 lines, each with
 * room for two long addresses); a real report's log takes a few kilobytes.
 */
export const REPORT_MAX_BYTES = 768 * 1024;

/** Marks a string cut at its cap. */
export const CUT_MARK = '…';

const C = REPORT_CAPS;
const str = (max: number) => z.string().max(max);
const url = () => str(C.url);
const token = () => str(C.token);
const id = () => str(C.id);
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max);
const int = () => z.number().int();

const Severity = z.enum(['critical', 'high', 'medium', 'low', 'info']);
const RobotsDirectives = z.looseObject({ bot: token().nullable(), directives: list(str(C.path), C.directives), raw: str(C.quote) });
const CrawlerAccess = z.looseObject({ outcome: z.enum(ACCESS_OUTCOMES), status: int().nullable(), userAgent: str(C.short).nullable(), verification: z.enum(ACCESS_VERIFICATIONS).optional() });
const Signal = z.enum(['yes', 'no']).nullable();
/** A count of one check's requests: far below this, and bounded so the report's size bound stays tight. */
const requestCount = () => int().min(0).max(99_999);
const RefusedCounts = z.looseObject({ budget: requestCount(), thirdPartyCap: requestCount(), lookupCap: requestCount() });
/** A robots.txt line number: the file is read up to ROBOTS_MAX_BYTES, so no line number is larger. */
const lineNumber = () => int().min(1).max(ROBOTS_MAX_BYTES);
const Surface = z.looseObject({
  url: str(C.surfaceUrl),
  status: z.enum(['found', 'missing', 'invalid', 'unreachable', 'soft-404']),
  valid: z.boolean(),
  httpStatus: int().min(100).max(999).nullable(),
  name: id().nullable(),
  entries: int().min(0).max(99_999).nullable(),
  problems: list(str(C.note), C.surfaceProblems),
});
/** What `Accept: text/markdown` got at an address (markdown-pages.ts). */
const MARKDOWN_OF = ['this-page', 'generic', 'nothing'] as const;
const SiteFile = z.looseObject({ state: z.enum(['found', 'missing', 'invalid', 'unreachable', 'soft-404']), status: int().nullable() });
const AiUseAnswer = z.looseObject({
  decision: z.enum(['allowed', 'refused', 'unstated']),
  sources: list(z.looseObject({ source: id(), says: z.enum(['allowed', 'refused']), detail: token() }), C.aiUseSources),
  conflicts: list(id(), C.aiUseSources),
});

/**
 * A visibility report with its bounds: every member, so the bounds add up to a bound on the whole. Objects
 * are loose: a client can rely on what is named here, and members added later (with their own bounds) pass.
 */
export const VisibilityReportSchema = z.looseObject({
  checkVersion: id(),
  checkedUrl: url(),
  status: int(),
  robotsTxt: id(),
  crawlers: list(
    z.looseObject({
      token: id(),
      vendor: id(),
      role: id(),
      purpose: str(C.short),
      source: str(C.short),
      fallback: id().optional(),
      honorsRobots: z.boolean(),
      allowed: z.boolean(),
      rule: str(C.quote).nullable(),
      group: token().nullable(),
      access: CrawlerAccess,
    }),
    C.crawlers,
  ),
  llmsTxt: id(),
  page: z.looseObject({
    title: str(C.title).nullable(),
    titleLength: int(),
    metaDescription: str(C.description).nullable(),
    metaDescriptionLength: int(),
    canonical: url().nullable(),
    canonicalCount: int(),
    canonicalDistinct: int(),
    canonicalIsSelf: z.boolean(),
    canonicalInBody: z.boolean(),
    noindexMeta: z.boolean(),
    noindexHeader: z.boolean(),
    robots: z.looseObject({
      meta: list(RobotsDirectives, C.robotsTags),
      header: list(RobotsDirectives, C.robotsTags),
      nosnippet: z.boolean(),
      maxSnippet: int(),
      noarchive: z.boolean(),
      nocache: z.boolean(),
      noai: z.boolean(),
      noimageai: z.boolean(),
      unavailableAfter: token().nullable(),
      unavailableAfterPassed: z.boolean(),
    }),
    jsonLd: z.looseObject({
      blocks: int(),
      invalid: int(),
      types: list(token(), C.jsonLdTypes),
      keyTypes: list(z.enum(KEY_JSON_LD_TYPES), C.keyTypes),
      problems: list(z.looseObject({ type: token(), missing: list(str(C.path), C.jsonLdMissing) }), C.jsonLdProblems),
    }),
    openGraph: z.looseObject({ title: z.boolean(), description: z.boolean(), image: z.boolean(), url: z.boolean(), type: z.boolean() }),
    lang: token().nullable(),
    h1Count: int(),
    textLength: int(),
    wordCount: int(),
    textToHtmlRatio: z.number(),
    truncated: z.boolean(),
    headBrokenAt: z.looseObject({ element: token(), line: int().min(1), displaced: list(id(), HEAD_DISPLACED_MAX) }).nullable(),
    incomplete: list(z.enum(INCOMPLETE_FACTS), INCOMPLETE_FACTS.length),
    rendering: z.looseObject({
      state: id(),
      reason: str(C.prose).optional(),
      missing: list(z.enum(RENDER_MILESTONES), RENDER_MILESTONES.length).optional(),
      title: str(C.title).nullable(),
      h1Count: int().nullable(),
      wordCount: int().nullable(),
      textLength: int().nullable(),
      jsOnlyShare: z.number().nullable(),
      requests: int(),
      refused: int(),
      durationMs: z.number(),
    }),
  }),
  site: z.looseObject({
    requestedUrl: url(),
    redirects: list(z.looseObject({ url: url(), status: int() }), C.redirects),
    https: z.looseObject({ finalUrlHttps: z.boolean(), httpRedirectsToHttps: z.boolean().nullable() }),
    ttfbMs: z.number(),
    robotsTxt: z.looseObject({
      state: id(),
      status: int().nullable(),
      sitemaps: list(url(), C.sitemaps),
      contentSignals: list(str(C.quote), C.contentSignals),
      ignoredLines: list(z.looseObject({ line: lineNumber(), reason: z.enum(IGNORED_LINE_REASONS) }), ROBOTS_IGNORED_LINES_MAX),
    }),
    sitemapXml: z.looseObject({ url: url().nullable(), status: int().nullable(), isSitemap: z.boolean() }),
    llmsTxt: id(),
    llmsFullTxt: id(),
    markdown: z.looseObject({
      offered: z.boolean(),
      contentType: token().nullable(),
      alternate: url().nullable(),
      matchesPage: z.boolean().nullable(),
      page: z.enum(MARKDOWN_OF),
      home: z.enum(MARKDOWN_OF),
    }),
    siteFiles: z.looseObject({
      notFoundProbe: z.looseObject({ status: int().nullable(), catchAll: z.boolean() }),
      robotsTxt: SiteFile,
      sitemap: SiteFile,
      llmsTxt: SiteFile,
      llmsFullTxt: SiteFile,
    }),
    llmsTxtLinks: z.looseObject({ checked: int(), broken: int(), links: list(z.looseObject({ url: url(), status: int().nullable(), outcome: id() }), C.llmsLinks) }),
    sitemapListsPage: z.boolean().nullable(),
    contentUsage: list(
      z.looseObject({ userAgent: token(), signals: z.looseObject({ search: Signal, 'ai-input': Signal, 'ai-train': Signal }), lines: list(lineNumber(), C.contentUsageLines) }),
      C.contentUsage,
    ),
    licensing: z.looseObject({
      tdmReservation: int().nullable(),
      tdmPolicy: url().nullable(),
      tdmSource: id().nullable(),
      rslLicense: url().nullable(),
      tdmPolicyReachable: z.boolean().nullable(),
      rsl: z
        .looseObject({
          url: str(C.surfaceUrl),
          status: z.enum(['found', 'missing', 'invalid', 'unreachable']),
          valid: z.boolean(),
          httpStatus: int().nullable(),
          permits: list(id(), C.rslUsages),
          prohibits: list(id(), C.rslUsages),
          payment: z.looseObject({ type: id(), amount: id().nullable(), currency: id().nullable() }).nullable(),
          problem: str(C.note).nullable(),
        })
        .nullable(),
    }),
    agentSurfaces: z.looseObject({
      linkHeaders: list(z.looseObject({ rel: id(), href: str(C.surfaceUrl), type: id().nullable() }), C.linkRelations),
      apiCatalog: Surface,
      mcpServerCard: Surface,
      a2aAgentCard: Surface,
      oauthAuthorizationServer: Surface,
      oauthProtectedResource: Surface,
      webBotAuthDirectory: Surface,
      agentSkills: Surface,
      aiCatalog: Surface.extend({
        discoveredVia: z.enum(['robots-agentmap', 'link-element', 'link-header', 'well-known']),
        problems: list(str(C.note), C.aiCatalogProblems),
        cards: list(
          z.looseObject({ identifier: str(C.token).nullable(), kind: z.enum(['mcpServerCard', 'a2aAgentCard']), source: z.enum(['data', 'url', 'not-followed']), surface: Surface }),
          C.aiCatalogCards,
        ),
      }).nullable(),
      webMcp: z
        .looseObject({
          status: z.enum(['found', 'missing']),
          source: z.enum(['imperative', 'declarative', 'both']).nullable(),
          imperativeObserved: z.boolean(),
          tools: list(
            z.looseObject({
              name: str(C.webMcpName),
              description: str(C.webMcpText),
              source: z.enum(['imperative', 'declarative']),
              inputSchemaValid: z.boolean().nullable(),
              problem: str(C.webMcpText).nullable(),
            }),
            C.webMcpTools,
          ),
          toolCount: int().min(0),
          forms: list(
            z.looseObject({
              toolName: str(C.webMcpName).nullable(),
              action: str(C.webMcpAction).nullable(),
              method: z.enum(['get', 'post', 'dialog']),
              fields: list(str(C.webMcpField), C.webMcpFields),
              fieldCount: int().min(0),
            }),
            C.webMcpForms,
          ),
          formCount: int().min(0),
        })
        .nullable(),
    }),
    aiUse: z.looseObject({ train: AiUseAnswer, search: AiUseAnswer, aiInput: AiUseAnswer }),
    commerce: z.looseObject({
      challenges: list(
        z.looseObject({
          source: id(),
          protocol: z.enum(['pay-per-crawl', 'x402', 'mpp']),
          httpStatus: int().nullable(),
          amount: id().nullable(),
          currency: id().nullable(),
          network: id().nullable(),
          error: id().nullable(),
        }),
        C.challenges,
      ),
      payPerCrawl: int().min(0),
      x402: z.boolean(),
      mpp: z.boolean(),
    }),
    access: z.looseObject({
      browserStatus: int().nullable(),
      browserUserAgent: str(C.short),
      probes: int(),
      signedAgent: z.looseObject({
        signed: z.boolean(),
        signedStatus: int().nullable(),
        unsignedStatus: int().nullable(),
        differs: z.boolean().nullable(),
        words: str(C.short),
      }),
    }),
    outbound: z.looseObject({
      requests: requestCount(),
      refused: RefusedCounts,
      lookups: requestCount(),
      domains: requestCount(),
      addresses: requestCount(),
      byDomain: list(z.looseObject({ domain: str(C.short), sent: requestCount(), refused: RefusedCounts }), OUTBOUND_REPORT_MAX_DOMAINS),
    }),
  }),
  score: int().min(0),
  scoreMax: int(),
  scoreBasis: z.looseObject({ bytesRead: int().min(0).max(PAGE_READ_MAX_BYTES), pageBytes: int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(), truncated: z.boolean() }),
  rubricVersion: id(),
  rubric: list(z.looseObject({ id: id(), category: id(), points: z.number(), criterion: str(C.prose) }), C.rubric),
  scoring: list(z.looseObject({ id: id(), points: z.number(), earned: z.number() }), C.rubric),
  findings: list(
    z.looseObject({
      id: id(),
      severity: Severity,
      rubric: id().nullable(),
      pointsLost: z.number(),
      observed: str(C.observed),
      why: str(C.prose),
      fix: str(C.prose),
      state: z.enum(FINDING_STATES).optional(),
    }),
    C.findings,
  ),
  requests: RequestList,
});

type JsonSchema = {
  type?: string;
  maxLength?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
};

let bounds: JsonSchema | null = null;
/** The schema as published (JSON Schema): the same `maxLength` / `maxItems` a client reads. */
function reportBounds(): JsonSchema {
  bounds ??= z.toJSONSchema(VisibilityReportSchema, { target: 'draft-2020-12', io: 'output' }) as JsonSchema;
  return bounds;
}

/** Bytes one code point takes in JSON text: UTF-8, or its escape (`\"`, `\n`, `\u0001`, a lone surrogate). */
function jsonBytes(codePoint: number): number {
  if (codePoint === 0x22 || codePoint === 0x5c || codePoint === 0x08 || codePoint === 0x09 || codePoint === 0x0a || codePoint === 0x0c || codePoint === 0x0d) return 2;
  if (codePoint < 0x20 || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return 6;
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

const CUT_MARK_BYTES = 3;

/**
 * `text` whole when its JSON text (without the quotes) takes at most `max` bytes, else its longest start that
 * fits with CUT_MARK after it. Every code point takes at least one byte, so the result also has at most
 * `max` characters; code points are never split.
 * @example cutString('abcdef', 4) // 'a…'
 */
export function cutString(text: string, max: number): string {
  // No code point takes more than 6 bytes: a short string needs no count.
  if (text.length * 6 <= max) return text;
  let bytes = 0;
  let fits = 0; // where the text is cut if it does not fit whole: the most that leaves room for the mark
  for (let i = 0; i < text.length; ) {
    const codePoint = text.codePointAt(i)!;
    const size = codePoint > 0xffff ? 2 : 1;
    bytes += jsonBytes(codePoint);
    if (bytes > max) return text.slice(0, fits) + CUT_MARK;
    i += size;
    if (bytes <= max - CUT_MARK_BYTES) fits = i;
  }
  return text;
}

function typeMatches(value: unknown, schema: JsonSchema): boolean {
  switch (schema.type) {
    case undefined:
      return true;
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return false;
  }
}

function fit(value: unknown, schema: JsonSchema): unknown {
  if (schema.anyOf) {
    const branch = schema.anyOf.find((b) => typeMatches(value, b));
    return branch ? fit(value, branch) : value;
  }
  if (typeof value === 'string') return schema.maxLength === undefined ? value : cutString(value, schema.maxLength);
  if (Array.isArray(value)) {
    const kept = schema.maxItems === undefined ? value : value.slice(0, schema.maxItems);
    return schema.items ? kept.map((item) => fit(item, schema.items!)) : kept;
  }
  if (typeof value === 'object' && value !== null && schema.properties) {
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [name, member] of Object.entries(schema.properties)) if (name in out) out[name] = fit(out[name], member);
    return out;
  }
  return value;
}

/**
 * The report cut to the bounds VisibilityReportSchema publishes: each string over its `maxLength` ends in
 * CUT_MARK at that length, each list over its `maxItems` keeps its first items. Counts stay as measured
 * (`titleLength` is the title's full length), so a cut is visible next to what was cut. A report within
 * its bounds comes back equal.
 * @example capReport(report).page.title // at most REPORT_CAPS.title characters
 */
export function capReport<R>(report: R): R {
  return fit(report, reportBounds()) as R;
}
