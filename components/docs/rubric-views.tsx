import type { ComponentType } from 'react';
import type { CheckEntry } from '@/lib/checks/entry';
import { readinessReport } from '@/lib/checks/readiness/report';
import { visibilityReport } from '@/lib/checks/visibility/report';
import { JsonBlock } from '../CodeBlock';
import { ReadinessRubric, VisibilityRubric } from './Rubrics';

// Each check's rubric on the docs' checks page, by the check's id, as components/report-view/views.tsx holds
// each check's report view. A check with no layout of its own shows what its free GET publishes, as JSON.

const RUBRIC_VIEWS: Record<string, ComponentType<{ described: unknown }>> = {
  [readinessReport.id]: ReadinessRubric,
  [visibilityReport.id]: VisibilityRubric,
};

/**
 * A check's published rubric (its entry's `describe()`), laid out by the check's own component when it has one.
 * @example <CheckRubric check={checkById('readiness')!} />
 */
export function CheckRubric({ check }: { check: CheckEntry }) {
  const described = check.describe();
  const View = RUBRIC_VIEWS[check.id];
  if (View) return <View described={described} />;
  return <JsonBlock value={described} label={`What GET ${check.path} describes`} />;
}
