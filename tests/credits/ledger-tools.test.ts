import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '@/lib/config';
import { openStore, type Store } from '@/lib/store';
import { balance, commitCall, createKey, reserveCall } from '@/lib/credits/ledger';
import { auditLedger } from '@/lib/credits/audit';
import { recordUnconfirmed } from '@/lib/payments/settlements';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { startUpstashShim } from '../support/upstash-shim';

// The operator's ledger tools as an operator runs them (`npm run ledger -- audit`, `npm run keys -- refund|usage`),
// as processes against each of the three stores, with the ledger written by the same code the server runs.

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const SECRET = 'ledger-tools-test-secret-'.padEnd(48, 'x');
const DAY = 24 * 60 * 60 * 1000;

interface Run { code: number; stdout: string; stderr: string }

function cli(env: Record<string, string>, script: 'keys' | 'ledger', ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSX, `scripts/${script}.ts`, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'development', CREDITS_KEY_SECRET: SECRET, LOG_LEVEL: 'silent', ...env },
      encoding: 'utf8',
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }));
  });
}

interface StoreSetup { name: string; available: boolean; start(): Promise<Record<string, string>>; stop(): Promise<void> }

const hasRedis = redisServerAvailable();
let redis: RedisServer | undefined;
let shim: Awaited<ReturnType<typeof startUpstashShim>> | undefined;
const dirs: string[] = [];

const setups: StoreSetup[] = [
  {
    name: 'sqlite', available: true,
    start: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-ledger-tools-'));
      dirs.push(dir);
      return { DATA_DIR: dir };
    },
    stop: async () => {},
  },
  {
    name: 'redis', available: hasRedis,
    start: async () => {
      redis = await startRedisServer();
      return { REDIS_URL: redis.url };
    },
    stop: async () => void (await redis?.stop()),
  },
  {
    name: 'vercel-kv', available: hasRedis,
    start: async () => {
      const server = await startRedisServer();
      shim = await startUpstashShim(server.url, 'kv-test-token');
      const stopServer = server.stop;
      setups[2].stop = async () => {
        await shim?.close();
        await stopServer();
      };
      return { KV_REST_API_URL: shim.url, KV_REST_API_TOKEN: shim.token };
    },
    stop: async () => {},
  },
];

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

for (const setup of setups) {
  describe.skipIf(!setup.available)(`ledger tools on ${setup.name}`, () => {
    let env: Record<string, string>;
    let store: Store;

    beforeAll(async () => {
      env = await setup.start();
      store = openStore(parseConfig({ ...env, CREDITS_KEY_SECRET: SECRET }));
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      await setup.stop();
    });

    it('audits a clean ledger, gives one call back once, lists the key\'s calls, and finds a tampered ledger', async () => {
      const { key, keyHash, grant } = await createKey(store, SECRET, 'bundle-25');
      const now = Date.now();
      const spent: string[] = [];
      for (const [i, operation] of ['agent-payment-readiness', 'ai-visibility', 'ai-visibility'].entries()) {
        const usage = (await reserveCall(store, keyHash, now + i * 1000, 120_000, operation))!;
        expect(await commitCall(store, usage, now + i * 1000 + 5)).toBe('committed');
        spent.push(usage);
      }
      const released = (await reserveCall(store, keyHash, now, 120_000, 'ai-visibility'))!;
      await store.releaseReservation(released);
      expect((await balance(store, keyHash)).callsLeft).toBe(22);

      const clean = await cli(env, 'ledger', 'audit', '--keys');
      expect(clean.stderr).toBe('');
      expect(clean.code).toBe(0);
      expect(clean.stdout).toContain('discrepancies: 0');
      expect(clean.stdout).toContain(JSON.stringify({ keyHash: keyHash.slice(0, 16), granted: 25, committed: 3, givenBack: 0, removed: 0, left: 22 }));

      const refund = await cli(env, 'keys', 'refund', spent[1]);
      expect(refund).toMatchObject({ code: 0, stdout: `Gave ${spent[1]} back: one call returned to its key (grant ${grant.id}).\n` });
      expect((await balance(store, keyHash)).callsLeft).toBe(23);
      const again = await cli(env, 'keys', 'refund', spent[1]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(new RegExp(`^Refused: ${spent[1]} was already given back on \\d{4}-\\d\\d-\\d\\dT.*Z\\. A call is given back once\\.\\n$`));
      expect((await balance(store, keyHash)).callsLeft).toBe(23);
      // Each spawn costs seconds: the outcomes that read the same on every store run as processes once (the
      // store operations behind them are checked on every adapter in tests/store/ledger-ops.test.ts).
      if (setup.name === 'sqlite') {
        const neverCharged = await cli(env, 'keys', 'refund', released);
        expect(neverCharged).toMatchObject({ code: 1, stderr: `Refused: ${released} was never charged (it is released); there is nothing to give back.\n` });
        const malformed = await cli(env, 'keys', 'refund', 'not-a-usage');
        expect(malformed.code).toBe(2);
        expect(malformed.stderr).toContain('"not-a-usage" is not a creditsUsage id (cu_…)');
        expect((await cli(env, 'keys', 'refund', 'cu_doesnotexist')).stderr).toContain('Refused: no call cu_doesnotexist in this store');
        const unknown = await cli(env, 'keys', 'usage', 'pac_live_' + 'A'.repeat(43));
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toMatch(/is not a key of this store\.\n$/);
      }

      const audited = await cli(env, 'ledger', 'audit', '--keys');
      expect(audited.code).toBe(0);
      expect(audited.stdout).toContain(JSON.stringify({ keyHash: keyHash.slice(0, 16), granted: 25, committed: 3, givenBack: 1, removed: 0, left: 23 }));
      expect(audited.stdout).toContain('discrepancies: 0');

      const at = (i: number) => new Date(now + i * 1000 + 5).toISOString();
      if (setup.name === 'sqlite') {
        const usage = await cli(env, 'keys', 'usage', key);
        expect(usage.code).toBe(0);
        const rows = usage.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
        expect(rows[0]).toEqual(['time', 'operation', 'usage', 'refunded', 'refunded_at']);
        expect(rows.slice(1).map((r) => r.slice(0, 4))).toEqual([
          [at(2), 'ai-visibility', spent[2], 'no'],
          [at(1), 'ai-visibility', spent[1], 'yes'],
          [at(0), 'agent-payment-readiness', spent[0], 'no'],
        ]);
      }
      const refundedAt = (await store.listUsage(keyHash, 10)).find((u) => u.id === spent[1])!.refundedAt!;
      const csv = await cli(env, 'keys', 'usage', key, '--csv');
      expect(csv).toMatchObject({
        code: 0,
        stdout: [
          'time,operation,usage,refunded,refunded_at',
          `${at(2)},ai-visibility,${spent[2]},no,`,
          `${at(1)},ai-visibility,${spent[1]},yes,${new Date(refundedAt).toISOString()}`,
          `${at(0)},agent-payment-readiness,${spent[0]},no,`,
        ].join('\n') + '\n',
      });

      // Tampered: a call spent with no usage behind it (as a double charge would), and a hold far past its timeout.
      await store.updateGrant(grant.id, { used: 3 });
      expect((await store.reserveCall(keyHash, 'cu_forever', now, now + 30 * DAY)).ok).toBe(true);
      const tampered = await cli(env, 'ledger', 'audit');
      expect(tampered.code).toBe(1);
      expect(tampered.stdout).toContain('discrepancies: 2');
      expect(tampered.stdout).toContain('"kind":"balance"');
      expect(tampered.stdout).toContain('used 3, but committed 3 − given back 1 + removed 0 = 2');
      expect(tampered.stdout).toContain('"kind":"hold"');
      expect(tampered.stdout).toContain('"usageId":"cu_forever"');
      // The audit never prints a key, nor a whole key hash.
      expect(tampered.stdout).not.toContain(key);
      expect(tampered.stdout).not.toContain(keyHash);
      expect((await auditLedger(store, { now: Date.now() })).discrepancies).toHaveLength(2);
    }, 240_000);
  });
}

describe('npm run ledger -- settlements', () => {
  const HEADING =
    'Settlements recorded in this store: payments whose settle call ended without an answer, each with its outcome (pending, charged, not-charged).';

  it('says what it lists, prints "none" for an empty store, and one line per settlement with a count', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-ledger-settlements-'));
    dirs.push(dir);
    const env = { DATA_DIR: dir };
    const empty = await cli(env, 'ledger', 'settlements');
    expect(empty).toEqual({ code: 0, stdout: `${HEADING}\nnone\n`, stderr: '' });

    const store = openStore(parseConfig({ ...env, CREDITS_KEY_SECRET: SECRET }));
    // Recent: a settlement record expires after 30 days.
    const recordedAt = Date.now() - 60_000;
    try {
      await recordUnconfirmed(store, {
        operation: 'ai-visibility', scope: 'scope-a', fingerprint: 'f', idempotencyKey: 'idem-a',
        trace: { rail: 'evm', chainId: 8453, currency: '0xusdc', from: '0xpayer', nonce: '0x01', validBefore: 2_000_000_000 },
        response: { headers: {}, service: 'ai-visibility', result: {} }, recordedAt, status: 'pending',
      });
    } finally {
      await store.close();
    }
    const one = await cli(env, 'ledger', 'settlements');
    expect(one).toEqual({
      code: 0,
      stdout: [
        HEADING,
        JSON.stringify({ operation: 'ai-visibility', rail: 'evm', status: 'pending', reference: null, recordedAt: new Date(recordedAt).toISOString(), resolvedAt: null }),
        '1 settlement(s): {"pending":1}.',
      ].join('\n') + '\n',
      stderr: '',
    });
  }, 60_000);
});
