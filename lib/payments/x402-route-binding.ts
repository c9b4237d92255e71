// mppx's own x402 client (the `mppx` CLI, mppx/client's evm method) binds a payment to its route: it echoes the
// 402's `extensions.mppx` with a random salt (`info.nonce`) and signs, as the EIP-3009 authorization nonce,
//   sha256( serialize(accepted) | serialize(resource) | serialize(extensions) )
// over the `resource` and `extensions` it echoes. mppx's x402 server checks such a payment against the resource
// IT would offer, `{ url }` alone: the echoed resource must deep-equal `{ url }` and the nonce is recomputed over
// `{ url }`. Our 402 offers more in `resource` (description, mimeType, serviceName, tags: what directories list,
// see x402-extensions.ts), so a route-bound payment that echoes exactly our offer fails both of mppx's checks
// ("resource does not match route resource") though it is bound to our route as tightly as mppx asks.
//
// Neither mppx check can be satisfied by rewriting the echo: the nonce is signed. So for that one case (a salted
// `extensions.mppx` AND a resource equal, field for field, to the one our 402 offered for this operation) we run
// mppx's route-binding check ourselves against the resource we offered: the same `extensions.mppx` (schema, and
// info but for the salt) and the signed nonce recomputed over our resource. Only a payment that passes goes on to
// mppx, without its salt, which makes mppx check it as x402 defines a binding (the resource's url, the accepted
// requirements, the signature through the facilitator, single use) rather than by a nonce computed over
// a resource it never offered. Any other payment goes to mppx untouched, so mppx's checks stay whole for it.
// Dropping the enriched resource from the 402 instead would have cost every x402 directory its listing text.
import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { PaymentRequest, x402 } from 'mppx';
import type { PaymentRequired } from '@x402/core/types';

/** The extension mppx binds routes with. */
const MPPX_EXTENSION = 'mppx';

interface EchoedPayment {
  accepted?: unknown;
  resource?: unknown;
  extensions?: Record<string, { info?: Record<string, unknown>; schema?: unknown } | undefined>;
  payload?: { authorization?: { nonce?: unknown } };
}

/**
 * What to hand mppx for an x402 payment `signature` (decoded: `payment`) presented against the x402 terms we
 * `offered` for its operation: the signature unchanged (`{ signature }`), the same payment without mppx's route
 * salt once its binding to our offered resource is proven (`{ signature }`, re-encoded), or `mismatch` for a
 * payment that echoes our resource but is not bound to it.
 * @example
 *   const forMppx = mppxRouteBinding(payment, signature, await offeredX402(rails, resourceUrl))
 *   if (forMppx === 'mismatch') return refuse('terms-mismatch')
 */
export function mppxRouteBinding(payment: unknown, signature: string, offered: PaymentRequired | null): { signature: string } | 'mismatch' {
  const echoed = payment as EchoedPayment;
  const binding = echoed.extensions?.[MPPX_EXTENSION];
  const salt = binding?.info?.nonce;
  // Not route-bound, or bound to mppx's own `{ url }`, or echoing a resource we did not offer: mppx decides.
  if (salt === undefined || offered === null || !isDeepStrictEqual(echoed.resource, offered.resource)) return { signature };
  if (isDeepStrictEqual(echoed.resource, { url: offered.resource.url })) return { signature };
  const offeredBinding = offered.extensions?.[MPPX_EXTENSION] as { info?: unknown; schema?: unknown } | undefined;
  const { nonce: _salt, ...info } = binding!.info!;
  if (
    typeof salt !== 'string' ||
    offeredBinding === undefined ||
    !isDeepStrictEqual(binding!.schema, offeredBinding.schema) ||
    !isDeepStrictEqual(info, offeredBinding.info) ||
    echoed.payload?.authorization?.nonce !== routeNonce(echoed.accepted, offered.resource, echoed.extensions)
  ) {
    return 'mismatch';
  }
  const unsalted = { ...echoed, extensions: { ...echoed.extensions, [MPPX_EXTENSION]: { ...binding, info } } };
  return { signature: x402.Header.encodePaymentSignature(unsalted as unknown as Parameters<typeof x402.Header.encodePaymentSignature>[0]) };
}

/** mppx's route-bound EIP-3009 nonce (its x402 RouteBinding.nonce), over the resource we offered. */
function routeNonce(accepted: unknown, resource: unknown, extensions: unknown): string {
  const input = [accepted, resource, extensions].map((part) => PaymentRequest.serialize(part as Record<string, unknown>)).join('|');
  return `0x${crypto.createHash('sha256').update(input, 'utf8').digest('hex')}`;
}
