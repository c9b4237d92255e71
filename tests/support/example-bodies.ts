import { exampleBody } from '@/lib/checks/entry';
import type { assessReadiness } from '@/lib/checks/readiness/assess';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import type { VisibilityResult } from '@/lib/checks/visibility/check';
import { visibilityCheck } from '@/lib/checks/visibility/entry';

// The checks' example answers as the home page shows them (exampleBody), typed for the tests that read their
// members.

/** The readiness check's example report. */
export const readinessExample = () =>
  exampleBody(readinessCheck) as { service: string; assessedAt: string; assessment: ReturnType<typeof assessReadiness>; limits: string[]; artifactHash: string };

/** The visibility check's example report: the stored run of the check (lib/checks/visibility/example.json). */
export const visibilityExample = () => exampleBody(visibilityCheck) as unknown as { service: string; checkedAt: string; artifactHash: string } & VisibilityResult;
