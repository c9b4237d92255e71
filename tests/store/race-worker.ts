// One of several processes spending the same balance at once (see race.test.ts).
// argv: <sqlite|sqlite-thread|redis> <dataDir|redisUrl> <keyHash> <prefix> <startAtMs>
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';

async function main() {
  const [kind, where, keyHash, prefix, startAt] = process.argv.slice(2);
  const store = kind === 'sqlite' ? openSqliteStore(where) : kind === 'sqlite-thread' ? openSqliteStoreOffThread(where) : openRedisStore(where, prefix);
  // Processes boot at different speeds; all of them start spending at the same instant.
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
  const spent: string[] = [];
  for (let i = 0; ; i++) {
    const id = `cu_${process.pid}_${i}`;
    const now = Date.now();
    const r = await store.reserveCall(keyHash, id, now, now + 120_000);
    if (!r.ok) break;
    if ((await store.commitReservation(id, Date.now())) === 'committed') spent.push(id);
  }
  await store.close();
  process.stdout.write(JSON.stringify(spent));
}

void main();
