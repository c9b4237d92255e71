// The readiness rubric on the docs' checks page, rendered as the server renders it from what the check's free
// GET publishes: it publishes every v2 rule.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ReadinessRubric } from '@/components/checks/readiness/Rubric';
import { HAZARD_RULES } from '@/lib/checks/readiness/hazards';
import { REFERENCES } from '@/lib/checks/readiness/references';
import { readinessCheck } from '@/lib/checks/readiness/entry';

describe('the readiness rubric on /docs/checks', () => {
  const html = renderToStaticMarkup(createElement(ReadinessRubric, { described: readinessCheck.describe() }));

  it('shows the evidence rules, effort scale, hazard table, dependency graph, sources and the changes from 1.x', () => {
    for (const id of ['readiness-evidence', 'readiness-findings', 'readiness-hazards', 'readiness-plan', 'readiness-sources', 'readiness-changes']) {
      expect(html).toContain(`id="${id}"`);
    }
    for (const h of HAZARD_RULES) expect(html).toContain(`<code>${h.id}</code>`);
    for (const r of Object.values(REFERENCES)) expect(html).toContain(`href="${r.url}"`);
    expect(html).toContain('<td>implemented, statements only</td><td>0.85</td>');
    expect(html).toContain('Assessment 2.0.0 (rubric readiness-rubric-2026-12.2): what changed from 1.0.0');
  });
});
