// Operator CLI for payments that ended without an answer (docs/SECURITY.md, G1):
//   npm run ledger -- reconcile     asks the chain and Stripe about every pending settlement, once
//   npm run ledger -- settlements   the audit trail: every recorded settlement and its outcome
import { getConfig } from '@/lib/config';
import { runCli } from './cli';
import { openStore } from '@/lib/store';
import { logEvent } from '@/lib/log';
import { railsFor } from '@/lib/runtime';
import { listSettlements, reconcilePending } from '@/lib/payments/settlements';

const USAGE = `Usage:
  npm run ledger -- reconcile
  npm run ledger -- settlements`;

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
        const counts = results.reduce<Record<string, number>>((c, r) => ({ ...c, [r.outcome.status]: (c[r.outcome.status] ?? 0) + 1 }), {});
        console.log(`Reconciled ${results.length} pending settlement(s): ${JSON.stringify(counts)}.`);
        return results.some((r) => r.outcome.status === 'error') ? 1 : 0;
      }
      case 'settlements': {
        for (const s of await listSettlements(store, Date.now())) {
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
