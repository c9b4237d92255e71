// Every check the registry lists has its browser half (components/checks/<id>/, listed in
// components/checks/index.ts): a report view, a /check form, a rubric and a home-page card. A check added to
// lib/checks/registry.ts alone fails here, instead of showing "This report could not be read" on its report page.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, it } from 'vitest';
import { checkComponents } from '@/components/checks';
import { VerdictBadge } from '@/components/reports/VerdictBadge';
import { checks } from '@/lib/checks/registry';
import { readinessExample } from '../support/example-bodies';

it.each(checks().map((c) => c.id))('check %s has a view, a form, a rubric and a card', (id) => {
  const components = checkComponents(id);
  expect(components, `components/checks/index.ts lists no components for "${id}"`).not.toBeNull();
  expect(typeof components!.View).toBe('function');
  expect(typeof components!.Form).toBe('function');
  expect(typeof components!.Rubric).toBe('function');
  expect(typeof components!.showcase.facts).toBe('function');
  expect(typeof components!.showcase.source).toBe('function');
});

it('the components list holds each check\'s own report: id, label and verdicts as its entry has them', () => {
  for (const check of checks()) {
    const { report } = checkComponents(check.id)!;
    expect([report.id, report.label, report.verdicts]).toEqual([check.id, check.label, check.verdicts]);
  }
});

it('a verdict reads the same in the report\'s header and in the history', () => {
  const body = readinessExample();
  const gaps = { ...body, assessment: { ...body.assessment, verdict: 'ready-with-gaps' } };
  const header = checkComponents('readiness')!.report.headline!(gaps)!.verdict;
  expect(header).toBe('Ready, with gaps');
  expect(renderToStaticMarkup(createElement(VerdictBadge, { check: 'readiness', verdict: 'ready-with-gaps' }))).toContain(`>${header}</span>`);
  expect(renderToStaticMarkup(createElement(VerdictBadge, { check: 'ai-visibility', verdict: 'fair' }))).toContain('>Needs work</span>');
  expect(renderToStaticMarkup(createElement(VerdictBadge, { check: 'ai-visibility', verdict: 'ready' }))).toContain('—');
});
