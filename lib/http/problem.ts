// RFC 9457 problem details: one error shape for every route and the MCP endpoint.
// Each kind has a stable `type` URI and a fixed status; details never carry internals.

export const PROBLEM_BASE = 'https://paid-agent-checks.dev/problems/';

export const PROBLEMS = {
  'invalid-request': { status: 400, title: 'The request is not valid' },
  'invalid-url': { status: 400, title: 'The address cannot be checked' },
  'invalid-idempotency-key': { status: 400, title: 'The Idempotency-Key header is not valid' },
  'payload-too-large': { status: 413, title: 'The request body is too large' },
  'invalid-credits-key': { status: 401, title: 'The credits key is not valid' },
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

/** A thrown problem: lib code throws it, the route edge turns it into a response. */
export class ProblemError extends Error {
  readonly problem: Problem;
  readonly headers: Record<string, string>;
  constructor(kind: ProblemKind, detail: string, extensions: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(detail);
    this.problem = problem(kind, detail, extensions);
    this.headers = headers;
  }
}

export function problemResponse(p: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(p), {
    status: p.status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...headers },
  });
}
