import { z } from 'zod';
import { artifactHash } from '@/lib/canonical-json';
import { defineCheck, paidResult } from '@/lib/checks/entry';
import { registrableDomain } from '@/lib/outbound/outbound';
import { InvalidTargetUrl, normalizeTargetUrl } from '@/lib/outbound/target-url';
import { PRICE_USD } from '@/lib/price';
import { ProblemError } from '@/lib/problems';
import { CHECK_VERSION, checkPaymentEndpoint, CRITICAL_SCORE_CAP, EndpointBudgetSpent, EndpointRefused, EndpointUnreachable } from './check';
import { endpointReport } from './report';
import { RUBRIC, RUBRIC_VERSION } from './rubric';
import { MAX_BODY_BYTES, MAX_HEADER_BYTES, MAX_REQUESTS_PER_DOMAIN, REQUEST_TIMEOUT_MS } from './session';
import { probeSettings } from './probe-settings';
import storedExample from './example.json';

// The Agent Payment Endpoint Check as the service sells it: over REST, MCP and the site alike.

/** The largest example body a buyer may give, serialised. */
const MAX_EXAMPLE_BODY_BYTES = 16 * 1024;

const EndpointRequest = z.strictObject({
  url: z.string().min(1).max(2000).describe('The paid resource: the address an agent calls and pays.'),
  method: z.enum(['GET', 'POST']).default('POST').describe('The method the resource is paid with.'),
  // Any JSON value: the request body was JSON to begin with. z.unknown() rather than z.json(), whose recursive JSON
  // Schema ($defs) directory validators of the 402's bazaar extension cannot resolve.
  body: z
    .unknown()
    .optional()
    .refine((v) => v === undefined || Buffer.byteLength(JSON.stringify(v)) <= MAX_EXAMPLE_BODY_BYTES, { message: `must serialise to at most ${MAX_EXAMPLE_BODY_BYTES} bytes` })
    .describe("An example JSON body the resource accepts. Absent: the seller's own OpenAPI or bazaar example, else {}."),
  mcp: z
    .strictObject({ url: z.string().min(1).max(2000), tool: z.string().min(1).max(128) })
    .optional()
    .describe('An MCP endpoint and one of its paid tools, also checked.'),
  paidRoundTrip: z.boolean().default(false).describe("Pay the endpoint once for real, on a network the operator enabled for probing, and test replays, payment-identifiers and a payment with invalid input."),
});

const EndpointDescribed = z.strictObject({
  checkVersion: z.string(),
  rubricVersion: z.string(),
  scoreMax: z.number().int(),
  scoringRule: z.string(),
  rubric: z.array(z.looseObject({ id: z.string(), title: z.string(), points: z.number(), verifies: z.string() })),
  bounds: z.looseObject({
    maxRequestsPerDomain: z.number().int(),
    requestTimeoutSeconds: z.number(),
    maxHeaderBytes: z.number().int(),
    maxBodyBytes: z.number().int(),
  }),
  paidRoundTrip: z.looseObject({ enabled: z.boolean(), networks: z.array(z.string()), maxSpendUnitsPerCheck: z.string() }),
  limits: z.array(z.string()),
});

const SCORING_RULE =
  `Each rubric item the check could test (pass, warning or fail) counts its points, less what its findings cost; items not applicable or not tested leave the score and are listed with why. The score is the points earned over the points tested, out of 100, and at most ${CRITICAL_SCORE_CAP} when any finding is critical (a paywall that serves for free, a double charge, a payment settled for a refused request); coverage says how many points were tested.`;

/** What the check cannot see, in every report and the free GET. */
function endpointLimits(): string[] {
  const settings = probeSettings();
  return [
    `At most ${MAX_REQUESTS_PER_DOMAIN} requests to any one registrable domain per check, each answered within ${REQUEST_TIMEOUT_MS / 1000} s, headers read up to ${MAX_HEADER_BYTES / 1024} KiB and bodies up to ${MAX_BODY_BYTES / 1024 / 1024} MiB; URLs in discovery documents that lead to another domain are never followed.`,
    `The paid round trip pays only when asked (paidRoundTrip), only on networks the operator enabled for probing (here: ${settings.networks.join(', ')}), and at most ${settings.maxSpendUnits} base units per check; card payments (MPP stripe) are never made.`,
    'What a seller does with a payment after answering (refunds, delivery of work later) is not visible to the check.',
  ];
}

export const endpointCheck = defineCheck({
  ...endpointReport,
  operationId: 'createAgentPaymentEndpointCheck',
  toolName: 'agent_payment_endpoint_check',
  service: 'Agent Payment Endpoint Check',
  summary: `Pay a seller's 402 endpoint as an agent does and report what it meets, scored 0-100 (${PRICE_USD} USD)`,
  description:
    "Checks a paid HTTP endpoint the way a paying agent meets it: sends the declared request unpaid and reads both protocols' terms (x402 PAYMENT-REQUIRED, MPP WWW-Authenticate: Payment), " +
    "the seller's discovery documents (OpenAPI x-payment-info, the x402 bazaar, llms.txt), one price across all of them, malformed and expired credentials, CORS for browser agents, " +
    'and the MCP endpoint (both payment bindings, both protocol generations); optionally pays once for real on a test network and checks the settlement on chain, a replay, a payment-identifier and a payment with invalid input. ' +
    `Each rubric item is pass, warning, fail, not applicable or not tested, with evidence: the request made and the answer decoded. At most ${MAX_REQUESTS_PER_DOMAIN} requests to the seller's domain, every one listed in the report. ` +
    'Not charged when the endpoint gives no HTTP answer at all (DNS, connect, TLS, timeout): answered 422.',
  input: EndpointRequest,
  output: paidResult({ checkedAt: z.string(), report: z.looseObject({ score: z.number(), scoreMax: z.number(), verdict: z.string(), items: z.array(z.looseObject({})), findings: z.array(z.looseObject({})), requests: z.array(z.looseObject({})) }) }),
  example: { url: 'https://api.example.com/api/agent/readiness', method: 'POST', paidRoundTrip: false },
  exampleAnswer: () => {
    const { checkedAt, report, limits } = storedExample as unknown as { checkedAt: string; report: Record<string, unknown>; limits: string[] };
    return { checkedAt, report, limits, artifactHash: artifactHash(report) };
  },
  precheck(input) {
    for (const [path, value] of [['$.url', input.url], ...(input.mcp ? [['$.mcp.url', input.mcp.url]] : [])] as const) {
      try {
        normalizeTargetUrl(value);
      } catch (error) {
        if (error instanceof InvalidTargetUrl) throw new ProblemError('invalid-url', error.message, { errors: [{ path, message: error.message }] });
        throw error;
      }
    }
  },
  targetHost: (input) => registrableDomain(normalizeTargetUrl(input.url).hostname),
  workBeforeCharge: true,
  async run(input, { signal, now, spendOutbound, siteAnswered, records }) {
    const probe = probeSettings(process.env, records ?? null);
    const report = await checkPaymentEndpoint(input, { signal, now, probe, ...(spendOutbound ? { spendOutbound } : {}), ...(siteAnswered ? { siteAnswered } : {}) });
    return { checkedAt: now.toISOString(), report, limits: endpointLimits(), artifactHash: artifactHash(report) };
  },
  problemOf(error) {
    if (error instanceof InvalidTargetUrl || error instanceof EndpointRefused) return new ProblemError('invalid-url', error.message);
    if (error instanceof EndpointUnreachable) return new ProblemError('site-unreachable', error.message);
    if (error instanceof EndpointBudgetSpent) {
      return new ProblemError('rate-limited', error.message, { retryAfterSeconds: error.retryAfterSeconds, domain: error.domain }, error.retryAfterSeconds);
    }
    return error;
  },
  described: EndpointDescribed,
  describe: () => {
    const settings = probeSettings();
    return {
      checkVersion: CHECK_VERSION,
      rubricVersion: RUBRIC_VERSION,
      scoreMax: 100,
      scoringRule: SCORING_RULE,
      rubric: RUBRIC.map(({ id, title, points, verifies }) => ({ id, title, points, verifies })),
      bounds: { maxRequestsPerDomain: MAX_REQUESTS_PER_DOMAIN, requestTimeoutSeconds: REQUEST_TIMEOUT_MS / 1000, maxHeaderBytes: MAX_HEADER_BYTES, maxBodyBytes: MAX_BODY_BYTES },
      paidRoundTrip: { enabled: settings.privateKey !== null, networks: [...settings.networks], maxSpendUnitsPerCheck: String(settings.maxSpendUnits) },
      limits: endpointLimits(),
    };
  },
  summarize(body) {
    const report = (body as { report: { endpoint: { url: string }; score: number; scoreMax: number; findings: unknown[]; transfers: unknown[] } }).report;
    return `Payment endpoint ${report.endpoint.url}: score ${report.score}/${report.scoreMax}; ${report.findings.length} finding(s); ${report.transfers.length} transfer(s) made.`;
  },
});
