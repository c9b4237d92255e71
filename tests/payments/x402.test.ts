// x402 v2: paid with @x402/fetch (PAYMENT-SIGNATURE) and with the legacy X-PAYMENT header.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { LEAK_PATTERN, decodeBase64Json, postJson, rails, server, withPaidServer } from './harness';

withPaidServer();

function x402(): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
  return client;
}

/** A fresh, signed x402 v2 payment payload for the resource, encoded for the header. */
async function signedPayload(): Promise<string> {
  const unpaid = await postJson(server.resource, { n: 1 });
  expect(unpaid.status).toBe(402);
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
  return encodePaymentSignatureHeader(await x402().createPaymentPayload(required));
}

async function balances() {
  return { payer: await rails.usdcBalance(rails.payer.address), payTo: await rails.usdcBalance(rails.payTo) };
}

interface PaymentResponse {
  success: boolean;
  transaction: string;
  network: string;
  payer: string;
}

describe('x402 v2', () => {
  it('pays with @x402/fetch (PAYMENT-SIGNATURE): 200, PAYMENT-RESPONSE, exactly 1 USDC moved; a replay moves nothing', async () => {
    const sent: Headers[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(new Headers(request.headers));
      return fetch(request);
    };
    const pay = wrapFetchWithPayment(recordingFetch, x402());
    const before = await balances();
    const res = await pay(server.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).toBe(200);
    const settled = decodeBase64Json<PaymentResponse>(res.headers.get('payment-response'));
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const body = (await res.json()) as { paymentIntent: string; rail: string };
    expect(body.paymentIntent).toBe(settled.transaction);
    expect(body.rail).toBe('x402');
    let after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);

    const signature = sent.map((h) => h.get('payment-signature')).find((v) => v !== null);
    expect(signature).toBeTruthy();
    for (const header of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
      const replay = await postJson(server.resource, { n: 1 }, { [header]: signature! });
      expect(replay.status).toBe(402);
      const p = (await replay.json()) as { reason: string; detail: string };
      expect(p.detail).not.toMatch(LEAK_PATTERN);
      expect(['credential-used', 'verification-failed']).toContain(p.reason);
      expect(replay.headers.get('payment-required')).not.toBeNull();
    }
    after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
  });

  it('accepts the same kind of payload as legacy X-PAYMENT: 200, PAYMENT-RESPONSE, exactly 1 USDC; a replay moves nothing', async () => {
    const payload = await signedPayload();
    const before = await balances();
    const res = await postJson(server.resource, { n: 2 }, { 'X-PAYMENT': payload });
    expect(res.status).toBe(200);
    const settled = decodeBase64Json<PaymentResponse>(res.headers.get('payment-response'));
    expect(settled.success).toBe(true);
    const after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);

    const replay = await postJson(server.resource, { n: 2 }, { 'X-PAYMENT': payload });
    expect(replay.status).toBe(402);
    expect(await balances()).toEqual(after);
  });

  it('five concurrent sends of one PAYMENT-SIGNATURE: exactly one 200 and exactly 1 USDC moved', async () => {
    const payload = await signedPayload();
    const before = await balances();
    const runsBefore = server.runs;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => postJson(server.resource, { n: 3 }, { 'PAYMENT-SIGNATURE': payload })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402]);
    expect(server.runs - runsBefore).toBe(1); // the paid work ran once, too
    const after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);
  });

  it('a payload whose terms were altered is refused with a sanitised 402', async () => {
    const payload = JSON.parse(Buffer.from(await signedPayload(), 'base64').toString()) as {
      accepted: { payTo: string };
    };
    payload.accepted.payTo = privateKeyToAccount(rails.payer.privateKey).address;
    const before = await balances();
    const res = await postJson(server.resource, { n: 4 }, {
      'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64'),
    });
    expect(res.status).toBe(402);
    const p = (await res.json()) as { reason: string; detail: string };
    expect(p.reason).toBe('terms-mismatch');
    expect(p.detail).not.toMatch(LEAK_PATTERN);
    expect(await balances()).toEqual(before);
  });

  it('a garbage header is a malformed credential, not a 500', async () => {
    const res = await postJson(server.resource, { n: 5 }, { 'PAYMENT-SIGNATURE': 'not-base64-json' });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { reason: string }).reason).toBe('malformed-credential');
  });

  it('a failed run is never settled', async () => {
    const payload = await signedPayload();
    const before = await balances();
    server.failRuns = true;
    try {
      const res = await postJson(server.resource, { n: 6 }, { 'PAYMENT-SIGNATURE': payload });
      expect(res.status).toBe(422);
      expect(res.headers.get('payment-response')).toBeNull();
    } finally {
      server.failRuns = false;
    }
    expect(await balances()).toEqual(before);
  });
});
