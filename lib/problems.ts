// RFC 9457 problem details: one error vocabulary for every route and the MCP endpoint, and the one place
// that turns a thrown error into a problem+json response. Each kind has a stable `type` URI and a fixed
// status; details never carry internals. This module sits at the bottom of the import graph and imports
// nothing of ours, so any layer may throw a ProblemError without knowing about HTTP. An error of another layer
// that stands for a problem says which itself (`ProblemOwner`), so this module needs to know no other layer.

export const PROBLEM_BASE = 'https://paid-agent-checks.dev/problems/';

export const PROBLEMS = {
  'invalid-request': { status: 400, title: 'The request is not valid' },
  'invalid-url': { status: 400, title: 'The address cannot be checked' },
  'invalid-idempotency-key': { status: 400, title: 'The Idempotency-Key header is not valid' },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'invalid-credits-key': { status: 401, title: 'The credits key is not valid' },
  'unauthorized': { status: 401, title: 'Authorization required' },
  'not-signed-in': { status: 401, title: 'Not signed in' },
  'wallet-sign-in-refused': { status: 401, title: 'The wallet sign-in was not accepted' },
  'cross-origin-refused': { status: 403, title: 'Requests from another site are refused' },
  'wrong-host': { status: 403, title: 'This service does not answer at that host name' },
  'current-key-required': { status: 403, title: 'Confirm the current credits key' },
  'payment-required': { status: 402, title: 'Payment required' },
  'payment-failed': { status: 402, title: 'The payment credential was not accepted' },
  'credits-exhausted': { status: 402, title: 'The credits key has no calls left' },
  'idempotency-conflict': { status: 409, title: 'The Idempotency-Key was used for a different request' },
  'idempotency-in-flight': { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  'webhook-in-progress': { status: 409, title: 'Another delivery is still processing this event or purchase' },
  'site-unreachable': { status: 422, title: 'The site could not be checked' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'invalid-signature': { status: 400, title: 'The webhook signature does not verify' },
  'payments-unavailable': { status: 503, title: 'Machine payments not available right now' },
  'billing-unavailable': { status: 503, title: 'Card purchases are not available right now' },
  'credits-exhausted-no-rails': { status: 503, title: 'The credits key has no calls left' },
  'store-unavailable': { status: 503, title: 'The service is temporarily unavailable' },
  'shutting-down': { status: 503, title: 'This server is shutting down' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'internal-error': { status: 500, title: 'Internal error' },
} as const;

export type ProblemKind = keyof typeof PROBLEMS;

export interface FieldError {
  /** JSON path of the offending value, e.g. `$.capabilities.idempotency.status`. */
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export function problem(kind: ProblemKind, detail: string, extensions: Record<string, unknown> = {}): Problem {
  const { status, title } = PROBLEMS[kind];
  return { type: PROBLEM_BASE + kind, title, status, detail, ...extensions };
}

/**
 * A thrown problem: lib code throws it, the edge renders it (a response, a tool result). It carries numbers,
 * never headers: `retryAfterSeconds` becomes Retry-After on HTTP and `_meta.retryAfterSeconds` over MCP.
 */
export class ProblemError extends Error {
  readonly problem: Problem;
  /** When a refusal that passes (429, 503) is worth retrying. */
  readonly retryAfterSeconds: number | undefined;
  constructor(kind: ProblemKind, detail: string, extensions: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(detail);
    this.problem = problem(kind, detail, extensions);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** RFC 9457's media type (the OpenAPI document names it too). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** What every problem+json response carries: built here only, so the headers cannot drift between routes. */
const PROBLEM_HEADERS = { 'Content-Type': PROBLEM_MEDIA_TYPE, 'Cache-Control': 'no-store' } as const;

/**
 * A problem as a problem+json Response.
 * @example problemResponse(problem('not-found', 'No such key.'), { 'Retry-After': '5' })
 */
export function problemResponse(p: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(p), { status: p.status, headers: { ...PROBLEM_HEADERS, ...headers } });
}

/** The headers of a problem+json answer, for code that serialises the body itself (the paid-call hot path). */
export function problemHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { ...PROBLEM_HEADERS, ...extra };
}

/** The one wording for a store that does not answer: whatever was being bought or spent, nothing was charged. */
export const STORE_UNAVAILABLE_DETAIL = 'Our data store is not answering. Nothing was charged; retry shortly.';

/** A problem and when to retry it, as the edge renders it. */
export interface ProblemAnswer {
  problem: Problem;
  retryAfterSeconds?: number;
}

/**
 * The Retry-After header of an answer that has a retry delay: the one place a delay becomes a header.
 * @example retryAfterHeader(5) // { 'Retry-After': '5' }
 */
export function retryAfterHeader(seconds: number | undefined): Record<string, string> {
  return seconds === undefined ? {} : { 'Retry-After': String(seconds) };
}

/** An error that knows the problem it stands for (the store not answering is 503, wherever it is thrown). */
interface ProblemOwner {
  toProblem(): ProblemAnswer;
}

function ownsProblem(error: unknown): error is ProblemOwner {
  return typeof error === 'object' && error !== null && typeof (error as Partial<ProblemOwner>).toProblem === 'function';
}

/**
 * The problem a known error stands for: a thrown ProblemError, or an error that owns its problem form
 * (StoreUnavailableError: 503). Null for anything else, which the caller answers as its own unexpected failure.
 * @example knownProblem(new StoreUnavailableError(cause))?.problem.status // 503
 */
export function knownProblem(error: unknown): ProblemAnswer | null {
  if (error instanceof ProblemError) return error.retryAfterSeconds === undefined ? { problem: error.problem } : { problem: error.problem, retryAfterSeconds: error.retryAfterSeconds };
  if (ownsProblem(error)) return error.toProblem();
  return null;
}

/** The answer to an error nobody expected: never a stack trace, always a problem. */
export const INTERNAL_ERROR: ProblemAnswer = { problem: problem('internal-error', 'Something went wrong on our side. Nothing was charged.') };

export interface ErrorExit {
  /** Names the route in the log line of an unexpected error. */
  route: string;
  log: (event: Record<string, unknown>) => void;
  /** What an unexpected error is answered with (default: 500 internal-error). */
  unexpected?: ProblemAnswer;
}

/**
 * The one exit for errors: any thrown value as a problem+json Response. Unexpected errors are logged
 * (message only) and answered with `exit.unexpected`.
 * @example
 *   try { return await handle(request) } catch (error) { return errorResponse(error, { route: 'credits', log }) }
 */
export function errorResponse(error: unknown, exit: ErrorExit): Response {
  const known = knownProblem(error);
  if (known) return problemResponse(known.problem, retryAfterHeader(known.retryAfterSeconds));
  safely(exit.log, { event: 'internal-error', route: exit.route, error: error instanceof Error ? error.message : String(error) });
  const answer = exit.unexpected ?? INTERNAL_ERROR;
  return problemResponse(answer.problem, retryAfterHeader(answer.retryAfterSeconds));
}

/**
 * Runs a route handler and answers whatever it throws through errorResponse.
 * @example export const GET = () => answerWithProblems({ route: 'health', log }, () => Response.json({ ok: true }))
 */
export async function answerWithProblems(exit: ErrorExit, handler: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    return errorResponse(error, exit);
  }
}

function safely(log: (event: Record<string, unknown>) => void, event: Record<string, unknown>) {
  try {
    log(event);
  } catch {
    // Logging must never turn an answer into a crash.
  }
}
