import { readinessReport } from '@/lib/checks/readiness/report';
import type { CheckComponents } from '../types';
import { ReadinessForm } from './Form';
import { ReadinessRubric } from './Rubric';
import { ReadinessReportView } from './View';

/** The readiness check's browser half: its report view, form, rubric and home-page card. */
export const readinessComponents: CheckComponents = {
  report: readinessReport,
  View: ReadinessReportView,
  Form: ReadinessForm,
  Rubric: ReadinessRubric,
  showcase: {
    facts: () => [],
    source: () => 'computed by the same code the API runs, from the example request in the docs',
  },
};
