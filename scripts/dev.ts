// `npm run dev`: checks the configuration, mints a demo credits key on an empty store (printed
// once), then starts `next dev`. Nothing here runs in production.
import { spawn } from 'node:child_process';
import { getConfig, ConfigError } from '@/lib/config';
import { openStore } from '@/lib/store';
import { mintDemoKeyIfEmpty } from '@/lib/credits/demo';

async function main() {
  let config;
  try {
    config = getConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const store = openStore(config);
  const demoKey = await mintDemoKeyIfEmpty(store, config.CREDITS_KEY_SECRET);
  if (demoKey) {
    console.log('\n  A demo credits key with 25 calls was minted for this empty store. It is shown only this once:\n');
    console.log(`    export KEY=${demoKey}\n`);
  }
  await store.close();
  console.log(`  Store: ${config.storeKind}${config.storeKind === 'sqlite' ? ` (${config.DATA_DIR})` : ''}`);

  const port = process.env.PORT ?? '3000';
  const child = spawn(process.execPath, [require.resolve('next/dist/bin/next'), 'dev', '--port', port], { stdio: 'inherit', env: process.env });
  const stop = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}

void main();
