import { DEFAULT_ASSETS } from '@x402/evm';

// Amounts as the endpoint check compares them: every place a seller states its price, in USD cents. The stablecoin
// table is x402's own (@x402/evm's default assets per CAIP-2 network: Base's and Base Sepolia's USDC among them),
// so the check knows what an x402 client knows, and no more.

/** A stablecoin x402 clients know: its contract, decimals and EIP-712 domain. */
export interface KnownAsset {
  asset: string;
  name: string;
  version: string;
  decimals: number;
  symbol: string;
  /** 'permit2' for a token without EIP-3009 (then the EIP-712 domain is the token's only when it has EIP-2612). */
  assetTransferMethod?: string;
  supportsEip2612?: boolean;
}

/**
 * The stablecoins x402 knows on a CAIP-2 network, or null when it knows none there.
 * @example knownAssets('eip155:8453')?.[0]?.asset // '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
 */
export function knownAssets(network: string): readonly KnownAsset[] | null {
  const assets = (DEFAULT_ASSETS as Record<string, KnownAsset[] | undefined>)[network];
  return assets && assets.length ? assets : null;
}

/**
 * A known stablecoin by contract address, on `network` when given, else on any network x402 knows.
 * @example knownAsset('0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'eip155:84532')?.name // 'USDC'
 */
export function knownAsset(address: string, network?: string): KnownAsset | null {
  const lists = network ? [knownAssets(network) ?? []] : Object.values(DEFAULT_ASSETS as Record<string, KnownAsset[]>);
  for (const list of lists) {
    const found = list.find((a) => a.asset.toLowerCase() === address.toLowerCase());
    if (found) return found;
  }
  return null;
}

/** Cents kept to a millionth, so that 1000 units of a 6-decimal token (0.1 cent) compares equal to "$0.001". */
const cents = (value: number) => Math.round(value * 1e6) / 1e6;

/**
 * Base units of a USD stablecoin with `decimals` decimals, in USD cents; null for an amount that is not an integer.
 * @example unitsToCents('1000000', 6) // 100
 */
export function unitsToCents(amount: unknown, decimals: number): number | null {
  if (typeof amount !== 'string' || !/^\d+$/.test(amount)) return null;
  return cents(Number(amount) / 10 ** (decimals - 2));
}

/**
 * A decimal USD amount ("1.00", "0.5") in cents; null when it is not one.
 * @example usdToCents('1.00') // 100
 */
export function usdToCents(amount: unknown): number | null {
  if (typeof amount !== 'string' || !/^\d+(\.\d+)?$/.test(amount.trim())) return null;
  return cents(Number(amount) * 100);
}

// A price as prose states it: "$1.00", "1.00 USD", "USD 1.00", "1 USDC", "25 cents". Hand-written: no library
// reads a price out of free text, and this one needs to read only what sellers write in llms.txt and tool
// descriptions.
const PRICE_PATTERNS: ReadonlyArray<{ pattern: RegExp; toCents: (n: number) => number }> = [
  { pattern: /\$\s?(\d+(?:\.\d+)?)/g, toCents: (n) => n * 100 },
  { pattern: /\b(\d+(?:\.\d+)?)\s?(?:USDC|USD)\b/gi, toCents: (n) => n * 100 },
  { pattern: /\b(?:USDC|USD)\s?(\d+(?:\.\d+)?)\b/gi, toCents: (n) => n * 100 },
  { pattern: /\b(\d+(?:\.\d+)?)\s?(?:cents?\b|¢)/gi, toCents: (n) => n },
];

/**
 * The first price a text states, in USD cents; null when it states none. For llms.txt and MCP tool descriptions.
 * @example priceCentsFromText('Costs 1.00 USD per call') // 100
 */
export function priceCentsFromText(text: string): number | null {
  let first: { at: number; cents: number } | null = null;
  for (const { pattern, toCents } of PRICE_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const at = match.index ?? 0;
      if (!first || at < first.at) first = { at, cents: cents(toCents(Number(match[1]))) };
      break;
    }
  }
  return first ? first.cents : null;
}
