import Link from 'next/link';
import type { ReportComparison } from '@/lib/reports';
import { reportDate } from '@/lib/checks/entry';
import { severityLabel } from '@/lib/checks/severity';
import { VerdictBadge } from './VerdictBadge';

// "Compare with the previous check of this address": the same comparison GET /api/reports/<id>/compare/<otherId>
// answers, rendered on the owner's report page. Findings by their titles and severity in words: the ids stay in
// the JSON answer.

const STATUS_WORDS = { new: 'New', fixed: 'Fixed', unchanged: 'Unchanged' } as const;

function change(delta: number | null): string {
  if (delta === null) return 'no score to compare';
  if (delta === 0) return 'no change';
  return `${delta > 0 ? '+' : '−'}${Math.abs(delta)} point${Math.abs(delta) === 1 ? '' : 's'}`;
}

/** `of` names what was checked: "this address" for a page or endpoint, "this workflow" for a readiness assessment. */
export function ComparePanel({ comparison, of }: { comparison: ReportComparison | null; of: 'address' | 'workflow' }) {
  return (
    <section className="compare-panel" aria-labelledby="compare-heading" data-testid="compare-panel">
      <details>
        <summary>
          <h2 id="compare-heading">Compare with the previous check of this {of}</h2>
        </summary>
        {comparison ? <Comparison c={comparison} /> : <p className="muted">No earlier check of this {of} with this key: run it again later to see what changed.</p>}
      </details>
    </section>
  );
}

function Comparison({ c }: { c: ReportComparison }) {
  return (
    <>
      <p data-testid="compare-score">
        Score {c.before.score ?? '—'} → {c.after.score ?? '—'} (<strong>{change(c.scoreChange)}</strong>) since the check of{' '}
        <Link href={`/reports/${c.before.id}`}>
          <time dateTime={c.before.createdAt}>{reportDate(c.before.createdAt)}</time>
        </Link>: <VerdictBadge check={c.check} verdict={c.before.verdict} /> → <VerdictBadge check={c.check} verdict={c.after.verdict} />
      </p>
      <p data-testid="compare-counts">
        {c.counts.fixed} fixed · {c.counts.new} new · {c.counts.unchanged} unchanged
      </p>
      {c.findings.length ? (
        <ul className="compare-findings">
          {c.findings.map((f) => (
            <li key={`${f.status}-${f.id}`} data-status={f.status}>
              <span className={`badge compare-${f.status}`}>{STATUS_WORDS[f.status]}</span> <span className={`badge ${f.severity}`}>{severityLabel(f.severity)}</span> {f.title}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Neither check found anything to fix.</p>
      )}
    </>
  );
}
