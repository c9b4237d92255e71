import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { validReadinessBody } from '../support/runtime';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';

// Per-IP rate limits on the real service (`next start` on a production build): which bucket a request
// lands in, when the client writes whatever address headers it likes. Every request here comes
// from 127.0.0.1; the limit is 3 per window, so a fourth request in one bucket is 429.

const LIMIT = { RATE_LIMIT_PER_IP: '3', RATE_LIMIT_WINDOW_SECONDS: '600' };
let direct: RunningServer;
let behindOneProxy: RunningServer;
const keys = new Map<RunningServer, string>();

beforeAll(async () => {
  [direct, behindOneProxy] = await Promise.all([startServer(LIMIT), startServer({ ...LIMIT, TRUSTED_PROXY: '1' })]);
  for (const server of [direct, behindOneProxy]) {
    const store = openSqliteStore(server.dataDir);
    keys.set(server, (await createKey(store, TEST_SECRET, 'bundle-100')).key);
    await store.close();
  }
}, 300_000);
afterAll(async () => {
  await Promise.all([direct?.stop(), behindOneProxy?.stop()]);
});

async function statuses(server: RunningServer, headerSets: Array<Record<string, string>>): Promise<Array<number | string>> {
  const answers: Array<number | string> = [];
  for (const headers of headerSets) {
    const res = await fetch(`${server.url}/api/agent/readiness`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.get(server)}`, ...headers },
      body: JSON.stringify(validReadinessBody()),
    });
    // A refusal is named by its problem type, so a 429 for another reason would not pass for the limit.
    const body = (await res.json()) as { type?: string };
    answers.push(res.status === 200 ? 200 : `${res.status} ${body.type?.split('/').pop()}`);
  }
  return answers;
}

describe('client address under next start', () => {
  it('with the default TRUSTED_PROXY, X-Real-IP / X-Forwarded-For / CF-Connecting-IP pick no bucket: the peer is the bucket', async () => {
    const spoofs = [1, 2, 3, 4, 5].map((i) => ({
      'x-real-ip': `198.51.100.${i}`,
      'x-forwarded-for': `192.0.2.${i}, 203.0.113.${i}`,
      'cf-connecting-ip': `2001:db8:${i}::1`,
      'x-vercel-forwarded-for': `192.0.2.${100 + i}`,
    }));
    expect(await statuses(direct, spoofs)).toEqual([200, 200, 200, '429 rate-limited', '429 rate-limited']);
  });

  it('with TRUSTED_PROXY=1, the entry the proxy appended is the bucket, X-Real-IP is ignored and IPv6 counts per /64', async () => {
    // What a proxy that appends X-Forwarded-For forwards: the client's own text, then the address it saw.
    const viaProxy = (seen: string, spoof = '198.51.100.1') => ({ 'x-forwarded-for': `${spoof}, ${seen}`, 'x-real-ip': spoof });
    expect(await statuses(behindOneProxy, [1, 2, 3, 4].map((i) => viaProxy('192.0.2.10', `198.51.100.${i}`)))).toEqual([200, 200, 200, '429 rate-limited']);
    expect(await statuses(behindOneProxy, [viaProxy('192.0.2.11')])).toEqual([200]);
    const sameSlash64 = ['2001:db8:7:7::1', '2001:db8:7:7::2', '2001:db8:7:7:ffff:ffff:ffff:ffff', '2001:db8:7:7:abcd::9'];
    expect(await statuses(behindOneProxy, sameSlash64.map((a) => viaProxy(a)))).toEqual([200, 200, 200, '429 rate-limited']);
    expect(await statuses(behindOneProxy, [viaProxy('2001:db8:7:8::1')])).toEqual([200]);
  });
});
