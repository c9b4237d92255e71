import type { ReactNode } from 'react';
import { reportDate, scoreBand, type PassedAudit, type ReportCategory, type ReportHeadline, type TopFix } from '@/lib/checks/entry';
import { SEVERITY_ORDER, severityLabel } from '@/lib/checks/severity';
import type { Fact } from '@/lib/checks/visibility/facts';
import { Prose } from './Prose';
import { ScoreGauge } from './ScoreGauge';
import type { ViewFinding } from './types';

// What every check's report view is built from, in Lighthouse's order: the header, the score by category, the
// fixes to make first, the findings folded to one line each, the passed audits, a facts list, the limits.
// No state and no server-only imports (see ReportView.tsx).

export type Level = 2 | 3;

export function Heading({ level, id, children, focusable }: { level: Level | 4; id?: string; children: ReactNode; focusable?: boolean }) {
  const Tag = `h${level}` as 'h2' | 'h3' | 'h4';
  // Focusable by script only (the check page moves focus to a report's title once it arrives), never by Tab.
  return <Tag id={id} tabIndex={focusable ? -1 : undefined}>{children}</Tag>;
}

export const sub = (level: Level): 3 | 4 => (level + 1) as 3 | 4;

/**
 * The id of a finding's folded entry, by its position in the body's findings: the top fixes link to it.
 * @example findingAnchor('stored', 0) // 'stored-finding-0'
 */
export function findingAnchor(idPrefix: string, index: number): string {
  return `${idPrefix}-finding-${index}`;
}

const points = (n: number) => `${n} point${n === 1 ? '' : 's'}`;

/**
 * The top of every report: the score gauge, what was checked, the verdict, one sentence, the date, and the
 * exports (`children`). Drawn from the check's headline, so every check's report opens the same way.
 * @example <ReportHeader headline={report.headline(body)!} level={2} idPrefix="stored"><ReportActions … /></ReportHeader>
 */
export function ReportHeader({ headline, level, idPrefix, children }: { headline: ReportHeadline; level: Level; idPrefix: string; children?: ReactNode }) {
  return (
    <header className="report-head">
      {headline.score !== null && headline.scoreMax !== null ? <ScoreGauge score={headline.score} max={headline.scoreMax} label={headline.scoreLabel} /> : null}
      <div>
        <Heading level={level} id={`${idPrefix}-title`} focusable>
          {headline.title} {headline.targetIsUrl ? <span className="url">{headline.target}</span> : <>“{headline.target}”</>}
        </Heading>
        <p className={`verdict ${headline.tone}`} data-testid="report-verdict">{headline.verdict}</p>
        <p className="report-summary" data-testid="report-summary">{headline.summary}</p>
        <div className="report-meta">
          {headline.at ? (
            <p className="muted report-date">
              {headline.atVerb} <time dateTime={headline.at}>{reportDate(headline.at)}</time>
            </p>
          ) : null}
          {children}
        </div>
      </div>
    </header>
  );
}

/**
 * The score of each category under the header, as small bars that link to the category's section, as Lighthouse
 * shows its categories. A category with nothing tested says so instead of a bar. `page`: the address of the page
 * that holds the sections, when it is another (an excerpt's full report).
 * @example <CategoryScores categories={report.categories(body)} idPrefix="stored" />
 */
export function CategoryScores({ categories, idPrefix, page = '' }: { categories: ReportCategory[]; idPrefix: string; page?: string }) {
  if (!categories.length) return null;
  return (
    <ul className="category-scores" aria-label="Score by category" data-testid="category-scores">
      {categories.map((c) => {
        const share = c.max > 0 ? Math.min(1, Math.max(0, c.earned / c.max)) : 0;
        return (
          <li key={c.anchor}>
            <a href={`${page}#${idPrefix}-${c.anchor}`} className={c.max > 0 ? scoreBand(c.earned, c.max) : 'untested'}>
              <span className="category-label">{c.label}</span>
              <span className="category-points">{c.max > 0 ? `${c.earned} / ${c.max}` : 'not tested'}</span>
              {/* A bar drawn with SVG attributes (the CSP relies on no inline style); the numbers beside it carry the meaning. */}
              <svg className="category-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
                <rect className="category-track" x="0" y="0" width="100" height="6" rx="3" />
                {share > 0 ? <rect className="category-value" x="0" y="0" width={(share * 100).toFixed(1)} height="6" rx="3" /> : null}
              </svg>
            </a>
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The fixes a report leads with, each its finding's title and fix sentence, linking to its folded finding, under
 * the sentence that says how they are ordered.
 * @example <TopFixes fixes={report.topFixes(body)} order={report.topFixesOrder} level={2} idPrefix="stored" />
 */
export function TopFixes({ fixes, order, level, idPrefix, page = '' }: { fixes: TopFix[]; order?: string; level: Level; idPrefix: string; page?: string }) {
  if (!fixes.length) return null;
  return (
    // Named by its heading and the report's title: a page of several reports has one such region for each.
    <section className="top-fixes" aria-labelledby={`${idPrefix}-fixes ${idPrefix}-title`} data-testid="top-fixes">
      <Heading level={sub(level)} id={`${idPrefix}-fixes`}>Fix these first</Heading>
      <ol>
        {fixes.map((f) => (
          <li key={f.index}>
            <a href={`${page}#${findingAnchor(idPrefix, f.index)}`} className="top-fix-title">{f.title}</a>
            <span className={`badge ${f.severity}`}>{severityLabel(f.severity)}</span>
            {f.pointsLost ? <span className="muted"> {points(f.pointsLost)}</span> : null}
            <p><Prose text={f.fix} /></p>
          </li>
        ))}
      </ol>
      {/* Under the list, so the first fix keeps the first screen of a phone. */}
      {order ? <p className="fix-order">{order}</p> : null}
    </section>
  );
}

/**
 * One finding folded to a line: its title, severity, the points it costs and its fix in one sentence; the rest
 * (what was found, why, steps, how to verify, sources) opens under it. The `id` is the top fixes' link target.
 * @example <FoldedFinding id="stored-finding-0" title="Description missing" severity="low" pointsLost={3} fix="Add a meta description.">…</FoldedFinding>
 */
export function FoldedFinding({ id, title, severity, pointsLost, fix, note, testId, children }: {
  id: string; title: string; severity: string; pointsLost?: number; fix?: string; note?: string; testId?: string; children?: ReactNode;
}) {
  return (
    <li className={`finding ${severity}`} data-testid={testId}>
      <details id={id} className="finding-fold">
        <summary>
          <span className="finding-title">{title}</span> <span className={`badge ${severity}`}>{severityLabel(severity)}</span>
          {pointsLost ? <span className="muted finding-points"> {points(pointsLost)}</span> : null}
          {note ? <span className="muted"> · {note}</span> : null}
          {fix ? <span className="finding-fix-line"><Prose text={fix} /></span> : null}
        </summary>
        <div className="finding-body">{children}</div>
      </details>
    </li>
  );
}

/**
 * The findings most severe first, each folded (FoldedFinding) with what was found and why it matters inside.
 * `titleOf` names a finding in words; the id stays in the JSON and the Markdown.
 * @example <Findings findings={r.findings} idPrefix="stored" titleOf={(f) => findingTitle(f.id)} />
 */
export function Findings({ findings, idPrefix, titleOf }: { findings: ViewFinding[]; idPrefix: string; titleOf: (f: ViewFinding) => string }) {
  if (!findings.length) return <p>No findings: every rubric item earned its points.</p>;
  const ordered = SEVERITY_ORDER.flatMap((severity) => findings.map((f, index) => ({ f, index })).filter(({ f }) => f.severity === severity));
  return (
    <ul className="findings">
      {ordered.map(({ f, index }) => (
        <FoldedFinding
          key={`${f.id}-${index}`} id={findingAnchor(idPrefix, index)} title={titleOf(f)} severity={f.severity} pointsLost={f.pointsLost}
          fix={f.fix} note={f.state === 'not-measured' ? 'not measured: no points lost' : undefined}
        >
          {f.observed ? <p><strong>Found:</strong> <Prose text={f.observed} /></p> : null}
          {f.why ? <p className="muted"><Prose text={f.why} /></p> : null}
        </FoldedFinding>
      ))}
    </ul>
  );
}

/**
 * The audits that passed, in words, folded under their count.
 * @example <PassedAudits passed={report.passed(body)} idPrefix="stored" />
 */
export function PassedAudits({ passed, idPrefix }: { passed: PassedAudit[]; idPrefix: string }) {
  if (!passed.length) return null;
  return (
    <details className="report-more passed-audits" id={`${idPrefix}-passed`} data-testid="passed-audits">
      <summary>{passed.length} passed audit{passed.length === 1 ? '' : 's'}</summary>
      <ul>
        {passed.map((p) => (
          <li key={p.key}>{p.title}</li>
        ))}
      </ul>
    </details>
  );
}

/** Facts as a definition list: a label in words and a formatted value; addresses may break anywhere, nothing else. */
export function Facts({ facts, label }: { facts: Fact[]; label: string }) {
  return (
    <dl className="facts" aria-label={label}>
      {facts.map((f) => (
        <div key={f.label} className="fact">
          <dt>{f.label}</dt>
          <dd>{f.url ? <span className="url">{f.value}</span> : f.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Limits({ limits }: { limits?: string[] }) {
  if (!limits?.length) return null;
  return (
    <details className="report-more">
      <summary>What this check cannot see ({limits.length} limits)</summary>
      <ul>
        {limits.map((l) => (
          <li key={l}><Prose text={l} /></li>
        ))}
      </ul>
    </details>
  );
}
