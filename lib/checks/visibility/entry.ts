import { z } from 'zod';
import { artifactHash } from '@/lib/canonical-json';
import { ProblemError } from '@/lib/problems';
import { PRICE_USD } from '@/lib/price';
import { defineCheck, paidResult } from '@/lib/checks/entry';
import { MAX_REQUESTS_PER_CHECK, OutboundBudgetSpent, SiteUnreachable, checkVisibility, visibilityCheckDescription } from './check';
import { registrableDomain, THIRD_PARTY_REQUESTS_PER_DOMAIN } from '@/lib/outbound/outbound';
import { InvalidTargetUrl, normalizeTargetUrl } from '@/lib/outbound/target-url';
import { closeRenderer } from './render';
import { VisibilityReportSchema } from './report-caps';
import { visibilityReport } from './report';
import storedExample from './example.json';

// The AI Visibility Check as the service sells it: over REST, MCP and the site alike.

const VisibilityRequest = z.strictObject({
  url: z.string().min(1).max(2000),
});

const VisibilityDescribed = z.strictObject({
  checkVersion: z.string(),
  rubricVersion: z.string(),
  scoreMax: z.number().int(),
  scoringRule: z.string(),
  severityRule: z.string(),
  fetched: z.looseObject({
    page: z.string(),
    site: z.array(z.string()),
    probes: z.string(),
    budgetSeconds: z.number(),
    maxRequests: z.number().int(),
    thirdPartyRequestsPerDomain: z.number().int(),
    maxLookups: z.number().int(),
    outbound: z.string(),
  }),
  crawlers: z.array(z.looseObject({ token: z.string(), vendor: z.string(), role: z.string(), honorsRobots: z.boolean(), userTriggered: z.boolean() })),
  rubric: z.array(z.looseObject({ id: z.string(), points: z.number() })),
  limits: z.array(z.string()),
});

export const visibilityCheck = defineCheck({
  ...visibilityReport,
  operationId: 'createAiVisibilityCheck',
  toolName: 'ai_visibility_check',
  service: 'AI Visibility Check',
  summary: `Check what 16 search and AI crawlers may fetch of one page, and score it 0-100 (${PRICE_USD} USD)`,
  description:
    'Fetches one public page and its site (robots.txt, sitemap, llms.txt, llms-full.txt), reports which search and AI crawlers may fetch it ' +
    'and which robots.txt line decided, what the server answers each crawler\'s own request (the page fetched again with each crawler\'s ' +
    'published user agent, beside a desktop browser), how the page reads to a machine, and a 0-100 score against a published rubric with findings ' +
    'ordered by severity. The site is fetched before any charge; a site that cannot be checked is answered 422 and not charged. ' +
    `One check sends at most ${MAX_REQUESTS_PER_CHECK} requests, redirects included (fetched.maxRequests), at most ${THIRD_PARTY_REQUESTS_PER_DOMAIN} of them to any domain other than the page's own, ` +
    'and nothing beyond the page unless it answers 2xx. One site (registrable domain) is checked at most 6 times a minute by default, whoever asks: over that, 429 with ' +
    'Retry-After, before any charge; and all checks together send any one domain at most 120 requests a minute by default (past that, requests are not sent; ' +
    'if the page\'s own domain is out, 429 and nothing charged).',
  input: VisibilityRequest,
  // Every string and list the site can fill is bounded (report-caps.ts); the check cuts to these bounds.
  output: paidResult({ checkedAt: z.string(), report: VisibilityReportSchema }),
  example: { url: 'https://example.com/pricing' },
  // A stored run of this check against a fixture shop (tests/site/example-report.test.ts reruns it and fails when
  // the stored copy drifts from what the check answers).
  exampleAnswer: () => {
    const { checkedAt, report, limits } = storedExample as unknown as { checkedAt: string; report: Record<string, unknown>; limits: string[] };
    return { checkedAt, report, limits, artifactHash: artifactHash(report) };
  },
  precheck(input) {
    try {
      normalizeTargetUrl(input.url);
    } catch (error) {
      if (error instanceof InvalidTargetUrl) {
        throw new ProblemError('invalid-url', error.message, { errors: [{ path: '$.url', message: error.message }] });
      }
      throw error;
    }
  },
  targetHost: (input) => registrableDomain(normalizeTargetUrl(input.url).hostname),
  workBeforeCharge: true,
  costlyFailure: (error) => error instanceof SiteUnreachable && error.costly,
  async run(input, { signal, now, spendOutbound, owner, siteAnswered }) {
    const options = {
      signal,
      ...(spendOutbound ? { spendOutbound } : {}),
      ...(owner !== undefined ? { renderOwner: owner } : {}),
      ...(siteAnswered ? { siteAnswered } : {}),
    };
    const { report, limits } = await checkVisibility(input.url, options);
    return { checkedAt: now.toISOString(), report, limits, artifactHash: artifactHash(report) };
  },
  problemOf: visibilityProblem,
  described: VisibilityDescribed,
  describe: () => {
    const { crawlers, rubric, rubricVersion, checkVersion, scoringRule, severityRule, fetched, limits, scoreMax } = visibilityCheckDescription();
    return { checkVersion, rubricVersion, scoreMax, scoringRule, severityRule, fetched, crawlers, rubric, limits };
  },
  close: closeRenderer,
  summarize(body) {
    const { report } = body as { report: { checkedUrl: string; score: number; scoreMax: number; crawlers: { allowed: boolean }[]; findings: unknown[] } };
    const allowed = report.crawlers.filter((c) => c.allowed).length;
    return (
      `AI visibility of ${report.checkedUrl}: score ${report.score}/${report.scoreMax}; ` +
      `${allowed} of ${report.crawlers.length} crawlers may fetch it; ${report.findings.length} finding(s).`
    );
  },
});

/**
 * The visibility check's own failures in the service's error vocabulary: a refused address is 400
 * invalid-url, a site that could not be checked 422 site-unreachable, a site whose requests for the minute are
 * spent 429 rate-limited with a retry delay (nothing charged). Other errors pass through.
 * @example throw visibilityProblem(new SiteUnreachable('The connection was reset.')) // ProblemError 422
 */
export function visibilityProblem(error: unknown): unknown {
  if (error instanceof InvalidTargetUrl) return new ProblemError('invalid-url', error.message);
  if (error instanceof SiteUnreachable) return new ProblemError('site-unreachable', error.message);
  if (error instanceof OutboundBudgetSpent) {
    return new ProblemError(
      'rate-limited',
      error.message,
      { retryAfterSeconds: error.retryAfterSeconds, domain: error.domain, ...(error.address ? { address: error.address } : {}) },
      error.retryAfterSeconds,
    );
  }
  return error;
}
