import type { ComponentType } from 'react';
import type { CheckReport } from '@/lib/checks/entry';
import { readinessReport } from '@/lib/checks/readiness/report';
import { visibilityReport } from '@/lib/checks/visibility/report';
import { ReadinessForm } from './ReadinessForm';
import { VisibilityForm } from './VisibilityForm';

// Each check's form on /check, by its id: like its report view (components/report-view/views.tsx), the one
// per-check piece of the page. The page's tabs are this list, in this order, for the checks the registry has.

/** What the check page hands a check's form. */
export interface CheckFormProps {
  /** The check's example request (its entry's `example`), for a form that offers to fill itself with it. */
  example: unknown;
  busy: boolean;
  /** The server's 400 `errors` (JSON path and message); the form puts each beside its field. */
  serverErrors: ReadonlyArray<{ path: string; message: string }>;
  onSubmit(body: unknown): void;
}

interface CheckForm {
  report: CheckReport;
  Form: ComponentType<CheckFormProps>;
}

const FORMS: readonly CheckForm[] = [
  { report: visibilityReport, Form: VisibilityForm },
  { report: readinessReport, Form: ReadinessForm },
];

/**
 * The forms of the checks named, in the order the page shows their tabs; a check without a form is left out.
 * @example checkForms(['readiness', 'ai-visibility']).map((f) => f.report.label) // ['AI Visibility', 'Payment Readiness']
 */
export function checkForms(ids: readonly string[]): readonly CheckForm[] {
  return FORMS.filter((f) => ids.includes(f.report.id));
}
