// What the operator lets the paid round trip spend, read from the environment when a check runs. The check owns
// these settings (nothing else reads them).

/** CAIP-2 id of Base Sepolia, the only network a probe pays on unless the operator enables others. */
export const BASE_SEPOLIA = 'eip155:84532';

export interface ProbeSettings {
  /** CAIP-2 networks a probe may pay on (PROBE_NETWORKS, comma-separated; default Base Sepolia only). */
  networks: readonly string[];
  /** PROBE_WALLET_PRIVATE_KEY: the probe's own wallet; null disables the paid round trip. Never logged or reported. */
  privateKey: `0x${string}` | null;
  /** RPC endpoint per network, to read transfers back (PROBE_RPC_URLS: `eip155:84532=https://…,…`). */
  rpcUrls: Readonly<Record<string, string>>;
  /** Base units (USDC has 6 decimals) one check may spend (PROBE_MAX_SPEND_UNITS; default 100000 = 0.10 USDC). */
  maxSpendUnits: bigint;
  /** Base units all checks together may spend per UTC day (PROBE_DAILY_SPEND_UNITS; default 5000000 = 5 USDC). */
  dailySpendUnits: bigint;
}

/**
 * The probe's settings from `env`.
 * @example probeSettings({}).networks // ['eip155:84532']
 */
export function probeSettings(env: Readonly<Record<string, string | undefined>> = process.env): ProbeSettings {
  const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const key = env.PROBE_WALLET_PRIVATE_KEY?.trim();
  const units = (v: string | undefined, fallback: bigint) => (v && /^\d+$/.test(v.trim()) ? BigInt(v.trim()) : fallback);
  return {
    networks: list(env.PROBE_NETWORKS).length ? list(env.PROBE_NETWORKS) : [BASE_SEPOLIA],
    privateKey: key && /^0x[0-9a-fA-F]{64}$/.test(key) ? (key as `0x${string}`) : null,
    rpcUrls: Object.fromEntries(list(env.PROBE_RPC_URLS).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
    maxSpendUnits: units(env.PROBE_MAX_SPEND_UNITS, 100_000n),
    dailySpendUnits: units(env.PROBE_DAILY_SPEND_UNITS, 5_000_000n),
  };
}
