import type { FetchResult } from '@/lib/outbound/safe-fetch';
import { headerEvidence, requestLine } from './answer';
import type { ProbeContext, ProbeItem } from './context';
import type { Evidence, Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// CORS for browser agents: a page on another origin pays only if its browser lets it read the terms of the 402
// and the receipts of the paid answer, and lets it send the credential. The check asks as a browser would: the
// unpaid request again with an Origin, then the preflight a page's paid request needs. Both are sent because
// many servers add CORS headers only to requests that carry an Origin, and the first unpaid request carried none.

/** The origin the check's CORS requests come from: a page that is not the seller's. */
export const AGENT_ORIGIN = 'https://agent.example';
/** What a page must read of a 402 and of a paid answer, besides the CORS-safelisted response headers. */
const MUST_EXPOSE = ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'WWW-Authenticate', 'Payment-Receipt'] as const;
/** What a page's paid request sends that a preflight must allow: both protocols' credentials and the retry key. */
const MUST_ALLOW = ['PAYMENT-SIGNATURE', 'Authorization', 'Idempotency-Key'] as const;

const VERIFY_AGAIN = rerun('the CORS for browser agents item passes');
const VERIFY_ANSWER = `curl -i -H 'Origin: ${AGENT_ORIGIN}' <the documented request>: the 402 carries Access-Control-Allow-Origin (${AGENT_ORIGIN} or *) and Access-Control-Expose-Headers naming ${MUST_EXPOSE.join(', ')}.`;
const VERIFY_PREFLIGHT = `curl -i -X OPTIONS -H 'Origin: ${AGENT_ORIGIN}' -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: authorization,content-type,idempotency-key,payment-signature' <url>: a 2xx with Access-Control-Allow-Origin and Access-Control-Allow-Headers naming ${MUST_ALLOW.join(', ')}.`;

const finding = (spec: Omit<FindingSpec, 'references' | 'severity'>, preflight: boolean): FindingSpec => ({
  ...spec,
  severity: 'medium',
  verify: [...spec.verify, VERIFY_AGAIN],
  references: [preflight ? SOURCES.preflight : SOURCES.cors, SOURCES.x402Http, SOURCES.mpp],
});

const corsSpec: ItemSpec = {
  id: 'cors',
  title: 'CORS for browser agents',
  points: 5,
  verifies: 'Access-Control-Expose-Headers names PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate and Payment-Receipt, and a preflight allows PAYMENT-SIGNATURE, Authorization and Idempotency-Key.',
  findings: {
    'cors-origin-not-allowed': finding(
      {
        title: 'The 402 is closed to pages on other origins',
        points: 5,
        why: "The 402 to a request from another origin has no Access-Control-Allow-Origin for it: a browser agent's page reads nothing of the answer, not even its status, so it cannot pay.",
        fix: 'Send Access-Control-Allow-Origin (the calling origin, or * for a public API without cookies) on the paid route, the 402 included.',
        verify: [VERIFY_ANSWER],
      },
      false,
    ),
    'cors-payment-headers-not-exposed': finding(
      {
        title: 'The payment headers are hidden from pages',
        points: 3,
        why: "Access-Control-Expose-Headers does not name every payment header: a browser hides the rest from the page, so a browser agent sees a 402 with no terms, or a paid answer with no receipt.",
        fix: `Add ${MUST_EXPOSE.join(', ')} to Access-Control-Expose-Headers on the paid route's answers (402 and 200).`,
        verify: [VERIFY_ANSWER],
      },
      false,
    ),
    'cors-preflight-refused': finding(
      {
        title: 'The preflight of a paid request fails',
        points: 5,
        why: 'A preflight for the paid request was not answered 2xx with Access-Control-Allow-Origin: the browser never sends the request that carries the payment.',
        fix: 'Answer OPTIONS on the paid route 204 with Access-Control-Allow-Origin, Access-Control-Allow-Methods and Access-Control-Allow-Headers, before any payment or authentication check.',
        verify: [VERIFY_PREFLIGHT],
      },
      true,
    ),
    'cors-credential-headers-not-allowed': finding(
      {
        title: 'The preflight does not allow the payment headers',
        points: 3,
        why: "Access-Control-Allow-Headers does not name every header a paid request sends: the browser refuses to send the credential (PAYMENT-SIGNATURE, Authorization) or the retry key (Idempotency-Key), so a browser agent cannot pay.",
        fix: `Add ${MUST_ALLOW.join(', ')} (and Content-Type for a JSON body) to Access-Control-Allow-Headers on the paid route's preflight; name Authorization explicitly, as * never covers it.`,
        verify: [VERIFY_PREFLIGHT],
      },
      true,
    ),
  },
};

/** Header names in a comma-separated list, lower-cased. */
function listed(response: FetchResult, header: string): Set<string> {
  return new Set(
    response
      .headerAll(header)
      .flatMap((v) => v.split(','))
      .map((v) => v.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Whether the answer lets a page on AGENT_ORIGIN read it. */
function allowsOrigin(response: FetchResult): boolean {
  const value = response.header('access-control-allow-origin')?.trim();
  return value === '*' || value === AGENT_ORIGIN;
}

/**
 * Whether the answer admits credentialed requests. The Fetch standard reads `*` in Access-Control-Expose-Headers
 * and Access-Control-Allow-Headers as "any header" only for a request whose credentials mode is not "include";
 * for a credentialed request it is a header literally named `*`. A seller that says
 * Access-Control-Allow-Credentials: true expects credentialed requests, so its `*` covers nothing for them.
 */
function credentialed(response: FetchResult): boolean {
  return response.header('access-control-allow-credentials')?.trim().toLowerCase() === 'true';
}

/** The names of `required` a list does not cover. `*` covers all but Authorization, which Fetch never lets a wildcard cover, and only without credentials. */
function uncovered(response: FetchResult, header: string, required: readonly string[]): string[] {
  const names = listed(response, header);
  const wildcard = names.has('*') && !credentialed(response);
  return required.filter((name) => !names.has(name.toLowerCase()) && !(wildcard && name.toLowerCase() !== 'authorization'));
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  if (ctx.unpaidResponse?.status !== 402) {
    return { state: 'not-tested', why: 'The unpaid request was not answered 402, so there are no payment headers for a page to read.', evidence: [], faults: [] };
  }
  const evidence: Evidence[] = [];
  const faults: Fault[] = [];
  let judged = 0;

  const request = requestLine(ctx, `no credential, from Origin: ${AGENT_ORIGIN},`);
  const answer = await ctx.http.send({
    purpose: 'CORS: unpaid request from another origin',
    method: ctx.input.method,
    url: ctx.url,
    headers: { ...ctx.requestHeaders, origin: AGENT_ORIGIN },
    ...(ctx.body !== undefined ? { body: ctx.body } : {}),
  });
  if (answer.kind === 'answer') {
    judged += 1;
    const { response } = answer;
    evidence.push({ request, status: response.status, answer: headerEvidence(response, ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers']) });
    if (!allowsOrigin(response)) {
      const sent = response.header('access-control-allow-origin');
      faults.push({ id: 'cors-origin-not-allowed', observed: sent === null ? `The ${response.status} to a request from ${AGENT_ORIGIN} has no Access-Control-Allow-Origin.` : `The ${response.status} to a request from ${AGENT_ORIGIN} allows "${sent}" only.` });
    } else {
      const missing = uncovered(response, 'access-control-expose-headers', MUST_EXPOSE);
      const sent = response.headerAll('access-control-expose-headers').join(', ');
      if (missing.length > 0) {
        faults.push({
          id: 'cors-payment-headers-not-exposed',
          observed: `Access-Control-Expose-Headers ${sent === '' ? 'is absent' : `is "${sent}"`}${credentialed(response) && listed(response, 'access-control-expose-headers').has('*') ? ' (its * does not count: the answer admits credentials)' : ''}: ${missing.join(', ')} not exposed.`,
        });
      }
    }
  } else {
    evidence.push({ request, status: null, note: `Not answered: ${answer.message}` });
  }

  const askHeaders = ['authorization', ...(ctx.body !== undefined ? ['content-type'] : []), 'idempotency-key', 'payment-signature'];
  const preflight = await ctx.http.send({
    purpose: 'CORS: preflight of a paid request',
    method: 'OPTIONS',
    url: ctx.url,
    headers: { origin: AGENT_ORIGIN, 'access-control-request-method': ctx.input.method, 'access-control-request-headers': askHeaders.join(',') },
  });
  const preflightRequest = `OPTIONS ${ctx.url.href} with Origin: ${AGENT_ORIGIN}, Access-Control-Request-Method: ${ctx.input.method}, Access-Control-Request-Headers: ${askHeaders.join(',')}`;
  if (preflight.kind === 'answer') {
    judged += 1;
    const { response } = preflight;
    const headers = headerEvidence(response, ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-allow-methods', 'access-control-allow-headers']);
    evidence.push({ request: preflightRequest, status: response.status, answer: headers });
    if (response.status < 200 || response.status > 299 || !allowsOrigin(response)) {
      faults.push({ id: 'cors-preflight-refused', observed: `The preflight was answered ${response.status} with Access-Control-Allow-Origin ${headers['access-control-allow-origin'] === null ? 'absent' : `"${headers['access-control-allow-origin']}"`}.` });
    } else {
      // Content-Type is asked for too when a JSON body is sent: without it the browser sends nothing at all.
      const missing = uncovered(response, 'access-control-allow-headers', [...MUST_ALLOW, ...(ctx.body !== undefined ? ['Content-Type'] : [])]);
      if (missing.length > 0) {
        const sent = headers['access-control-allow-headers'];
        faults.push({ id: 'cors-credential-headers-not-allowed', observed: `Access-Control-Allow-Headers ${sent === null ? 'is absent' : `is "${sent}"`}: ${missing.join(', ')} not allowed.` });
      }
    }
  } else {
    evidence.push({ request: preflightRequest, status: null, note: `Not answered: ${preflight.message}` });
  }

  if (judged === 0) return { state: 'not-tested', why: 'Neither CORS request could be sent or answered.', evidence, faults };
  if (faults.length > 0) return { state: 'fail', why: 'A browser agent on another origin cannot read the terms or send the payment.', evidence, faults };
  if (judged < 2) return { state: 'not-tested', why: 'Only one of the two CORS requests was answered.', evidence, faults };
  return { state: 'pass', why: `A page on ${AGENT_ORIGIN} may read the payment headers of the 402 and send both credentials and an Idempotency-Key.`, evidence, faults };
}

export const cors: ProbeItem = { spec: corsSpec, probe };
