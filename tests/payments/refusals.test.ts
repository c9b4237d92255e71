// Payment refusals through the real pipeline: the readiness route (lib/paid-call/pipeline.ts) on the runtime's rails
// (railsFor: mppx, the x402 facilitator on the local anvil chain, the Stripe stand-in through the official
// SDK). A credential that must not pay gets a fresh 402 with its reason, and no money moves.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Challenge, Credential } from 'mppx';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import { Types as EvmTypes } from 'mppx/evm';
import type Stripe from 'stripe';
import { getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { railsFor } from '@/lib/runtime';
import { StoreUnavailableError, type Store } from '@/lib/store';
import { startRails, type Rails } from '../../scripts/rails/start';
import { chainLedger, expectPaymentProblem, parseWwwAuthenticate } from './harness';
import { sptFromTestHelper } from '../support/card';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { stripeSdk } from '../support/rails-runtime';

const { POST } = agentCheckRoute('readiness');

const APP_URL = 'http://localhost:3000';
const URL_ = `${APP_URL}/api/agent/readiness`;
const USDC_DOMAIN = { name: 'USD Coin', version: '2' };
const ONE_USDC = 1_000_000n;

let rails: Rails;
let rt: TestRuntime;
let sdk: Stripe;
/** When set, the credential claims store (claimOnce) fails as a lost Redis connection would. */
let claimsFail = false;

beforeAll(async () => {
  rails = await startRails();
  rt = installTestRuntime({ APP_URL, ...rails.env });
  const realStore = rt.store;
  const store = new Proxy(realStore, {
    get(target, prop, receiver) {
      if (prop === 'claimOnce') {
        return (...args: Parameters<Store['claimOnce']>) =>
          claimsFail ? Promise.reject(new StoreUnavailableError(new Error('connection reset'))) : realStore.claimOnce(...args);
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  rt.store = store;
  rt.rails = railsFor(rt.config, store);
  sdk = stripeSdk(rails);
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  await rails?.stop();
});

beforeEach(() => {
  claimsFail = false;
});

const send = (headers: Record<string, string> = {}) =>
  POST(new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9', ...headers }, body: JSON.stringify(validReadinessBody()) }));

async function unpaid402(): Promise<Response> {
  const res = await send();
  expect(res.status).toBe(402);
  return res;
}

const cardCredential = async (paymentMethod: string) =>
  Mppx.create({ polyfill: false, methods: [stripeMethods.charge({ paymentMethod, createToken: sptFromTestHelper(sdk) })] }).createCredential(await unpaid402());

const evmCredential = async () =>
  Mppx.create({ polyfill: false, methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_DOMAIN })] }).createCredential(
    await unpaid402(),
  );

/** What a hand-built EIP-3009 authorization may change from the challenge's own terms. */
interface Tampering {
  value?: bigint;
  to?: Hex;
  /** Signs with this key while still naming the payer as `from`. */
  signerKey?: Hex;
}

/** Signs USDC's TransferWithAuthorization for the payer, with the given fields. */
function signAuthorization(
  message: { nonce: Hex; to: Hex; value: bigint; validBefore: bigint },
  signerKey: Hex,
): Promise<Hex> {
  return privateKeyToAccount(signerKey).signTypedData({
    domain: EvmTypes.authorizationDomain({ authorization: USDC_DOMAIN, chainId: rails.chainId, currency: rails.usdcAddress }),
    message: { from: getAddress(rails.payer.address), validAfter: 0n, ...message, to: getAddress(message.to) },
    primaryType: 'TransferWithAuthorization',
    types: EvmTypes.authorizationTypes,
  });
}

/** An MPP evm credential for the 402's evm challenge, built as mppx/client builds it, with `tampering` applied. */
async function mppAuthorization(unpaid: Response, tampering: Tampering = {}): Promise<string> {
  const challenge = Challenge.fromResponseList(unpaid).find((c) => c.method === 'evm')!;
  const request = challenge.request as { amount: string; recipient: Hex };
  const nonce = EvmTypes.challengeHash(challenge);
  const validBefore = BigInt(Math.floor(Date.parse(challenge.expires!) / 1000));
  const value = tampering.value ?? BigInt(request.amount);
  const to = getAddress(tampering.to ?? request.recipient);
  const signature = await signAuthorization({ nonce, to, value, validBefore }, tampering.signerKey ?? rails.payer.privateKey);
  const from = getAddress(rails.payer.address);
  const payload = { from, nonce, signature, to, type: 'authorization', validAfter: '0', validBefore: String(validBefore), value: String(value) };
  return Credential.serialize(Credential.from({ challenge, payload, source: EvmTypes.toSource({ address: from, chainId: rails.chainId }) }));
}

/** An x402 PAYMENT-SIGNATURE made by @x402/evm's client, with `tampering` applied to its authorization and re-signed. */
async function x402Authorization(unpaid: Response, tampering: Tampering = {}): Promise<string> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
  const paid: PaymentPayload = await client.createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!));
  const inner = paid.payload as { authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex };
  const authorization = {
    ...inner.authorization,
    to: getAddress(tampering.to ?? inner.authorization.to),
    value: String(tampering.value ?? BigInt(inner.authorization.value)),
  };
  const signature = await signAuthorization(
    { nonce: authorization.nonce, to: authorization.to, value: BigInt(authorization.value), validBefore: BigInt(authorization.validBefore) },
    tampering.signerKey ?? rails.payer.privateKey,
  );
  return encodePaymentSignatureHeader({ ...paid, payload: { authorization, signature } });
}

const RAILS = [
  { rail: 'MPP evm', header: 'authorization', build: mppAuthorization },
  { rail: 'x402', header: 'payment-signature', build: x402Authorization },
] as const;

describe('a card that needs 3-D Secure', () => {
  it('gets 402 action-required with a fresh challenge, and no PaymentIntent succeeds', async () => {
    const credential = await cardCredential('pm_card_authenticationRequired');
    const before = rails.stripe.paymentIntents().length;
    const res = await send({ authorization: credential });
    expect(parseWwwAuthenticate(res.headers.get('www-authenticate')!).map((c) => c.params.method)).toEqual(['stripe', 'evm']);
    expect(res.headers.get('payment-receipt')).toBeNull();
    await expectPaymentProblem(res, { status: 402, type: 'payment-failed', reason: 'action-required' });
    // The card processor was asked once and left the payment waiting for the customer: nothing captured.
    const created = rails.stripe.paymentIntents().slice(before);
    expect(created.map((pi) => ({ status: pi.status, amount_received: pi.amount_received }))).toEqual([{ status: 'requires_action', amount_received: 0 }]);
    expect(rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded').map((pi) => pi.id)).not.toContain(created[0]!.id);
  });
});

describe.each(RAILS)('$rail: an authorization that does not match the terms', ({ header, build }) => {
  it('control: the same hand-built authorization with the terms of the challenge pays exactly 1 USDC', async () => {
    const credential = await build(await unpaid402());
    const before = await chainLedger(rails);
    const res = await send({ [header]: credential });
    expect(res.status).toBe(200);
    const after = await chainLedger(rails);
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
  });

  it.each([
    ['for a lower amount', () => ({ value: ONE_USDC - 1n }), 'terms-mismatch'],
    ['to another recipient', () => ({ to: privateKeyToAccount(generatePrivateKey()).address }), 'terms-mismatch'],
    ['signed by someone other than the payer', () => ({ signerKey: generatePrivateKey() }), 'invalid-signature'],
  ] as const)('%s: 402 and no USDC moves', async (_, tampering, reason) => {
    const change = tampering();
    const credential = await build(await unpaid402(), change);
    const before = await chainLedger(rails);
    const res = await send({ [header]: credential });
    expect(res.headers.get('payment-required')).not.toBeNull();
    await expectPaymentProblem(res, { status: 402, type: 'payment-failed', reason });
    expect(await chainLedger(rails)).toEqual(before);
    if ('to' in change) expect(await rails.usdcBalance(change.to)).toBe(0n);
  });
});

describe('the credential store failing during a paid credential', () => {
  it('MPP evm: 503 store-unavailable, no USDC moves, and the credential still pays once the store is back', async () => {
    const credential = await evmCredential();
    const before = await chainLedger(rails);
    claimsFail = true;
    const res = await send({ authorization: credential });
    expect(res.headers.get('retry-after')).toBe('5');
    await expectPaymentProblem(res, { status: 503, type: 'store-unavailable', reason: 'store-unavailable' });
    expect(await chainLedger(rails)).toEqual(before);

    claimsFail = false;
    const retry = await send({ authorization: credential });
    expect(retry.status).toBe(200);
    const after = await chainLedger(rails);
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.facilitatorTxs - before.facilitatorTxs).toBe(1);
  });

  it('card: 503 store-unavailable, no PaymentIntent, and the credential still pays once the store is back', async () => {
    const credential = await cardCredential('pm_card_visa');
    const before = rails.stripe.paymentIntents().length;
    claimsFail = true;
    const res = await send({ authorization: credential });
    expect(res.headers.get('retry-after')).toBe('5');
    await expectPaymentProblem(res, { status: 503, type: 'store-unavailable', reason: 'store-unavailable' });
    expect(rails.stripe.paymentIntents()).toHaveLength(before);

    claimsFail = false;
    const retry = await send({ authorization: credential });
    expect(retry.status).toBe(200);
    expect(rails.stripe.paymentIntents().slice(before).map((pi) => pi.status)).toEqual(['succeeded']);
  });
});
