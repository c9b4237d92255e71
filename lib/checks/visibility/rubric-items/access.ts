// Access: can the page be fetched, and may the search and AI-answer crawlers fetch it (robots.txt).

import { ROBOTS_MATCH_BUDGET } from '../robots';
import { crawler, isReachable, pathOf, quoteRefusal, quoteVerdict } from './shared';
import type { Outcome, RubricItem, ScoredCrawler, ScoreInput } from './types';

// Shares of crawl.search-allowed's 12 points, as its criterion publishes them.
const SEARCH_WEIGHTS: ReadonlyArray<[token: string, points: number]> = [
  ['Googlebot', 6],
  ['Bingbot', 4],
  ['Applebot', 2],
];
// Shares of crawl.ai-answers-allowed's 12 points.
const AI_ANSWER_WEIGHTS: ReadonlyArray<[token: string, points: number]> = [
  ['OAI-SearchBot', 4],
  ['Claude-SearchBot', 4],
  ['PerplexityBot', 4],
];

const SERVER_FIX =
  'Find the rule that answers these user agents differently: CDN bot settings (for example Cloudflare\'s "Block AI bots", Bot Fight Mode or AI Crawl Control), a WAF AI-bot or bot-control category (AWS WAF, Akamai, Imperva, DataDome, Vercel), a rate limit, or pay-per-crawl; allow the crawlers you want, preferably as verified bots. Our probe sends the crawler\'s user agent from our own server, so a firewall that checks crawler IP addresses may still let the real crawler in; confirm in the CDN\'s logs.';

/**
 * Scores a weighted set of crawlers on reachability: robots.txt blocks get the robots.txt edit, server
 * refusals the CDN/WAF pointer; a robots.txt block is the more fundamental finding and names the item.
 */
function scoreReach(
  input: ScoreInput,
  weights: ReadonlyArray<[token: string, points: number]>,
  finding: (robotsBlocked: ScoredCrawler[], refused: ScoredCrawler[]) => { id: string; severity: NonNullable<Outcome['finding']>['severity']; why: string },
): Outcome {
  let earned = 0;
  const robotsBlocked: ScoredCrawler[] = [];
  const refused: ScoredCrawler[] = [];
  for (const [token, points] of weights) {
    const c = crawler(input, token);
    if (!c || isReachable(c)) earned += points;
    else if (!c.allowed) robotsBlocked.push(c);
    else refused.push(c);
  }
  if (robotsBlocked.length === 0 && refused.length === 0) return { earned };
  const { id, severity, why } = finding(robotsBlocked, refused);
  const fixes = [robotsBlocked.length > 0 ? robotsFix(input, robotsBlocked) : null, refused.length > 0 ? SERVER_FIX : null].filter(Boolean);
  return {
    earned,
    finding: {
      id,
      severity,
      observed: [...robotsBlocked.map(quoteVerdict), ...refused.map(quoteRefusal)].join('; '),
      why,
      fix: fixes.join(' '),
    },
  };
}

const SOFT_404_TITLE = /\b(404|not found|page (?:does not|doesn['’]t) exist|no longer available)\b/i;

/** The robots.txt edit that lets the blocked crawlers in without opening the file to anyone else. */
function robotsFix(input: ScoreInput, blocked: ScoredCrawler[]): string {
  if (input.robots.tooComplex) {
    return 'Simplify /robots.txt: replace the many wildcard rules with fewer, more specific paths, so it can be evaluated.';
  }
  if (input.robots.state === 'unreachable') {
    return 'Make /robots.txt answer 200 with your rules (or 404 if you have none). While it fails, RFC 9309 crawlers treat every path as disallowed.';
  }
  const path = pathOf(input.finalUrl);
  // Crawlers decided by the same line get one edit, in the order they were listed.
  const byRule = new Map<string, ScoredCrawler[]>();
  for (const c of blocked) {
    const key = `${c.group ?? ''}\n${c.line ?? ''}\n${c.rule ?? ''}`;
    byRule.set(key, [...(byRule.get(key) ?? []), c]);
  }
  const edits = [...byRule.values()].map((list) => {
    const { group, rule, line } = list[0];
    const tokens = list.map((c) => c.token);
    const names = tokens.join(', ');
    const narrow = rule && line ? `remove or narrow "${rule}" (line ${line})` : null;
    const ownGroup = group !== null && list.every((c) => c.token.toLowerCase() === group.toLowerCase());
    if (ownGroup) {
      return `in the "User-agent: ${group}" group, ${narrow ? `${narrow} or ` : ''}add "Allow: ${path}"`;
    }
    // A group that names a crawler replaces the one it falls back to, so the new group is the targeted
    // fix; editing the shared group would change the rules for every crawler that follows it.
    const newGroup = `add a group ${tokens.map((t) => `"User-agent: ${t}"`).join(' + ')} + "Allow: ${path}" (it replaces the "${group ?? '*'}" group for ${list.length > 1 ? 'them' : 'it'}, so copy over any rules from that group you still want applied)`;
    return narrow ? `for ${names}, ${newGroup}, or ${narrow} in the "User-agent: ${group ?? '*'}" group` : `for ${names}, ${newGroup}`;
  });
  return `In robots.txt: ${edits.join('; ')}. The longest matching rule wins and Allow wins ties (RFC 9309).`;
}

/**
 * The access items, in published order.
 * @example ACCESS_ITEMS.map((item) => item.id) // ['fetch.ok', 'crawl.search-allowed', 'crawl.ai-answers-allowed', 'robots.state']
 */
export const ACCESS_ITEMS: readonly RubricItem[] = [
  {
    id: 'fetch.ok',
    category: 'access',
    points: 8,
    criterion:
      'The page answers 200 with an HTML content type (after at most 5 redirects) and its title does not read as an error page (soft 404).',
    evaluate(input, points) {
      const { status, contentType, page } = input;
      if (status < 200 || status > 299) {
        return {
          earned: 0,
          finding: {
            id: 'page-status',
            severity: 'critical',
            observed: `GET ${input.finalUrl} answered ${status}${input.redirects > 0 ? ` after ${input.redirects} redirect(s)` : ''}`,
            why: 'Search engines and AI crawlers drop pages that do not answer 2xx; nothing on this page can be indexed or cited.',
            fix: `Serve the page with status 200 (check the server or CMS route for ${pathOf(input.finalUrl)}), or submit the address that does.`,
          },
        };
      }
      if (status !== 200) {
        return {
          earned: 0,
          finding: {
            id: 'page-status',
            severity: 'high',
            observed: `GET ${input.finalUrl} answered ${status}`,
            why: 'Crawlers expect 200 for a page with content; other 2xx codes (204, 206, ...) are not treated as a normal page everywhere.',
            fix: 'Answer the page request with 200 and the full HTML.',
          },
        };
      }
      if (!contentType || !/text\/html|application\/xhtml\+xml/i.test(contentType)) {
        return {
          earned: 0,
          finding: {
            id: 'page-not-html',
            severity: 'high',
            observed: contentType ? `Content-Type: ${contentType}` : 'no Content-Type header',
            why: 'Crawlers decide how to read a response from its content type; without text/html the page may not be parsed as a web page.',
            fix: 'Send "Content-Type: text/html; charset=utf-8" with the page.',
          },
        };
      }
      if (page.title && SOFT_404_TITLE.test(page.title)) {
        return {
          earned: 0,
          finding: {
            id: 'soft-404',
            severity: 'high',
            observed: `<title>${page.title}</title> on a 200 response`,
            why: 'A page that says it is missing while answering 200 is a soft 404: search engines classify it as an error page and do not index it.',
            fix: 'If the page is gone, answer 404 or 410; if it exists, give it its real title and content.',
          },
        };
      }
      return { earned: points };
    },
  },
  {
    id: 'crawl.search-allowed',
    category: 'access',
    points: 12,
    criterion:
      'The search crawlers can get the page: Googlebot 6, Bingbot 4, Applebot 2 (Applebot follows the Googlebot group when no group names it). A crawler counts when robots.txt allows the page for it and the live request sent with its user agent got the page (probe outcome ok).',
    evaluate(input) {
      return scoreReach(input, SEARCH_WEIGHTS, (robotsBlocked, refused) => {
        const all = [...robotsBlocked, ...refused];
        const is = (list: ScoredCrawler[], token: string) => list.some((c) => c.token.toLowerCase() === token);
        const googlebot = is(all, 'googlebot');
        const names = all.map((c) => c.token).join(', ');
        return {
          id: robotsBlocked.length > 0 ? 'search-crawlers-blocked' : 'search-crawlers-refused',
          severity: is(robotsBlocked, 'googlebot') ? 'critical' : googlebot || is(all, 'bingbot') ? 'high' : 'medium',
          why: `${robotsBlocked.length > 0 ? `robots.txt keeps ${robotsBlocked.map((c) => c.token).join(', ')} from fetching this page` : ''}${robotsBlocked.length > 0 && refused.length > 0 ? ', and ' : ''}${refused.length > 0 ? `the server refuses ${refused.map((c) => c.token).join(', ')} although robots.txt allows ${refused.length > 1 ? 'them' : 'it'}` : ''}, so the page cannot appear in ${googlebot ? 'Google Search or Google\'s AI Overviews' : 'those search engines'} through ${names}; Bing's index also feeds several AI assistants.`,
        };
      });
    },
  },
  {
    id: 'crawl.ai-answers-allowed',
    category: 'access',
    points: 12,
    criterion:
      'The AI answer crawlers can get the page: OAI-SearchBot, Claude-SearchBot and PerplexityBot, 4 points each, counted as for the search crawlers (robots.txt allows it and the live request as the crawler got the page). User-triggered fetchers are reported, not scored.',
    evaluate(input) {
      return scoreReach(input, AI_ANSWER_WEIGHTS, (robotsBlocked, refused) => ({
        id: robotsBlocked.length > 0 ? 'ai-answer-crawlers-blocked' : 'ai-answer-crawlers-refused',
        severity: 'high',
        why: `${[...robotsBlocked, ...refused].map((c) => c.token).join(', ')} build the indexes behind ChatGPT search, Claude and Perplexity answers; while ${robotsBlocked.length > 0 ? 'robots.txt disallows them' : 'the server refuses them'} the page cannot be shown or linked there. These are search crawlers, not training crawlers.`,
      }));
    },
  },
  {
    id: 'robots.state',
    category: 'access',
    points: 3,
    criterion:
      'robots.txt answers 2xx, or 4xx (no rules: everything allowed). A 5xx, 429 or no answer makes RFC 9309 crawlers treat the whole site as disallowed.',
    evaluate(input, points) {
      if (input.robots.state !== 'unreachable') return { earned: points };
      const { tooComplex } = input.robots;
      if (tooComplex) {
        return {
          earned: 0,
          finding: {
            id: 'robots-too-complex',
            severity: 'high',
            observed: `GET /robots.txt answered ${input.robots.status}, but matching its ${tooComplex.rules} rules against this ${tooComplex.pathLength}-character address needs about ${tooComplex.cost} character comparisons, more than this check spends (${ROBOTS_MATCH_BUDGET}); it was treated as unreachable`,
            why: 'Each wildcard rule (*) scans the whole address, so this file costs every crawler that much work per page. The check bounds that work and does not know the verdicts past it: it counts the file like an unreachable robots.txt, which RFC 9309 makes a full disallow.',
            fix: 'Replace wildcard rules that all start with the same prefix (such as "Disallow: /*x") with fewer, more specific paths, and keep robots.txt to the rules you need.',
          },
        };
      }
      return {
        earned: 0,
        finding: {
          id: 'robots-unreachable',
          severity: 'high',
          observed: input.robots.status === null ? 'GET /robots.txt got no HTTP answer' : `GET /robots.txt answered ${input.robots.status}`,
          why: 'RFC 9309 (2.3.1.4) tells crawlers to assume the whole site is disallowed while robots.txt answers 5xx or cannot be reached; Google handles 429 the same way.',
          fix: 'Serve /robots.txt with status 200 (or 404 when you have no rules) from every host of the site.',
        },
      };
    },
  },];
