import type { ProbeContext, ProbeItem } from './context';
import type { FetchResult } from '@/lib/outbound/safe-fetch';
import { answerEvidence, bodyLine, requestLine, statesTerms } from './answer';
import type { Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// Reachability: what the unpaid request the check sent first (with the example body) was answered. It sends
// nothing itself. An endpoint that gave no HTTP answer within the session's 10 s never reaches this probe: the
// check stops before any item runs (nothing is charged), so a slow answer is not a finding here but no report.

const VERIFY_AGAIN = rerun('the Reachability item passes with the unpaid request answered 402');
const TEST_UNPAID = (what: string) => `Send the documented request with no credential (e.g. curl -i -X POST -H 'content-type: application/json' -d '<example body>' <url>): ${what}`;

/** A status the unpaid request must not get, and what it means to an agent. */
const statusFinding = (title: string, severity: FindingSpec['severity'], why: string, fix: string): FindingSpec => ({
  title,
  severity,
  points: 15,
  why,
  fix,
  verify: [TEST_UNPAID('the answer is 402 with PAYMENT-REQUIRED and/or WWW-Authenticate: Payment.'), VERIFY_AGAIN],
  references: [SOURCES.http402, SOURCES.x402Http, SOURCES.mpp],
});

const reachabilitySpec: ItemSpec = {
  id: 'reachability',
  title: 'Reachability',
  points: 15,
  verifies: 'The declared method answers an unpaid request with a schema-valid body 402 (not 401, 403, 400, 404 or 5xx) within 10 s, with Cache-Control: no-store.',
  findings: {
    'paywall-missing': statusFinding(
      'The endpoint answers without payment',
      'critical',
      'An unpaid request got a 2xx: the content is free to anyone who asks, or the paywall is not in front of this route, and an agent is never shown terms to pay.',
      'Put the payment middleware (x402 paymentMiddleware, mppx charge) in front of the route for the method you declared, so a request without a credential is answered 402 with the terms.',
    ),
    'auth-before-paywall': statusFinding(
      'Authentication runs before the paywall',
      'high',
      'An unpaid request got 401 or 403: an agent with no account is refused before it is told it could pay, so a paying agent never sees the terms.',
      'Let the payment check answer first: a request with no credential of any kind gets 402 with the terms (a 401 may still follow for a route that needs both an account and a payment, once the payment is presented).',
    ),
    'validation-before-paywall': statusFinding(
      "Input validation runs before the paywall, and refuses the seller's own example",
      'high',
      "An unpaid request with a schema-valid body (the buyer's, or the seller's own example) got 400 or 422: an agent cannot see the price without first guessing a body the endpoint accepts, and directories that probe with the documented example list nothing.",
      'Answer 402 before validating the body, or make the example body your documentation states one the endpoint accepts.',
    ),
    'endpoint-not-found': statusFinding(
      'The paid endpoint is not found',
      'high',
      'The unpaid request got 404 or 410: the URL an agent was given does not serve anything, so it cannot pay for it.',
      'Serve the route at the address your discovery documents and the 402 terms name, or correct the address they publish.',
    ),
    'method-not-allowed': statusFinding(
      'The declared method is not allowed',
      'high',
      'The unpaid request got 405: the endpoint does not serve the method it is documented with, so an agent that follows the documentation never reaches the paywall.',
      'Serve (and charge for) the method your OpenAPI operation and 402 terms declare, or document the method the route serves.',
    ),
    'server-error-unpaid': statusFinding(
      'The unpaid request gets a server error',
      'high',
      'The unpaid request got a 5xx: an agent cannot learn the price, and cannot tell a broken endpoint from a busy one.',
      'Answer a request with no credential 402 with the terms before any work that can fail; check the server log for the error this request raised.',
    ),
    'no-402': statusFinding(
      'The unpaid request is not answered 402',
      'high',
      'An unpaid request got a status that is neither 402 nor a refusal an agent can act on (a redirect, 429, another 4xx): an agent does not learn it can pay.',
      'Answer a request with no credential 402 Payment Required with PAYMENT-REQUIRED (x402) and/or WWW-Authenticate: Payment (MPP).',
    ),
    'payment-required-without-terms': {
      title: 'A 402 without terms',
      severity: 'high',
      points: 15,
      why: 'The endpoint answers 402 but states neither x402 terms (a PAYMENT-REQUIRED header) nor an MPP challenge (WWW-Authenticate: Payment): an agent knows it must pay but not what, to whom or how.',
      fix: 'Send the terms with the 402: PAYMENT-REQUIRED with a base64-encoded x402 v2 PaymentRequired, and/or one WWW-Authenticate: Payment challenge per MPP method (mppx does both).',
      verify: [TEST_UNPAID('the 402 carries PAYMENT-REQUIRED and/or WWW-Authenticate: Payment.'), VERIFY_AGAIN],
      references: [SOURCES.x402Http, SOURCES.mpp],
    },
    'payment-required-cacheable': {
      title: 'The 402 may be cached',
      severity: 'medium',
      points: 5,
      why: "The 402 has no Cache-Control: no-store: a shared cache or CDN may keep it and hand every agent behind it the same challenge, which is single-use and expires, so their payments are refused.",
      fix: 'Send Cache-Control: no-store with every 402 (and with every paid answer).',
      verify: [TEST_UNPAID('the 402 carries Cache-Control: no-store.'), VERIFY_AGAIN],
      references: [SOURCES.caching, SOURCES.mpp],
    },
  },
};

/** The finding an unpaid answer's status gives, or null for a 402. */
function statusFault(status: number): string | null {
  if (status === 402) return null;
  if (status >= 200 && status < 300) return 'paywall-missing';
  if (status === 401 || status === 403) return 'auth-before-paywall';
  if (status === 400 || status === 422) return 'validation-before-paywall';
  if (status === 404 || status === 410) return 'endpoint-not-found';
  if (status === 405) return 'method-not-allowed';
  if (status >= 500) return 'server-error-unpaid';
  return 'no-402';
}

/** Whether Cache-Control forbids storing the answer: `no-store` among its directives, in any case. */
function noStore(response: FetchResult): boolean {
  return response.headerAll('cache-control').some((value) => value.split(',').some((d) => d.trim().toLowerCase() === 'no-store'));
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  const response = ctx.unpaidResponse;
  if (ctx.unpaid.kind !== 'answer' || response === null) {
    return { state: 'not-tested', why: 'The unpaid request got no HTTP answer.', evidence: [], faults: [] };
  }
  const evidence = [
    {
      request: requestLine(ctx, 'no credential'),
      status: response.status,
      answer: { ms: ctx.unpaid.ms, ...answerEvidence(response, ['cache-control']) },
    },
  ];
  const faults: Fault[] = [];
  const byStatus = statusFault(response.status);
  if (byStatus !== null) {
    faults.push({ id: byStatus, observed: `${ctx.input.method} ${ctx.url.href} with no credential and ${bodyLine(ctx)} was answered ${response.status}.` });
    return { state: 'fail', why: `The unpaid request was answered ${response.status}, not 402.`, evidence, faults };
  }
  if (!statesTerms(ctx.terms)) {
    faults.push({ id: 'payment-required-without-terms', observed: 'The 402 carries no PAYMENT-REQUIRED header and no WWW-Authenticate: Payment challenge.' });
  }
  if (!noStore(response)) {
    const sent = response.headerAll('cache-control');
    faults.push({ id: 'payment-required-cacheable', observed: sent.length === 0 ? 'The 402 has no Cache-Control header.' : `The 402's Cache-Control is "${sent.join(', ')}", without no-store.` });
  }
  if (faults.length > 0) return { state: 'fail', why: 'The unpaid request was answered 402, but not as an agent can rely on.', evidence, faults };
  return { state: 'pass', why: `The unpaid request was answered 402 in ${ctx.unpaid.ms} ms, with terms and Cache-Control: no-store.`, evidence, faults };
}

export const reachability: ProbeItem = { spec: reachabilitySpec, probe };
