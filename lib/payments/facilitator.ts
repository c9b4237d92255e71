// The x402 facilitator client mppx's evm.charge calls (`x402: { facilitator }`): POST /verify and /settle.
// Unlike mppx's built-in client it classifies failures: an unreachable facilitator, a timeout, a 5xx or an
// unreadable answer marks the request scope `unavailable` (the gate answers 503, nothing is charged) and
// surfaces to mppx as a typed payment error, so mppx neither logs nor echoes the cause. A facilitator's
// verdict (isValid=false / success=false) passes through, with its reason code recorded in the scope.
import { Errors, type x402 } from 'mppx';
import { currentScope } from './scope';

/** mppx's facilitator interface (verify + settle, x402 v2 wire types). */
export type FacilitatorClient = x402.Facilitator;

type FacilitatorVerdict = {
  isValid?: boolean;
  success?: boolean;
  invalidReason?: string;
  errorReason?: string;
  [k: string]: unknown;
};

export function httpFacilitator(
  url: string,
  options: { fetch?: typeof fetch; verifyTimeoutMs?: number; settleTimeoutMs?: number } = {},
): FacilitatorClient {
  const base = url.replace(/(?<!\/)\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;

  async function call(path: 'verify' | 'settle', paymentPayload: unknown, paymentRequirements: unknown) {
    const timeoutMs = path === 'verify' ? (options.verifyTimeoutMs ?? 10_000) : (options.settleTimeoutMs ?? 60_000);
    let body: FacilitatorVerdict | undefined;
    // Whether the facilitator may have acted on the request: false only while we know it never arrived.
    let maybeProcessed = true;
    try {
      const response = await doFetch(`${base}/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const parsed = response.status < 500 ? ((await response.json().catch(() => undefined)) as unknown) : undefined;
      const verdictKey = path === 'verify' ? 'isValid' : 'success';
      if (parsed && typeof parsed === 'object' && typeof (parsed as FacilitatorVerdict)[verdictKey] === 'boolean')
        body = parsed as FacilitatorVerdict;
    } catch (error) {
      body = undefined;
      maybeProcessed = !neverSent(error);
    }
    const scope = currentScope();
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

/** A connection that was refused or a name that did not resolve: the request never reached the facilitator. */
function neverSent(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN';
}
