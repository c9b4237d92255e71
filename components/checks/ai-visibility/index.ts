import { fieldsOf, listOf } from '@/lib/checks/entry';
import { VISIBILITY_SUMMARY } from '@/lib/checks/visibility/published';
import { visibilityReport } from '@/lib/checks/visibility/report';
import type { CheckComponents } from '../types';
import { VisibilityForm } from './Form';
import { VisibilityRubric } from './Rubric';
import { VisibilityReportView } from './View';

/** The visibility check's browser half: its report view, form, rubric and home-page card. */
export const visibilityComponents: CheckComponents = {
  report: visibilityReport,
  View: VisibilityReportView,
  Form: VisibilityForm,
  Rubric: VisibilityRubric,
  showcase: {
    description: VISIBILITY_SUMMARY,
    facts: (described) => [`${listOf(fieldsOf(described).crawlers).length} crawlers`],
    source: (example) =>
      `a real run of the check against a demonstration shop at ${new URL(String(fieldsOf(fieldsOf(example).report).checkedUrl)).host}, a reserved name that is not a real site`,
  },
};
