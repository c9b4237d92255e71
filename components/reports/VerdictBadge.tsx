import { checkComponents } from '@/components/checks';

/**
 * A check's verdict code as a coloured badge that also says it in words (colour is never the only signal), in
 * the words and tone the check's report gives it; a dash for none or one the check does not know.
 * @example <VerdictBadge check="readiness" verdict="ready-with-gaps" />
 */
export function VerdictBadge({ check, verdict }: { check: string; verdict: string | null }) {
  const v = verdict ? (checkComponents(check)?.report.verdicts?.[verdict] ?? null) : null;
  if (!v) return <span className="muted">—</span>;
  return <span className={`badge verdict-${v.tone}`} data-testid="verdict">{v.words}</span>;
}
