import { ConfigError } from '@/lib/config';
import { getRuntime } from '@/lib/runtime';

export function startup(): void {
  try {
    const { config, rails } = getRuntime();
    const live = rails?.live.length ? rails.live.join(', ') : 'none (prepaid credits keys only)';
    console.log(`[paid-agent-checks] store: ${config.storeKind}; payment rails live: ${live}; APP_URL ${config.APP_URL}`);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[paid-agent-checks] refusing to start. ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
