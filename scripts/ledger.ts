// Operator CLI for payments that ended without an answer (docs/SECURITY.md, section 3):
//   npm run ledger -- reconcile     asks the chain and Stripe about every pending settlement, once
//   npm run ledger -- settlements   the audit trail: each settlement that ended without an answer, and its outcome
//   npm run ledger -- audit [--keys] every key's calls balance against its spent usages; exit 1 on a discrepancy
//   npm run ledger -- listing       whether the directories list each resource, as each facilitator last said
//   npm run ledger -- probe-spend   every transfer the endpoint check's paid round trip made from the probe wallet
import { getConfig } from '@/lib/config';
import { runCli } from './cli';
import { openStore } from '@/lib/store';
import { logEvent } from '@/lib/log';
import { railsFor } from '@/lib/runtime';
import { listSettlements, reconcilePending } from '@/lib/payments/settlements';
import { currentKeyHash } from '@/lib/billing/rotate';
import { auditLedger } from '@/lib/credits/audit';
import { listDirectoryListings } from '@/lib/payments/listing';
import { listProbeSpend } from '@/lib/checks/payment-endpoint/probe-settings';

const USAGE = `Usage:
  npm run ledger -- reconcile
  npm run ledger -- settlements
  npm run ledger -- audit [--keys]
  npm run ledger -- listing
  npm run ledger -- probe-spend`;

const SETTLEMENTS_HEADING =
  'Settlements recorded in this store: payments whose settle call ended without an answer, each with its outcome (pending, charged, not-charged).';

const LISTING_HEADING =
  'Directory listing, as each facilitator last said in its verify/settle answers (EXTENSION-RESPONSES bazaar): success, processing, rejected (with its reason), or none (no bazaar entry).';

const PROBE_SPEND_HEADING =
  "Transfers the Agent Payment Endpoint Check's paid round trip made from the probe wallet, oldest first (time, network, amount in base units, payTo, transaction, step, the endpoint checked).";

const countBy = (values: string[]) => values.reduce<Record<string, number>>((c, v) => ({ ...c, [v]: (c[v] ?? 0) + 1 }), {});

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  const config = getConfig();
  const store = openStore(config);
  try {
    switch (command) {
      case 'reconcile': {
        const rails = railsFor(config, store);
        if (!rails) {
          console.error('No payment rail is configured: there is nothing to reconcile.');
          return 1;
        }
        const results = await reconcilePending(store, rails.settlements, Date.now(), logEvent);
        for (const r of results) console.log(JSON.stringify({ rail: r.rail, ...r.outcome }));
        const counts = countBy(results.map((r) => r.outcome.status));
        console.log(`Reconciled ${results.length} pending settlement(s): ${JSON.stringify(counts)}.`);
        return results.some((r) => r.outcome.status === 'error') ? 1 : 0;
      }
      case 'audit': {
        const now = Date.now();
        const report = await auditLedger(store, { now, holdMs: config.CREDITS_RESERVATION_HOLD_SECONDS * 1000, holderOf: (h) => currentKeyHash(store, h, now) });
        // Key hashes only (an HMAC of the key): the audit never needs, and never prints, a key.
        if (argv.includes('--keys')) for (const k of report.keys) console.log(JSON.stringify({ ...k, keyHash: k.keyHash.slice(0, 16) }));
        for (const d of report.discrepancies) console.log(JSON.stringify({ ...d, keyHash: d.keyHash?.slice(0, 16) ?? null }));
        console.log(`keys: ${report.keys.length}, grants: ${report.grants}, usages: ${report.usages}, lapsed holds (already back in the balance): ${report.lapsedHolds}`);
        console.log(`discrepancies: ${report.discrepancies.length}`);
        return report.discrepancies.length ? 1 : 0;
      }
      case 'listing': {
        // Only what a facilitator said is shown: a store with nothing in it means none of them said anything (a
        // facilitator without a directory, or no x402 payment yet), which must read as "none heard".
        const listings = await listDirectoryListings(store, Date.now());
        console.log(LISTING_HEADING);
        if (listings.length === 0) console.log('none heard');
        for (const l of listings)
          console.log(JSON.stringify({ resource: l.resource, facilitator: l.facilitator, status: l.status, reason: l.reason, seenAt: new Date(l.seenAt).toISOString(), via: l.via }));
        return 0;
      }
      case 'probe-spend': {
        const transfers = await listProbeSpend(store, Date.now());
        console.log(PROBE_SPEND_HEADING);
        if (transfers.length === 0) console.log('none');
        for (const t of transfers) console.log(JSON.stringify({ at: t.at, network: t.network, amount: t.amount, asset: t.asset, payTo: t.payTo, tx: t.txHash, step: t.step, target: t.target }));
        if (transfers.length) {
          const byNetwork = transfers.reduce<Record<string, string>>((sum, t) => ({ ...sum, [t.network]: String(BigInt(sum[t.network] ?? '0') + BigInt(t.amount)) }), {});
          console.log(`${transfers.length} transfer(s); base units by network: ${JSON.stringify(byNetwork)}.`);
        }
        return 0;
      }
      case 'settlements': {
        // Only payments whose settle call ended without an answer are recorded here; an operator reading the
        // output needs to know that, and an empty store must read as "none", not as a tool that did nothing.
        const settlements = await listSettlements(store, Date.now());
        console.log(SETTLEMENTS_HEADING);
        if (settlements.length === 0) console.log('none');
        for (const s of settlements) {
          console.log(
            JSON.stringify({
              operation: s.operation,
              rail: s.trace.rail,
              status: s.status,
              reference: s.reference ?? null,
              recordedAt: new Date(s.recordedAt).toISOString(),
              resolvedAt: s.resolvedAt ? new Date(s.resolvedAt).toISOString() : null,
            }),
          );
        }
        if (settlements.length) console.log(`${settlements.length} settlement(s): ${JSON.stringify(countBy(settlements.map((s) => s.status)))}.`);
        return 0;
      }
    }
    console.error(USAGE);
    return 2;
  } finally {
    await store.close();
  }
}

runCli(main);
