// mppx 0.11 under MCP: what its own transport does with our two methods, and that our workaround (the MCP
// edge translating to the HTTP rails, lib/mcp/payment.ts) offers both. If an mppx upgrade changes any of
// the pinned behaviours, the first block fails: re-read lib/mcp/payment.ts and decide whether the
// workaround can go.
import { Challenge, Credential } from 'mppx';
import { Mppx, evm, stripe } from 'mppx/server';
import { evm as evmClient } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import { Transport } from 'mppx/mcp-sdk/server';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { createPaymentRails } from '@/lib/payments/rails';
import { BASE_USDC_ADDRESS } from '@/lib/payments/config';
import { createStripeClient } from '@/lib/payments/stripe';
import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { credentialHeaderFromMeta } from '@/lib/transports/mcp/payment';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';

const SECRET = 'mcp-compose-test-secret-'.padEnd(48, 'x');
const PAY_TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
// A facilitator that is never reached: issuing challenges makes no network call.
const unreachableFacilitator = {
  verify: () => Promise.reject(new Error('not used')),
  settle: () => Promise.reject(new Error('not used')),
};

function ourMethods() {
  return [
    stripe.charge({
      client: createStripeClient({ secretKey: 'sk_test_unused' }),
      networkId: 'internal',
      paymentMethodTypes: ['card', 'link'],
      currency: 'usd',
      decimals: 2,
    }),
    evm.charge({
      currency: BASE_USDC_ADDRESS,
      recipient: PAY_TO,
      chainId: 8453,
      decimals: 6,
      authorization: { name: 'USD Coin', version: '2' },
      x402: { facilitator: unreachableFacilitator as never },
    }),
  ] as const;
}

function mcpMppx() {
  const methods = ourMethods();
  return { methods, mppx: Mppx.create({ secretKey: SECRET, realm: 'checks.test', methods: [...methods], transport: Transport.mcpSdk() }) };
}

const extra = { _meta: {} };

describe('mppx 0.11 Transport.mcpSdk() with the card and evm methods, as shipped', () => {
  it('stripe.charge always carries a canOffer hook and evm.charge pins its own HTTP transport', () => {
    const [card, usdc] = ourMethods();
    expect(typeof (card as { canOffer?: unknown }).canOffer).toBe('function');
    expect((usdc as { transport?: { name: string } }).transport?.name).toBe('evm-http');
  });

  it('compose() refuses the card method ("HTTP canOffer hooks") and the evm method ("configured MCP transport")', () => {
    const { mppx } = mcpMppx();
    const compose = mppx.compose as (...entries: unknown[]) => unknown;
    expect(() => compose(['stripe/charge', { amount: '1' }], ['evm/charge', { amount: '1' }])).toThrow('MCP compose() does not support HTTP canOffer hooks');
    expect(() => compose(['evm/charge', { amount: '1' }], ['stripe/charge', { amount: '1' }])).toThrow('MCP compose() requires methods using the configured MCP transport');
    expect(() => compose(['evm/charge', { amount: '1' }])).toThrow('MCP compose() requires methods using the configured MCP transport');
  });

  it('the implicit compose, mppx.charge(), reads an HTTP URL from the MCP request and throws', async () => {
    const { mppx } = mcpMppx();
    const charge = (mppx as unknown as { charge: (o: { amount: string }) => (input: unknown) => Promise<unknown> }).charge({ amount: '1' });
    await expect(charge(extra)).rejects.toThrow(/Invalid URL/);
  });

  it('evm.charge alone cannot issue a challenge over MCP; stripe.charge alone offers only the card', async () => {
    const { mppx } = mcpMppx();
    const handlers = mppx as unknown as Record<string, Record<string, (o: { amount: string }) => (input: unknown) => Promise<{ status: number; challenge: { code: number; data: { challenges: Challenge.Challenge[] } } }>>>;
    await expect(handlers.evm!.charge!({ amount: '1' })(extra)).rejects.toThrow(/resource/);
    const card = await handlers.stripe!.charge!({ amount: '1' })(extra);
    expect(card.status).toBe(402);
    expect(card.challenge.code).toBe(-32042);
    expect(card.challenge.data.challenges.map((c) => c.method)).toEqual(['stripe']);
  });
});

describe('our MCP edge over the HTTP rails', () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  async function rpc(body: unknown): Promise<{ status: number; json: { result?: unknown; error?: { code: number; message: string; data: unknown } } }> {
    const res = await handleMcpRequest(
      new Request('http://checks.test/api/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, json: await res.json() };
  }

  it('answers an unpaid call with one -32042 carrying both challenges, which mppx McpClient accepts and can pay', async () => {
    rt = installTestRuntime({ APP_URL: 'http://checks.test' });
    const rails = createPaymentRails({
      appUrl: 'http://checks.test',
      mppSecretKey: SECRET,
      payToAddress: PAY_TO,
      x402FacilitatorUrl: 'http://127.0.0.1:9/unused',
      stripeSecretKey: 'sk_test_unused',
      stripeNetworkId: 'internal',
    })!;
    rt.rails = rails;

    const { status, json } = await rpc({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() },
    });
    expect(status).toBe(200);
    expect(json.error?.code).toBe(-32042);
    const data = json.error!.data as { challenges: Challenge.Challenge[] };
    expect(data.challenges.map((c) => c.method).sort()).toEqual(['evm', 'stripe']);
    for (const c of data.challenges) expect(Challenge.verify(c, { secretKey: SECRET })).toBe(true);
    expect(McpClient.isPaymentRequiredError(json.error)).toBe(true);

    // An mppx client signs the evm challenge; the credential it would put in _meta becomes, on our side,
    // the very Authorization header an HTTP retry carries.
    const payer = evmClient.charge({ account: privateKeyToAccount(generatePrivateKey()), authorization: { name: 'USD Coin', version: '2' } });
    type EvmChallenge = Parameters<typeof payer.createCredential>[0]['challenge'];
    const evmChallenge = data.challenges.find((c) => c.method === 'evm')! as EvmChallenge;
    const header = await payer.createCredential({ challenge: evmChallenge, context: undefined as never });
    const meta = { 'org.paymentauth/credential': Credential.deserialize(header) };
    expect(Credential.deserialize(credentialHeaderFromMeta(meta)!)).toEqual(Credential.deserialize(header));
  });
});
