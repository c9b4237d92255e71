import { readinessRubric } from '@/lib/checks/readiness/rubric';
import { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { RUBRIC_CHANGES } from '@/lib/checks/visibility/rubric-changes';
import { problemTable } from '@/lib/docs/reference';
import { TableWrap } from '../TableWrap';

export function ReadinessRubric() {
  const r = readinessRubric();
  return (
    <>
      <p>
        Rubric version <code>{r.rubricVersion}</code>. Score 0-{r.scoreMax}. {r.points.rule} Points earned per capability:{' '}
        {r.points.earned}.
      </p>
      <TableWrap label="Credit per declared status">
        <table>
          <caption>Credit per declared status</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Credit</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(r.points.credit).map(([status, credit]) => (
              <tr key={status}>
                <td>{status}</td>
                <td>{credit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3>When a capability is required</h3>
      <ul>
        {Object.entries(r.requirements).map(([k, v]) => (
          <li key={k}>{v}</li>
        ))}
      </ul>
      <h3>Verdicts and severities</h3>
      <ul>
        {Object.entries(r.verdicts).map(([k, v]) => (
          <li key={k}>
            <code>{k}</code>: {v}
          </li>
        ))}
        {Object.entries(r.severities).map(([k, v]) => (
          <li key={k}>
            <span className={`badge ${k}`}>{k}</span> {v}
          </li>
        ))}
      </ul>
      <TableWrap label="The ten capabilities">
        <table>
          <caption>The ten capabilities</caption>
          <thead>
            <tr>
              <th scope="col">Capability</th>
              <th scope="col">Weight</th>
              <th scope="col">Required when</th>
              <th scope="col">Why it matters</th>
              <th scope="col">Fix</th>
            </tr>
          </thead>
          <tbody>
            {r.capabilities.map((c) => (
              <tr key={c.key}>
                <th scope="row">
                  <code>{c.key}</code>
                  <div className="hint">{c.title}</div>
                </th>
                <td>{c.weight}</td>
                <td>{c.requiredWhen}</td>
                <td>{c.why}</td>
                <td>{c.fix}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

export function VisibilityRubric() {
  const d = visibilityCheckDescription();
  return (
    <>
      <p>
        Check version <code>{d.checkVersion}</code>, rubric version <code>{d.rubricVersion}</code>. {d.scoringRule}
      </p>
      <p>
        Fetched: {d.fetched.page}; then {d.fetched.site.join(', ')}; within {d.fetched.budgetSeconds} seconds in all.
      </p>
      <TableWrap label="Visibility rubric items">
        <table>
          <caption>Rubric items ({d.rubric.reduce((n, i) => n + i.points, 0)} points)</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Category</th>
              <th scope="col">Points</th>
              <th scope="col">Criterion</th>
            </tr>
          </thead>
          <tbody>
            {d.rubric.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <code>{item.id}</code>
                </th>
                <td>{item.category}</td>
                <td>{item.points}</td>
                <td>{item.criterion}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="visibility-rubric-changes">
        Rubric {RUBRIC_CHANGES.to}: what changed from {RUBRIC_CHANGES.from} and why
      </h3>
      <p>{RUBRIC_CHANGES.summary}</p>
      <TableWrap label={`Changes from rubric ${RUBRIC_CHANGES.from}`}>
        <table>
          <caption>Changes from rubric {RUBRIC_CHANGES.from}</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col">Points before</th>
              <th scope="col">Points now</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {RUBRIC_CHANGES.changes.map((c) => (
              <tr key={c.item}>
                <th scope="row">
                  <code>{c.item}</code>
                </th>
                <td>{c.before ?? 'new'}</td>
                <td>{c.after}</td>
                <td>{c.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </>
  );
}

export function CrawlerTable() {
  const d = visibilityCheckDescription();
  return (
    <TableWrap label="Crawlers">
      <table>
        <caption>The {d.crawlers.length} crawlers reported</caption>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Vendor</th>
            <th scope="col">Role</th>
            <th scope="col">Purpose</th>
            <th scope="col">Obeys robots.txt</th>
          </tr>
        </thead>
        <tbody>
          {d.crawlers.map((c) => (
            <tr key={c.token}>
              <th scope="row">
                <code>{c.token}</code>
              </th>
              <td>{c.vendor}</td>
              <td>{c.role}</td>
              <td>
                {c.purpose}{' '}
                <a href={c.source} rel="noopener noreferrer">
                  Vendor documentation<span className="visually-hidden"> for {c.token}</span>
                </a>
                {c.fallback ? <div className="hint">Follows the {c.fallback} group when no group names it.</div> : null}
              </td>
              <td>
                {c.honorsRobots ? 'yes' : 'not always'}
                {c.userTriggered ? <div className="hint">user-triggered</div> : null}
                {c.tokenOnly ? <div className="hint">control token only</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export function ProblemTable() {
  return (
    <TableWrap label="Problem types">
      <table>
        <caption>Every problem type</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Type</th>
            <th scope="col">Title</th>
          </tr>
        </thead>
        <tbody>
          {problemTable().map((p) => (
            <tr key={p.kind} id={`problem-${p.kind}`}>
              <td>{p.status}</td>
              <td>
                <code>{p.type}</code>
              </td>
              <td>{p.title}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
