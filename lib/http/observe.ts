// The edge every API route handler is wrapped in: it gives the request its id (a valid incoming X-Request-Id,
// else a new one), runs the handler inside that request's log context, puts X-Request-Id on whatever the
// handler answered (200s, 402s and problems alike), and writes the one access line and the route metrics. The
// line names the path without anything secret a URL may carry (lib/log.ts loggedPath).
import { errorResponse } from '@/lib/problems';
import { logEvent, loggedPath } from '@/lib/log';
import { metrics } from '@/lib/metrics';
import { requestIdFrom, withRequestContext, type RequestContext } from '@/lib/request-context';

export const REQUEST_ID_HEADER = 'X-Request-Id';


/**
 * `handler` with a request id, a log context, an access log line and route metrics. A synchronous handler
 * stays synchronous (the liveness route is the benchmarks' baseline and its callers read it without await).
 * The request may be absent when a test calls a GET handler directly.
 * @example export const GET = observed('health', (request) => Response.json({ ok: true }))
 */
export function observed<R extends Response | Promise<Response>, A extends unknown[]>(
  route: string,
  handler: (request: Request, ...rest: A) => R,
): (request?: Request, ...rest: A) => R {
  return function observedHandler(request?: Request, ...rest: A): R {
    const context: RequestContext = { requestId: requestIdFrom(request?.headers), route };
    const started = performance.now();
    let answer: Response | Promise<Response>;
    try {
      answer = withRequestContext(context, () => handler(request as Request, ...rest));
    } catch (error) {
      answer = unexpected(error, context);
    }
    if (answer instanceof Promise) {
      return answer.then(
        (response) => finish(response, context, request, started),
        (error: unknown) => finish(unexpected(error, context), context, request, started),
      ) as R;
    }
    return finish(answer, context, request, started) as R;
  };
}

// Handlers answer their own errors through errorResponse; this is the guard for one that did not.
function unexpected(error: unknown, context: RequestContext): Response {
  return errorResponse(error, { route: context.route, log: (event) => withRequestContext(context, () => logEvent(event)) });
}

function finish(response: Response, context: RequestContext, request: Request | undefined, started: number): Response {
  const tagged = withHeader(response, context.requestId);
  const seconds = (performance.now() - started) / 1000;
  try {
    const m = metrics();
    m.httpRequests.inc({ route: context.route, status: String(tagged.status) });
    m.httpDuration.observe({ route: context.route }, seconds);
  } catch {
    // Counting never changes an answer.
  }
  withRequestContext(context, () =>
    logEvent({
      event: 'request',
      method: request?.method ?? 'GET',
      ...(request ? { path: loggedPath(request.url) } : {}),
      status: tagged.status,
      durationMs: Math.round(seconds * 10_000) / 10,
      ...(context.operation === undefined ? {} : { operation: context.operation, rail: context.rail, outcome: context.outcome }),
    }),
  );
  return tagged;
}

function withHeader(response: Response, requestId: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, requestId);
    return response;
  } catch {
    // Immutable headers (Response.redirect, a fetched Response): answer a copy that can carry the id.
    const copy = new Response(response.body, response);
    copy.headers.set(REQUEST_ID_HEADER, requestId);
    return copy;
  }
}
