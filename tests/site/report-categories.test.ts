// Each check's categories, passed audits and top fixes as its entry gives them (lib/checks/<id>/report.ts): pure
// data the shared report view draws as gauges, a folded list and the fixes to make first. Exact numbers on the
// checks' examples and the endpoint fixture.
import { describe, expect, it } from 'vitest';
import { visibilityReport } from '@/lib/checks/visibility/report';
import { readinessReport } from '@/lib/checks/readiness/report';
import { endpointReport } from '@/lib/checks/payment-endpoint/report';
import { rubricItemLabel } from '@/lib/checks/visibility/rubric-labels';
import { RUBRIC } from '@/lib/checks/visibility/rubric';
import { readinessExample, visibilityExample } from '../support/example-bodies';
import { endpointFixtureBody } from '../support/endpoint-report-fixture';

const shown = (cs: Array<{ label: string; earned: number; max: number; anchor: string }>) => cs.map((c) => `${c.label} ${c.earned}/${c.max} #${c.anchor}`);

describe('visibility categories', () => {
  it('folds the rubric into six categories whose points add up to the score', () => {
    const body = visibilityExample();
    const categories = visibilityReport.categories!(body);
    expect(shown(categories)).toEqual([
      'Access 35/35 #category-access',
      'Indexability 20/20 #category-indexability',
      'Content 17/20 #category-content',
      'Structured data 11/12 #category-structured-data',
      'Agents 2/4 #category-agents',
      'Site 7/9 #category-site',
    ]);
    expect(categories.reduce((s, c) => s + c.earned, 0)).toBe(body.report.score);
    expect(categories.reduce((s, c) => s + c.max, 0)).toBe(body.report.scoreMax);
  });

  it('lists the 19 items that earned all their points as sentences, not ids', () => {
    const passed = visibilityReport.passed!(visibilityExample());
    expect(passed).toHaveLength(19);
    expect(passed[0]).toEqual({ key: 'fetch.ok', title: 'The page answers with HTML' });
    expect(passed.map((p) => p.key)).not.toContain('meta.description');
    for (const p of passed) expect(p.title).not.toMatch(/^[a-z]+\.[a-z-]+$/);
  });

  it('has a label in words for every item of the published rubric', () => {
    for (const item of RUBRIC) expect(rubricItemLabel(item.id), item.id).not.toBe(item.criterion);
  });

  it('orders the top fixes by points to gain, and says so', () => {
    const fixes = visibilityReport.topFixes!(visibilityExample());
    expect(fixes.map((f) => [f.id, f.pointsLost])).toEqual([['description-missing', 3], ['llms-txt-missing', 2], ['markdown-not-offered', 2], ['open-graph-incomplete', 1]]);
    expect(visibilityReport.topFixesOrder).toMatch(/^Ordered by the points each fix would gain, then by severity/);
  });
});

describe('readiness categories', () => {
  it('groups the ten capabilities in three, adding up to the score', () => {
    const body = readinessExample();
    expect(shown(readinessReport.categories!(body))).toEqual([
      'Agent payments 31/40 #category-agent-payments',
      'Buyers and wallets 0/20 #category-buyers',
      'Fulfilment and records 22/40 #category-fulfilment',
    ]);
    expect(readinessReport.categories!(body).reduce((s, c) => s + c.earned, 0)).toBe(body.assessment.score);
  });

  it('passes the capability that earned every point, in words', () => {
    expect(readinessReport.passed!(readinessExample())).toEqual([{ key: 'machine_discovery', title: 'Machine discovery: implemented, with all its points' }]);
  });

  it('leads with the first three steps of the plan, in its order', () => {
    const body = readinessExample();
    const fixes = readinessReport.topFixes!(body);
    expect(fixes.map((f) => [f.index, f.title, f.severity])).toEqual([
      [1, 'Idempotency', 'high'],
      [0, 'Recovery and reconciliation', 'critical'],
      [2, 'Webhook verification', 'medium'],
    ]);
    expect(fixes[0].fix).toBe(body.assessment.plan[0].steps[0].action);
  });
});

describe('endpoint stages', () => {
  it('scores each stage on the items that could be tested', () => {
    expect(shown(endpointReport.categories!(endpointFixtureBody()))).toEqual([
      'Asks to be paid 15/15 #stage-reach',
      'Payment terms 23/25 #stage-terms',
      'Found by agents 10/20 #stage-discovery',
      'Refuses bad payments 10/10 #stage-safety',
      'Paid round trip 10/10 #stage-paid',
    ]);
  });

  it('says a stage with nothing tested has no points to show', () => {
    const body = endpointFixtureBody();
    body.report.items = body.report.items.map((i) => (i.id === 'paid-round-trip' ? { ...i, state: 'not-tested', points: 0 } : i));
    expect(shown(endpointReport.categories!(body)).at(-1)).toBe('Paid round trip 0/0 #stage-paid');
  });

  it('passes the items that passed, by title, and orders fixes by points to gain', () => {
    const body = endpointFixtureBody();
    expect(endpointReport.passed!(body).map((p) => p.title)).toEqual(['Reachability', 'One price', 'Bad credentials', 'CORS for browser agents', 'Paid round trip']);
    body.report.findings = [...body.report.findings].reverse();
    expect(endpointReport.topFixes!(body).map((f) => f.id)).toEqual(['bazaar-missing', 'x402-timeout-missing']);
  });
});
