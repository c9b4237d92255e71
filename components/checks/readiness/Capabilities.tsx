import { ColumnHeads } from '@/components/ColumnHeads';
import { TableWrap } from '@/components/TableWrap';
import { CAPABILITY_GROUPS, capabilityGroup, capabilityTitle, statusLabel } from '@/lib/checks/readiness/labels';
import type { Assessment } from './types';

// The declaration as scored: one row per capability, by group (each group's first row the target of its gauge),
// last in the report (the plan and findings say what to do).

function evidenceSummary(c: Assessment['capabilities'][number]): string | null {
  if (c.evidence) {
    if (!c.evidence.length) return null;
    const checkable = c.evidence.filter((e) => e.checkable).length;
    return `${c.evidence.length} evidence item${c.evidence.length === 1 ? '' : 's'}, ${checkable === c.evidence.length ? 'all checkable' : checkable ? `${checkable} checkable` : 'none checkable'}`;
  }
  return c.evidenceCount ? `${c.evidenceCount} evidence item${c.evidenceCount === 1 ? '' : 's'}` : null;
}

export function Capabilities({ capabilities, idPrefix }: { capabilities: Assessment['capabilities']; idPrefix: string }) {
  return (
    <TableWrap label="Capabilities">
      <table className="capability-table stack-on-phone">
        <caption className="visually-hidden">Declared status, requirement and points of each capability</caption>
        <ColumnHeads names={['Capability', 'Declared', 'Requirement', 'Points']} />
        {CAPABILITY_GROUPS.map((g) => ({ g, own: capabilities.filter((c) => capabilityGroup(c.key) === g.key) })).filter(({ own }) => own.length).map(({ g, own }) => (
        <tbody key={g.key}>
          <tr className="group-row" id={`${idPrefix}-category-${g.key}`}>
            <th scope="rowgroup" colSpan={4}>{g.label}</th>
          </tr>
          {own.map((c) => {
            const evidence = evidenceSummary(c);
            return (
              <tr key={c.key}>
                <th scope="row">{capabilityTitle(c.key)}</th>
                <td data-label="Declared">
                  <span className={`status ${c.status}`}>{statusLabel(c.status)}</span>
                  {evidence ? <div className="hint">{evidence}</div> : null}
                </td>
                <td data-label="Requirement">{c.requirement === 'required' ? 'Required' : c.requirement === 'recommended' ? 'Recommended' : '—'}</td>
                <td data-label="Points">
                  {c.pointsEarned} / {c.pointsPossible}
                </td>
              </tr>
            );
          })}
        </tbody>
        ))}
      </table>
    </TableWrap>
  );
}
