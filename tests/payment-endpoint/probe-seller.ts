// A minimal x402 seller on the rails' second chain (eip155:84532), for the paid round trip: this service is fixed to
// chain 8453, so the probe's default network needs a seller of its own. Built on the official @x402/core resource
// server and the exact EVM scheme, settled by the rails' local facilitator. It sells POST /paid (a JSON body with a
// required `url` string) for 0.01 USDC and declares the payment-identifier extension. `defect` gives it exactly one
// fault of the three the paid round trip must catch.
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import type { Hex } from 'viem';
import type { Rails } from '../../scripts/rails/start';
import { serveWebHandler } from '../support/web-server';

const PROBE_SELLER_HOST = 'probe-seller.test';
export const PROBE_SELLER_PRICE = 10_000n;

export type ProbeSellerDefect = 'replay-settles-twice' | 'payment-identifier-ignored' | 'settles-invalid-input';

export interface ProbeSeller {
  url: string;
  close(): Promise<void>;
}

const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'probe seller', version: '1' },
  paths: {
    '/paid': {
      post: {
        requestBody: { content: { 'application/json': { example: { url: 'https://example.com/' }, schema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } } } } },
        responses: { '200': { content: { 'application/json': {} } }, '402': { description: 'Payment Required' } },
      },
    },
  },
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * Serves the seller as http://probe-seller.test until `close`.
 * @example const seller = await startProbeSeller(rails, 'settles-invalid-input');
 */
export async function startProbeSeller(rails: Rails, defect?: ProbeSellerDefect): Promise<ProbeSeller> {
  const chain = rails.probe!;
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: rails.facilitatorUrl }));
  server.register(chain.network as `${string}:${string}`, new ExactEvmScheme());
  await server.initialize();
  const [requirements] = await server.buildPaymentRequirements({
    scheme: 'exact',
    network: chain.network as `${string}:${string}`,
    payTo: chain.payTo,
    // TestUSDC's EIP-712 domain is "USD Coin" version 2 on every chain it is placed on.
    price: { amount: String(PROBE_SELLER_PRICE), asset: chain.usdcAddress, extra: { name: 'USD Coin', version: '2' } },
    maxTimeoutSeconds: 300,
  });
  const extensions = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
  const answers = new Map<string, { body: string; response: string }>();
  const settledSignatures = new Set<string>();

  const handle = async (request: Request): Promise<Response> => {
    const { pathname, href } = new URL(request.url);
    if (pathname === '/openapi.json') return json(200, OPENAPI);
    if (pathname !== '/paid' || request.method !== 'POST') return new Response('not found', { status: 404 });
    const body = await request.text();
    const paymentRequired = () => server.createPaymentRequiredResponse([requirements], { url: `http://${PROBE_SELLER_HOST}/paid`, description: 'probe seller', mimeType: 'application/json' }, undefined, extensions);
    const refuse = async (error?: string) => json(402, { error: error ?? 'payment required' }, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader({ ...(await paymentRequired()), ...(error ? { error } : {}) }), 'cache-control': 'no-store' });
    const signature = request.headers.get('payment-signature');
    if (!signature) return refuse();
    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignatureHeader(signature);
    } catch {
      return refuse('malformed PAYMENT-SIGNATURE');
    }
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
    const valid = !!parsed && typeof (parsed as { url?: unknown }).url === 'string';
    const id = extractPaymentIdentifier(payload);
    if (settledSignatures.has(signature) && defect === 'replay-settles-twice') {
      // The defect: the resent payment is charged again (as no honest seller could, by moving the payer's USDC itself).
      const tx = await chain.forceTransfer((payload.payload.authorization as { from: Hex }).from, chain.payTo, PROBE_SELLER_PRICE);
      return json(200, { ok: true }, { 'PAYMENT-RESPONSE': encodePaymentResponseHeader({ success: true, transaction: tx, network: chain.network as `${string}:${string}`, payer: chain.wallet.address }) });
    }
    if (id && defect !== 'payment-identifier-ignored') {
      const kept = answers.get(id);
      if (kept && kept.body !== body) return json(409, { error: 'payment-identifier used for another request' });
      if (kept) return new Response(kept.response, { status: 200, headers: { 'content-type': 'application/json' } });
    }
    if (settledSignatures.has(signature)) return refuse('payment already used');
    if (!valid && defect !== 'settles-invalid-input') return json(400, { error: 'body.url must be a string' });
    const verified = await server.verifyPayment(payload, requirements);
    if (!verified.isValid) return refuse(verified.invalidReason ?? 'invalid payment');
    const settled = await server.settlePayment(payload, requirements);
    if (!settled.success) return refuse(settled.errorReason ?? 'settlement failed');
    settledSignatures.add(signature);
    if (!valid) return json(400, { error: 'body.url must be a string' });
    const response = JSON.stringify({ ok: true, url: (parsed as { url: string }).url, at: href });
    if (id) answers.set(id, { body, response });
    return new Response(response, { status: 200, headers: { 'content-type': 'application/json', 'PAYMENT-RESPONSE': encodePaymentResponseHeader(settled) } });
  };

  const web = await serveWebHandler(handle);
  const port = Number(new URL(web.url).port);
  const previousMap = process.env.CHECK_HOST_MAP;
  process.env.CHECK_HOST_MAP = [previousMap, `${PROBE_SELLER_HOST}=127.0.0.1:${port}`].filter(Boolean).join(',');
  return {
    url: `http://${PROBE_SELLER_HOST}/paid`,
    close: async () => {
      await web.close();
      if (previousMap === undefined) delete process.env.CHECK_HOST_MAP;
      else process.env.CHECK_HOST_MAP = previousMap;
    },
  };
}
