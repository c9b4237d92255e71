import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GET as creditsGET } from '@/app/api/agent/credits/route';
import { createKey } from '@/lib/credits/ledger';
import { hashKey } from '@/lib/credits/keys';
import { PROBLEM_BASE } from '@/lib/problems';
import { artifactHash } from '@/lib/canonical-json';
import { StoreUnavailableError } from '@/lib/store';
import type { Store } from '@/lib/store';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST, GET } = agentCheckRoute('readiness');

const URL_ = 'http://localhost:3000/api/agent/readiness';

let rt: TestRuntime;
let key: string;

async function callsLeft(k = key) {
  const res = await creditsGET(new Request('http://localhost:3000/api/agent/credits', { headers: { authorization: `Bearer ${k}` } }));
  return ((await res.json()) as { callsLeft: number }).callsLeft;
}

beforeEach(async () => {
  rt = installTestRuntime();
  key = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25')).key;
});
afterEach(() => rt.dispose());

describe('POST /api/agent/readiness with a prepaid key', () => {
  it('answers 200 with the assessment and spends exactly one call', async () => {
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0001' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['service', 'idempotencyKey', 'creditsUsage', 'assessedAt', 'assessment', 'limits', 'artifactHash']);
    expect(body.idempotencyKey).toBe('order-0001');
    expect(body.creditsUsage).toMatch(/^cu_[A-Za-z0-9_-]+$/);
    expect(body.artifactHash).toBe(artifactHash(body.assessment));
    expect(body.assessment.authorizesExecution).toBe(false);
    expect(await callsLeft()).toBe(24);
    const usage = await rt.store.getReservation(body.creditsUsage);
    expect(usage?.state).toBe('committed');
  });

  it('replays the same Idempotency-Key and body without a second spend', async () => {
    const first = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0002' }));
    const second = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0002' }));
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await second.json()).toEqual(await first.json());
    expect(await callsLeft()).toBe(24);
  });

  it('keeps the body once, in the report its replay record names, and replays it byte for byte', async () => {
    const first = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-once-1' }));
    const firstText = await first.text();
    const reportId = first.headers.get('link')!.match(/\/api\/reports\/(rep_[A-Za-z0-9_-]+)/)![1]!;
    const keyHash = hashKey(key, rt.config.CREDITS_KEY_SECRET);
    const record = await rt.store.getIdempotent(`createAgentReadinessAssessment:${keyHash}:order-once-1`, Date.now());
    expect(record).toEqual({ state: 'done', fingerprint: expect.any(String), response: `{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"report":"${reportId}"}` });
    expect((await rt.store.getReport(reportId, Date.now()))?.body).toBe(firstText);
    const again = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-once-1' }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('link')).toBe(first.headers.get('link'));
    expect(await again.text()).toBe(firstText);
    expect(await callsLeft()).toBe(24);
  });

  it('replays a record that holds its own body (as every record did before) byte for byte', async () => {
    const first = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-once-2' }));
    const firstText = await first.text();
    const reportId = first.headers.get('link')!.match(/\/api\/reports\/(rep_[A-Za-z0-9_-]+)/)![1]!;
    const scope = `createAgentReadinessAssessment:${hashKey(key, rt.config.CREDITS_KEY_SECRET)}:order-once-2`;
    const kept = (await rt.store.getIdempotent(scope, Date.now()))!;
    // The record in the shape stored before: the body text spliced in, the report named beside it.
    const before = `{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"body":${firstText},"report":"${reportId}"}`;
    await rt.store.completeIdempotent(scope, kept.fingerprint, before, Date.now(), 86_400_000);
    const again = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-once-2' }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('link')).toBe(first.headers.get('link'));
    expect(await again.text()).toBe(firstText);
    expect(await callsLeft()).toBe(24);
  });

  it('treats a reordered but equal body as the same request', async () => {
    const body = validReadinessBody();
    const reordered = { capabilities: body.capabilities, workflow: body.workflow };
    await POST(post(URL_, body, { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0003' }));
    const again = await POST(post(URL_, reordered, { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0003' }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the same Idempotency-Key with a different body: 409, no spend', async () => {
    await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0004' }));
    const other = validReadinessBody({ workflow: { name: 'Other', intendedUsers: 'humans', targetEnvironment: 'sandbox' } });
    const res = await POST(post(URL_, other, { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0004' }));
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect((await res.json()).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);
    expect(await callsLeft()).toBe(24);
  });

  it('answers 409 while a request under the same key is still running, and spends nothing for it', async () => {
    const slowStore = withSlowRun(rt.store);
    rt.store = slowStore.store;
    const first = POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0005' }));
    await slowStore.claimed;
    const second = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-0005' }));
    slowStore.release();
    expect(second.status).toBe(409);
    expect((await second.json()).type).toBe(`${PROBLEM_BASE}idempotency-in-flight`);
    expect((await first).status).toBe(200);
    expect(await callsLeft()).toBe(24);
  });

  it('spends one call per request under concurrent load and never below zero', async () => {
    const small = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25', { calls: 3 })).key;
    const results = await Promise.all(
      Array.from({ length: 8 }, () => POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${small}` }))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 503)).toHaveLength(5);
    expect(await callsLeft(small)).toBe(0);
  });

  it('says the credits are used up, links to the plans, and answers 503 while no rail is live', async () => {
    const empty = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25', { calls: 1 })).key;
    expect((await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${empty}` }))).status).toBe(200);
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${empty}` }));
    expect(res.status).toBe(503);
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}credits-exhausted-no-rails`);
    expect(p.detail).toMatch(/no calls left/);
    expect(p.plans).toBe('http://localhost:3000/api/agent/credits');
    expect(p.purchase).toBe('http://localhost:3000/pricing');
  });

  it('answers 401 for malformed, unknown and revoked keys, spending nothing', async () => {
    const { key: revoked, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    await rt.store.revokeKey(keyHash, Date.now());
    for (const bad of ['nonsense', `pac_live_${'A'.repeat(40)}`, revoked]) {
      const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${bad}` }));
      expect(res.status).toBe(401);
      const p = await res.json();
      expect(p.type).toBe(`${PROBLEM_BASE}invalid-credits-key`);
      expect(JSON.stringify(p)).not.toContain(bad);
    }
    expect(await callsLeft()).toBe(25);
  });
});

describe('POST /api/agent/readiness input errors', () => {
  it('lists every bad field with its JSON path, and offers no challenge', async () => {
    const body = validReadinessBody() as unknown as { extra?: number; workflow: Record<string, unknown>; capabilities: Record<string, unknown> };
    body.extra = 1;
    body.workflow.name = '';
    body.workflow.intendedUsers = 'robots';
    delete body.capabilities.idempotency;
    body.capabilities.machine_discovery = { status: 'implemented', evidence: ['a', 'b', 'c', 'd', 'e', 'f'], note: 'x' };
    body.capabilities.delivery_evidence = { status: 'done', evidence: ['x'.repeat(241)] };
    const res = await POST(post(URL_, body, { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('payment-required')).toBeNull();
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}invalid-request`);
    const paths = p.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual([
      '$.capabilities.delivery_evidence.evidence[0]',
      '$.capabilities.delivery_evidence.status',
      '$.capabilities.idempotency',
      '$.capabilities.machine_discovery.evidence',
      '$.capabilities.machine_discovery.note',
      '$.extra',
      '$.workflow.intendedUsers',
      '$.workflow.name',
    ]);
    expect(await callsLeft()).toBe(25);
  });

  it.each([
    ['not JSON', '{"workflow":'],
    ['an empty body', ''],
    ['an array', '[]'],
    ['a string', '"hello"'],
    ['null', 'null'],
  ])('answers 400 problem+json for %s', async (_, raw) => {
    const res = await POST(post(URL_, raw));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = await res.json();
    expect(p).toMatchObject({ status: 400, type: `${PROBLEM_BASE}invalid-request` });
    expect(p.errors.length).toBeGreaterThan(0);
  });

  it.each(['short', '-starts-with-dash', 'has space inside', 'x'.repeat(129), 'ünïcode-key'])('refuses Idempotency-Key %j with 400 and no challenge', async (bad) => {
    const res = await POST(post(URL_, validReadinessBody(), { 'idempotency-key': bad }));
    expect(res.status).toBe(400);
    expect((await res.json()).type).toBe(`${PROBLEM_BASE}invalid-idempotency-key`);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('refuses a body over the limit before parsing it (413)', async () => {
    const res = await POST(post(URL_, JSON.stringify({ pad: 'x'.repeat(70 * 1024) })));
    expect(res.status).toBe(413);
    expect((await res.json()).type).toBe(`${PROBLEM_BASE}payload-too-large`);
  });
});

describe('POST /api/agent/readiness without payment', () => {
  it('answers 503 "machine payments not available right now" while no rail is configured', async () => {
    const res = await POST(post(URL_, validReadinessBody()));
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = await res.json();
    expect(p.title).toBe('Machine payments not available right now');
    expect(p.type).toBe(`${PROBLEM_BASE}payments-unavailable`);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After per client IP', async () => {
    await rt.dispose();
    rt = installTestRuntime({ RATE_LIMIT_PER_IP: '2' });
    const k = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25')).key;
    const send = (ip: string) => POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${k}`, 'x-forwarded-for': ip }));
    expect((await send('198.51.100.1')).status).toBe(200);
    expect((await send('198.51.100.1')).status).toBe(200);
    const limited = await send('198.51.100.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect((await send('198.51.100.2')).status).toBe(200);
    expect(await callsLeft(k)).toBe(22);
  });

  it('answers 429 per credits key across addresses', async () => {
    await rt.dispose();
    rt = installTestRuntime({ RATE_LIMIT_PER_KEY: '2' });
    const k = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25')).key;
    const statuses = [];
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
      statuses.push((await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${k}`, 'x-forwarded-for': ip }))).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('store failures', () => {
  it('answers 503 problem+json and charges nothing when the store stops answering', async () => {
    const broken = new Proxy(rt.store, {
      get(target, prop, receiver) {
        // The admission: the store step that holds this call (no Idempotency-Key).
        if (prop === 'admitCall') return async () => { throw new StoreUnavailableError(new Error('connection refused')); };
        return Reflect.get(target, prop, receiver);
      },
    });
    rt.store = broken;
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}store-unavailable`);
    expect(JSON.stringify(p)).not.toMatch(/connection refused|at .*\.ts/);
  });
});

describe('GET /api/agent/readiness', () => {
  it('describes the check: price, rails, limits and the full rubric', async () => {
    const body = await (await GET()).json();
    expect(body.price).toEqual({ amount: '1.00', currency: 'USD', cents: 100, per: 'fulfilled request' });
    expect(body.operationId).toBe('createAgentReadinessAssessment');
    expect(body.rubric.rubricVersion).toMatch(/^readiness-rubric-/);
    expect(body.rubric.capabilities).toHaveLength(10);
    expect(body.limits.length).toBeGreaterThan(0);
    expect(body.payment.rails).toEqual([]);
  });
});

/** Wraps a store so the first idempotency claim pauses the request until released. */
function withSlowRun(store: Store) {
  let release!: () => void;
  let signalClaimed!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const claimed = new Promise<void>((r) => (signalClaimed = r));
  let first = true;
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'finishReservation') {
        return async (...args: Parameters<Store['finishReservation']>) => {
          if (first) {
            first = false;
            signalClaimed();
            await gate;
          }
          return target.finishReservation(...args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { store: wrapped, claimed, release };
}
