import { findingAnchor, Limits, PassedAudits, type Level } from '@/components/report-view/parts';
import { readinessReport } from '@/lib/checks/readiness/report';
import { Capabilities } from './Capabilities';
import { FindingCard } from './FindingCard';
import { Hazards } from './Hazards';
import { H, deeper, type Depth } from './Heading';
import { capabilityTitle } from '@/lib/checks/readiness/labels';
import { Plan } from './Plan';
import { ProductionDelta } from './ProductionDelta';
import type { Body } from './types';
import type { CheckViewProps } from '../types';
import './readiness.css';

// The Agent Payment Readiness Assessment's report, in the order a buyer acts on it: below the shared header
// (verdict, score, summary, date, score by group of capabilities, the plan's first steps), the plan, the hazards,
// every finding folded (open: risk, steps, verify, sources, evidence), the passed capabilities, what production adds
// for a sandbox workflow, and the capability table last, by group (each group the target of its gauge).

const USERS: Record<string, string> = { agents: 'For agents', humans: 'For humans', both: 'For humans and agents' };
const ENVIRONMENT: Record<string, string> = { sandbox: 'in the sandbox', production: 'in production' };

export function ReadinessReportView({ body, level, idPrefix }: CheckViewProps) {
  return <ReadinessReport body={body as Body} level={level} idPrefix={idPrefix} />;
}

function ReadinessReport({ body, level, idPrefix }: { body: Body; level: Level; idPrefix: string }) {
  const a = body.assessment;
  const section = deeper(level as Depth);
  const status = new Map(a.capabilities.map((c) => [c.key, c]));
  const audience = [USERS[a.workflow.intendedUsers ?? ''], ENVIRONMENT[a.workflow.targetEnvironment ?? '']].filter(Boolean).join(' ');
  return (
    <>
      {/* The shared header above (ReportView) holds the score, verdict, summary and date; this line adds who the
          workflow serves and where, and what blocks it. */}
      <p className="muted" data-testid="readiness-context">
        {audience ? <>{audience} · </> : null}
        {a.blockers.length ? `Blocked by ${a.blockers.map(capabilityTitle).join(', ')} · ` : 'No blockers · '}
        {a.findings.length} finding{a.findings.length === 1 ? '' : 's'}
      </p>

      {/* Sections are divs, not named regions: the capability table's wrapper is already the region named
          "Capabilities", and two reports on one page would name their regions alike. */}
      {a.plan ? (
        <div className="rd-section">
          <H depth={section} id={`${idPrefix}-plan`}>Plan</H>
          <Plan plan={a.plan} findings={a.findings} depth={deeper(section)} idPrefix={idPrefix} />
        </div>
      ) : null}

      {a.hazards ? (
        <div className="rd-section">
          <H depth={section} id={`${idPrefix}-hazards`}>Gaps that are dangerous together</H>
          <Hazards hazards={a.hazards} depth={deeper(section)} />
        </div>
      ) : null}

      <div className="rd-section">
        <H depth={section} id={`${idPrefix}-findings`}>Findings, most severe first</H>
        {a.findings.length ? (
          <ul className="findings rd-findings">
            {a.findings.map((f, i) => (
              <FindingCard
                key={f.id} finding={f} anchor={findingAnchor(idPrefix, i)} depth={deeper(section)}
                status={f.capability ? status.get(f.capability)?.status : undefined}
                evidence={(f.capability && status.get(f.capability)?.evidence) || []}
              />
            ))}
          </ul>
        ) : (
          <p>No findings: every capability earned its points.</p>
        )}
        <PassedAudits passed={readinessReport.passed?.(body) ?? []} idPrefix={idPrefix} />
      </div>

      {a.productionDelta ? (
        <div className="rd-section">
          <H depth={section} id={`${idPrefix}-production`}>The same declaration in production</H>
          <ProductionDelta delta={a.productionDelta} score={a.score} />
        </div>
      ) : null}

      <div className="rd-section">
        <H depth={section} id={`${idPrefix}-capabilities`}>Capabilities</H>
        <Capabilities capabilities={a.capabilities} idPrefix={idPrefix} />
      </div>
      {a.statement ? <p className="muted">{a.statement}</p> : null}
      <Limits limits={body.limits} />
    </>
  );
}
