// The REST transport of the paid-call pipeline: reads the call out of an HTTP request, and renders the
// pipeline's outcome as the HTTP response (status, problem+json through lib/problems.ts, payment headers).
// The routes of /api/agent/[check] are built here from the check registry.
import type { CheckEntry } from '@/lib/checks/entry';
import { checkById } from '@/lib/checks/registry';
import { problem, problemHeaders, problemResponse, retryAfterHeader } from '@/lib/problems';
import { bearerToken, readJsonBody } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { priceAndRails } from '@/lib/http/describe';
import { credentialFromHeaders } from '@/lib/payments/verify';
import { paymentRequiredHeader, receiptHeaders } from '@/lib/payments/wire';
import { observed } from '@/lib/http/observe';
import { reportPath } from '@/lib/reports/store';
import type { PaidCallOutcome, PrepaidFacts } from '@/lib/paid-call/pipeline';
import { servePaidCall, type PaidCallTransport } from '@/lib/paid-call/serve';

const JSON_HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/** What a prepaid 200 says it cost: the calls left, and where its stored report is. */
function prepaidHeaders(prepaid: PrepaidFacts | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (prepaid?.creditsRemaining !== null && prepaid?.creditsRemaining !== undefined) headers['Credits-Remaining'] = String(prepaid.creditsRemaining);
  if (prepaid?.reportId) headers.Link = `<${reportPath(prepaid.reportId)}>; rel="related"`;
  return headers;
}

/**
 * A pipeline outcome as the HTTP response: 200 with the body (and Idempotent-Replayed on a replay; Credits-Remaining
 * and a Link to the stored report when a credits key paid), 402 with WWW-Authenticate / PAYMENT-REQUIRED (the one
 * place a 402 is rendered), or the problem with its Retry-After.
 * @example return outcomeResponse(await runPaidCall(runtime, call))
 */
export function outcomeResponse(outcome: PaidCallOutcome): Response {
  switch (outcome.kind) {
    case 'fulfilled':
      return new Response(outcome.bodyText, { status: 200, headers: { ...JSON_HEADERS, ...receiptHeaders(outcome.receipt), ...prepaidHeaders(outcome.prepaid) } });
    case 'replayed':
      return new Response(JSON.stringify(outcome.body), {
        status: 200,
        headers: { ...JSON_HEADERS, ...receiptHeaders(outcome.receipt), ...prepaidHeaders(outcome.prepaid), 'Idempotent-Replayed': 'true' },
      });
    case 'payment-required': {
      const { challenge } = outcome;
      const headers: Record<string, string> = { 'WWW-Authenticate': challenge.wwwAuthenticate };
      if (challenge.x402 !== null) headers['PAYMENT-REQUIRED'] = paymentRequiredHeader(challenge.x402);
      return new Response(JSON.stringify(outcome.problem), { status: 402, headers: problemHeaders(headers) });
    }
    case 'problem':
      return problemResponse(outcome.problem, retryAfterHeader(outcome.retryAfterSeconds));
  }
}

/** REST: the JSON body, the Idempotency-Key header, the client's address, a Bearer key or a payment credential. */
const restTransport: PaidCallTransport<Request, Response> = {
  surface: 'rest',
  async readCall(request, _check, runtime) {
    const body = await readJsonBody(request, runtime.config.MAX_BODY_BYTES);
    const bearerKey = bearerToken(request.headers);
    return {
      body,
      idempotencyKey: request.headers.get('idempotency-key'),
      idempotencyKeySource: 'header:Idempotency-Key',
      clientIp: clientIp(request.headers, runtime.config.TRUSTED_PROXY),
      bearerKey,
      // A prepaid key always pays first, so its calls skip the credential lookup (hot path).
      credential: bearerKey === null ? credentialFromHeaders(request.headers) : null,
      departure: () => request.signal,
    };
  },
  respond: (outcome) => outcomeResponse(outcome),
};

type Handler = (request?: Request) => Promise<Response>;

const posts = new WeakMap<CheckEntry, Handler>();
const gets = new WeakMap<CheckEntry, Handler>();

/** POST /api/agent/<id>: the paid call, through the REST transport. One handler per check, named by its operation id. */
function paidPost(check: CheckEntry): Handler {
  let handler = posts.get(check);
  if (!handler) {
    handler = observed(check.operationId, (request: Request) => servePaidCall(restTransport, check, request));
    posts.set(check, handler);
  }
  return handler;
}

/** GET /api/agent/<id>: free; what the check does, its price, rails and limits. */
function describeGet(check: CheckEntry): Handler {
  let handler = gets.get(check);
  if (!handler) {
    handler = observed(`describe-${check.operationId}`, async function GET(): Promise<Response> {
      const body = {
        operationId: check.operationId,
        service: check.service,
        description: check.description,
        method: 'POST',
        path: check.path,
        mcpTool: check.toolName,
        ...priceAndRails(),
        ...check.describe(),
      };
      return Response.json(body, { headers: { 'Cache-Control': 'public, max-age=300' } });
    });
    gets.set(check, handler);
  }
  return handler;
}

/** What Next passes a route under a `[check]` segment. */
export interface CheckRouteContext {
  params: Promise<{ check: string }>;
}

/**
 * The check a `[check]` segment names, or null (an unknown name, or one Next could not decode).
 * @example const check = await checkOfRoute(context) // the registry's entry for /api/agent/<id>, or a 404 problem
 */
export async function checkOfRoute(context: CheckRouteContext): Promise<CheckEntry | null> {
  const id = await context.params.then(
    (p) => p.check,
    () => '',
  );
  return checkById(id) ?? null;
}

const unknownCheck = observed('agent-unknown', () =>
  problemResponse(problem('not-found', 'No check has this name. GET /openapi.json or /llms.txt lists the checks.')),
);

/**
 * The handlers of /api/agent/[check]: POST runs the named check as a paid call, GET describes it; 404 for a
 * name no check has.
 * @example export const { POST, GET } = checkRoutes
 */
export const checkRoutes = {
  async POST(request: Request, context: CheckRouteContext): Promise<Response> {
    const check = await checkOfRoute(context);
    return check ? paidPost(check)(request) : unknownCheck(request);
  },
  async GET(request: Request | undefined, context: CheckRouteContext): Promise<Response> {
    const check = await checkOfRoute(context);
    return check ? describeGet(check)(request) : unknownCheck(request);
  },
};
