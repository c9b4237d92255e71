// One severity scale for every check's findings, most severe first.
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low', 'info'];

const SEVERITY_LABEL: Record<string, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

/**
 * A severity in words, capitalised, as every report view and Markdown says it; one a later version adds still reads.
 * @example severityLabel('high') // 'High'
 */
export function severityLabel(severity: string): string {
  return SEVERITY_LABEL[severity] ?? severity.charAt(0).toUpperCase() + severity.slice(1);
}

/**
 * How a finding's severity and the points it costs agree, as the free GET and the docs publish it. `info` means
 * "worth knowing, nothing lost": a reader who sorts by severity must never find a finding that costs points
 * below one that costs none.
 */
export const SEVERITY_RULE =
  'A finding that costs points is never info: it is at least low, and higher when its rubric item says the fault is worse. A finding that costs no points is info when it reports a choice or context, and low, medium or high when it names a fault the rubric does not score. The score-cap finding is critical, as the blocking failures that cause it are.';

/**
 * The severity a finding is reported with: the one its rubric item declares, raised to `low` when the finding
 * costs points (SEVERITY_RULE).
 * @example severityFor('info', 2) // 'low'
 */
export function severityFor(declared: Severity, pointsLost: number): Severity {
  return pointsLost > 0 && declared === 'info' ? 'low' : declared;
}
