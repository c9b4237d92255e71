// The readiness route called in-process as one client, and credentials that pay it: an EIP-3009 signer over
// MPP evm, or a card behind a given Stripe Customer. Shared by the suites that pay the real pipeline with
// several payers (payer-bound idempotency, late settlements).
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { USDC_EIP712 } from '@/lib/payments/rails';
import { sptFromTestHelper } from './card';
import { validReadinessBody } from './runtime';

/**
 * `sdk` is read only when a card credential is made, so a suite can build its Stripe client in beforeAll.
 * @example
 * const { readiness, body, evmCredential } = readinessPayer(POST, 'http://localhost:3000', '198.51.100.30', () => sdk);
 * await readiness(body('order'), { authorization: await evmCredential(key), 'idempotency-key': 'order-0001' });
 */
export function readinessPayer(post: (request: Request) => Promise<Response>, appUrl: string, clientIp: string, sdk: () => Stripe) {
  const body = (name: string) => validReadinessBody({ workflow: { name, intendedUsers: 'agents', targetEnvironment: 'production' } });
  const readiness = (payload: unknown, headers: Record<string, string> = {}) =>
    post(
      new Request(`${appUrl}/api/agent/readiness`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp, ...headers },
        body: JSON.stringify(payload),
      }),
    );
  /** A fresh 402's challenge answered by `client`. */
  const credentialFrom = async (client: ReturnType<typeof Mppx.create>) => {
    const unpaid = await readiness(body('any'));
    expect(unpaid.status).toBe(402);
    return client.createCredential(unpaid);
  };
  const evmCredential = (privateKey: Hex) =>
    credentialFrom(Mppx.create({ polyfill: false, methods: [evm.charge({ account: privateKeyToAccount(privateKey), authorization: USDC_EIP712 })] }));
  const cardCredential = (customer: string) =>
    credentialFrom(
      Mppx.create({ polyfill: false, methods: [stripeMethods.charge({ paymentMethod: 'pm_card_visa', createToken: sptFromTestHelper(sdk(), { customer }) })] }),
    );
  return { body, readiness, evmCredential, cardCredential };
}
