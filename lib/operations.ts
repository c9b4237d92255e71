import { z } from 'zod';
import { ReadinessAssessmentSchema, ReadinessRequest } from '@/lib/checks/readiness/schema';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { readinessRubric } from '@/lib/checks/readiness/rubric';
import { artifactHash } from '@/lib/canonical-json';
import { MAX_REQUESTS_PER_CHECK, OutboundBudgetSpent, SiteUnreachable, checkVisibility, visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { registrableDomain, THIRD_PARTY_REQUESTS_PER_DOMAIN } from '@/lib/checks/visibility/outbound';
import { InvalidTargetUrl, normalizeTargetUrl } from '@/lib/checks/visibility/target-url';
import { VisibilityReportSchema } from '@/lib/checks/visibility/report-caps';
import { ProblemError } from '@/lib/problems';
import { PRICE_USD } from '@/lib/price';

// THE registry of paid operations. REST routes, MCP tools, the OpenAPI document, the free GET
// descriptions and list_paid_services are all derived from these entries, so adding a check
// means adding one entry here.

export interface OperationContext {
  signal: AbortSignal;
  now: Date;
  /**
   * Counts one request a check is about to send to a registrable domain against that domain's budget for the
   * minute (OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE, in the store); `allowed` false: do not send it.
   */
  spendOutbound?: (domain: string) => Promise<{ allowed: boolean; retryAfterMs: number }>;
  /**
   * Who pays for this call: `key:<hash>` for a credits key, `payer:<hash>` for a verified payer, `ip:<address>`
   * when a credential names no payer. Shared resources (the renderer) are shared fairly between owners.
   */
  owner?: string;
}

export interface PaidOperation<S extends z.ZodType = z.ZodType, D extends z.ZodObject = z.ZodObject> {
  id: string;
  path: string;
  toolName: string;
  service: string;
  summary: string;
  description: string;
  input: S;
  /** The full 200 body (the gate's envelope plus what `run` returns): the MCP tool's outputSchema. */
  output: z.ZodType;
  /** A valid request body, shown in the docs and the OpenAPI document (and sent by `mppx validate`). */
  example: z.infer<S>;
  /** Checks beyond the schema that must refuse with 400 before any payment is asked for. */
  precheck?(input: z.infer<S>): void;
  /**
   * The site the operation fetches from (the registrable domain of its address), when it fetches a site: the
   * pipeline then holds it to the per-site budget (VISIBILITY_CHECKS_PER_HOST_PER_MINUTE), across all callers,
   * before any charge.
   */
  targetHost?(input: z.infer<S>): string;
  /** True when the work can fail for reasons outside the buyer's request body (it then runs before any charge). */
  workBeforeCharge: boolean;
  /**
   * True for an error `run` threw after holding shared capacity to its deadline (an analysis thread that ran
   * away, a queue for one that never freed): the pipeline counts it against the caller's costly-failure budget
   * (RATE_LIMIT_COSTLY_FAILURES), since a failed run is never charged. Absent: no failure is costly.
   */
  costlyFailure?(error: unknown): boolean;
  /** The operation-specific members of the 200 body; the gate adds service, idempotencyKey and the payment reference. */
  run(input: z.infer<S>, context: OperationContext): Promise<Record<string, unknown>>;
  /** The members `describe` adds to the free GET's 200 body (its schema in OpenAPI and the docs). */
  described: D;
  /** What the free GET on the same path describes besides price and rails. */
  describe(): z.infer<D>;
  /** One line about a 200 body, for clients that show text (the MCP tool result's `content`). */
  summarize(body: Record<string, unknown>): string;
}

/** What the gate adds to every 200 body: which service, the Idempotency-Key, and how the call was paid. */
const paidEnvelope = {
  service: z.string(),
  idempotencyKey: z.string(),
  /** The credits reservation spent (prepaid key), or the PaymentIntent id / transaction hash (402 rails). */
  creditsUsage: z.string().optional(),
  paymentIntent: z.string().optional(),
  limits: z.array(z.string()),
  artifactHash: z.string(),
};

// Nested objects are loose: the schema names what a client can rely on without freezing every detail
// of the reports (their own versions, checkVersion / rubricVersion, say when those change).

export const ReadinessAssessmentResult = z.looseObject({
  ...paidEnvelope,
  assessedAt: z.string(),
  assessment: ReadinessAssessmentSchema,
});

export const VisibilityCheckResult = z.looseObject({
  ...paidEnvelope,
  checkedAt: z.string(),
  // Every string and list the site can fill is bounded (lib/checks/visibility/report-caps.ts); the check cuts to these bounds.
  report: VisibilityReportSchema,
});

const ReadinessDescribed = z.strictObject({
  rubric: z.looseObject({ rubricVersion: z.string(), scoreMax: z.number().int(), capabilities: z.array(z.looseObject({ key: z.string() })) }),
  limits: z.array(z.string()),
});

export const READINESS_LIMITS = [
  'Capabilities are classified as declared; nothing is fetched, tested or verified.',
  'The assessment never authorizes execution of a payment workflow.',
  'Evidence strings are classified by published patterns (address, path, test, command, record or statement); none is opened or checked for truth.',
];

export const readinessOperation: PaidOperation<typeof ReadinessRequest, typeof ReadinessDescribed> = {
  id: 'createAgentReadinessAssessment',
  path: '/api/agent/readiness',
  toolName: 'agent_payment_readiness_assessment',
  service: 'Agent Payment Readiness Assessment',
  summary: `Classify the payment capabilities declared for a workflow (${PRICE_USD} USD)`,
  description:
    'Classifies the ten payment capabilities a buyer declares about a workflow against a published rubric: a verdict for the target environment, ' +
    'a 0-100 score, blockers, findings with the concrete risk, ordered fix steps, ways to verify and primary-source references, hazards (gaps dangerous together), ' +
    'a phased plan, and for a sandbox workflow what production would add. Deterministic; verifies nothing and never authorizes execution.',
  input: ReadinessRequest,
  output: ReadinessAssessmentResult,
  example: {
    workflow: { name: 'Checkout agent', intendedUsers: 'agents', targetEnvironment: 'production' },
    capabilities: {
      machine_discovery: { status: 'implemented', evidence: ['openapi.json with x-payment-info'] },
      payment_challenge_and_receipt: { status: 'implemented', evidence: ['402 with MPP challenges'] },
      idempotency: { status: 'partial' },
      webhook_verification: { status: 'implemented' },
      durable_fulfillment: { status: 'implemented', evidence: ['orders table'] },
      user_authentication: { status: 'missing' },
      wallet_ownership: { status: 'unknown' },
      onramp_provider_handoff: { status: 'missing' },
      delivery_evidence: { status: 'implemented', evidence: ['artifact hash stored'] },
      recovery_and_reconciliation: { status: 'missing' },
    },
  },
  workBeforeCharge: false,
  async run(input, { now }) {
    const assessment = assessReadiness(input);
    return { assessedAt: now.toISOString(), assessment, limits: READINESS_LIMITS, artifactHash: artifactHash(assessment) };
  },
  described: ReadinessDescribed,
  describe: () => ({ rubric: readinessRubric(), limits: READINESS_LIMITS }),
  summarize(body) {
    const { assessment } = body as {
      assessment: { workflow: { name: string }; verdict: string; score: number; blockers: string[]; findings: unknown[] };
    };
    return (
      `Readiness for "${assessment.workflow.name}": ${assessment.verdict}, score ${assessment.score}/100, ` +
      `${assessment.blockers.length} blocker(s), ${assessment.findings.length} finding(s). Declared capabilities were classified, not verified.`
    );
  },
};

export const VisibilityRequest = z.strictObject({
  url: z.string().min(1).max(2000),
});

const VisibilityDescribed = z.strictObject({
  checkVersion: z.string(),
  rubricVersion: z.string(),
  scoreMax: z.number().int(),
  scoringRule: z.string(),
  fetched: z.looseObject({
    page: z.string(),
    site: z.array(z.string()),
    probes: z.string(),
    budgetSeconds: z.number(),
    maxRequests: z.number().int(),
    thirdPartyRequestsPerDomain: z.number().int(),
    outbound: z.string(),
  }),
  crawlers: z.array(z.looseObject({ token: z.string(), vendor: z.string(), role: z.string(), honorsRobots: z.boolean(), userTriggered: z.boolean() })),
  rubric: z.array(z.looseObject({ id: z.string(), points: z.number() })),
  limits: z.array(z.string()),
});

export const visibilityOperation: PaidOperation<typeof VisibilityRequest, typeof VisibilityDescribed> = {
  id: 'createAiVisibilityCheck',
  path: '/api/agent/ai-visibility',
  toolName: 'ai_visibility_check',
  service: 'AI Visibility Check',
  summary: `Check what 15 search and AI crawlers may fetch of one page, and score it 0-100 (${PRICE_USD} USD)`,
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
  output: VisibilityCheckResult,
  example: { url: 'https://example.com/pricing' },
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
  costlyFailure: (error) => costlyProblems.has(error as object),
  async run(input, { signal, now, spendOutbound, owner }) {
    const options = { signal, ...(spendOutbound ? { spendOutbound } : {}), ...(owner !== undefined ? { renderOwner: owner } : {}) };
    const { report, limits } = await checkVisibility(input.url, options).catch((error: unknown) => {
      throw visibilityProblem(error);
    });
    return { checkedAt: now.toISOString(), report, limits, artifactHash: artifactHash(report) };
  },
  described: VisibilityDescribed,
  describe: () => {
    const { crawlers, rubric, rubricVersion, checkVersion, scoringRule, fetched, limits, scoreMax } = visibilityCheckDescription();
    return { checkVersion, rubricVersion, scoreMax, scoringRule, fetched, crawlers, rubric, limits };
  },
  summarize(body) {
    const { report } = body as { report: { checkedUrl: string; score: number; scoreMax: number; crawlers: { allowed: boolean }[]; findings: unknown[] } };
    const allowed = report.crawlers.filter((c) => c.allowed).length;
    return (
      `AI visibility of ${report.checkedUrl}: score ${report.score}/${report.scoreMax}; ` +
      `${allowed} of ${report.crawlers.length} crawlers may fetch it; ${report.findings.length} finding(s).`
    );
  },
};

export const OPERATIONS: readonly PaidOperation[] = [readinessOperation as unknown as PaidOperation, visibilityOperation as unknown as PaidOperation];

/**
 * The visibility check's own failures in the service's error vocabulary: a refused address is 400
 * invalid-url, a site that could not be checked 422 site-unreachable, a site whose requests for the minute are
 * spent 429 rate-limited with Retry-After (nothing charged). Other errors pass through.
 * @example throw visibilityProblem(new SiteUnreachable('The connection was reset.')) // ProblemError 422
 */
export function visibilityProblem(error: unknown): unknown {
  if (error instanceof InvalidTargetUrl) return new ProblemError('invalid-url', error.message);
  if (error instanceof SiteUnreachable) {
    const mapped = new ProblemError('site-unreachable', error.message);
    if (error.costly) costlyProblems.add(mapped);
    return mapped;
  }
  if (error instanceof OutboundBudgetSpent) {
    return new ProblemError('rate-limited', error.message, { retryAfterSeconds: error.retryAfterSeconds, domain: error.domain }, { 'Retry-After': String(error.retryAfterSeconds) });
  }
  return error;
}

// The 422s made from costly failures (SiteUnreachable.costly), for visibilityOperation.costlyFailure.
const costlyProblems = new WeakSet<object>();
