// Idempotency records are scoped to the credits key: two key holders who happen to send the same
// Idempotency-Key and body each get their own paid call, and neither ever sees the other's answer.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('readiness');

const URL_ = 'http://localhost:3000/api/agent/readiness';
const SHARED_IDEMPOTENCY_KEY = 'order-shared-0001';
// Two distinct instants, so the two assessments' own timestamps tell them apart.
const A_TIME = new Date('2026-03-01T10:00:00.000Z');
const B_TIME = new Date('2026-03-01T10:00:05.000Z');

interface ReadinessBody {
  creditsUsage: string;
  assessedAt: string;
  idempotencyKey: string;
  [k: string]: unknown;
}

let rt: TestRuntime;
let a: { key: string; keyHash: string };
let b: { key: string; keyHash: string };

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(A_TIME);
  rt = installTestRuntime();
  a = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  b = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
});
afterEach(async () => {
  vi.useRealTimers();
  await rt.dispose();
});

const send = (key: string, body: unknown = validReadinessBody()) =>
  POST(post(URL_, body, { authorization: `Bearer ${key}`, 'idempotency-key': SHARED_IDEMPOTENCY_KEY }));
const callsLeft = async (keyHash: string) => (await balance(rt.store, keyHash)).callsLeft;

describe('the same Idempotency-Key and body under two credits keys', () => {
  it("charges B for its own call, with no replay header and nothing of A's answer", async () => {
    const first = await send(a.key);
    expect(first.status).toBe(200);
    const answerA = (await first.json()) as ReadinessBody;

    vi.setSystemTime(B_TIME);
    const second = await send(b.key);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const answerB = (await second.json()) as ReadinessBody;

    // B ran and paid its own call: its usage is a fresh reservation on B's key, committed.
    expect(answerB.idempotencyKey).toBe(SHARED_IDEMPOTENCY_KEY);
    expect(answerB.creditsUsage).toMatch(/^cu_/);
    expect(answerB.creditsUsage).not.toBe(answerA.creditsUsage);
    expect(await rt.store.getReservation(answerB.creditsUsage)).toMatchObject({ keyHash: b.keyHash, state: 'committed' });
    expect(answerB.assessedAt).toBe(B_TIME.toISOString());
    // No value that belongs to A's call appears anywhere in B's answer.
    const textB = JSON.stringify(answerB);
    expect(textB).not.toContain(answerA.creditsUsage);
    expect(textB).not.toContain(answerA.assessedAt);
    expect(await callsLeft(a.keyHash)).toBe(24);
    expect(await callsLeft(b.keyHash)).toBe(24);

    // Each key's retry replays its own answer, and only its own.
    const againA = await send(a.key);
    expect(againA.headers.get('idempotent-replayed')).toBe('true');
    expect(await againA.json()).toEqual(answerA);
    const againB = await send(b.key);
    expect(againB.headers.get('idempotent-replayed')).toBe('true');
    expect(await againB.json()).toEqual(answerB);
    expect(await callsLeft(a.keyHash)).toBe(24);
    expect(await callsLeft(b.keyHash)).toBe(24);
  });

  it("gives B no 409 when its body differs from A's: B cannot learn that A used the key", async () => {
    expect((await send(a.key)).status).toBe(200);
    const other = validReadinessBody({ workflow: { name: 'Other', intendedUsers: 'humans', targetEnvironment: 'sandbox' } });
    const res = await send(b.key, other);
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(((await res.json()) as { assessment: { workflow: { name: string } } }).assessment.workflow.name).toBe('Other');
    expect(await callsLeft(b.keyHash)).toBe(24);
  });
});
