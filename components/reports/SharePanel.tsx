'use client';

import { useState } from 'react';
import { CopyButton } from '../CopyButton';

/**
 * The owner's share controls: a public link (shown once: the server keeps only its hash), and revoking it.
 * A new link replaces the earlier one.
 */
export function SharePanel({ reportId, shared: sharedAtFirst }: { reportId: string; shared: boolean }) {
  const [shared, setShared] = useState(sharedAtFirst);
  const [url, setUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const path = `/api/reports/${encodeURIComponent(reportId)}/share`;

  async function send(method: 'POST' | 'DELETE') {
    setBusy(true);
    setError(null);
    try {
      const res = await fetch(path, { method, cache: 'no-store' });
      if (method === 'POST' && res.ok) {
        setUrl(((await res.json()) as { url: string }).url);
        setShared(true);
      } else if (method === 'DELETE' && res.ok) {
        setUrl(null);
        setShared(false);
      } else setError(((await res.json().catch(() => ({}))) as { detail?: string }).detail ?? 'That did not work. Nothing changed.');
    } catch {
      setError('The server could not be reached. Nothing changed.');
    }
    setBusy(false);
  }

  return (
    <section className="share-panel" aria-labelledby="share-heading" data-testid="share-panel">
      <h2 id="share-heading">Share this report</h2>
      {url ? (
        <div className="notice ok" role="status">
          <p>Anyone with this link can see the report (not your key, calls or other reports). Copy it now: it is shown only once.</p>
          <div className="key-box">
            <code data-testid="share-url">{url}</code>
            <CopyButton text={url} label="Copy link" />
          </div>
        </div>
      ) : shared ? (
        <p data-testid="share-state">This report has a public link. Stop sharing to make that link answer “not found”, or make a new link (the old one stops working).</p>
      ) : (
        <p data-testid="share-state">Only you can see this report. A public link shows it to anyone who has the link; search engines are asked not to index it.</p>
      )}
      <div className="actions">
        <button type="button" className="button secondary" disabled={busy} onClick={() => send('POST')}>
          {shared ? 'Make a new link' : 'Make a public link'}
        </button>
        {shared ? (
          <button type="button" className="button secondary" disabled={busy} onClick={() => send('DELETE')}>
            Stop sharing
          </button>
        ) : null}
      </div>
      {error ? <p className="field-error" role="alert">{error}</p> : null}
    </section>
  );
}
