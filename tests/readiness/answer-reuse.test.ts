import { describe, expect, it } from 'vitest';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { ReadinessRequest } from '@/lib/checks/readiness/schema';
import { artifactHash, canonicalJson } from '@/lib/canonical-json';
import { validReadinessBody } from '../support/runtime';

// The readiness check keeps the assessments it made lately (the assessment is pure, and building and hashing it is
// most of a paid call's own work): a request seen again gets the same assessment, frozen, with the hash a fresh
// assessment of it has; a different request gets its own.

type Answer = { assessedAt: string; assessment: Record<string, unknown> & { findings: Array<Record<string, unknown>>; score: number }; artifactHash: string };

const run = async (body: unknown, at = '2026-11-28T10:00:00.000Z') =>
  (await readinessCheck.run(ReadinessRequest.parse(body), { now: new Date(at) } as Parameters<typeof readinessCheck.run>[1])) as unknown as Answer;

describe('the readiness answer of a request seen again', () => {
  it('is the same assessment with the hash a fresh assessment has, and its own time', async () => {
    const first = await run(validReadinessBody());
    const again = await run(validReadinessBody(), '2026-11-28T11:30:00.000Z');
    expect(again.assessment).toBe(first.assessment);
    expect(again.assessedAt).toBe('2026-11-28T11:30:00.000Z');
    const fresh = assessReadiness(ReadinessRequest.parse(validReadinessBody()));
    expect(canonicalJson(again.assessment)).toBe(canonicalJson(fresh));
    expect(JSON.stringify(again.assessment)).toBe(JSON.stringify(fresh));
    expect(again.artifactHash).toBe(artifactHash(fresh));
  });

  it('is frozen to its leaves, so no reader can change what the next call is answered', async () => {
    const { assessment } = await run(validReadinessBody());
    expect(Object.isFrozen(assessment)).toBe(true);
    expect(Object.isFrozen(assessment.findings)).toBe(true);
    expect(Object.isFrozen(assessment.findings[0])).toBe(true);
    expect(() => {
      (assessment as { score: number }).score = 100;
    }).toThrow(TypeError);
  });

  it('is not the answer to a different request', async () => {
    const first = await run(validReadinessBody());
    const other = await run(validReadinessBody({ workflow: { name: 'Other agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } }));
    expect(other.assessment).not.toBe(first.assessment);
    expect(other.artifactHash).not.toBe(first.artifactHash);
    expect(other.artifactHash).toBe(artifactHash(assessReadiness(ReadinessRequest.parse(validReadinessBody({ workflow: { name: 'Other agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } })))));
  });
});
