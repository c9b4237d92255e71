import type { readinessRubric } from '@/lib/checks/readiness/rubric';
import type { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { MAX_URL_LENGTH } from '@/lib/outbound/target-url';
import { PAGE_MAX_BYTES } from '@/lib/checks/visibility/check';
import { RUBRIC_CHANGES } from '@/lib/checks/visibility/rubric-changes';
import { problemTable } from '@/lib/docs/reference';
import { TableWrap } from '../TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

// Each check's rubric as its free GET publishes it (the entry's `describe()`), laid out for people. The docs'
// checks page finds a check's component by the check's id (components/docs/rubric-views.tsx).

/** What the readiness check's `describe()` publishes. */
interface ReadinessDescribed {
  rubric: ReturnType<typeof readinessRubric>;
}

/** What the visibility check's `describe()` publishes. */
type VisibilityDescribed = Pick<ReturnType<typeof visibilityCheckDescription>, 'checkVersion' | 'rubricVersion' | 'scoringRule' | 'severityRule' | 'fetched' | 'rubric' | 'crawlers'>;

export function ReadinessRubric({ described }: { described: unknown }) {
  const r = (described as ReadinessDescribed).rubric;
  return (
    <>
      <p>
        Rubric version <code>{r.rubricVersion}</code>. Score 0-{r.scoreMax}. {r.points.rule} Points earned per capability:{' '}
        {r.points.earned}.
      </p>
      <p>
        The workflow&apos;s name is 1-120 characters; each capability takes at most 5 evidence items of 1-240 characters.
      </p>
      <TableWrap label="Credit per declared status">
        <table>
          <caption>Credit per declared status</caption>
          <ColumnHeads names={['Status', 'Credit']} />
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
          <ColumnHeads names={['Capability', 'Weight', 'Required when', 'Why it matters', 'Fix']} />
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
      <h3 id="readiness-evidence">How evidence is read</h3>
      <p>{r.evidence.rule}</p>
      <TableWrap label="Evidence rules">
        <table>
          <caption>Evidence kinds, in the order the rules are tried</caption>
          <ColumnHeads names={['Kind', 'Rule', 'Examples']} />
          <tbody>
            {[...r.evidence.rules, { kind: 'statement', ...r.evidence.statement }].map((e) => (
              <tr key={e.kind}>
                <th scope="row">
                  <code>{e.kind}</code>
                </th>
                <td>{e.rule}</td>
                <td>
                  {e.examples.map((x) => (
                    <div key={x}>
                      <code>{x}</code>
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>{r.evidence.findings}.</p>
      <h3 id="readiness-findings">What each finding says, and the effort scale</h3>
      <p>
        {r.findings.members}. {r.findings.effort.rule}.
      </p>
      <ul>
        {Object.entries(r.findings.effort.scale).map(([k, v]) => (
          <li key={k}>
            <code>{k}</code>: {v}
          </li>
        ))}
      </ul>
      <h3 id="readiness-hazards">Hazards: gaps that are dangerous together</h3>
      <p>{r.hazards.rule}</p>
      <TableWrap label="Hazard rules">
        <table>
          <caption>The {r.hazards.table.length} hazard rules</caption>
          <ColumnHeads names={['Hazard', 'Severity', 'Fires when', 'Why', 'Fix']} />
          <tbody>
            {r.hazards.table.map((h) => (
              <tr key={h.id}>
                <th scope="row">
                  <code>{h.id}</code>
                </th>
                <td>
                  <span className={`badge ${h.severity}`}>{h.severity}</span>
                </td>
                <td>{h.when}</td>
                <td>{h.why}</td>
                <td>{h.fix}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="readiness-plan">The plan</h3>
      <p>{r.plan.rule}</p>
      <ul>
        {r.plan.phases.map((p) => (
          <li key={p.phase}>
            <code>{p.phase}</code> ({p.title}): {p.holds}
          </li>
        ))}
      </ul>
      <TableWrap label="Dependency graph">
        <table>
          <caption>Dependency graph: fix the first before the second</caption>
          <ColumnHeads names={['First', 'Then', 'Because']} />
          <tbody>
            {r.plan.dependencies.map((d) => (
              <tr key={`${d.before}-${d.after}`}>
                <td>
                  <code>{d.before}</code>
                </td>
                <td>
                  <code>{d.after}</code>
                </td>
                <td>{d.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>
        <code>productionDelta</code>: {r.productionDelta}. <code>summary</code>: {r.summary}.
      </p>
      <h3 id="readiness-sources">Sources the findings cite</h3>
      <ul>
        {r.references.map((ref) => (
          <li key={ref.url}>
            <a href={ref.url} rel="noopener noreferrer">
              {ref.title}
            </a>
          </li>
        ))}
      </ul>
      <h3 id="readiness-changes">
        Assessment {r.changes.to.assessmentVersion} (rubric {r.changes.to.rubricVersion}): what changed from {r.changes.from.assessmentVersion}
      </h3>
      <p>{r.changes.kept}</p>
      <ul>
        {r.changes.changes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
    </>
  );
}

export function VisibilityRubric({ described }: { described: unknown }) {
  const d = described as VisibilityDescribed;
  return (
    <>
      <p>
        Check version <code>{d.checkVersion}</code>, rubric version <code>{d.rubricVersion}</code>. {d.scoringRule} {d.severityRule}
      </p>
      <p>
        Fetched: {d.fetched.page}; then {d.fetched.site.join(', ')}; within {d.fetched.budgetSeconds} seconds in all. The address is
        1-{MAX_URL_LENGTH} characters (default ports only; IP addresses and internal names are refused), and the page is read to{' '}
        {PAGE_MAX_BYTES / 1024} KB (<code>page.truncated</code> is true past that).
      </p>
      <TableWrap label="Visibility rubric items">
        <table>
          <caption>Rubric items ({d.rubric.reduce((n, i) => n + i.points, 0)} points)</caption>
          <ColumnHeads names={['Item', 'Category', 'Points', 'Criterion']} />
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
          <ColumnHeads names={['Item', 'Points before', 'Points now', 'Why']} />
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
      <h3 id="crawlers">Crawlers</h3>
      <CrawlerTable crawlers={d.crawlers} />
    </>
  );
}

function CrawlerTable({ crawlers }: { crawlers: VisibilityDescribed['crawlers'] }) {
  const d = { crawlers };
  return (
    <TableWrap label="Crawlers">
      <table>
        <caption>The {d.crawlers.length} crawlers reported</caption>
        <ColumnHeads names={['Token', 'Vendor', 'Role', 'Purpose', 'Obeys robots.txt']} />
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
        <ColumnHeads names={['Status', 'Type', 'Title']} />
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
