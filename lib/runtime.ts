import { getConfig, type Config } from '@/lib/config';
import { openStore, type Store } from '@/lib/store';
import { createPaymentRails, type PaymentRails } from '@/lib/payments/rails';
import { paymentConfigOf } from '@/lib/payments/config';
import { storeCredentialClaims } from '@/lib/payments/claims';
import { directoryListings } from '@/lib/payments/listing';
import { logEvent, registerLogSecrets } from '@/lib/log';
import { timedStore } from '@/lib/metrics';

// Process-wide singletons, built on first use. Kept on globalThis so Next's dev-mode module
// reloading does not open a second store connection per edit.

export interface Runtime {
  config: Config;
  store: Store;
  rails: PaymentRails | null;
  log: (event: Record<string, unknown>) => void;
}

const holder = globalThis as unknown as { __pacRuntime?: Runtime };

/**
 * The live payment rails for this configuration, or null when none is complete (the paid-call pipeline then answers 503).
 * What the facilitator says of the directory listing is kept in `store` and its changes go to `log`.
 */
export function railsFor(config: Config, store: Store, log: (event: Record<string, unknown>) => void = logEvent): PaymentRails | null {
  return createPaymentRails(paymentConfigOf(config), {
    claims: storeCredentialClaims(store),
    rpcUrl: config.BASE_RPC_URL,
    directory: directoryListings(store, log),
  });
}

export function getRuntime(): Runtime {
  if (!holder.__pacRuntime) {
    const config = getConfig();
    registerLogSecrets([config.CREDITS_KEY_SECRET, config.MPP_SECRET_KEY, config.STRIPE_SECRET_KEY, config.STRIPE_WEBHOOK_SECRET, config.KV_REST_API_TOKEN, config.METRICS_TOKEN, config.WEB_BOT_AUTH_KEY, config.RENDERER_TOKEN]);
    // Every store call timed for pac_store_operation_duration_seconds (GET /api/metrics).
    const store = timedStore(openStore(config, { sqliteOffThread: true }));
    holder.__pacRuntime = { config, store, rails: railsFor(config, store), log: logEvent };
  }
  return holder.__pacRuntime;
}

/** Tests build their own runtime (a temp store, fake clock) and install it. */
export function setRuntimeForTests(runtime: Runtime | undefined): void {
  holder.__pacRuntime = runtime;
}
