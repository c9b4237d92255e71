import type { ReactNode } from 'react';
import { SEVERITY_ORDER } from '@/lib/checks/severity';
import { SEVERITY_LABEL } from './labels';
import type { ViewFinding } from './types';

// What every check's report view is built from: headings at the right level, findings by severity, a facts
// list, the limits. No state and no server-only imports (see ReportView.tsx).

export type Level = 2 | 3;

export function Heading({ level, id, children }: { level: Level | 4; id?: string; children: ReactNode }) {
  const Tag = `h${level}` as 'h2' | 'h3' | 'h4';
  return <Tag id={id}>{children}</Tag>;
}

export const sub = (level: Level): 3 | 4 => (level + 1) as 3 | 4;

export function Findings({ findings, level, idPrefix }: { findings: ViewFinding[]; level: Level; idPrefix: string }) {
  if (!findings.length) return <p>No findings: every rubric item earned its points.</p>;
  return (
    <>
      {SEVERITY_ORDER.map((severity) => {
        const group = findings.filter((f) => f.severity === severity);
        if (!group.length) return null;
        return (
          // Not a landmark: two reports on one page (the home examples) would name two regions alike ("Low 3
          // findings"); the heading carries the structure.
          <div key={severity} className={`finding-group ${severity}`}>
            <Heading level={sub(level)} id={`${idPrefix}-${severity}`}>
              <span className={`badge ${severity}`}>{SEVERITY_LABEL[severity]}</span> {group.length} finding{group.length === 1 ? '' : 's'}
            </Heading>
            <ul className="findings">
              {group.map((f, i) => (
                <li key={`${f.id}-${i}`}>
                  <p className="finding-what">
                    <code className="nobreak">{f.capability ?? f.id}</code>
                    {f.pointsLost ? <span className="muted"> · {f.pointsLost} point{f.pointsLost === 1 ? '' : 's'} lost</span> : null}
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

export function yesNo(v: unknown): string {
  return v === true ? 'yes' : v === false ? 'no' : '—';
}

/** A value of a member the view has no special layout for (a newer check's addition): shown, not hidden. */
export function plain(value: unknown): ReactNode {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return yesNo(value);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.length ? value.join(', ') : 'none';
  return <code className="json">{JSON.stringify(value)}</code>;
}

export function Facts({ rows, label }: { rows: Array<[string, ReactNode]>; label: string }) {
  return (
    <dl className="facts" aria-label={label}>
      {rows.map(([k, v]) => (
        <div key={k} className="fact">
          <dt>{k}</dt>
          <dd>{v}</dd>
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
