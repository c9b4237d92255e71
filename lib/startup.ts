import { ConfigError } from '@/lib/config';
import { getRuntime } from '@/lib/runtime';
import { startPurgeSchedule, type PurgeSchedule } from '@/lib/store/purge';
import { startReconciler } from '@/lib/payments/settlements';
import { checks } from '@/lib/checks/registry';
import { installShutdownHandlers, onShutdown } from '@/lib/lifecycle';

const holder = globalThis as unknown as { __pacPurge?: PurgeSchedule };

export function startup(): void {
  try {
    const { config, rails, store, log } = getRuntime();
    // One schedule per process, even if Next evaluates this module twice.
    holder.__pacPurge ??= startPurgeSchedule(store, { log });
    // What the checks hold for the life of the process (a shared Chromium) is released once the drain is over.
    onShutdown('checks', () => Promise.all(checks().map((c) => c.close?.())));
    const live = rails?.live.length ? rails.live.join(', ') : 'none (prepaid credits keys only)';
    console.log(`[paid-agent-checks] store: ${config.storeKind}; payment rails live: ${live}; APP_URL ${config.APP_URL}`);
    // Settlements that ended without an answer are asked about until the processors say what happened.
    if (rails) startReconciler({ store, probe: rails.settlements, intervalMs: config.SETTLEMENT_RECONCILE_SECONDS * 1000, log });
    // After `next start` installed its own SIGTERM/SIGINT handlers (they run once our drain is over): a deploy
    // lets paid calls in flight finish, or gives their held calls back, before the process exits.
    installShutdownHandlers({ graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000, log });
  } catch (error) {
    // A bad configuration (or payment settings the rails refuse) stops the process with one message, no stack.
    console.error(`[paid-agent-checks] refusing to start. ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
