import { describe, expect, it } from 'vitest';
import { classifyEvidence } from '@/lib/checks/readiness/evidence';
import { CAPABILITY_GUIDE } from '@/lib/checks/readiness/guide';
import { CAPABILITY_KEYS } from '@/lib/checks/readiness/schema';

// The form's help beside each capability: one line of what "implemented" means and an example the published
// evidence rules read as checkable, of the kind the help says it is.

describe('the readiness form guide', () => {
  it('covers the ten capabilities, no more', () => {
    expect(Object.keys(CAPABILITY_GUIDE)).toEqual([...CAPABILITY_KEYS]);
  });

  it.each(CAPABILITY_KEYS)('%s: its example is checkable evidence of the kind it names', (key) => {
    const g = CAPABILITY_GUIDE[key];
    expect(classifyEvidence(g.example)).toEqual({ text: g.example, kind: g.kind, checkable: true });
  });

  it('each "implemented" line is one sentence in words, naming no capability key', () => {
    for (const key of CAPABILITY_KEYS) {
      const line = CAPABILITY_GUIDE[key].implemented;
      expect(line).toMatch(/^[A-Z](?:(?!\. ).)*\.$/);
      expect(line).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    }
  });

  it('uses every checkable evidence kind at least once', () => {
    expect(new Set(Object.values(CAPABILITY_GUIDE).map((g) => g.kind))).toEqual(new Set(['url', 'path', 'test', 'command', 'reference']));
  });
});
