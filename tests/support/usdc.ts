// What paid tests ask of the local chain: the payer's and payTo's USDC, that one call moved exactly 1 USDC, and an
// x402 client that signs with the rails' funded payer.
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { Rails } from '../../scripts/rails/start';

export type UsdcBalances = { payer: bigint; payTo: bigint };

/** The payer's and payTo's USDC now. */
export async function usdcBalances(rails: Rails): Promise<UsdcBalances> {
  return { payer: await rails.usdcBalance(rails.payer.address), payTo: await rails.usdcBalance(rails.payTo) };
}

/**
 * Exactly 1 USDC went from the payer to payTo since `before`.
 * @example const before = await usdcBalances(rails); await pay(); await expectOneUsdcMoved(rails, before);
 */
export function expectOneUsdcMoved(rails: Rails, before: UsdcBalances): Promise<void> {
  return expectUsdcMoved(rails, before, 1_000_000n);
}

/** Exactly `units` of USDC went from the payer to payTo since `before` (0n: nothing moved). */
export async function expectUsdcMoved(rails: Rails, before: UsdcBalances, units: bigint): Promise<void> {
  const after = await usdcBalances(rails);
  expect(before.payer - after.payer).toBe(units);
  expect(after.payTo - before.payTo).toBe(units);
}

/** An x402 client (`@x402/core` with the exact EVM scheme) that signs as the rails' funded payer. */
export function x402Payer(rails: Rails): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
  return client;
}
