import Link from 'next/link';
import type { ReportComparison } from '@/lib/reports';
import { VerdictBadge } from './VerdictBadge';

// "Compare with the previous check of this address" (or workflow): the same comparison GET /api/reports/<id>/compare/<otherId>
// answers, rendered on the owner's report page.

const STATUS_WORDS = { new: 'New', fixed: 'Fixed', unchanged: 'Unchanged' } as const;
const when = (iso: string) => new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

function change(delta: number | null): string {
  if (delta === null) return 'no score to compare';
  if (delta === 0) return 'no change';
  return `${delta > 0 ? '+' : '−'}${Math.abs(delta)} point${Math.abs(delta) === 1 ? '' : 's'}`;
}

/** `target`: what the check names its target, as the end of "the previous check of this …" ("address", "workflow"). */
export function ComparePanel({ comparison, target = 'address' }: { comparison: ReportComparison | null; target?: string }) {
  return (
    <section className="compare-panel" aria-labelledby="compare-heading" data-testid="compare-panel">
      <details>
        <summary>
          <h2 id="compare-heading">Compare with the previous check of this {target}</h2>
        </summary>
        {comparison ? <Comparison c={comparison} /> : <p className="muted">No earlier check of this {target} with this key: run it again later to see what changed.</p>}
      </details>
    </section>
  );
}

function Comparison({ c }: { c: ReportComparison }) {
  return (
    <>
      <p data-testid="compare-score">
        Score {c.before.score ?? '—'} → {c.after.score ?? '—'} (<strong>{change(c.scoreChange)}</strong>) since the check of{' '}
        <Link href={`/reports/${c.before.id}`}>{when(c.before.createdAt)} UTC</Link>: <VerdictBadge check={c.check} verdict={c.before.verdict} /> → <VerdictBadge check={c.check} verdict={c.after.verdict} />
      </p>
      <p data-testid="compare-counts">
        {c.counts.fixed} fixed · {c.counts.new} new · {c.counts.unchanged} unchanged
      </p>
      {c.findings.length ? (
        <ul className="compare-findings">
          {c.findings.map((f) => (
            <li key={`${f.status}-${f.id}`} data-status={f.status}>
              <span className={`badge compare-${f.status}`}>{STATUS_WORDS[f.status]}</span> <span className={`badge ${f.severity}`}>{f.severity}</span> {f.title}{' '}
              <code>{f.id}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">Neither check found anything to fix.</p>
      )}
    </>
  );
}
