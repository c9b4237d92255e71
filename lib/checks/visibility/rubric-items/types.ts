// The shapes the rubric scores: one site's facts in (ScoreInput), one outcome per item, the report's
// scoring lines and findings out. Shared by the item groups and rubric.ts, which assembles them.

import type { CrawlerAccess } from '../access-types';
import type { ParseLimitHit } from '../bounded-parse';
import type { PageFacts } from '../extract';
import type { LlmsTxtAssessment } from '../llms-txt';
import type { SiteFileStates } from '../soft-404';
import type { MarkdownPages } from '../markdown-pages';
import type { IgnoredLine } from '../robots';
import type { ContentSignalConflict, Licensing, LlmsTxtLinks, MarkdownOffer } from '../site-signals';
import type { AgentSurfaces } from '../agent-surfaces';
import type { AiUse } from '../ai-use';
import type { Commerce } from '../commerce';
import type { RslReport } from '../rsl';
import type { Finding } from '../finding';

export interface ScoredCrawler {
  token: string;
  role: string;
  allowed: boolean;
  /** The robots.txt line that decided, or the status explanation when robots.txt was not a 2xx. */
  rule: string | null;
  group: string | null;
  line?: number | null;
  /**
   * The live probe as this crawler (access-types.ts). Absent or `not-probed`: the robots.txt verdict
   * alone decides. Otherwise the crawler counts as reachable only when robots.txt allows it and the
   * outcome is `ok`.
   */
  access?: CrawlerAccess;
}

/** The site signals the rubric reads (visibility check v2). */
export interface ScoredSignals {
  /** `page` and `home` (v4, markdown-pages.ts) are absent in inputs built before them. */
  markdown: MarkdownOffer & Partial<MarkdownPages>;
  llmsTxtLinks: LlmsTxtLinks;
  sitemapListsPage: boolean | null;
  contentSignalConflicts: readonly ContentSignalConflict[];
  licensing: Licensing & { rsl?: RslReport | null; tdmPolicyReachable?: boolean | null };
  /** Visibility check v3 (absent in inputs built before it: nothing to report). */
  agentSurfaces?: AgentSurfaces;
  aiUse?: AiUse;
  commerce?: Commerce;
  /** Visibility check v4: each site file's state (absent in inputs built before it). */
  siteFiles?: SiteFileStates;
}

export interface ScoreInput {
  /** The address that answered, after redirects. */
  finalUrl: string;
  status: number;
  contentType: string | null;
  redirects: number;
  page: PageFacts;
  /** True when the byte cut (bounded-parse.ts PAGE_READ_MAX_BYTES) fell before </head> closed, so head metadata may be missing. */
  headTruncated: boolean;
  /** Whether the body was cut at PAGE_READ_MAX_BYTES; `page.truncated` when absent. */
  bytesTruncated?: boolean;
  /** The parse limit the page's markup reached (bounded-parse.ts), when it reached one. */
  parseLimit?: ParseLimitHit | null;
  crawlers: readonly ScoredCrawler[];
  robots: {
    state: 'found' | 'missing' | 'unreachable';
    status: number | null;
    contentSignals: readonly string[];
    /** Lines of robots.txt that parsers ignore (robots.ts IgnoredLine); none when absent. */
    ignoredLines?: readonly IgnoredLine[];
    /** Set when a 2xx robots.txt was too costly to match (robots.ts ROBOTS_MATCH_BUDGET) and counts as unreachable. */
    tooComplex?: { rules: number; pathLength: number; cost: number };
  };
  https: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
  sitemapXml: { url: string | null; status: number | null; isSitemap: boolean };
  llmsTxt: LlmsTxtAssessment;
  llmsFullTxt: { state: 'found' | 'missing' | 'soft-404'; status: number | null; bytesRead: number; truncated: boolean };
  signals: ScoredSignals;
  /** The access probes: the browser baseline's status, and per probed token what its answer showed. */
  access?: { browserStatus: number | null; evidence: Readonly<Record<string, string>> };
}

export type { Finding } from '../finding';

export interface ScoringLine {
  id: string;
  points: number;
  earned: number;
}

export interface ScoreResult {
  score: number;
  scoring: ScoringLine[];
  findings: Finding[];
}

/** What one item makes of the facts: the points it earned and, when it lost some, why. */
export interface Outcome {
  earned: number;
  finding?: Omit<Finding, 'rubric' | 'pointsLost'>;
}

/** One rubric item as published: in the report, the GET description and the docs. */
export interface PublishedRubricItem {
  id: string;
  category: string;
  points: number;
  criterion: string;
}

/**
 * One rubric item: what is published about it, and how it scores. `evaluate` gets the item's own
 * points, so a page that meets the criterion in full earns exactly `points`.
 */
export interface RubricItem extends PublishedRubricItem {
  evaluate(input: ScoreInput, points: number): Outcome;
}
