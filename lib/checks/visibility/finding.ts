import type { Severity } from '@/lib/checks/severity';

// One finding of a visibility report, in a module of its own: the rubric's items and the parts that make
// findings beside them (webmcp.ts) both use it, and the rubric's fact types import those parts.

/**
 * The states a finding can be in besides found (a finding without `state` is one the check measured):
 * `not-measured` is a rubric item's fault that may lie in the part of the page the check did not read (past
 * the 2 MiB cut or the parser's limits), so it costs no points and says so in its words.
 */
export const FINDING_STATES = ['not-measured'] as const;
type FindingState = (typeof FINDING_STATES)[number];

/** What a report says one rubric item found: how bad, the points it cost, and what to do about it. */
export interface Finding {
  id: string;
  severity: Severity;
  rubric: string | null;
  pointsLost: number;
  observed: string;
  why: string;
  fix: string;
  /** Present only when the finding was not measured (FINDING_STATES); absent on every finding that was. */
  state?: FindingState;
}
