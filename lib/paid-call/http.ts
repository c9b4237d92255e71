// The REST adapter of the paid-call pipeline: reads the call out of an HTTP request, and renders the
// pipeline's outcome as the HTTP response (status, problem+json through lib/problems.ts, payment headers).
import type { PaidOperation } from '@/lib/operations';
import { getRuntime } from '@/lib/runtime';
import { errorResponse, problemHeaders, problemResponse } from '@/lib/problems';
import { bearerToken, readJsonBody } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { priceAndRails } from '@/lib/http/describe';
import { credentialFromHeaders } from '@/lib/payments/verify';
import { reportPath } from '@/lib/reports/store';
import { runPaidCall, type PaidCallOutcome, type PrepaidFacts } from './pipeline';

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
 * and a Link to the stored report when a credits key paid), 402 with
 * WWW-Authenticate / PAYMENT-REQUIRED, or the problem with its Retry-After.
 * @example return outcomeResponse(await runPaidCall(runtime, call))
 */
export function outcomeResponse(outcome: PaidCallOutcome): Response {
  switch (outcome.kind) {
    case 'fulfilled':
      return new Response(outcome.bodyText, { status: 200, headers: { ...JSON_HEADERS, ...outcome.receipt, ...prepaidHeaders(outcome.prepaid) } });
    case 'replayed':
      return new Response(JSON.stringify(outcome.body), {
        status: 200,
        headers: { ...JSON_HEADERS, ...outcome.receipt, ...prepaidHeaders(outcome.prepaid), 'Idempotent-Replayed': 'true' },
      });
    case 'payment-required': {
      const { challenge } = outcome;
      const headers: Record<string, string> = { 'WWW-Authenticate': challenge.wwwAuthenticate };
      if (challenge.paymentRequired !== null) headers['PAYMENT-REQUIRED'] = challenge.paymentRequired;
      return new Response(JSON.stringify(outcome.problem), { status: 402, headers: problemHeaders(headers) });
    }
    case 'problem':
      return problemResponse(outcome.problem, outcome.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(outcome.retryAfterSeconds) });
  }
}

/**
 * POST handler for a paid operation: HTTP plumbing around the pipeline.
 * @example export const POST = paidPost(readinessOperation)
 */
export function paidPost(operation: PaidOperation) {
  return async function POST(request: Request): Promise<Response> {
    try {
      const runtime = getRuntime();
      const body = await readJsonBody(request, runtime.config.MAX_BODY_BYTES);
      const bearerKey = bearerToken(request.headers);
      const outcome = await runPaidCall(runtime, {
        operation,
        body,
        idempotencyKey: request.headers.get('idempotency-key'),
        idempotencyKeySource: 'header:Idempotency-Key',
        clientIp: clientIp(request.headers, runtime.config.TRUSTED_PROXY),
        bearerKey,
        // A prepaid key always pays first, so its calls skip the credential lookup (hot path).
        credential: bearerKey === null ? credentialFromHeaders(request.headers) : null,
        signal: () => request.signal,
      });
      return outcomeResponse(outcome);
    } catch (error) {
      return errorResponse(error, { route: operation.id, log: (event) => getRuntime().log({ ...event, operation: operation.id }) });
    }
  };
}

/**
 * The free GET on a paid path: what it does, its price, rails and limits.
 * @example export const GET = describeGet(readinessOperation)
 */
export function describeGet(operation: PaidOperation) {
  return async function GET(): Promise<Response> {
    const body = {
      operationId: operation.id,
      service: operation.service,
      description: operation.description,
      method: 'POST',
      path: operation.path,
      mcpTool: operation.toolName,
      ...priceAndRails(),
      ...operation.describe(),
    };
    return Response.json(body, { headers: { 'Cache-Control': 'public, max-age=300' } });
  };
}
