import { CAPABILITY_RULES } from '@/lib/checks/readiness/rubric';
import { ScoreGauge } from './ScoreGauge';
import { READINESS_VERDICT } from './labels';
import { Findings, Heading, Limits, sub, type Level } from './parts';
import type { ReadinessBody } from './types';
import { TableWrap } from '../TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

// The Agent Payment Readiness Assessment's report: verdict, score, blockers, the capability table, findings.

const CAPABILITY_TITLE = new Map(CAPABILITY_RULES.map((c) => [c.key as string, c.title]));

export function ReadinessReportView({ body, level, idPrefix }: { body: unknown; level: Level; idPrefix: string }) {
  return <ReadinessReport body={body as ReadinessBody} level={level} idPrefix={idPrefix} />;
}

function ReadinessReport({ body, level, idPrefix }: { body: ReadinessBody; level: Level; idPrefix: string }) {
  const a = body.assessment;
  return (
    <>
      <div className="report-head">
        <ScoreGauge score={a.score} max={a.scoreMax} label="Readiness score" />
        <div>
          <Heading level={level} id={`${idPrefix}-title`}>
            Payment readiness of “{a.workflow.name}”
          </Heading>
          <p className={`verdict ${a.verdict}`} data-testid="report-verdict">{READINESS_VERDICT[a.verdict] ?? a.verdict}</p>
          <p className="muted">
            {a.workflow.intendedUsers ? <>For {a.workflow.intendedUsers}, targeting {a.workflow.targetEnvironment} · </> : null}
            {a.blockers.length} blocker{a.blockers.length === 1 ? '' : 's'} · {a.findings.length} finding{a.findings.length === 1 ? '' : 's'}
            {body.assessedAt ? <> · assessed {new Date(body.assessedAt).toUTCString()}</> : null}
          </p>
        </div>
      </div>

      <Heading level={sub(level)} id={`${idPrefix}-blockers`}>Blockers</Heading>
      {a.blockers.length ? (
        <ul className="blockers">
          {a.blockers.map((b) => (
            <li key={b}>
              <code className="nobreak">{b}</code> {CAPABILITY_TITLE.get(b) ? <span className="muted">({CAPABILITY_TITLE.get(b)})</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>None: no required capability is missing.</p>
      )}

      <Heading level={sub(level)} id={`${idPrefix}-capabilities`}>Capabilities</Heading>
      <TableWrap label="Capabilities">
        <table className="capability-table stack-on-phone">
          <caption className="visually-hidden">Declared status, requirement and points of each capability</caption>
          <ColumnHeads names={['Capability', 'Declared', 'Requirement', 'Points']} />
          <tbody>
            {a.capabilities.map((c) => (
              <tr key={c.key}>
                <th scope="row">
                  <code className="nobreak">{c.key}</code>
                  {CAPABILITY_TITLE.get(c.key) ? <div className="hint">{CAPABILITY_TITLE.get(c.key)}</div> : null}
                </th>
                <td data-label="Declared"><span className={`status ${c.status}`}>{c.status}</span>{c.evidenceCount ? <div className="hint">{c.evidenceCount} evidence line{c.evidenceCount === 1 ? '' : 's'}</div> : null}</td>
                <td data-label="Requirement">{c.requirement ?? '—'}</td>
                <td data-label="Points">{c.pointsEarned} / {c.pointsPossible}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <Heading level={sub(level)} id={`${idPrefix}-findings`}>Findings, most severe first</Heading>
      <Findings findings={a.findings} level={sub(level) as Level} idPrefix={`${idPrefix}-sev`} />
      {a.statement ? <p className="muted">{a.statement}</p> : null}
      <Limits limits={body.limits} />
    </>
  );
}
