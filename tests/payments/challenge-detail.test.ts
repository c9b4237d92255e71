// The default 402 wording is one readable sentence: no source-code quote or plus sign leaks into it.
import { expect, it } from 'vitest';
import { DEFAULT_CHALLENGE_DETAIL } from '@/lib/payments/challenge';

it('the default 402 detail is plain text naming every way to pay', () => {
  expect(DEFAULT_CHALLENGE_DETAIL).toBe(
    'Pay 1.00 USD per request: by card (MPP method stripe), in USDC on Base (MPP method evm, or x402 v2 with PAYMENT-SIGNATURE), or send a prepaid credits key as Authorization: Bearer.',
  );
});
