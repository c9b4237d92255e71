import { exampleAssessment, EXAMPLE_READINESS_REQUEST } from '@/lib/docs/reference';

const VERDICT_TEXT: Record<string, string> = {
  'not-ready': 'Not ready',
  'ready-with-gaps': 'Ready, with gaps',
  ready: 'Ready',
};

/** A real readiness assessment of an example workflow, computed by the same code the API runs. */
export function ExampleReport() {
  const a = exampleAssessment();
  return (
    <article className="card" aria-labelledby="example-report-title">
      <h3 id="example-report-title">
        Readiness of “{EXAMPLE_READINESS_REQUEST.workflow.name}” ({EXAMPLE_READINESS_REQUEST.workflow.intendedUsers},{' '}
        {EXAMPLE_READINESS_REQUEST.workflow.targetEnvironment})
      </h3>
      <dl className="facts">
        <dt>Verdict</dt>
        <dd>{VERDICT_TEXT[a.verdict] ?? a.verdict}</dd>
        <dt>Score</dt>
        <dd>
          <span className="score">{a.score}</span> / {a.scoreMax}
        </dd>
        <dt>Blockers</dt>
        <dd>
          {a.blockers.length
            ? a.blockers.map((b, i) => (
                <span key={b}>
                  {i ? ', ' : ''}
                  <code>{b}</code>
                </span>
              ))
            : 'none'}
        </dd>
      </dl>
      <h4>Findings, most severe first</h4>
      <ol>
        {a.findings.slice(0, 4).map((f) => (
          <li key={f.id}>
            <span className={`badge ${f.severity}`}>{f.severity}</span> {f.why} <em>Fix:</em> {f.fix}
          </li>
        ))}
      </ol>
      {a.findings.length > 4 ? <p className="muted">… and {a.findings.length - 4} more in the full report.</p> : null}
      <p className="muted">{a.statement}</p>
    </article>
  );
}
