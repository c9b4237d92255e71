import { severityLabel } from '@/lib/checks/severity';
import { H, type Depth } from './Heading';
import { capabilityTitle } from '@/lib/checks/readiness/labels';
import type { Hazard } from './types';
import { Prose } from '@/components/report-view/Prose';

// Gaps that are dangerous together, each named by the capabilities it joins.

export function Hazards({ hazards, depth }: { hazards: Hazard[]; depth: Depth }) {
  if (!hazards.length) return <p>None: no two gaps in this declaration make each other worse.</p>;
  return (
    <ul className="rd-hazards" data-testid="readiness-hazards">
      {hazards.map((h) => (
        <li key={h.id} className={`rd-card ${h.severity}`}>
          <H depth={depth} className="rd-card-title">
            <span className={`badge ${h.severity}`}>{severityLabel(h.severity)}</span>{' '}
            {h.capabilities.map(capabilityTitle).join(' with ')}
          </H>
          <p><Prose text={h.why} /></p>
          <p>
            <strong>Fix:</strong> <Prose text={h.fix} />
          </p>
        </li>
      ))}
    </ul>
  );
}
