import { capabilityTitle, verdictLabel } from '@/lib/checks/readiness/labels';
import type { ProductionDelta as Delta } from './types';

// For a sandbox workflow: what the same declaration would get in production.

const names = (keys: string[]) => (keys.length ? keys.map(capabilityTitle).join(', ') : 'none');

export function ProductionDelta({ delta, score }: { delta: Delta; score: number }) {
  return (
    <dl className="rd-delta" data-testid="readiness-production">
      <div>
        <dt>Verdict in production</dt>
        <dd>
          <span className={`verdict ${delta.verdict}`}>{verdictLabel(delta.verdict)}</span>
        </dd>
      </div>
      <div>
        <dt>Score in production</dt>
        <dd>
          {delta.score} / 100 <span className="hint">({score} in the sandbox)</span>
        </dd>
      </div>
      <div>
        <dt>Newly required</dt>
        <dd>{names(delta.newlyRequired)}</dd>
      </div>
      <div>
        <dt>Blockers in production</dt>
        <dd>{names(delta.blockers)}</dd>
      </div>
    </dl>
  );
}
