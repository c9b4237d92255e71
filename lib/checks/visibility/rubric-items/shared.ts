// Readings of the scored facts that several rubric items, and the informational findings, share.

import { SEARCH_ROBOT_SCOPES, type RobotsDirectives } from '../extract';
import type { ScoredCrawler, ScoreInput } from './types';

/**
 * The verdict of one crawler, matched case-insensitively as robots.txt compares tokens.
 * @example crawler(input, 'googlebot')?.allowed // false when robots.txt keeps Googlebot out
 */
export function crawler(input: ScoreInput, token: string): ScoredCrawler | undefined {
  const t = token.toLowerCase();
  return input.crawlers.find((c) => c.token.toLowerCase() === t);
}

/**
 * A crawler absent from the table is not evidence of a block.
 * @example isAllowed(input, 'Googlebot') // true
 */
export function isAllowed(input: ScoreInput, token: string): boolean {
  return crawler(input, token)?.allowed ?? true;
}

/**
 * Whether a crawler can get the page: robots.txt allows it and, when a live probe ran as that crawler,
 * the probe got the page (`ok`). Without a probe (`not-probed`: a robots.txt-only token) the robots.txt
 * verdict alone decides.
 * @example isReachable({ token: 'GPTBot', allowed: true, access: { outcome: 'blocked', status: 403, userAgent: '…' }, ... }) // false
 */
export function isReachable(c: ScoredCrawler): boolean {
  return c.allowed && (c.access === undefined || c.access.outcome === 'ok' || c.access.outcome === 'not-probed');
}

/**
 * A crawler robots.txt allows whose live probe did not get the page, as a finding quotes it.
 * @example quoteRefusal(gptbot) // 'GPTBot: robots.txt allows it, but the request as GPTBot got blocked (HTTP 403)'
 */
export function quoteRefusal(c: ScoredCrawler): string {
  const status = c.access?.status;
  return `${c.token}: robots.txt allows it, but the request as ${c.token} got ${c.access?.outcome ?? 'no answer'}${status === null || status === undefined ? '' : ` (HTTP ${status})`}`;
}

/**
 * The path of an absolute address, `/` when it does not parse.
 * @example pathOf('https://site.test/guide?x=1') // '/guide'
 */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname || '/';
  } catch {
    return '/';
  }
}

/**
 * One crawler's verdict as a finding quotes it.
 * @example quoteVerdict({ token: 'GPTBot', rule: 'Disallow: /', line: 4, group: 'GPTBot', ... }) // 'GPTBot: "Disallow: /" (robots.txt line 4, group "User-agent: GPTBot")'
 */
export function quoteVerdict(c: ScoredCrawler): string {
  if (c.rule === null) return `${c.token}: blocked`;
  if (c.line === null || c.line === undefined) return `${c.token}: ${c.rule}`;
  return `${c.token}: "${c.rule}" (robots.txt line ${c.line}, group "User-agent: ${c.group ?? '*'}")`;
}

function appliesToSearch(r: RobotsDirectives): boolean {
  return r.bot === null || SEARCH_ROBOT_SCOPES.has(r.bot);
}

/**
 * The robots tags or headers addressed to search crawlers that carry a matching directive.
 * @example withDirective(page.robots.meta, (d) => d === 'noindex')
 */
export function withDirective(list: readonly RobotsDirectives[], test: (d: string) => boolean): RobotsDirectives[] {
  return list.filter((r) => appliesToSearch(r) && r.directives.some(test));
}

/**
 * Each tag or header line once, as it can be quoted back to the owner.
 * @example uniqueRaw([a, a, b]) // [a.raw, b.raw]
 */
export function uniqueRaw(list: RobotsDirectives[]): string[] {
  return [...new Set(list.map((r) => r.raw))];
}
