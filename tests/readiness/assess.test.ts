import { describe, expect, it } from 'vitest';
import { assessReadiness, allocatePoints } from '@/lib/checks/readiness/assess';
import { CAPABILITY_KEYS, ReadinessRequest, type CapabilityKey } from '@/lib/checks/readiness/schema';
import { artifactHash, canonicalJson } from '@/lib/canonical-json';

type Status = 'implemented' | 'partial' | 'missing' | 'unknown';

function request(
  intendedUsers: 'humans' | 'agents' | 'both',
  targetEnvironment: 'sandbox' | 'production',
  statuses: Partial<Record<CapabilityKey, Status | [Status, string[]]>> = {},
  fallback: Status | [Status, string[]] = ['implemented', ['doc']],
): ReadinessRequest {
  const capabilities = Object.fromEntries(
    CAPABILITY_KEYS.map((k) => {
      const s = statuses[k] ?? fallback;
      return [k, Array.isArray(s) ? { status: s[0], evidence: s[1] } : { status: s }];
    }),
  ) as ReadinessRequest['capabilities'];
  return ReadinessRequest.parse({ workflow: { name: 'wf', intendedUsers, targetEnvironment }, capabilities });
}

const requiredOf = (r: ReadinessRequest) => assessReadiness(r).capabilities.filter((c) => c.requirement === 'required').map((c) => c.key);

describe('what each workflow requires', () => {
  it('agents in a sandbox need discovery, challenge-and-receipt and idempotency', () => {
    expect(requiredOf(request('agents', 'sandbox'))).toEqual(['machine_discovery', 'payment_challenge_and_receipt', 'idempotency']);
  });
  it('production adds webhook verification, durable fulfilment, delivery evidence, recovery', () => {
    expect(requiredOf(request('agents', 'production'))).toEqual([
      'machine_discovery', 'payment_challenge_and_receipt', 'idempotency', 'webhook_verification', 'durable_fulfillment',
      'delivery_evidence', 'recovery_and_reconciliation',
    ]);
  });
  it('human users need user authentication, and only it in a sandbox', () => {
    expect(requiredOf(request('humans', 'sandbox'))).toEqual(['user_authentication']);
    expect(requiredOf(request('both', 'sandbox'))).toContain('user_authentication');
    expect(requiredOf(request('both', 'sandbox'))).toContain('idempotency');
  });
  it('never requires wallet ownership or on-ramp hand-off', () => {
    expect(requiredOf(request('both', 'production'))).not.toContain('wallet_ownership');
    expect(requiredOf(request('both', 'production'))).not.toContain('onramp_provider_handoff');
  });
});

describe('verdicts, points and findings', () => {
  it('everything implemented with evidence: ready, 100 of 100, no findings', () => {
    const a = assessReadiness(request('both', 'production'));
    expect([a.verdict, a.score, a.scoreMax, a.findings.length, a.blockers.length]).toEqual(['ready', 100, 100, 0, 0]);
    expect(a.capabilities.reduce((n, c) => n + c.pointsPossible, 0)).toBe(100);
  });

  it('a required capability that is unknown counts as missing and blocks', () => {
    const a = assessReadiness(request('agents', 'sandbox', { idempotency: 'unknown' }));
    expect(a.verdict).toBe('not-ready');
    expect(a.blockers).toEqual(['idempotency']);
    const c = a.capabilities.find((x) => x.key === 'idempotency')!;
    expect(c.pointsEarned).toBe(0);
    expect(c.finding).toMatchObject({ id: 'idempotency.unknown', severity: 'critical' });
    expect(c.finding!.why).toMatch(/counts as missing/);
  });

  it('implemented with no evidence is flagged and earns partial credit', () => {
    const a = assessReadiness(request('agents', 'sandbox', { machine_discovery: 'implemented' }));
    const c = a.capabilities.find((x) => x.key === 'machine_discovery')!;
    expect(c.finding).toMatchObject({ id: 'machine_discovery.no-evidence', severity: 'medium' });
    expect(c.pointsEarned).toBe(Math.floor(c.pointsPossible * 0.75));
    expect(c.evidenceCount).toBe(0);
    expect(a.verdict).toBe('ready-with-gaps');
  });

  it('the same gap weighs more when the workflow requires it', () => {
    const sandbox = assessReadiness(request('agents', 'sandbox', { webhook_verification: 'missing' }));
    const production = assessReadiness(request('agents', 'production', { webhook_verification: 'missing' }));
    expect(sandbox.findings[0]).toMatchObject({ capability: 'webhook_verification', severity: 'low' });
    expect(sandbox.verdict).toBe('ready-with-gaps');
    expect(production.findings[0]).toMatchObject({ capability: 'webhook_verification', severity: 'critical' });
    expect(production.verdict).toBe('not-ready');
    expect(production.score).toBeLessThan(sandbox.score);
  });

  it('orders findings most severe first, then in capability order', () => {
    const a = assessReadiness(
      request('agents', 'production', {
        wallet_ownership: 'missing', idempotency: 'partial', recovery_and_reconciliation: 'missing', machine_discovery: 'implemented', durable_fulfillment: 'unknown',
      }),
    );
    expect(a.findings.map((f) => [f.capability, f.severity])).toEqual([
      ['durable_fulfillment', 'critical'], ['recovery_and_reconciliation', 'critical'], ['idempotency', 'high'],
      ['machine_discovery', 'medium'], ['wallet_ownership', 'low'],
    ]);
    expect(a.blockers).toEqual(['durable_fulfillment', 'recovery_and_reconciliation']);
  });

  it('lists one entry per capability in the fixed order, and never authorizes execution', () => {
    const a = assessReadiness(request('humans', 'sandbox', {}, 'missing'));
    expect(a.capabilities.map((c) => c.key)).toEqual([...CAPABILITY_KEYS]);
    expect(a.authorizesExecution).toBe(false);
    expect(a.statement).toMatch(/classified, not verified/);
    expect(a.score).toBe(0);
  });
});

describe('determinism', () => {
  it('gives byte-identical output and hash for the same input, whatever the key order', () => {
    const r = request('both', 'production', { idempotency: 'partial', wallet_ownership: 'unknown' });
    const shuffled = JSON.parse(JSON.stringify({ capabilities: r.capabilities, workflow: r.workflow }));
    const a = assessReadiness(r);
    const b = assessReadiness(ReadinessRequest.parse(shuffled));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(artifactHash(a)).toBe(artifactHash(b));
    expect(artifactHash(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
  });

  it('canonical JSON writes strings and numbers exactly as JSON.stringify does', () => {
    const tricky = ['plain', '', 'quote " and \\ backslash', 'tab\tnew\nline\u0000\u001f', 'é ü 中 😀', '\ud800 lone', 'lone \udfff', '\u2028\u2029', '\u007f'];
    for (const text of tricky) expect(canonicalJson(text)).toBe(JSON.stringify(text));
    for (const n of [0, -0, 1.5, -2e-7, 1e21, 123456789012345680000, Number.MAX_SAFE_INTEGER]) expect(canonicalJson(n)).toBe(JSON.stringify(n));
    expect(canonicalJson({ 'é': 1, Z: 2, a: 3, '"k"': 4 })).toBe('{"\\"k\\"":4,"Z":2,"a":3,"é":1}');
    expect(canonicalJson({ a: undefined, b: () => 1, c: [undefined, () => 1], d: true })).toBe('{"c":[null,null],"d":true}');
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ x: 1n })).toThrow(TypeError);
  });

  it('canonical JSON of an assessment is JSON.stringify of the same value with every object\'s keys sorted', () => {
    const sortDeep = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(sortDeep) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortDeep((v as Record<string, unknown>)[k])])) : v;
    const a = assessReadiness(request('humans', 'production', { idempotency: 'partial', wallet_ownership: 'unknown', recovery_and_reconciliation: 'missing' }));
    expect(canonicalJson(a)).toBe(JSON.stringify(sortDeep(a)));
  });
});

describe('allocatePoints', () => {
  it('splits whole points by largest remainder, summing to the total', () => {
    expect(allocatePoints([1, 1, 1], 100)).toEqual([34, 33, 33]);
    expect(allocatePoints([3, 4, 3], 80)).toEqual([24, 32, 24]);
    expect(allocatePoints([2, 3, 2, 3], 80).reduce((a, b) => a + b)).toBe(80);
    expect(allocatePoints([], 20)).toEqual([]);
  });
});
