import type { PaidOperation } from '@/lib/operations';
import { runPaidCall, type GateResponse } from '@/lib/payments/gate';
import { getRuntime } from '@/lib/runtime';
import { ProblemError, problem, problemResponse } from '@/lib/problems';
import { bearerToken, readJsonBody } from './request';
import { clientIp } from './client-ip';
import { priceAndRails } from './describe';

export function toResponse(reply: GateResponse): Response {
  return new Response(reply.bodyText ?? JSON.stringify(reply.body), { status: reply.status, headers: reply.headers });
}

/** POST handler for a paid operation: HTTP plumbing around the gate. */
export function paidPost(operation: PaidOperation) {
  return async function POST(request: Request): Promise<Response> {
    try {
      const runtime = getRuntime();
      const body = await readJsonBody(request, runtime.config.MAX_BODY_BYTES);
      const reply = await runPaidCall(runtime, {
        operation,
        body,
        idempotencyKey: request.headers.get('idempotency-key'),
        clientIp: clientIp(request.headers, runtime.config.TRUSTED_PROXY),
        bearerKey: bearerToken(request.headers),
        request,
        signal: () => request.signal,
      });
      return toResponse(reply);
    } catch (error) {
      if (error instanceof ProblemError) return problemResponse(error.problem, error.headers);
      getRuntime().log({ event: 'internal-error', operation: operation.id, error: error instanceof Error ? error.message : String(error) });
      return problemResponse(problem('internal-error', 'Something went wrong on our side. Nothing was charged.'));
    }
  };
}

/** The free GET on a paid path: what it does, its price, rails and limits. */
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
