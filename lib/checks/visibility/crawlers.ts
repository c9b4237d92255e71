/**
 * The 16 search and AI crawlers the AI Visibility Check reports on (the report's `crawlers`),
 * and their robots.txt verdicts for one page.
 *
 * Purposes are condensed from each vendor's own page (source). Where the research could only find
 * a vendor's words through secondary copies, `evidence` says so, so nobody mistakes a paraphrase
 * for a quotation. The vendor pages were read in 2026-11; re-read them before changing a purpose.
 */
import type { CrawlerAccess } from './access-types';
import {
  appliedGroups,
  matchCost,
  namesAgent,
  ROBOTS_MATCH_BUDGET,
  tooComplexAccess,
  verdictFor,
  verdictOfGroups,
  type AppliedGroup,
  type RobotsAccess,
  type RobotsVerdict,
} from './robots';

export type CrawlerRole = 'search' | 'ai-answers' | 'ai-training';

export const CRAWLER_ROLES: readonly CrawlerRole[] = ['search', 'ai-answers', 'ai-training'];

export interface Crawler {
  /** Product token for robots.txt `User-agent:` lines. */
  token: string;
  vendor: string;
  role: CrawlerRole;
  /** What the vendor says the crawler is for, condensed from its documentation. */
  purpose: string;
  /** The vendor's documentation page. */
  source: string;
  /** Token whose group this crawler follows when no group names it (before `*`). */
  fallback?: string;
  /**
   * Whether the vendor says this agent obeys robots.txt. False for user-triggered fetchers whose
   * vendor says robots.txt may not apply: `allowed: false` then states the site's wish, not a block.
   */
  honorsRobots: boolean;
  /** The agent fetches only because a user asked, not as a crawl. */
  userTriggered: boolean;
  /** A robots.txt control token that sends no requests of its own. */
  tokenOnly: boolean;
  /**
   * Whether what this agent reads includes what JavaScript renders. Googlebot, Bingbot and Applebot render pages
   * in a browser (the two control tokens govern what those crawlers fetched); Vercel and MERJ's log study of AI
   * crawlers found that OpenAI's, Anthropic's, Perplexity's and Meta's fetch script files but run none, and
   * Common Crawl stores pages as served. The content-needs-javascript finding names the agents for which it is false.
   */
  rendersJavaScript: boolean;
  /** Where rendersJavaScript comes from. */
  renderingSource: string;
  /** Why honorsRobots and fallback are what they are, and how sure we are. */
  evidence: string;
  /** The full User-Agent the crawler sends, used for the live access probe; absent for tokenOnly entries. */
  userAgent?: string;
  /** Where the string comes from (vendors publish the token; not all publish the whole string). */
  userAgentSource?: string;
}

/**
 * The Chrome major version in the user agents that carry one. Chrome's reduced user agent keeps only the
 * major (chromium.org, User-Agent Reduction); Google and Bing fill in their current Chrome. Raise it now and
 * then: a years-old Chrome is itself a bot signal to some bot managers.
 */
const CHROME_VERSION = '154.0.0.0';

/**
 * The browser baseline of the access probes: current desktop Chrome on Windows, in its reduced form.
 * @example BROWSER_USER_AGENT.startsWith('Mozilla/5.0 (Windows NT 10.0; Win64; x64)') // true
 */
export const BROWSER_USER_AGENT = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROME_VERSION} Safari/537.36`;

export const CRAWLERS: readonly Crawler[] = [
  {
    token: 'Googlebot',
    vendor: 'Google',
    role: 'search',
    purpose:
      "Google's main crawler: crawling preferences addressed to Googlebot affect Google Search (including Discover and Search features) and products such as Google Images, Video and News.",
    source: 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: `Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${CHROME_VERSION} Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)`,
    userAgentSource: 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers (Googlebot Smartphone; Google fills in the current Chrome version)',
    rendersJavaScript: true,
    renderingSource: 'https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics',
    evidence: 'Google: common crawlers "always respect robots.txt rules for automatic crawls" (overview of Google crawlers).',
  },
  {
    token: 'Bingbot',
    vendor: 'Microsoft',
    role: 'search',
    purpose: "Bing's standard crawler, which handles most of Bing's crawling to build the Bing search index.",
    source: 'https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/${CHROME_VERSION} Safari/537.36`,
    userAgentSource: 'https://www.bing.com/webmasters/help/which-crawlers-does-bing-use-8c184ec0 (Bing fills in the current Chrome version)',
    rendersJavaScript: true,
    renderingSource: 'https://blogs.bing.com/webmaster/october-2019/The-new-evergreen-Bingbot-simulating-Chromium',
    evidence:
      'Bing\'s crawler page ("Bingbot is our standard crawler and handles most of our crawling needs"); robots.txt obedience from secondary sources.',
  },
  {
    token: 'Applebot',
    vendor: 'Apple',
    role: 'search',
    purpose: "Apple's web crawler, used for search in Siri, Spotlight and Safari suggestions.",
    source: 'https://support.apple.com/en-us/119829',
    fallback: 'Googlebot',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    userAgentSource: 'https://support.apple.com/en-us/119829',
    rendersJavaScript: true,
    renderingSource: 'https://support.apple.com/en-us/119829',
    evidence:
      'Apple: "If robots instructions don\'t mention Applebot but do mention Googlebot, the Apple robot will follow Googlebot instructions."',
  },
  {
    token: 'OAI-SearchBot',
    vendor: 'OpenAI',
    role: 'ai-answers',
    purpose:
      "Surfaces websites in ChatGPT's search features; sites that opt out are not shown in ChatGPT search answers, though they can still appear as navigational links.",
    source: 'https://developers.openai.com/api/docs/bots',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36; compatible; OAI-SearchBot/1.4; +https://openai.com/searchbot',
    userAgentSource: 'https://developers.openai.com/api/docs/bots',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'OpenAI: each robots.txt setting is independent; changes take about 24 hours.',
  },
  {
    token: 'ChatGPT-User',
    vendor: 'OpenAI',
    role: 'ai-answers',
    purpose:
      'Visits pages for user actions in ChatGPT and Custom GPTs, to help answer a question; not used to crawl the web automatically.',
    source: 'https://developers.openai.com/api/docs/bots',
    honorsRobots: false,
    userTriggered: true,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    userAgentSource: 'https://developers.openai.com/api/docs/bots',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence:
      'Since Dec 2025 OpenAI says robots.txt rules may not apply to user-initiated ChatGPT-User requests (secondary sources; the OpenAI sentence was not seen verbatim).',
  },
  {
    token: 'GPTBot',
    vendor: 'OpenAI',
    role: 'ai-training',
    purpose:
      "Crawls content that may be used to train OpenAI's generative AI foundation models; disallowing it says the site's content should not be used for training.",
    source: 'https://developers.openai.com/api/docs/bots',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.4; +https://openai.com/gptbot',
    userAgentSource: 'https://developers.openai.com/api/docs/bots',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'OpenAI: each robots.txt setting is independent of the others.',
  },
  {
    token: 'Claude-SearchBot',
    vendor: 'Anthropic',
    role: 'ai-answers',
    purpose:
      "Navigates the web to improve the quality of Claude's search results; blocking it stops Anthropic indexing the content for search.",
    source: 'https://support.claude.com/en/articles/8896518',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +claudebot@anthropic.com)',
    userAgentSource: 'Anthropic publishes the tokens only (https://support.claude.com/en/articles/8896518); the string is the form seen in server logs',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'Anthropic: its bots honour robots.txt directives (and Crawl-delay), set per subdomain.',
  },
  {
    token: 'Claude-User',
    vendor: 'Anthropic',
    role: 'ai-answers',
    purpose:
      'Fetches pages when people ask Claude questions; lets site owners control which sites these user-initiated requests can access.',
    source: 'https://support.claude.com/en/articles/8896518',
    honorsRobots: true,
    userTriggered: true,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +claudebot@anthropic.com)',
    userAgentSource: 'Anthropic publishes the tokens only (https://support.claude.com/en/articles/8896518); the string is the form seen in server logs',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'Anthropic applies its robots.txt statement to all three of its bots, this user-triggered one included.',
  },
  {
    token: 'ClaudeBot',
    vendor: 'Anthropic',
    role: 'ai-training',
    purpose:
      "Collects web content that could contribute to training Anthropic's models; restricting it signals that the site's future content should be excluded from training data.",
    source: 'https://support.claude.com/en/articles/8896518',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    userAgentSource: 'Anthropic publishes the tokens only (https://support.claude.com/en/articles/8896518); the string is the form seen in server logs',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'Anthropic: its bots honour robots.txt directives.',
  },
  {
    token: 'PerplexityBot',
    vendor: 'Perplexity',
    role: 'ai-answers',
    purpose: 'Surfaces and links websites in Perplexity search results; not used to crawl content for AI foundation models.',
    source: 'https://docs.perplexity.ai/docs/resources/perplexity-crawlers',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    userAgentSource: 'https://docs.perplexity.ai/guides/bots',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence:
      'Perplexity lists it among the robots.txt tags webmasters can use; purpose wording from memory of the vendor page and ai.robots.txt, not seen verbatim.',
  },
  {
    token: 'Perplexity-User',
    vendor: 'Perplexity',
    role: 'ai-answers',
    purpose:
      'Supports user actions in Perplexity: may visit a page to help answer a question and link it; not used for web crawling or to collect training data.',
    source: 'https://docs.perplexity.ai/docs/resources/perplexity-crawlers',
    honorsRobots: false,
    userTriggered: true,
    tokenOnly: false,
    userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    userAgentSource: 'https://docs.perplexity.ai/guides/bots',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence:
      'Perplexity says that, since a user requested the fetch, this fetcher generally ignores robots.txt (ai.robots.txt records "No"; not seen verbatim).',
  },
  {
    token: 'Google-Agent',
    vendor: 'Google',
    role: 'ai-answers',
    purpose:
      'Used by agents hosted on Google infrastructure (Project Mariner, for example) to browse the web and act on a page when a user asks them to; it fetches only on a user request, not as a crawl.',
    source: 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers',
    honorsRobots: false,
    userTriggered: true,
    tokenOnly: false,
    // Google publishes a desktop and a mobile string; the probe sends the desktop one with our current Chrome
    // in place of Google's W.X.Y.Z placeholder.
    userAgent: `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-agent) Chrome/${CHROME_VERSION} Safari/537.36`,
    userAgentSource: 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers (desktop agent; Google fills in the current Chrome version)',
    rendersJavaScript: true,
    renderingSource: 'https://developers.google.com/crawling/docs/crawlers-fetchers/allow-google-agent',
    evidence:
      'Google lists it among its user-triggered fetchers, which "generally ignore robots.txt rules" because a user asked for the fetch; a Disallow for Google-Agent states the site\'s wish, not a block. Its requests come from the addresses in user-triggered-agents.json, and some are signed with Web Bot Auth (Signature-Agent "https://agent.bot.goog", experimental).',
  },
  {
    token: 'Google-Extended',
    vendor: 'Google',
    role: 'ai-training',
    purpose:
      'A control token, not a crawler: whether content Google crawls may train future Gemini models and ground Gemini Apps and Vertex AI answers; no effect on Google Search.',
    source: 'https://developers.google.com/crawling/docs/crawlers-fetchers/google-common-crawlers#google-extended',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: true,
    rendersJavaScript: true,
    renderingSource: 'https://developers.google.com/search/docs/crawling-indexing/javascript/javascript-seo-basics',
    evidence:
      'Google honours the token for the uses above; no Google text says it inherits a Googlebot group, so it follows * like any token.',
  },
  {
    token: 'Applebot-Extended',
    vendor: 'Apple',
    role: 'ai-training',
    purpose:
      "A control token that does not crawl: disallowing it keeps content Applebot crawled out of training Apple's foundation models for Apple Intelligence and other features.",
    source: 'https://support.apple.com/en-us/119829',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: true,
    rendersJavaScript: true,
    renderingSource: 'https://support.apple.com/en-us/119829',
    evidence: "Apple's Googlebot fallback is stated for Applebot only; unconfirmed for this token, so it follows *.",
  },
  {
    token: 'CCBot',
    vendor: 'Common Crawl',
    role: 'ai-training',
    purpose:
      'Builds the Common Crawl open web archive, a dataset widely used to train AI models; checks robots.txt before fetching.',
    source: 'https://commoncrawl.org/ccbot',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
    userAgentSource: 'https://commoncrawl.org/faq',
    rendersJavaScript: false,
    renderingSource: 'https://commoncrawl.org/ccbot',
    evidence: 'Common Crawl: CCBot checks robots.txt first and follows up to five robots.txt redirects per RFC 9309.',
  },
  {
    token: 'Meta-ExternalAgent',
    vendor: 'Meta',
    role: 'ai-training',
    purpose: 'Crawls the web for uses such as training AI models or improving products by indexing content directly.',
    source: 'https://developers.facebook.com/docs/sharing/webmasters/web-crawlers/',
    honorsRobots: true,
    userTriggered: false,
    tokenOnly: false,
    userAgent: 'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    userAgentSource: 'https://developers.facebook.com/docs/sharing/webmasters/web-crawlers/ (the version is the one seen in server logs)',
    rendersJavaScript: false,
    renderingSource: 'https://vercel.com/blog/the-rise-of-the-ai-crawler',
    evidence: 'Purpose from memory of the Meta page, matching the ai.robots.txt paraphrase; robots.txt obedience from secondary sources.',
  },
];

/** One item of the report's `crawlers`, plus honorsRobots. */
export interface CrawlerVerdict extends Pick<Crawler, 'token' | 'vendor' | 'role' | 'purpose' | 'source' | 'fallback' | 'honorsRobots'> {
  allowed: boolean;
  /** The robots.txt line that decided, or why the robots.txt status decided; null when no rule matched. */
  rule: string | null;
  /** The user-agent group that applied (for Applebot possibly `Googlebot`), `*`, or null. */
  group: string | null;
  /** What the server answered a live request as this crawler (`not-probed` until the probes are read). */
  access: CrawlerAccess;
}

/**
 * The robots.txt group a crawler follows: its own when a group names it, else its fallback's
 * when a group names that, else `*` (which robotsVerdict applies for the own token).
 */
export function effectiveToken(access: RobotsAccess, crawler: Crawler): string {
  if (access.state !== 'found' || crawler.fallback === undefined) return crawler.token;
  if (namesAgent(access.robots, crawler.token)) return crawler.token;
  if (namesAgent(access.robots, crawler.fallback)) return crawler.fallback;
  return crawler.token;
}

/** One verdict per crawler, in CRAWLERS order, for the page at `pathAndQuery`. */
export function crawlerVerdicts(access: RobotsAccess, pathAndQuery: string): CrawlerVerdict[] {
  return decideCrawlers(access, pathAndQuery).crawlers.map((c) => c.verdict);
}

/** Every crawler's verdict for one page, and the robots.txt access they were decided under. */
export interface CrawlerDecisions {
  /** `access`, or the unreachable stand-in when matching the file would exceed ROBOTS_MATCH_BUDGET. */
  access: RobotsAccess;
  /** In CRAWLERS order; `line` is the deciding robots.txt line, for findings that quote it. */
  crawlers: Array<{ verdict: CrawlerVerdict; line: number | null }>;
}

/**
 * Decides every crawler once. Crawlers under the same groups (usually all of them under `*`) share
 * one match, and a file whose matching would cost more than ROBOTS_MATCH_BUDGET is not matched at
 * all: it counts as unreachable, so one hostile robots.txt cannot buy seconds of CPU.
 * @example decideCrawlers(robotsFromResponse(200, 'User-agent: *\nDisallow: /\n'), '/').crawlers[0].verdict.allowed // false
 */
export function decideCrawlers(access: RobotsAccess, pathAndQuery: string): CrawlerDecisions {
  let decidedUnder = access;
  let decide = (crawler: Crawler) => verdictFor(access, crawler.token, pathAndQuery);
  if (access.state === 'found') {
    const indexOf = new Map(access.robots.groups.map((group, i) => [group, i]));
    const keyOf = (groups: readonly AppliedGroup[]) => groups.map(({ group, token }) => `${indexOf.get(group)}:${token}`).join(',');
    const keys = CRAWLERS.map((crawler) => {
      const groups = appliedGroups(access.robots, effectiveToken(access, crawler));
      return { key: keyOf(groups), groups };
    });
    const distinct = new Map(keys.map(({ key, groups }) => [key, groups]));
    const cost = [...distinct.values()].reduce((sum, groups) => sum + matchCost(groups, pathAndQuery), 0);
    if (cost > ROBOTS_MATCH_BUDGET) {
      decidedUnder = tooComplexAccess(access, pathAndQuery, cost);
      decide = (crawler) => verdictFor(decidedUnder, crawler.token, pathAndQuery);
    } else {
      const verdicts = new Map([...distinct].map(([key, groups]) => [key, verdictOfGroups(groups, pathAndQuery)]));
      decide = (crawler) => verdicts.get(keys[CRAWLERS.indexOf(crawler)].key)!;
    }
  }
  const crawlers = CRAWLERS.map((crawler) => {
    const verdict = decide(crawler);
    return { verdict: verdictRow(crawler, verdict), line: verdict.line };
  });
  return { access: decidedUnder, crawlers };
}

const NOT_PROBED: CrawlerAccess = { outcome: 'not-probed', status: null, userAgent: null };

function verdictRow(crawler: Crawler, verdict: RobotsVerdict): CrawlerVerdict {
  const row: Omit<CrawlerVerdict, 'access'> = {
    token: crawler.token,
    vendor: crawler.vendor,
    role: crawler.role,
    purpose: crawler.purpose,
    source: crawler.source,
    honorsRobots: crawler.honorsRobots,
    allowed: verdict.allowed,
    rule: verdict.rule,
    group: verdict.group,
  };
  if (crawler.fallback !== undefined) row.fallback = crawler.fallback;
  return { ...row, access: { ...NOT_PROBED } };
}
