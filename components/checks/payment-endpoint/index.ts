import { fieldsOf, listOf } from '@/lib/checks/entry';
import { endpointReport } from '@/lib/checks/payment-endpoint/report';
import type { CheckComponents } from '../types';
import { EndpointForm } from './Form';
import { EndpointRubric } from './Rubric';
import { EndpointReportView } from './View';

/** The endpoint check's browser half: its report view, form, rubric and home-page card. */
export const endpointComponents: CheckComponents = {
  report: endpointReport,
  View: EndpointReportView,
  Form: EndpointForm,
  Rubric: EndpointRubric,
  showcase: {
    facts: (described) => [`${listOf(fieldsOf(described).rubric).length} rubric items`, `at most ${String(fieldsOf(fieldsOf(described).bounds).maxRequestsPerDomain)} requests`],
    source: (example) =>
      `a real run of the check against this service's own readiness endpoint at ${new URL(String(fieldsOf(fieldsOf(fieldsOf(example).report).endpoint).url)).host}, served on a local test chain under a reserved name that is not a real site`,
  },
};
