// `npm run rails` (tsx scripts/rails/index.ts): start the local payment rails and print the environment an
// operator exports for the service (and for paying clients), then keep running until Ctrl-C.
//
// Options (flags or env): --anvil-port / RAILS_ANVIL_PORT, --facilitator-port / RAILS_FACILITATOR_PORT,
// --stripe-port / RAILS_STRIPE_PORT, --env-file <path> (also write the service variables there, KEY=value).
import { writeFileSync } from 'node:fs';
import { startRails, type Rails, type StartRailsOptions } from './start';

export { startRails, BASE_USDC_ADDRESS, BASE_CHAIN_ID } from './start';
export type { Rails, StartRailsOptions } from './start';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function portOption(name: string, envName: string): number | undefined {
  const raw = flag(name) ?? process.env[envName];
  if (raw === undefined || raw === '') return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--${name} / ${envName}: not a port: ${raw}`);
  return port;
}

export function formatEnv(rails: Rails): string {
  const lines = [
    '# Service (export these, plus APP_URL for the service itself)',
    ...Object.entries(rails.env).map(([k, v]) => `${k}=${v}`),
    '',
    '# Paying clients (anvil test key: public, worthless outside this local chain)',
    `RPC_URL=${rails.rpcUrl}`,
    `PAYER_ADDRESS=${rails.payer.address}`,
    `PAYER_PRIVATE_KEY=${rails.payer.privateKey}`,
    `MPPX_PRIVATE_KEY=${rails.payer.privateKey}`,
    `MPPX_RPC_URL=${rails.rpcUrl}`,
    `MPPX_STRIPE_SECRET_KEY=${rails.clientEnv.MPPX_STRIPE_SECRET_KEY}`,
    `MPPX_STRIPE_SPT_URL=${rails.clientEnv.MPPX_STRIPE_SPT_URL}`,
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const options: StartRailsOptions = {
    anvilPort: portOption('anvil-port', 'RAILS_ANVIL_PORT'),
    facilitatorPort: portOption('facilitator-port', 'RAILS_FACILITATOR_PORT'),
    stripePort: portOption('stripe-port', 'RAILS_STRIPE_PORT'),
    mppSecretKey: process.env.MPP_SECRET_KEY || undefined,
  };
  const rails = await startRails(options);
  const envFile = flag('env-file');
  if (envFile) writeFileSync(envFile, Object.entries(rails.env).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  process.stdout.write(`${formatEnv(rails)}\n`);
  process.stderr.write(
    '\nPay the running service with the mppx CLI (after exporting the client variables above):\n' +
      "  mppx $APP_URL/api/agent/readiness -J '{...}' --protocol mpp --currency $USDC_ADDRESS   # MPP evm\n" +
      "  mppx $APP_URL/api/agent/readiness -J '{...}' --protocol x402                           # x402 v2\n" +
      "  mppx $APP_URL/api/agent/readiness -J '{...}' --protocol mpp --currency usd -M paymentMethod=pm_card_visa  # card\n",
  );
  process.stderr.write(
    `\nLocal rails up in ${rails.timings.total} ms (chain ${rails.chainId}, USDC ${rails.usdcAddress}, ` +
      `payer holds ${Number(await rails.usdcBalance(rails.payer.address)) / 1e6} USDC). Ctrl-C to stop.\n`,
  );
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    void rails.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (/scripts[\\/]rails[\\/]index\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  main().catch((error: unknown) => {
    process.stderr.write(`rails: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
