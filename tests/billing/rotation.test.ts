// A rotated key keeps what was bought with it: Stripe events about an earlier purchase (a refund, a
// subscription renewal) reach the grants where they went, and the account view of the new key shows the
// subscription and the billing portal. Also `npm run keys -- rotate`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST as webhookPOST } from '@/app/api/billing/webhook/route';
import { GET as sessionGET } from '@/app/api/billing/session/route';
import { POST as accountPOST } from '@/app/api/billing/account/route';
import { authenticateKey, balance, createKey } from '@/lib/credits/ledger';
import { names, writeJson, type CheckoutRecord } from '@/lib/billing/records';
import { rotateCreditsKey } from '@/lib/billing/rotate';
import { openSqliteStore } from '@/lib/store/sqlite';
import type { PlanId } from '@/lib/price';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { type AccountBody, WEBHOOK_SECRET, addMonths, chargeRefunded, invoicePaid, nowS, sessionCompleted, sign } from './events';

const BASE = 'http://localhost:3000';
let rt: TestRuntime;

beforeEach(() => {
  rt = installTestRuntime({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
});
afterEach(() => rt.dispose());

async function deliverOk(evt: unknown): Promise<string> {
  const payload = JSON.stringify(evt);
  const res = await webhookPOST(new Request(`${BASE}/api/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': sign(payload) }, body: payload }));
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: string }).result;
}

/** Pays for a new key through the webhook and takes it from the one-time reveal. */
async function buyNewKey(plan: PlanId, opts: { paymentIntent?: string; subscription?: string } = {}): Promise<string> {
  const sessionId = `cs_test_rotation${plan.replace(/\W/g, '')}${Date.now()}`;
  const record: CheckoutRecord = { sessionId, plan, mode: plan === 'subscription' ? 'subscription' : 'payment', topUpKeyHash: null, topUpKeyMask: null, createdAt: Date.now() };
  await writeJson(rt.store, names.checkout(sessionId), record, Date.now());
  await deliverOk(sessionCompleted(sessionId, { plan, ...opts }));
  const res = await sessionGET(new Request(`${BASE}/api/billing/session?session_id=${sessionId}`));
  return ((await res.json()) as { key: string }).key;
}

const hashOf = (key: string) => authenticateKey(rt.store, rt.config.CREDITS_KEY_SECRET, key);
const callsLeft = async (key: string) => (await balance(rt.store, await hashOf(key))).callsLeft;
const rotate = async (key: string) => rotateCreditsKey({ store: rt.store, secret: rt.config.CREDITS_KEY_SECRET }, await hashOf(key), Date.now());

async function account(key: string): Promise<AccountBody> {
  const res = await accountPOST(new Request(`${BASE}/api/billing/account`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) }));
  expect(res.status).toBe(200);
  return (await res.json()) as AccountBody;
}

describe('a rotated key', () => {
  it('loses the calls of a purchase refunded after the rotation (the refund follows the grant)', async () => {
    const pi = 'pi_test_rotated_refund';
    const oldKey = await buyNewKey('bundle-25', { paymentIntent: pi });
    const { key } = await rotate(oldKey);
    expect(await callsLeft(key)).toBe(25);
    expect(await deliverOk(chargeRefunded(pi, 2000, 2000))).toBe('processed');
    expect(await callsLeft(key)).toBe(0);
  });

  it('follows more than one rotation', async () => {
    const pi = 'pi_test_rotated_twice';
    const first = await buyNewKey('bundle-100', { paymentIntent: pi });
    const second = (await rotate(first)).key;
    const third = (await rotate(second)).key;
    await deliverOk(chargeRefunded(pi, 7000, 700));
    expect(await callsLeft(third)).toBe(90);
  });

  it('keeps its subscription: renewals reset the allowance of the new key, and its account shows the subscription and the portal', async () => {
    const sub = 'sub_test_rotated';
    const start = nowS();
    const oldKey = await buyNewKey('subscription', { subscription: sub });
    await deliverOk(invoicePaid(sub, start, addMonths(start, 1), { reason: 'subscription_create', paymentIntent: 'pi_test_sub_first' }));
    const { key: newKey } = await rotate(oldKey);
    const before = await account(newKey);
    expect(before.subscriptions.map((s) => [s.id, s.status])).toEqual([[sub, 'active']]);
    expect(before.billingPortal).toBe(true);
    expect(before.callsLeft).toBe(50);

    await deliverOk(invoicePaid(sub, addMonths(start, 1), addMonths(start, 2), { paymentIntent: 'pi_test_sub_second' }));
    expect(await callsLeft(newKey)).toBe(50);
    await deliverOk(chargeRefunded('pi_test_sub_second', 2900, 2900));
    expect(await callsLeft(newKey)).toBe(0);
  });
});

describe('npm run keys -- rotate', () => {
  it('prints the new key once; the old key is revoked and the grants moved', async () => {
    const dataDir = rt.config.DATA_DIR;
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/keys.ts', 'rotate', key], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, DATA_DIR: dataDir, CREDITS_KEY_SECRET: rt.config.CREDITS_KEY_SECRET, NODE_ENV: 'development', REDIS_URL: '', KV_REST_API_URL: '', KV_REST_API_TOKEN: '' },
    });
    const lines = stdout.trim().split('\n');
    const newKey = lines.at(-1)!;
    expect(newKey).toMatch(/^pac_live_[0-9A-Za-z]{40}$/);
    expect(lines[0]).toBe(`Rotated pac_live_…${key.slice(-4)}: it is revoked, and its grants and reports now belong to pac_live_…${newKey.slice(-4)}.`);
    const store = openSqliteStore(dataDir);
    try {
      expect((await store.getKey(keyHash))?.revokedAt).toEqual(expect.any(Number));
      expect((await balance(store, await authenticateKey(store, rt.config.CREDITS_KEY_SECRET, newKey))).callsLeft).toBe(25);
    } finally {
      await store.close();
    }
  });
});
