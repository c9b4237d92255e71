import { verdictOf } from './verdict';

/** A verdict as a coloured badge that also says it in words (colour is never the only signal). */
export function VerdictBadge({ verdict }: { verdict: string | null }) {
  const v = verdictOf(verdict);
  if (!v) return <span className="muted">—</span>;
  return <span className={`badge verdict-${v.tone}`} data-testid="verdict">{v.words}</span>;
}
