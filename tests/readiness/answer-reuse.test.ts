import { describe, expect, it, vi } from 'vitest';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { ReadinessRequest } from '@/lib/checks/readiness/schema';
import { artifactHash, canonicalJson } from '@/lib/canonical-json';
import { READINESS_STATES, validReadinessBody } from '../support/runtime';

// An assessment's parts are decided by the declaration's shape (statuses, evidence counts and kinds, users,
// environment), and most of its bytes are fixed text, so the readiness check assesses each shape once and puts each
// request's own workflow and evidence into the parts it kept, frozen. Whatever was kept, an answer must be exactly
// the one a fresh assessment gives, and no reader may change what the next call is answered.

type Answer = { assessedAt: string; assessment: Record<string, unknown> & { findings: Array<Record<string, unknown>>; score: number }; artifactHash: string };

const run = async (body: unknown, at = '2026-11-28T10:00:00.000Z') =>
  (await readinessCheck.run(ReadinessRequest.parse(body), { now: new Date(at) } as Parameters<typeof readinessCheck.run>[1])) as unknown as Answer;

describe('the readiness answer of a request seen again', () => {
  it('is the assessment and hash a fresh assessment has, with its own time, built from the parts already made', async () => {
    const first = await run(validReadinessBody());
    const again = await run(validReadinessBody(), '2026-11-28T11:30:00.000Z');
    expect(again.assessment.findings).toBe(first.assessment.findings);
    expect(again.assessedAt).toBe('2026-11-28T11:30:00.000Z');
    vi.resetModules();
    const fresh = (await import('@/lib/checks/readiness/assess')).assessReadiness(ReadinessRequest.parse(validReadinessBody()));
    expect(canonicalJson(again.assessment)).toBe(canonicalJson(fresh));
    expect(JSON.stringify(again.assessment)).toBe(JSON.stringify(fresh));
    expect(again.artifactHash).toBe(artifactHash(fresh));
  });

  it('shares only frozen parts: a reader that changes its own answer changes nothing the next call is answered', async () => {
    const body = validReadinessBody({ workflow: { name: 'Asked once', intendedUsers: 'agents', targetEnvironment: 'production' } });
    const { assessment } = await run(body);
    expect(Object.isFrozen(assessment.findings)).toBe(true);
    expect(Object.isFrozen(assessment.findings[0])).toBe(true);
    expect(() => {
      (assessment.findings[0] as { severity: string }).severity = 'info';
    }).toThrow(TypeError);
    // The answer around the shared parts is this call's own.
    expect(Object.isFrozen(assessment)).toBe(false);
    const score = assessment.score;
    (assessment as { score: number }).score = 100;
    (assessment.workflow as { name: string }).name = 'changed';
    const next = await run(body);
    expect(next.assessment.score).toBe(score);
    expect((next.assessment.workflow as { name: string }).name).toBe('Asked once');
  });

  it('asked a second time, the whole answer is kept, frozen, and the third time is that same answer', async () => {
    const body = validReadinessBody({ workflow: { name: 'Asked three times', intendedUsers: 'agents', targetEnvironment: 'production' } });
    const first = await run(body);
    const second = await run(body);
    const third = await run(body, '2026-11-28T12:00:00.000Z');
    expect(second.assessment).not.toBe(first.assessment);
    expect(third.assessment).toBe(second.assessment);
    expect(third.artifactHash).toBe(first.artifactHash);
    expect(third.assessedAt).toBe('2026-11-28T12:00:00.000Z');
    expect(Object.isFrozen(second.assessment)).toBe(true);
    expect(() => {
      (second.assessment as { score: number }).score = 100;
    }).toThrow(TypeError);
  });

  it('is not the answer to a different request', async () => {
    const first = await run(validReadinessBody());
    const other = await run(validReadinessBody({ workflow: { name: 'Other agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } }));
    expect(other.assessment.findings).not.toBe(first.assessment.findings);
    expect(other.artifactHash).not.toBe(first.artifactHash);
    expect(other.artifactHash).toBe(artifactHash(assessReadiness(ReadinessRequest.parse(validReadinessBody({ workflow: { name: 'Other agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } })))));
  });
});

describe('findings written once and shared by every assessment that has them', () => {
  const KEYS = Object.keys(validReadinessBody().capabilities);
  /** 36 declarations: every state on every capability, for each kind of user and each environment. */
  const requests = [0, 1, 2, 3, 4, 5].flatMap((shift) =>
    (['agents', 'humans', 'both'] as const).flatMap((intendedUsers) =>
      (['production', 'sandbox'] as const).map((targetEnvironment) =>
        ReadinessRequest.parse({
          workflow: { name: `Workflow ${shift} ${intendedUsers} ${targetEnvironment}`, intendedUsers, targetEnvironment },
          capabilities: Object.fromEntries(KEYS.map((key, i) => [key, READINESS_STATES[(i + shift) % READINESS_STATES.length]])),
        }),
      ),
    ),
  );

  it('an assessment is the same whatever was assessed before it: a fresh module in the reverse order agrees on all 36', async () => {
    const forward = requests.map((r) => JSON.stringify(assessReadiness(r)));
    vi.resetModules();
    const fresh = (await import('@/lib/checks/readiness/assess')).assessReadiness;
    const backward = [...requests].reverse().map((r) => JSON.stringify(fresh(r))).reverse();
    expect(backward).toEqual(forward);
  });

  it('a workflow of a shape assessed before, with its own name and evidence words, is answered as a fresh module answers it alone', async () => {
    // Same statuses, same number of evidence items, each checkable or not as before; other words.
    const twin = (r: ReadinessRequest): ReadinessRequest => ({
      workflow: { ...r.workflow, name: `${r.workflow.name} (twin)` },
      capabilities: Object.fromEntries(
        Object.entries(r.capabilities).map(([key, c]) => [key, { ...c, ...(c.evidence && { evidence: c.evidence.map((e) => (e.startsWith('tests/') ? 'tests/orders/other.test.ts' : 'we do that too')) }) }]),
      ) as ReadinessRequest['capabilities'],
    });
    const seen = requests.map((r) => {
      assessReadiness(r);
      return JSON.stringify(assessReadiness(twin(r)));
    });
    vi.resetModules();
    const fresh = (await import('@/lib/checks/readiness/assess')).assessReadiness;
    const alone = requests.map((r) => JSON.stringify(fresh(twin(r))));
    expect(seen).toEqual(alone);
    expect(seen[0]).toContain('tests/orders/other.test.ts');
    expect(seen[0]).toContain('(twin)');
  });

  it('declarations one detail apart are each answered as a fresh module answers them in the reverse order', async () => {
    const base = validReadinessBody();
    const withCapability = (key: string, c: Record<string, unknown>) => ({ ...base, capabilities: { ...base.capabilities, [key]: c } });
    const variants = [
      base,
      withCapability('idempotency', { status: 'implemented', evidence: ['we replay the stored answer'] }), // not checkable
      withCapability('idempotency', { status: 'implemented', evidence: ['Idempotency-Key replay test', 'orders table'] }), // two items
      withCapability('idempotency', { status: 'implemented' }), // none
      withCapability('idempotency', { status: 'partial', evidence: ['Idempotency-Key replay test'] }),
      { ...base, workflow: { ...base.workflow, intendedUsers: 'both' } },
      { ...base, workflow: { ...base.workflow, targetEnvironment: 'sandbox' } },
    ].map((v) => ReadinessRequest.parse(v));
    const forward = variants.map((r) => JSON.stringify(assessReadiness(r)));
    expect(new Set(forward).size).toBe(variants.length);
    vi.resetModules();
    const fresh = (await import('@/lib/checks/readiness/assess')).assessReadiness;
    expect([...variants].reverse().map((r) => JSON.stringify(fresh(r))).reverse()).toEqual(forward);
  });

  it('two workflows with one capability in one state share that finding, frozen; another state has its own', () => {
    const a = assessReadiness(ReadinessRequest.parse(validReadinessBody({ workflow: { name: 'A', intendedUsers: 'agents', targetEnvironment: 'production' } })));
    const b = assessReadiness(ReadinessRequest.parse(validReadinessBody({ workflow: { name: 'B', intendedUsers: 'agents', targetEnvironment: 'production' } })));
    const c = assessReadiness(ReadinessRequest.parse(validReadinessBody({ workflow: { name: 'C', intendedUsers: 'humans', targetEnvironment: 'production' } })));
    const missing = (x: typeof a) => x.findings.find((f) => f.id === 'user_authentication.missing')!;
    expect(missing(b)).toBe(missing(a));
    expect(Object.isFrozen(missing(a).steps)).toBe(true);
    expect(missing(c)).not.toBe(missing(a));
    expect(missing(c).risk).not.toBe(missing(a).risk);
  });
});
