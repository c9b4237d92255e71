// The finding every check's report lists, as the shared parts (parts.tsx) read it. A stored report may come from
// an older or newer check version, so everything beyond the core is optional and the view shows what is there:
// a member it does not know is not an error.

import type { Severity } from '@/lib/checks/severity';

export interface ViewFinding {
  id: string;
  severity: Severity;
  observed?: string;
  why?: string;
  fix?: string;
  pointsLost?: number;
  rubric?: string | null;
  capability?: string;
  /** `not-measured`: the fault may lie in the part of the page not read, so it cost nothing. */
  state?: string;
}
