import type { ReactNode } from 'react';
import { reportDate, type ReportHeadline, type TopFix } from '@/lib/checks/entry';
import { SEVERITY_ORDER, severityLabel } from '@/lib/checks/severity';
import type { Fact } from '@/lib/checks/visibility/facts';
import { ScoreGauge } from './ScoreGauge';
import type { ViewFinding } from './types';

// What every check's report view is built from: the header, the top fixes, headings at the right level,
// findings by severity, a facts list, the limits. No state and no server-only imports (see ReportView.tsx).

export type Level = 2 | 3;

export function Heading({ level, id, children }: { level: Level | 4; id?: string; children: ReactNode }) {
  const Tag = `h${level}` as 'h2' | 'h3' | 'h4';
  return <Tag id={id}>{children}</Tag>;
}

export const sub = (level: Level): 3 | 4 => (level + 1) as 3 | 4;

/**
 * The id of a finding's entry in the findings list, which the top fixes link to.
 * @example findingAnchor('stored-sev', 0) // 'stored-sev-finding-0'
 */
function findingAnchor(idPrefix: string, index: number): string {
  return `${idPrefix}-finding-${index}`;
}

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
        <Heading level={level} id={`${idPrefix}-title`}>
          {headline.title} {headline.targetIsUrl ? <span className="url">{headline.target}</span> : <>“{headline.target}”</>}
        </Heading>
        <p className={`verdict ${headline.tone}`} data-testid="report-verdict">{headline.verdict}</p>
        <p className="report-summary" data-testid="report-summary">{headline.summary}</p>
        {headline.at ? (
          <p className="muted report-date">
            {headline.atVerb} <time dateTime={headline.at}>{reportDate(headline.at)}</time>
          </p>
        ) : null}
        {children}
      </div>
    </header>
  );
}

/**
 * The fixes a report leads with, each its finding's title and fix sentence, linking to the full finding.
 * @example <TopFixes fixes={report.topFixes(body)} level={2} idPrefix="stored" />
 */
export function TopFixes({ fixes, level, idPrefix }: { fixes: TopFix[]; level: Level; idPrefix: string }) {
  if (!fixes.length) return null;
  return (
    <section className="top-fixes" aria-labelledby={`${idPrefix}-fixes`} data-testid="top-fixes">
      <Heading level={sub(level)} id={`${idPrefix}-fixes`}>Fix these first</Heading>
      <ol>
        {fixes.map((f) => (
          <li key={f.index}>
            <a href={`#${findingAnchor(`${idPrefix}-sev`, f.index)}`} className="top-fix-title">{f.title}</a>
            <span className={`badge ${f.severity}`}>{severityLabel(f.severity)}</span>
            {f.pointsLost ? <span className="muted"> {f.pointsLost} point{f.pointsLost === 1 ? '' : 's'}</span> : null}
            <p>{f.fix}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function Findings({ findings, level, idPrefix, titleOf }: { findings: ViewFinding[]; level: Level; idPrefix: string; titleOf?: (f: ViewFinding) => string }) {
  if (!findings.length) return <p>No findings: every rubric item earned its points.</p>;
  return (
    <>
      {SEVERITY_ORDER.map((severity) => {
        const group = findings.map((f, index) => ({ f, index })).filter(({ f }) => f.severity === severity);
        if (!group.length) return null;
        return (
          // Not a landmark: two reports on one page (the home examples) would name two regions alike ("Low 3
          // findings"); the heading carries the structure.
          <div key={severity} className={`finding-group ${severity}`}>
            <Heading level={sub(level)} id={`${idPrefix}-${severity}`}>
              <span className={`badge ${severity}`}>{severityLabel(severity)}</span> {group.length} finding{group.length === 1 ? '' : 's'}
            </Heading>
            <ul className="findings">
              {group.map(({ f, index }) => (
                <li key={`${f.id}-${index}`} id={findingAnchor(idPrefix, index)}>
                  <p className="finding-what">
                    {titleOf ? <strong>{titleOf(f)}</strong> : <code className="nobreak">{f.capability ?? f.id}</code>}
                    {f.pointsLost ? <span className="muted"> · {f.pointsLost} point{f.pointsLost === 1 ? '' : 's'} lost</span> : null}
                    {f.state === 'not-measured' ? <span className="muted"> · not measured: no points lost</span> : null}
                    {titleOf ? <span className="hint finding-id"> <code className="nobreak">{f.id}</code></span> : null}
                  </p>
                  {f.observed ? <p>{f.observed}</p> : null}
                  {f.why ? <p className="muted">{f.why}</p> : null}
                  {f.fix ? (
                    <p className="finding-fix">
                      <strong>Fix:</strong> {f.fix}
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </>
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
          <li key={l}>{l}</li>
        ))}
      </ul>
    </details>
  );
}
