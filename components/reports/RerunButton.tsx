'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';

/**
 * Runs a stored report's check again with its stored input: a new paid call, so it asks first. The confirmed
 * click sends a fresh Idempotency-Key (a retry of a lost answer would reuse it; a new run never does), then
 * opens the new report.
 */
export function RerunButton({ reportId, label }: { reportId: string; label: string }) {
  const router = useRouter();
  const [stage, setStage] = useState<'idle' | 'confirm' | 'busy'>('idle');
  const [error, setError] = useState<string | null>(null);

  async function run() {
    setStage('busy');
    setError(null);
    try {
      const res = await fetch(`/api/reports/${encodeURIComponent(reportId)}/rerun`, {
        method: 'POST', cache: 'no-store', headers: { 'idempotency-key': crypto.randomUUID() },
      });
      const next = /<\/api\/reports\/([^>]+)>/.exec(res.headers.get('link') ?? '')?.[1];
      if (res.ok && next) {
        router.push(`/reports/${next}`);
        return;
      }
      const body = (await res.json().catch(() => ({}))) as { detail?: string };
      setError(res.ok ? 'The check ran, but its report could not be kept: see your history.' : (body.detail ?? 'The check could not run. Nothing was charged.'));
    } catch {
      setError('The server could not be reached. If the check ran, it is in your history.');
    }
    setStage('idle');
  }

  return (
    <div className="rerun" data-testid={`rerun-${reportId}`}>
      {stage === 'idle' ? (
        <button type="button" className="button secondary" onClick={() => setStage('confirm')} aria-label={`Run again: ${label}`}>
          Run again
        </button>
      ) : (
        <span role="group" aria-label="Confirm running the check again">
          <span className="muted">Uses one call. </span>
          <button type="button" className="button" disabled={stage === 'busy'} onClick={run}>
            {stage === 'busy' ? 'Running…' : 'Run it (1 call)'}
          </button>{' '}
          <button type="button" className="button secondary" disabled={stage === 'busy'} onClick={() => setStage('idle')}>
            Cancel
          </button>
        </span>
      )}
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </div>
  );
}
