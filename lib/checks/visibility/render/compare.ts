// The rendered view against the HTML as served: the same extraction (extract.ts) run on both, the share of
// rendered words the served HTML does not have, and findings where JavaScript changes what a crawler reads.
// Plain data in and out, no I/O: it runs on the analysis pool with the rest of what reads a site's bytes.

import { CRAWLERS } from '../crawlers';
import { extractPage, sameUrl, type PageFacts, type RobotsDirectives } from '../extract';
import { webMcpFindings, webMcpOf, type WebMcp, type WebMcpCapture } from '../webmcp';
import { wordsOf } from '../words';
import type { Finding } from '../rubric-items/types';

/**
 * `partial`: the browser ran the page but it had not loaded (its load event never came) by the time limit, so what
 * it had is an unfinished page (often no title and no text yet) and nothing is compared or found from it.
 */
type RenderingState = 'rendered' | 'partial' | 'unavailable' | 'failed' | 'skipped';

/** The document events a rendering waits for; a partial rendering names those that never came. */
export const RENDER_MILESTONES = ['domcontentloaded', 'load'] as const;
export type RenderMilestone = (typeof RENDER_MILESTONES)[number];

/** What the browser produced, as render.ts hands it over. */
export interface RenderCapture {
  state: RenderingState;
  /** Why the page was not rendered, or what cut the rendering short. */
  reason?: string;
  /** `partial` only: the document events that had not come when the time was up. */
  missing?: RenderMilestone[];
  /** `document.documentElement.outerHTML` once the page settled; null unless `state` is `rendered`. */
  html: string | null;
  /** The WebMCP tools the page registered and its forms (webmcp-recorder.ts); null when not read. */
  webMcp: WebMcpCapture | null;
  /** Requests the browser made that were fetched for it through safeFetch. */
  requests: number;
  /** Requests the browser tried that were not fetched for it (see render.ts for every reason). */
  refused: number;
  durationMs: number;
}

/** `page.rendering` of the report. The measures are null unless `state` is `rendered`. */
export interface PageRendering {
  state: RenderingState;
  reason?: string;
  /** `partial` only: the document events that never came (`domcontentloaded`, `load`). */
  missing?: RenderMilestone[];
  title: string | null;
  h1Count: number | null;
  wordCount: number | null;
  textLength: number | null;
  /** 0-1: the share of the rendered page's words absent from the HTML as served. */
  jsOnlyShare: number | null;
  requests: number;
  refused: number;
  durationMs: number;
}

/** The page as served, as the comparison needs it. */
export interface ServedPage {
  url: string;
  headers: Array<[string, string]>;
  body: string;
  truncated: boolean;
}

export interface RenderComparison {
  rendering: PageRendering;
  /** `site.agentSurfaces.webMcp`: null unless the page was rendered and its tools read. */
  webMcp: WebMcp | null;
  findings: Finding[];
}

/** Both thresholds of content-needs-javascript: a page mostly, and substantially, made by its scripts. */
const JS_ONLY_SHARE_THRESHOLD = 0.5;
export const JS_ONLY_MIN_WORDS = 100;

/** Agents that read only the HTML as served (crawlers.ts `rendersJavaScript`), named by the finding. */
export function nonRenderingAgents(): string[] {
  return CRAWLERS.filter((c) => !c.rendersJavaScript && !c.tokenOnly).map((c) => c.token);
}

function headerSource(headers: Array<[string, string]>) {
  return { headerAll: (name: string) => headers.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v) };
}

/**
 * How many rendered words the served words do not account for, each served word accounting for one
 * occurrence: a page whose script repeats "price" 40 times has 39 script-only occurrences if the HTML had one.
 */
function jsOnlyWords(served: readonly string[], rendered: readonly string[]): number {
  const available = new Map<string, number>();
  for (const w of served) available.set(w, (available.get(w) ?? 0) + 1);
  let only = 0;
  for (const w of rendered) {
    const left = available.get(w) ?? 0;
    if (left > 0) available.set(w, left - 1);
    else only++;
  }
  return only;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const quote = (s: string | null) => (s === null ? '(none)' : JSON.stringify(s));

/** The meta robots rules in a comparable form: `bot: directives`, sorted. */
function metaRules(meta: readonly RobotsDirectives[]): string[] {
  return meta.map((r) => `${r.bot ?? 'robots'}: ${r.directives.join(', ')}`).sort();
}

function noindexOf(facts: PageFacts): boolean {
  return facts.noindexMeta;
}

function differenceFindings(served: PageFacts, rendered: PageFacts): Finding[] {
  const out: Finding[] = [];
  const add = (f: Omit<Finding, 'rubric' | 'pointsLost'>) => out.push({ ...f, rubric: null, pointsLost: 0 });

  const servedRules = metaRules(served.robots.meta);
  const renderedRules = metaRules(rendered.robots.meta);
  if (servedRules.join('\n') !== renderedRules.join('\n')) {
    const added = !noindexOf(served) && noindexOf(rendered);
    const removed = noindexOf(served) && !noindexOf(rendered);
    const observed = `robots meta as served: ${servedRules.length ? servedRules.join('; ') : '(none)'}; after JavaScript: ${renderedRules.length ? renderedRules.join('; ') : '(none)'}`;
    add({
      id: 'rendered-robots-differ',
      severity: added || removed ? 'high' : 'medium',
      observed,
      why: added
        ? 'A script adds noindex. Google renders pages and drops this one from its index, while crawlers that read only the HTML as served see no noindex: the page is out of Google and still in AI answers, which is rarely what was meant.'
        : removed
          ? 'The HTML as served carries noindex and a script removes it. Google reads the served noindex and then does not render the page, so the removal never takes effect: the page stays out of the index.'
          : 'Crawlers that render and crawlers that do not read different robots rules for this page.',
      fix: 'Put the robots meta tag the page should have in the HTML the server sends, and do not change it with JavaScript.',
    });
  }

  if (served.title !== rendered.title) {
    add({
      id: 'rendered-title-differs',
      severity: served.title === null || served.title === '' ? 'medium' : 'low',
      observed: `title as served: ${quote(served.title)}; after JavaScript: ${quote(rendered.title)}`,
      why: 'Google shows the title it sees after rendering; AI crawlers that do not run JavaScript use the title as served.',
      fix: 'Serve the final title in the HTML, so every crawler reads the same one.',
    });
  }

  const canonicalSame =
    served.canonical === rendered.canonical ||
    (served.canonical !== null && rendered.canonical !== null && sameUrl(served.canonical, rendered.canonical));
  if (!canonicalSame || served.canonicalCount !== rendered.canonicalCount) {
    add({
      id: 'rendered-canonical-differs',
      severity: 'medium',
      observed: `canonical as served: ${served.canonical ?? '(none)'} (${served.canonicalCount} tag(s)); after JavaScript: ${rendered.canonical ?? '(none)'} (${rendered.canonicalCount} tag(s))`,
      why: 'Google advises against changing the canonical with JavaScript: crawlers that render and crawlers that do not then disagree on which address is the page.',
      fix: 'Serve one rel="canonical" in the HTML and leave it unchanged in the browser.',
    });
  }
  return out;
}

/**
 * Measures the rendered page against the served one and says where JavaScript changes what crawlers read.
 * @example compareRendering(servedPage, capture).rendering.jsOnlyShare // 0.97 for a client-rendered app
 */
export function compareRendering(served: ServedPage, capture: RenderCapture): RenderComparison {
  const base = {
    state: capture.state,
    ...(capture.reason !== undefined ? { reason: capture.reason } : {}),
    ...(capture.missing !== undefined ? { missing: capture.missing } : {}),
  };
  const counts = { requests: capture.requests, refused: capture.refused, durationMs: capture.durationMs };
  if (capture.state !== 'rendered' || capture.html === null) {
    return {
      rendering: { ...base, title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null, ...counts },
      webMcp: null,
      findings: [],
    };
  }
  const headers = headerSource(served.headers);
  const servedText: string[] = [];
  const renderedText: string[] = [];
  const servedFacts = extractPage(served.body, served.url, headers, served.truncated, servedText);
  const renderedFacts = extractPage(capture.html, served.url, headers, false, renderedText);
  const servedWords = wordsOf(servedText);
  const renderedWords = wordsOf(renderedText);
  const only = jsOnlyWords(servedWords, renderedWords);
  const share = renderedWords.length === 0 ? 0 : only / renderedWords.length;

  const findings = differenceFindings(servedFacts, renderedFacts);
  if (renderedWords.length >= JS_ONLY_MIN_WORDS && share >= JS_ONLY_SHARE_THRESHOLD) {
    findings.push({
      id: 'content-needs-javascript',
      severity: 'high',
      rubric: null,
      pointsLost: 0,
      observed: `${only} of the ${renderedWords.length} words on the rendered page (${Math.round(share * 100)}%) appear only after JavaScript runs; the HTML as served has ${servedFacts.wordCount} words`,
      why: `Crawlers that do not run JavaScript read only the HTML as served: ${nonRenderingAgents().join(', ')}. Googlebot, Bingbot and Applebot render pages and see the rest.`,
      fix: 'Render the main content on the server (server-side rendering, static generation or pre-rendering), so it is in the HTML every crawler fetches.',
    });
  }

  const webMcp = capture.webMcp === null ? null : webMcpOf(capture.webMcp);
  if (webMcp !== null) findings.push(...webMcpFindings(webMcp));

  return {
    webMcp,
    rendering: {
      ...base,
      title: renderedFacts.title,
      h1Count: renderedFacts.h1Count,
      wordCount: renderedFacts.wordCount,
      textLength: renderedFacts.textLength,
      jsOnlyShare: round3(share),
      ...counts,
    },
    findings,
  };
}
