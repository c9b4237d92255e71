import type { readinessRubric } from '@/lib/checks/readiness/rubric';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import { Prose } from '@/components/report-view/Prose';
import { PHASES } from '@/lib/checks/readiness/plan';
import { READINESS_VERDICT } from '@/lib/checks/readiness/labels';

// The readiness rubric as its free GET publishes it (the entry's `describe()`), laid out for people on
// /docs/checks.

/** What the readiness check's `describe()` publishes. */
interface ReadinessDescribed {
  rubric: ReturnType<typeof readinessRubric>;
}

/** The rubric's own kebab-case names (verdicts, phases), set as code where its sentences name them. */
const NAMES = [...Object.keys(READINESS_VERDICT), ...PHASES];

export function ReadinessRubric({ described }: { described: unknown }) {
  const r = (described as ReadinessDescribed).rubric;
  return (
    <>
      <p>
        Rubric version <code>{r.rubricVersion}</code>. Score 0-{r.scoreMax}. <Prose text={r.points.rule} names={NAMES} /> Points earned per capability:{' '}
        <Prose text={r.points.earned} names={NAMES} />.
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
          <li key={k}><Prose text={v} names={NAMES} /></li>
        ))}
      </ul>
      <h3>Verdicts and severities</h3>
      <ul>
        {Object.entries(r.verdicts).map(([k, v]) => (
          <li key={k}>
            <code>{k}</code>: <Prose text={v} names={NAMES} />
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
                <td><Prose text={c.requiredWhen} names={NAMES} /></td>
                <td><Prose text={c.why} names={NAMES} /></td>
                <td><Prose text={c.fix} names={NAMES} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="readiness-evidence">How evidence is read</h3>
      <p><Prose text={r.evidence.rule} names={NAMES} /></p>
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
                <td><Prose text={e.rule} names={NAMES} /></td>
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
      <p><Prose text={r.evidence.findings} names={NAMES} />.</p>
      <h3 id="readiness-findings">What each finding says, and the effort scale</h3>
      <p>
        <Prose text={r.findings.members} names={NAMES} />. <Prose text={r.findings.effort.rule} names={NAMES} />.
      </p>
      <ul>
        {Object.entries(r.findings.effort.scale).map(([k, v]) => (
          <li key={k}>
            <code>{k}</code>: {v}
          </li>
        ))}
      </ul>
      <h3 id="readiness-hazards">Hazards: gaps that are dangerous together</h3>
      <p><Prose text={r.hazards.rule} names={NAMES} /></p>
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
                <td><Prose text={h.when} names={NAMES} /></td>
                <td><Prose text={h.why} names={NAMES} /></td>
                <td><Prose text={h.fix} names={NAMES} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="readiness-plan">The plan</h3>
      <p><Prose text={r.plan.rule} names={NAMES} /></p>
      <ul>
        {r.plan.phases.map((p) => (
          <li key={p.phase}>
            <code>{p.phase}</code> ({p.title}): <Prose text={p.holds} names={NAMES} />
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
                <td><Prose text={d.why} names={NAMES} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <p>
        <code>productionDelta</code>: <Prose text={r.productionDelta} names={NAMES} />. <code>summary</code>: <Prose text={r.summary} names={NAMES} />.
      </p>
      <h3 id="readiness-sources">Sources the findings cite</h3>
      <ul>
        {r.references.map((ref) => (
          <li key={ref.url}>
            <a href={ref.url} rel="noopener noreferrer">
              <Prose text={ref.title} />
            </a>
          </li>
        ))}
      </ul>
      <h3 id="readiness-changes">
        Assessment {r.changes.to.assessmentVersion} (rubric {r.changes.to.rubricVersion}): what changed from {r.changes.from.assessmentVersion}
      </h3>
      <p><Prose text={r.changes.kept} names={NAMES} /></p>
      <ul>
        {r.changes.changes.map((c) => (
          <li key={c}><Prose text={c} names={NAMES} /></li>
        ))}
      </ul>
    </>
  );
}
