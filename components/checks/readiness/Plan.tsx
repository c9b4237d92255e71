import { severityLabel } from '@/lib/checks/severity';
import { H, type Depth } from './Heading';
import { capabilityTitle, phaseTitle } from '@/lib/checks/readiness/labels';
import { findingAnchor } from '@/components/report-view/parts';
import type { Finding, PlanPhase } from './types';
import { Prose } from '@/components/report-view/Prose';

// The plan first: what to do, phase by phase, in the order the published dependency graph gives. Steps are
// numbered across the phases, and each links to its finding below.

export function Plan({ plan, findings, depth, idPrefix }: { plan: PlanPhase[]; findings: Finding[]; depth: Depth; idPrefix: string }) {
  if (!plan.length) return <p>Nothing to do: the declaration raises no finding.</p>;
  const severityOf = new Map(findings.map((f) => [f.id, f.severity]));
  const indexOf = new Map(findings.map((f, i) => [f.id, i]));
  // Steps are numbered across phases: each phase's list starts after the steps before it.
  const starts = plan.map((_, i) => 1 + plan.slice(0, i).reduce((sum, ph) => sum + ph.steps.length, 0));
  return (
    <ol className="rd-phases" data-testid="readiness-plan">
      {plan.map((phase, i) => (
        <li key={phase.phase} className={`rd-phase ${phase.phase}`}>
          <H depth={depth} className="rd-phase-title">
            {phaseTitle(phase.phase, phase.title)}
            <span className="hint"> · {phase.steps.length} step{phase.steps.length === 1 ? '' : 's'}</span>
          </H>
          <ol className="rd-steps" start={starts[i]}>
            {phase.steps.map((s) => {
              const severity = severityOf.get(s.findingId);
              return (
                <li key={s.findingId}>
                  <p className="rd-step-action"><Prose text={s.action} /></p>
                  <p className="hint">
                    {severity ? <span className={`badge ${severity}`}>{severityLabel(severity)}</span> : null}{' '}
                    <a href={`#${findingAnchor(idPrefix, indexOf.get(s.findingId) ?? -1)}`}>{capabilityTitle(s.capability)}: see the finding</a>
                  </p>
                </li>
              );
            })}
          </ol>
        </li>
      ))}
    </ol>
  );
}
