// The x402 facilitator client mppx's evm.charge calls (`x402: { facilitator }`): POST /verify and /settle.
// Unlike mppx's built-in client it classifies failures: an unreachable facilitator, a timeout, a 5xx or an
// unreadable answer marks the request scope `unavailable` (the gate answers 503, nothing is charged) and
// surfaces to mppx as a typed payment error, so mppx neither logs nor echoes the cause. A facilitator's
// verdict (isValid=false / success=false) passes through, with its reason code recorded in the scope. Every
// answer's EXTENSION-RESPONSES header (the directory listing status, for the seller only) goes to `directory`
// (listing.ts) before the verdict is returned.
//
// Transport: undici's `request` on a keep-alive Agent of its own, not WHATWG fetch. Both calls sit inside
// every paid evm/x402 request, and fetch's Request/Headers objects and web-stream bodies cost about 0.7 ms
// of CPU per call here against about 0.1 ms for `request` with a string body (tests/bench/payments.ts,
// section payments-paid-overhead). The deadline is still one AbortSignal over the whole exchange, body
// included, so a facilitator that trickles bytes cannot outlive it.
import { Errors, type x402 } from 'mppx';
import { Agent, request } from 'undici';
import { currentScope, type PaymentEcho } from './scope';
import { facilitatorName, type DirectoryListings } from './listing';

/** mppx's facilitator interface (verify + settle, x402 v2 wire types). */
export type FacilitatorClient = x402.Facilitator;

type FacilitatorVerdict = {
  isValid?: boolean;
  success?: boolean;
  invalidReason?: string;
  errorReason?: string;
  [k: string]: unknown;
};

/** One POST's answer: its status, its EXTENSION-RESPONSES header, and its body as JSON (rejects on a body that is not JSON). */
type Answer = { status: number; extensionResponses: string | undefined; json(): Promise<unknown>; discard(): void };
type Post = (url: string, body: string, signal: AbortSignal) => Promise<Answer>;

// Kept across calls so /verify and /settle (and the next paid request) reuse one warm connection.
let sharedAgent: Agent | undefined;

const viaUndici: Post = async (url, body, signal) => {
  const response = await request(url, {
    method: 'POST',
    // What Node's fetch sent before, less what only a browser means (sec-fetch-mode, accept-language) and
    // accept-encoding (request does not decompress; the answers are a few hundred bytes of JSON).
    headers: { 'content-type': 'application/json', accept: '*/*', 'user-agent': 'node' },
    body,
    signal,
    dispatcher: (sharedAgent ??= new Agent()),
  });
  const extensionResponses = response.headers['extension-responses'];
  return {
    status: response.statusCode,
    // A header sent twice is not one we can read: left out, as a malformed one is.
    extensionResponses: typeof extensionResponses === 'string' ? extensionResponses : undefined,
    json: () => response.body.json(),
    // An unread body would hold its connection: drop it.
    discard: () => void response.body.dump().catch(() => {}),
  };
};

function viaFetch(doFetch: typeof fetch): Post {
  return async (url, body, signal) => {
    const response = await doFetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal });
    return { status: response.status, extensionResponses: response.headers.get('extension-responses') ?? undefined, json: () => response.json(), discard: () => void response.body?.cancel().catch(() => {}) };
  };
}

/**
 * The facilitator at `url` as mppx's x402 facilitator client (`fetch` replaces the HTTP transport, for tests).
 * @example evm.charge({ ..., x402: { facilitator: httpFacilitator(config.x402FacilitatorUrl) } })
 */
export function httpFacilitator(
  url: string,
  options: { fetch?: typeof fetch; verifyTimeoutMs?: number; settleTimeoutMs?: number; directory?: DirectoryListings } = {},
): FacilitatorClient {
  const base = url.replace(/(?<!\/)\/+$/, '');
  const facilitator = facilitatorName(base);
  const post = options.fetch ? viaFetch(options.fetch) : viaUndici;

  async function call(path: 'verify' | 'settle', paymentPayload: unknown, paymentRequirements: unknown) {
    const timeoutMs = path === 'verify' ? (options.verifyTimeoutMs ?? 10_000) : (options.settleTimeoutMs ?? 60_000);
    let body: FacilitatorVerdict | undefined;
    // Whether the facilitator may have acted on the request: false only while we know it never arrived.
    let maybeProcessed = true;
    let extensionResponses: string | undefined;
    try {
      const response = await post(
        `${base}/${path}`,
        JSON.stringify({ x402Version: 2, paymentPayload: withEcho(paymentPayload, currentScope()?.echo), paymentRequirements }),
        AbortSignal.timeout(timeoutMs),
      );
      extensionResponses = response.extensionResponses;
      if (response.status >= 500) response.discard();
      const parsed = response.status < 500 ? ((await response.json().catch(() => undefined)) as unknown) : undefined;
      const verdictKey = path === 'verify' ? 'isValid' : 'success';
      if (parsed && typeof parsed === 'object' && typeof (parsed as FacilitatorVerdict)[verdictKey] === 'boolean')
        body = parsed as FacilitatorVerdict;
    } catch (error) {
      body = undefined;
      maybeProcessed = !neverSent(error);
    }
    const scope = currentScope();
    if (extensionResponses !== undefined && options.directory && scope?.resource)
      await options.directory.heard(extensionResponses, { resource: scope.resource, facilitator, via: path });
    if (!body) {
      if (scope) {
        scope.unavailable = true;
        if (path === 'settle' && maybeProcessed) scope.ambiguous = true;
      }
      throw new Errors.VerificationFailedError({ reason: 'payment facilitator unavailable' });
    }
    const reason = body.invalidReason ?? body.errorReason;
    if (scope && typeof reason === 'string') scope.facilitatorReason = reason;
    return body;
  }

  return {
    verify: async (payload, requirements) =>
      (await call('verify', payload, requirements)) as unknown as Awaited<ReturnType<FacilitatorClient['verify']>>,
    settle: async (payload, requirements) =>
      (await call('settle', payload, requirements)) as unknown as Awaited<ReturnType<FacilitatorClient['settle']>>,
  };
}

/**
 * The payment as the facilitator should see it. mppx sends it only the accepted terms and the signed authorization;
 * x402's own resource server sends the whole payment, the `resource` and `extensions` the buyer echoed included,
 * and a facilitator that keeps a directory (the Bazaar) lists a resource from those: without them it has nothing to
 * list, and says so in EXTENSION-RESPONSES (listing.ts `none`). Neither part changes what is verified or settled.
 */
function withEcho(paymentPayload: unknown, echo: PaymentEcho | undefined): unknown {
  if (!echo || typeof paymentPayload !== 'object' || paymentPayload === null) return paymentPayload;
  const payment = paymentPayload as Record<string, unknown>;
  return {
    ...payment,
    ...(payment.resource === undefined && echo.resource !== undefined && { resource: echo.resource }),
    ...(payment.extensions === undefined && echo.extensions !== undefined && { extensions: echo.extensions }),
  };
}

/** A connection that was refused or a name that did not resolve: the request never reached the facilitator. */
function neverSent(error: unknown): boolean {
  // undici's request throws the socket's error itself; fetch wraps it as its cause.
  const failed = error as { code?: string; cause?: { code?: string } } | undefined;
  const code = failed?.code ?? failed?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}
