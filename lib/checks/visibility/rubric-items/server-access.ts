// The finding about what the server did with the crawlers' own requests (the live access probes),
// beside what robots.txt asks. It scores nothing by itself: the access items read the outcomes.

import type { AccessOutcome } from '../access-types';
import type { Finding, ScoredCrawler, ScoreInput } from './types';

/** Outcomes that mean the crawler did not get the page a browser gets. */
const REFUSED_OUTCOMES: ReadonlySet<AccessOutcome> = new Set(['blocked', 'challenge', 'payment-required', 'rate-limited', 'different']);

type Refused = ScoredCrawler & { access: NonNullable<ScoredCrawler['access']> };

function describe(input: ScoreInput, c: Refused): string {
  const evidence = input.access?.evidence[c.token] ?? (c.access.status === null ? 'no answer' : `answered ${c.access.status}`);
  return `${c.token}: ${c.access.outcome}, ${evidence}`;
}

/**
 * `crawler-blocked-by-server`: robots.txt lets a crawler in but the server refused its request, while the
 * browser baseline got the page. High when a search or AI-answer crawler is hit, medium for training only;
 * crawlers that robots.txt also disallows are consistent and make it info at most. Nothing when the
 * browser baseline did not get a 2xx either: then the server did not treat crawlers differently from us.
 * @example serverAccessFindings(input)[0]?.observed
 *   // 'The browser baseline got 200, but robots.txt allows and the server refused: GPTBot: blocked, answered 403 with server: cloudflare; …'
 */
export function serverAccessFindings(input: ScoreInput): Finding[] {
  const browserStatus = input.access?.browserStatus ?? null;
  if (browserStatus === null || browserStatus < 200 || browserStatus > 299) return [];
  const refused = input.crawlers.filter((c): c is Refused => c.access !== undefined && REFUSED_OUTCOMES.has(c.access.outcome));
  if (refused.length === 0) return [];
  const against = refused.filter((c) => c.allowed);
  const consistent = refused.filter((c) => !c.allowed);
  const consistentNote = consistent.length > 0 ? `robots.txt also disallows, consistently: ${consistent.map((c) => describe(input, c)).join('; ')}` : '';

  if (against.length === 0) {
    return [
      {
        id: 'crawler-blocked-by-server',
        severity: 'info',
        rubric: null,
        pointsLost: 0,
        observed: `The browser baseline got ${browserStatus}; ${consistentNote}`,
        why: 'The server refuses these crawlers and robots.txt disallows them too: the two say the same thing.',
        fix: 'No change needed if intended.',
      },
    ];
  }
  const hitsVisibility = against.some((c) => c.role === 'search' || c.role === 'ai-answers');
  const observed = `The browser baseline got ${browserStatus}, but robots.txt allows and the server refused: ${against.map((c) => describe(input, c)).join('; ')}${consistentNote ? `. Also ${consistentNote}` : ''}`;
  return [
    {
      id: 'crawler-blocked-by-server',
      severity: hitsVisibility ? 'high' : 'medium',
      rubric: null,
      pointsLost: 0,
      observed,
      why:
        `robots.txt lets ${against.map((c) => c.token).join(', ')} fetch this page, but the server answered their requests differently from a browser's, so ` +
        (hitsVisibility
          ? 'search and AI-answer engines cannot read the page whatever robots.txt says.'
          : 'the page is kept from these training crawlers whatever robots.txt says; search and AI answers are not affected.') +
        ' Such rules usually live in the CDN or WAF (Cloudflare blocks AI crawlers by default on new zones).' +
        ' Our requests only claimed to be the crawlers (access.verification unverified-user-agent): the real ones, from their published addresses or with a Web Bot Auth signature, may be treated otherwise.',
      fix:
        'Find the rule that matches these user agents and allow the crawlers you want: the CDN\'s bot settings (e.g. Cloudflare Security > Bots and AI Crawl Control), the WAF\'s AI-bot or bot-control category (AWS WAF Bot Control, Akamai, Imperva, DataDome, HUMAN), rate limits, and pay-per-crawl (a 402 with crawler-price asks the crawler to pay). Prefer allowing verified bots over matching user agents. If refusing them is intended, also disallow them in robots.txt so the two agree.',
    },
  ];
}
