// Child process of tests/bench/revision.ts `mintKey`: mints a prepaid key with the code of the build at argv[2]
// and prints it. Usage: mint-key.ts <root> sqlite <dataDir> | redis <url>  <secret> <calls>
import path from 'node:path';

async function main() {
  const [root, kind, where, secret, calls] = process.argv.slice(2) as [string, string, string, string, string];
  const { createKey } = (await import(path.join(root, 'lib/credits/ledger.ts'))) as typeof import('@/lib/credits/ledger');
  const store =
    kind === 'sqlite'
      ? ((await import(path.join(root, 'lib/store/sqlite.ts'))) as typeof import('@/lib/store/sqlite')).openSqliteStore(where)
      : ((await import(path.join(root, 'lib/store/redis.ts'))) as typeof import('@/lib/store/redis')).openRedisStore(where);
  const { key } = await createKey(store, secret, 'bundle-100', { calls: Number(calls) });
  await store.close();
  process.stdout.write(`${key}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
