import type { Severity } from '@/lib/checks/severity';

// One finding of a visibility report, in a module of its own: the rubric's items and the parts that make
// findings beside them (webmcp.ts) both use it, and the rubric's fact types import those parts.

/** What a report says one rubric item found: how bad, the points it cost, and what to do about it. */
export interface Finding {
  id: string;
  severity: Severity;
  rubric: string | null;
  pointsLost: number;
  observed: string;
  why: string;
  fix: string;
}
