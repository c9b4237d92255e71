import { exampleAssessment } from '@/lib/docs/reference';
import { READINESS_LIMITS, readinessCheck } from '@/lib/checks/readiness/entry';
import type { VisibilityResult } from '@/lib/checks/visibility/check';
import stored from './examples/visibility.json';

// The example reports the home page shows, one per check, as the 200 body the API would return (without
// the payment envelope). Readiness is computed here by the same code the API runs; the visibility report
// is a stored run of the real check against a fixture site (tests/site/example-report.test.ts reruns the
// check and fails when the stored copy no longer matches).

export const EXAMPLE_CHECKED_AT = '2026-11-01T12:00:00.000Z';

export function exampleVisibilityBody(): { service: string; checkedAt: string } & VisibilityResult {
  return stored as unknown as { service: string; checkedAt: string } & VisibilityResult;
}

export function exampleReadinessBody() {
  return { service: readinessCheck.service, assessedAt: EXAMPLE_CHECKED_AT, assessment: exampleAssessment(), limits: READINESS_LIMITS };
}
