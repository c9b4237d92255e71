import { decodePaymentSignatureHeader } from '@x402/core/http';
import { Credential } from 'mppx';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, type EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { AGENT_ORIGIN } from '@/lib/checks/payment-endpoint/cors';
import type { ItemId } from '@/lib/checks/payment-endpoint/types';
import { sellerForThisFile } from './seller-per-file';

// The behaviour items (reachability, bad credentials, CORS) against this service as seller on the local rails,
// then against sellers with exactly one defect each: each defect gets its own finding id, and no other finding
// of these items. One seller serves every test; `defect` is the one thing it changes, none for the correct one.

type Handler = (request: Request) => Promise<Response>;
type Defect = (request: Request, next: Handler) => Promise<Response>;

const PATH = '/api/agent/readiness';
const MINE: readonly ItemId[] = ['reachability', 'bad-credentials', 'cors'];

let defect: Defect | null = null;
const live = sellerForThisFile({ tamper: (request, next) => (defect ? defect(request, next) : next(request)) });
beforeEach(() => {
  defect = null;
});

const check = () => checkPaymentEndpoint({ url: `${live.seller.origin}${PATH}`, method: 'POST', paidRoundTrip: false });
const item = (report: EndpointReport, id: ItemId) => report.items.find((i) => i.id === id)!;
const states = (report: EndpointReport) => MINE.map((id) => item(report, id).state);
const findingIds = (report: EndpointReport) => report.findings.filter((f) => MINE.includes(f.item)).map((f) => f.id);
const finding = (report: EndpointReport, id: string) => report.findings.find((f) => f.id === id)!;

/** A request to the paid route that carries no credential of either protocol. */
const unpaidCall = (request: Request) =>
  new URL(request.url).pathname === PATH && request.method === 'POST' && !request.headers.has('authorization') && !request.headers.has('payment-signature');

const problem = (status: number, title: string) =>
  new Response(JSON.stringify({ type: `https://seller.test/problems/${status}`, title, status }), { status, headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' } });

/** `response` with its headers changed by `edit`. */
async function withHeaders(response: Response, edit: (headers: Headers) => void): Promise<Response> {
  const headers = new Headers(response.headers);
  edit(headers);
  // A preflight's 204 may carry no body, not even an empty one.
  const body = response.status === 204 ? null : await response.arrayBuffer();
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

/** Whether a credential header of either protocol fails to decode, as the seller's own decoders read it. */
function malformedCredential(request: Request): boolean {
  const authorization = request.headers.get('authorization');
  const signature = request.headers.get('payment-signature');
  try {
    if (authorization !== null) Credential.deserialize(authorization);
    if (signature !== null) decodePaymentSignatureHeader(signature);
    return false;
  } catch {
    return true;
  }
}

describe('the correct seller (this service)', () => {
  it('passes reachability, bad credentials and CORS with no finding', async () => {
    const report = await check();
    expect(states(report)).toEqual(['pass', 'pass', 'pass']);
    expect(findingIds(report)).toEqual([]);

    const [unpaid] = item(report, 'reachability').evidence;
    expect(unpaid!.status).toBe(402);
    expect(unpaid!.request).toMatch(/^POST http:\/\/seller\.test\/api\/agent\/readiness with no credential and the seller's OpenAPI example body \(\d+ bytes\)$/);
    expect(unpaid!.answer).toMatchObject({ 'cache-control': 'no-store', body: { title: expect.any(String) } });
    const terms = (unpaid!.answer as { terms: { x402: { x402Version: number; accepts: unknown[] }; mpp: { challenges: Array<{ method: string }> } } }).terms;
    expect(terms.x402.x402Version).toBe(2);
    expect(terms.mpp.challenges.map((c) => c.method)).toEqual(['stripe', 'evm']);

    const bad = item(report, 'bad-credentials').evidence;
    expect(bad.map((e) => e.status)).toEqual([402, 402, 402, 402]);
    expect(bad.map((e) => (e.answer as { body: { reason: string } }).body.reason)).toEqual(['malformed-credential', 'malformed-credential', 'invalid-challenge', 'expired']);
    expect(bad.map((e) => (e.answer as { terms: { x402: unknown; mpp: { challenges: unknown[] } } }).terms.mpp.challenges.length)).toEqual([2, 2, 2, 2]);
    expect(bad[2]!.request).toMatch(/with an MPP credential \(Authorization: Payment\) for its evm challenge \S+ with expires set to /);
    expect(bad[3]!.request).toMatch(/with an x402 PAYMENT-SIGNATURE for its eip155:8453 terms whose EIP-3009 authorization expired at /);
    expect(bad[3]!.note).toMatch(/^Signed by 0x[0-9a-fA-F]{40}, a key made for this check that holds no funds\.$/);

    const [cross, preflight] = item(report, 'cors').evidence;
    expect(cross).toEqual({
      request: `POST http://seller.test${PATH} with no credential, from Origin: ${AGENT_ORIGIN}, and ${unpaid!.request.split(' and ')[1]}`,
      status: 402,
      answer: {
        'access-control-allow-origin': '*',
        'access-control-allow-credentials': null,
        'access-control-expose-headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, Payment-Receipt, WWW-Authenticate, Idempotent-Replayed, Credits-Remaining, Link, Retry-After, X-Request-Id',
      },
    });
    expect(preflight).toMatchObject({
      request: `OPTIONS http://seller.test${PATH} with Origin: ${AGENT_ORIGIN}, Access-Control-Request-Method: POST, Access-Control-Request-Headers: authorization,content-type,idempotency-key,payment-signature`,
      status: 204,
    });

    expect(report.requests.map((r) => [r.purpose, r.status]).filter(([p]) => String(p).startsWith('bad credential') || String(p).startsWith('CORS'))).toEqual([
      ['bad credential: malformed Authorization: Payment', 402],
      ['bad credential: malformed PAYMENT-SIGNATURE', 402],
      ['bad credential: MPP credential for an expired challenge', 402],
      ['bad credential: expired x402 authorization', 402],
      ['CORS: unpaid request from another origin', 402],
      ['CORS: preflight of a paid request', 204],
    ]);
  });
});

describe('a seller with one reachability defect', () => {
  it('401 before the paywall: auth-before-paywall only', async () => {
    defect = (request, next) => (unpaidCall(request) ? Promise.resolve(problem(401, 'Sign in first')) : next(request));
    const report = await check();
    expect(findingIds(report)).toEqual(['auth-before-paywall']);
    expect(states(report)).toEqual(['fail', 'not-tested', 'not-tested']);
    expect(finding(report, 'auth-before-paywall')).toMatchObject({ severity: 'high', pointsLost: 15 });
    expect(finding(report, 'auth-before-paywall').observed).toMatch(/^POST http:\/\/seller\.test\/api\/agent\/readiness with no credential and the seller's OpenAPI example body \(\d+ bytes\) was answered 401\.$/);
    expect(item(report, 'reachability').evidence[0]).toMatchObject({ status: 401, answer: { body: { title: 'Sign in first' }, terms: { x402: null, mpp: null } } });
  });

  it('400 to the seller’s own example before the paywall: validation-before-paywall only', async () => {
    defect = (request, next) => (unpaidCall(request) ? Promise.resolve(problem(400, 'Invalid body')) : next(request));
    const report = await check();
    expect(findingIds(report)).toEqual(['validation-before-paywall']);
    expect(states(report)).toEqual(['fail', 'not-tested', 'not-tested']);
    expect(item(report, 'reachability').evidence[0]).toMatchObject({ status: 400, answer: { body: { title: 'Invalid body' } } });
  });

  it('200 without payment: paywall-missing only', async () => {
    defect = (request, next) => (unpaidCall(request) ? Promise.resolve(Response.json({ free: true })) : next(request));
    const report = await check();
    expect(findingIds(report)).toEqual(['paywall-missing']);
    expect(finding(report, 'paywall-missing')).toMatchObject({ severity: 'critical', pointsLost: 15 });
    expect(states(report)).toEqual(['fail', 'not-tested', 'not-tested']);
  });

  it('a 402 without Cache-Control: no-store: payment-required-cacheable only', async () => {
    defect = async (request, next) => {
      const response = await next(request);
      return response.status === 402 ? withHeaders(response, (h) => h.delete('cache-control')) : response;
    };
    const report = await check();
    expect(findingIds(report)).toEqual(['payment-required-cacheable']);
    expect(finding(report, 'payment-required-cacheable')).toMatchObject({ severity: 'medium', pointsLost: 5, observed: 'The 402 has no Cache-Control header.' });
    expect(states(report)).toEqual(['fail', 'pass', 'pass']);
    expect(item(report, 'reachability').points).toBe(10);
  });

  it('a 402 with no terms: payment-required-without-terms only', async () => {
    defect = async (request, next) => {
      const response = await next(request);
      return response.status === 402
        ? withHeaders(response, (h) => {
            h.delete('payment-required');
            h.delete('www-authenticate');
          })
        : response;
    };
    const report = await check();
    expect(findingIds(report)).toEqual(['payment-required-without-terms']);
    expect(states(report)).toEqual(['fail', 'not-tested', 'pass']);
  });
});

describe('bad credentials go only to the rails the 402 offers', () => {
  it.each([
    { offers: 'MPP only', strip: 'payment-required', sent: ['bad credential: malformed Authorization: Payment', 'bad credential: MPP credential for an expired challenge'] },
    { offers: 'x402 only', strip: 'www-authenticate', sent: ['bad credential: malformed PAYMENT-SIGNATURE', 'bad credential: expired x402 authorization'] },
  ])('a 402 with $offers gets bad credentials of that rail only, and passes', async ({ strip, sent }) => {
    defect = async (request, next) => withHeaders(await next(request), (h) => h.delete(strip));
    const report = await check();
    expect(findingIds(report)).toEqual([]);
    expect(states(report)).toEqual(['pass', 'pass', 'pass']);
    expect(report.requests.filter((r) => r.purpose.startsWith('bad credential')).map((r) => [r.purpose, r.status])).toEqual(sent.map((p) => [p, 402]));
  });
});

describe('a seller with one bad-credentials defect', () => {
  it('500 on a malformed credential: bad-credential-server-error only, naming both malformed credentials', async () => {
    defect = (request, next) => (malformedCredential(request) ? Promise.resolve(problem(500, 'Internal Server Error')) : next(request));
    const report = await check();
    expect(findingIds(report)).toEqual(['bad-credential-server-error']);
    expect(states(report)).toEqual(['pass', 'fail', 'pass']);
    expect(finding(report, 'bad-credential-server-error')).toMatchObject({
      severity: 'high',
      pointsLost: 10,
      observed: 'a malformed Authorization: Payment (base64url of plain text, not a credential) got 500; a malformed PAYMENT-SIGNATURE (base64 of plain text, not JSON) got 500.',
    });
    expect(item(report, 'bad-credentials').evidence.map((e) => e.status)).toEqual([500, 500, 402, 402]);
  });
});

describe('a seller that serves a malformed credential', () => {
  it('200 to a malformed credential: bad-credential-accepted only', async () => {
    defect = (request, next) => (malformedCredential(request) ? Promise.resolve(Response.json({ served: true })) : next(request));
    const report = await check();
    expect(findingIds(report)).toEqual(['bad-credential-accepted']);
    expect(finding(report, 'bad-credential-accepted')).toMatchObject({ severity: 'critical', pointsLost: 10 });
    expect(item(report, 'bad-credentials').evidence.map((e) => e.status)).toEqual([200, 200, 402, 402]);
  });
});

describe('a seller with one CORS defect', () => {
  it('Access-Control-Expose-Headers without the payment headers: cors-payment-headers-not-exposed only', async () => {
    defect = async (request, next) => withHeaders(await next(request), (h) => h.set('access-control-expose-headers', 'Link, X-Request-Id'));
    const report = await check();
    expect(findingIds(report)).toEqual(['cors-payment-headers-not-exposed']);
    expect(states(report)).toEqual(['pass', 'pass', 'fail']);
    expect(finding(report, 'cors-payment-headers-not-exposed')).toMatchObject({
      severity: 'medium',
      pointsLost: 3,
      observed: 'Access-Control-Expose-Headers is "Link, X-Request-Id": PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt not exposed.',
    });
  });

  it('a preflight that does not allow PAYMENT-SIGNATURE: cors-credential-headers-not-allowed only', async () => {
    defect = async (request, next) => {
      const response = await next(request);
      return request.method === 'OPTIONS' ? withHeaders(response, (h) => h.set('access-control-allow-headers', 'Authorization, Content-Type, Idempotency-Key')) : response;
    };
    const report = await check();
    expect(findingIds(report)).toEqual(['cors-credential-headers-not-allowed']);
    expect(states(report)).toEqual(['pass', 'pass', 'fail']);
    expect(finding(report, 'cors-credential-headers-not-allowed').observed).toBe('Access-Control-Allow-Headers is "Authorization, Content-Type, Idempotency-Key": PAYMENT-SIGNATURE not allowed.');
  });

  it('a preflight without Access-Control-Allow-Origin: cors-preflight-refused only', async () => {
    defect = async (request, next) => {
      const response = await next(request);
      return request.method === 'OPTIONS' ? withHeaders(response, (h) => h.delete('access-control-allow-origin')) : response;
    };
    const report = await check();
    expect(findingIds(report)).toEqual(['cors-preflight-refused']);
    expect(finding(report, 'cors-preflight-refused')).toMatchObject({ pointsLost: 5, observed: 'The preflight was answered 204 with Access-Control-Allow-Origin absent.' });
  });

  it('a wildcard with credentials admitted covers nothing: cors-payment-headers-not-exposed only', async () => {
    defect = async (request, next) =>
      withHeaders(await next(request), (h) => {
        h.set('access-control-allow-origin', AGENT_ORIGIN);
        h.set('access-control-allow-credentials', 'true');
        h.set('access-control-expose-headers', '*');
      });
    const report = await check();
    expect(findingIds(report)).toEqual(['cors-payment-headers-not-exposed']);
    expect(finding(report, 'cors-payment-headers-not-exposed').observed).toBe(
      'Access-Control-Expose-Headers is "*" (its * does not count: the answer admits credentials): PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate, Payment-Receipt not exposed.',
    );
  });
});
