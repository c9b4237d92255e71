// `npm run dev`: checks the configuration, starts the local payment rails when no real rail is
// configured, mints a demo credits key on an empty store (printed once), then runs `next dev`.
// Nothing here runs in production.
import { spawn } from 'node:child_process';
import { getConfig, ConfigError, type Config } from '@/lib/config';
import { openStore } from '@/lib/store';
import { mintDemoKeyIfEmpty } from '@/lib/credits/demo';
import { liveRails } from '@/lib/payments/config';
import { startRails, type Rails } from './rails/start';
import { formatEnv } from './rails/index';

function configuredRails(config: Config) {
  return liveRails({
    appUrl: config.APP_URL, mppSecretKey: config.MPP_SECRET_KEY, payToAddress: config.PAY_TO_ADDRESS,
    x402FacilitatorUrl: config.X402_FACILITATOR_URL, stripeSecretKey: config.STRIPE_SECRET_KEY, stripeNetworkId: config.STRIPE_NETWORK_ID,
  });
}

async function main() {
  const port = process.env.PORT ?? '3000';
  process.env.APP_URL ||= `http://localhost:${port}`;
  let config: Config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  let rails: Rails | null = null;
  if (configuredRails(config).length === 0 && process.env.LOCAL_RAILS !== 'off') {
    // No real rail configured: bring up anvil (chain 8453), a real x402 facilitator and the Stripe fake,
    // so every payment rail can be tried on a laptop with no real money.
    rails = await startRails({});
    Object.assign(process.env, rails.env);
    console.log(`\n  Local payment rails are up (set LOCAL_RAILS=off to skip). To pay with the mppx CLI, export:\n`);
    console.log(formatEnv(rails).replace(/^/gm, '    '));
    console.log(`\n    # then, e.g.: npx mppx ${process.env.APP_URL}/api/agent/readiness --protocol x402 -J '<body>'`);
  }

  const store = openStore(config);
  const demoKey = await mintDemoKeyIfEmpty(store, config.CREDITS_KEY_SECRET);
  if (demoKey) {
    console.log('\n  A demo credits key with 25 calls was minted for this empty store. It is shown only this once:\n');
    console.log(`    export KEY=${demoKey}\n`);
  }
  await store.close();
  console.log(`  Store: ${config.storeKind}${config.storeKind === 'sqlite' ? ` (${config.DATA_DIR})` : ''}`);

  const child = spawn(process.execPath, [require.resolve('next/dist/bin/next'), 'dev', '--port', port], { stdio: 'inherit', env: process.env });
  const stop = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', async (code) => {
    await rails?.stop();
    process.exit(code ?? 0);
  });
}

void main();
