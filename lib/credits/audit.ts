// The operator's ledger tools (`npm run ledger -- audit`, `npm run keys -- refund|usage`), over any store.
//
// The audit proves, from the calls themselves, what each grant's balance says. For every grant, in its
// current period (from its creation, or its last subscription renewal):
//
//   used = committed − given back + removed
//
// where `committed` counts the usages (reservations) spent in the period, `given back` those an operator
// refunded in the period (`keys refund`), and `removed` the calls a payment refund took away. Summed over a
// key's grants that is the "granted − committed − refunded = left", written with its signs:
//
//   granted − committed + given back − removed = left      (granted = Σ calls, left = Σ (calls − used))
//
// A spend with no usage behind it (a call charged twice, or by hand) breaks the equation; so does a usage
// counted on the wrong key. A hold is a discrepancy when it would outlive its timeout; a hold whose time
// passed is not (its call went back to the balance by itself) and is only counted.
import type { Store } from '@/lib/store';
import type { LedgerGrant, RefundResult, UsageRecord } from '@/lib/store/types';
import { RESERVATION_HOLD_MS } from './ledger';

interface KeyAudit {
  keyHash: string;
  granted: number;
  committed: number;
  givenBack: number;
  removed: number;
  left: number;
}

interface Discrepancy {
  kind: 'balance' | 'usage' | 'hold';
  keyHash: string | null;
  grantId: string | null;
  usageId: string | null;
  detail: string;
}

export interface AuditReport {
  keys: KeyAudit[];
  grants: number;
  usages: number;
  /** Held calls whose hold passed without a commit or release: back in the balance already, not a discrepancy. */
  lapsedHolds: number;
  discrepancies: Discrepancy[];
}

const PAGE = 500;
/** A hold written by a server whose clock runs a little ahead is not a discrepancy. */
const CLOCK_SLACK_MS = 5_000;

async function walk<T>(scan: (cursor: string, limit: number) => Promise<{ items: T[]; next: string | null }>, id: (item: T) => string): Promise<Map<string, T[]>> {
  const seen = new Map<string, T[]>();
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page: { items: T[]; next: string | null } = await scan(cursor, PAGE);
    for (const item of page.items) seen.set(id(item), [...(seen.get(id(item)) ?? []), item]);
    cursor = page.next;
  }
  return seen;
}

const sameJson = (items: unknown[]) => items.every((i) => JSON.stringify(i) === JSON.stringify(items[0]));

/**
 * Audits every key's ledger in `store` (read only). `holdMs`: the reservation hold the servers use.
 * `holderOf`: the key a key was rotated into (lib/billing/rotate.ts `currentKeyHash`); a rotation moves the
 * grants to the new key and leaves the spent calls with the old one, so a usage may sit on a predecessor of
 * its grant's key. Without it, any usage on another key than its grant's is a discrepancy.
 * @example const report = await auditLedger(store, { now: Date.now(), holderOf: (h) => currentKeyHash(store, h, now) });
 */
export async function auditLedger(
  store: Store,
  options: { now: number; holdMs?: number; holderOf?: (keyHash: string) => Promise<string> },
): Promise<AuditReport> {
  const { now, holdMs = RESERVATION_HOLD_MS, holderOf } = options;
  const discrepancies: Discrepancy[] = [];
  // Redis SCAN may hand the same key out twice: an id seen twice with the same content is one item.
  const grantPages = await walk((c, l) => store.scanGrants(c, l), (g) => g.id);
  const usagePages = await walk((c, l) => store.scanUsage(c, l), (u) => u.id);
  const grants = new Map<string, LedgerGrant>([...grantPages].map(([id, copies]) => [id, copies[0]]));
  const tally = new Map<string, { committed: number; givenBack: number }>([...grants.keys()].map((id) => [id, { committed: 0, givenBack: 0 }]));
  let lapsedHolds = 0;

  for (const [id, copies] of usagePages) {
    const u: UsageRecord = copies[0];
    const at = { keyHash: u.keyHash, grantId: u.grantId, usageId: id };
    if (!sameJson(copies)) {
      discrepancies.push({ kind: 'usage', ...at, detail: 'the same usage is stored twice with different contents' });
      continue;
    }
    const grant = grants.get(u.grantId);
    if (!grant) {
      discrepancies.push({ kind: 'usage', ...at, detail: `usage names grant ${u.grantId}, which does not exist` });
      continue;
    }
    if (grant.keyHash !== u.keyHash && (!holderOf || (await holderOf(u.keyHash)) !== grant.keyHash)) {
      discrepancies.push({ kind: 'usage', ...at, detail: `usage is on another key than its grant ${u.grantId}` });
    }
    if (u.state === 'held') {
      if (u.holdUntil > now + holdMs + CLOCK_SLACK_MS) {
        discrepancies.push({ kind: 'hold', ...at, detail: `held until ${new Date(u.holdUntil).toISOString()}, past its ${holdMs / 1000} s timeout` });
      } else if (u.holdUntil <= now) lapsedHolds++;
    }
    if (u.refundedAt !== null && u.state !== 'committed') discrepancies.push({ kind: 'usage', ...at, detail: `given back, but it was never spent (${u.state})` });
    if (u.state === 'committed' && u.committedAt === null) discrepancies.push({ kind: 'usage', ...at, detail: 'spent, with no time of spending' });
    const t = tally.get(u.grantId)!;
    if (u.state === 'committed' && u.committedAt !== null && u.committedAt >= grant.periodStart) t.committed++;
    if (u.state === 'committed' && u.refundedAt !== null && u.refundedAt >= grant.periodStart) t.givenBack++;
  }

  const keys = new Map<string, KeyAudit>();
  for (const g of grants.values()) {
    const { committed, givenBack } = tally.get(g.id)!;
    const expected = committed - givenBack + g.removed;
    if (g.used !== expected) {
      const what = g.used > expected ? 'more calls spent than usages committed (a call charged twice, or without a usage)' : 'fewer calls spent than usages committed';
      discrepancies.push({
        kind: 'balance', keyHash: g.keyHash, grantId: g.id, usageId: null,
        detail: `${what}: used ${g.used}, but committed ${committed} − given back ${givenBack} + removed ${g.removed} = ${expected}`,
      });
    }
    const k = keys.get(g.keyHash) ?? { keyHash: g.keyHash, granted: 0, committed: 0, givenBack: 0, removed: 0, left: 0 };
    k.granted += g.calls;
    k.committed += committed;
    k.givenBack += givenBack;
    k.removed += g.removed;
    k.left += g.calls - g.used;
    keys.set(g.keyHash, k);
  }
  return { keys: [...keys.values()], grants: grants.size, usages: usagePages.size, lapsedHolds, discrepancies };
}

/** What `keys refund` tells the operator, and whether it did anything. */
export function describeRefund(usageId: string, result: RefundResult): { ok: boolean; message: string } {
  switch (result.outcome) {
    case 'refunded':
      return { ok: true, message: `Gave ${usageId} back: one call returned to its key (grant ${result.grantId}).` };
    case 'already':
      return { ok: false, message: `Refused: ${usageId} was already given back on ${new Date(result.refundedAt).toISOString()}. A call is given back once.` };
    case 'not-committed':
      return { ok: false, message: `Refused: ${usageId} was never charged (it is ${result.state}); there is nothing to give back.` };
    case 'grant-expired':
      return { ok: false, message: `Refused: the grant ${usageId} was spent from expired on ${new Date(result.expiresAt).toISOString()}; a call given back there could not be used.` };
    case 'unknown':
      return { ok: false, message: `Refused: no call ${usageId} in this store (check the id, and that the store is the one the server uses).` };
  }
}

/** Quotes a CSV field when it needs it (RFC 4180). */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/**
 * A key's spent calls as rows (time, operation, usage id, refunded or not), as text or CSV.
 * @example console.log(usageTable(await store.listUsage(keyHash, 1000), 'csv'));
 */
export function usageTable(usage: UsageRecord[], format: 'text' | 'csv'): string {
  const rows = usageRows(usage);
  const header = [...USAGE_COLUMNS];
  if (format === 'csv') return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\n');
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** The columns of `usageTable`, in order. */
const USAGE_COLUMNS = ['time', 'operation', 'usage', 'refunded', 'refunded_at'] as const;

/**
 * A key's spent calls as the rows `usageTable` prints (the account page shows the same rows).
 * @example usageRows(await store.listUsage(keyHash, 100))[0] // ['2026-11-23T12:00:00.000Z', 'readiness', 'cu_…', 'no', '']
 */
export function usageRows(usage: UsageRecord[]): string[][] {
  return usage.map((u) => [
    u.committedAt === null ? '' : new Date(u.committedAt).toISOString(),
    u.operation ?? 'unknown',
    u.id,
    u.refundedAt === null ? 'no' : 'yes',
    u.refundedAt === null ? '' : new Date(u.refundedAt).toISOString(),
  ]);
}
