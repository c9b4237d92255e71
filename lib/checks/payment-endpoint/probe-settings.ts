import type { Store } from '@/lib/store/types';

// What the operator lets the paid round trip spend, read from the environment when a check runs, and the spend
// ledger that keeps the daily cap across checks and instances. The check owns these settings (nothing else reads
// them); the ledger lives in the service's store as named records.

/** CAIP-2 id of Base Sepolia, the only network a probe pays on unless the operator enables others. */
const BASE_SEPOLIA = 'eip155:84532';

/** The store operations the ledger needs: a capped counter and named records. */
export type LedgerStore = Pick<Store, 'addCapped' | 'setRecord' | 'listRecords'>;

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
  /** Where the daily cap is counted and each transfer recorded; null: no store, so nothing is paid. */
  ledger: LedgerStore | null;
}

/**
 * The probe's settings from `env`, with the store that keeps its ledger.
 * @example probeSettings({}).networks // ['eip155:84532']
 */
export function probeSettings(env: Readonly<Record<string, string | undefined>> = process.env, ledger: LedgerStore | null = null): ProbeSettings {
  const list = (v: string | undefined) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const key = env.PROBE_WALLET_PRIVATE_KEY?.trim();
  const units = (v: string | undefined, fallback: bigint) => (v && /^\d{1,15}$/.test(v.trim()) ? BigInt(v.trim()) : fallback);
  return {
    networks: list(env.PROBE_NETWORKS).length ? list(env.PROBE_NETWORKS) : [BASE_SEPOLIA],
    privateKey: key && /^0x[0-9a-fA-F]{64}$/.test(key) ? (key as `0x${string}`) : null,
    rpcUrls: Object.fromEntries(list(env.PROBE_RPC_URLS).filter((pair) => pair.includes('=')).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
    maxSpendUnits: units(env.PROBE_MAX_SPEND_UNITS, 100_000n),
    dailySpendUnits: units(env.PROBE_DAILY_SPEND_UNITS, 5_000_000n),
    ledger,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;
const SPENT_PREFIX = 'probe-spent:';
const TRANSFER_PREFIX = 'probe-transfer:';

/**
 * Holds `units` against the day's cap (UTC) shared by every check, in one atomic store step: false when it does not
 * fit, and nothing is held then. A hold is never given back: a signed authorization may still be settled later.
 * @example if (!(await reserveDailySpend(store, 10_000n, 5_000_000n, new Date())).reserved) skipStep();
 */
export async function reserveDailySpend(store: LedgerStore, units: bigint, cap: bigint, now: Date): Promise<{ reserved: boolean; spentToday: bigint }> {
  const day = now.toISOString().slice(0, 10);
  const { added, total } = await store.addCapped(`${SPENT_PREFIX}${day}`, Number(units), Number(cap), now.getTime(), 2 * DAY_MS);
  return { reserved: added, spentToday: BigInt(total) };
}

/** One transfer the paid round trip made, as the operator's ledger keeps it. */
export interface ProbeSpendEntry {
  at: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  txHash: string;
  step: string;
  /** The endpoint the check was checking. */
  target: string;
}

/**
 * Keeps one transfer for the operator (kept for good: it is money spent).
 * @example await recordProbeSpend(store, { at, network, asset, amount, payTo, txHash, step: 'first payment', target })
 */
export async function recordProbeSpend(store: LedgerStore, entry: ProbeSpendEntry): Promise<void> {
  await store.setRecord(`${TRANSFER_PREFIX}${entry.at}:${entry.txHash}`, JSON.stringify(entry), Date.parse(entry.at), null);
}

/**
 * Every transfer the probes made, oldest first (`npm run ledger -- probe-spend`).
 * @example for (const t of await listProbeSpend(store, Date.now())) console.log(t.txHash)
 */
export async function listProbeSpend(store: LedgerStore, now: number, limit = 10_000): Promise<ProbeSpendEntry[]> {
  const rows = await store.listRecords(TRANSFER_PREFIX, now, limit);
  return rows.map((r) => JSON.parse(r.value) as ProbeSpendEntry).sort((a, b) => a.at.localeCompare(b.at) || a.txHash.localeCompare(b.txHash));
}
