// Operator CLI for credits keys:
//   npm run keys -- create --plan bundle-25 [--label "ACME"]   prints the new key once
//   npm run keys -- show <key>                                 calls left per grant, expiries
//   npm run keys -- revoke <key>
//   npm run keys -- rotate <key>                               a new key with the same grants; the old one revoked
import { parseArgs } from 'node:util';
import { getConfig } from '@/lib/config';
import { runCli } from './cli';
import { openStore } from '@/lib/store';
import { PLANS, findPlan } from '@/lib/credits/plans';
import { authenticateKey, balance, createKey } from '@/lib/credits/ledger';
import { hashKey, isWellFormedKey, maskKey } from '@/lib/credits/keys';
import { ProblemError } from '@/lib/problems';
import { rotateCreditsKey } from '@/lib/billing/rotate';

const USAGE = `Usage:
  npm run keys -- create --plan <${PLANS.map((p) => p.id).join('|')}> [--label <text>]
  npm run keys -- show <key>
  npm run keys -- revoke <key>
  npm run keys -- rotate <key>`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { plan: { type: 'string' }, label: { type: 'string' } } });
  const [command, key] = positionals;
  const config = getConfig();
  const store = openStore(config);
  try {
    switch (command) {
      case 'create': {
        const plan = findPlan(values.plan ?? '');
        if (!plan) {
          console.error(`Unknown or missing --plan.\n${USAGE}`);
          return 2;
        }
        const created = await createKey(store, config.CREDITS_KEY_SECRET, plan.id, { label: values.label, sourceRef: 'cli' });
        console.log(`Created ${maskKey(created.key)} with ${created.grant.calls} calls (${plan.id}), valid until ${new Date(created.grant.expiresAt).toISOString()}.`);
        console.log('This is the only time the key is shown; store it now:');
        console.log(created.key);
        return 0;
      }
      case 'show': {
        if (!key) break;
        const keyHash = await authenticateKey(store, config.CREDITS_KEY_SECRET, key);
        const b = await balance(store, keyHash);
        console.log(JSON.stringify({ key: maskKey(key), ...b }, null, 2));
        return 0;
      }
      case 'revoke': {
        if (!key) break;
        const revoked = isWellFormedKey(key) && (await store.revokeKey(hashKey(key, config.CREDITS_KEY_SECRET), Date.now()));
        console.log(revoked ? `Revoked ${maskKey(key)}.` : `${maskKey(key)} is unknown or already revoked.`);
        return revoked ? 0 : 1;
      }
      case 'rotate': {
        if (!key) break;
        const keyHash = await authenticateKey(store, config.CREDITS_KEY_SECRET, key);
        const rotated = await rotateCreditsKey({ store, secret: config.CREDITS_KEY_SECRET }, keyHash, Date.now());
        console.log(`Rotated ${maskKey(key)}: it is revoked, and its grants and reports now belong to ${rotated.keyPrefix}.`);
        console.log('This is the only time the new key is shown; store it now:');
        console.log(rotated.key);
        return 0;
      }
    }
    console.error(USAGE);
    return 2;
  } catch (error) {
    if (error instanceof ProblemError) {
      console.error(error.problem.detail);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

runCli(main);
