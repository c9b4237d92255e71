import { getConfig, type Config } from '@/lib/config';
import { openStore, type Store } from '@/lib/store';
import type { PaymentRails } from '@/lib/payments/gate';
import { logEvent } from '@/lib/log';

// Process-wide singletons, built on first use. Kept on globalThis so Next's dev-mode module
// reloading does not open a second store connection per edit.

export interface Runtime {
  config: Config;
  store: Store;
  rails: PaymentRails | null;
  log: (event: Record<string, unknown>) => void;
}

const holder = globalThis as unknown as { __pacRuntime?: Runtime };

export function getRuntime(): Runtime {
  if (!holder.__pacRuntime) {
    const config = getConfig();
    holder.__pacRuntime = { config, store: openStore(config), rails: null, log: logEvent };
  }
  return holder.__pacRuntime;
}

/** Tests build their own runtime (a temp store, fake clock) and install it. */
export function setRuntimeForTests(runtime: Runtime | undefined): void {
  holder.__pacRuntime = runtime;
}
