'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { CopyButton } from '../CopyButton';
import { SignInForm } from '../check/SignInForm';
import { signOut } from '../check/session';

/** Signs in on a server-rendered page, then renders it again with the session. */
export function SignInAndRefresh({ idPrefix }: { idPrefix: string }) {
  const router = useRouter();
  return <SignInForm idPrefix={idPrefix} onSignedIn={() => router.refresh()} />;
}

export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button" className="button secondary" disabled={busy}
      onClick={async () => {
        setBusy(true);
        await signOut().catch(() => false);
        router.refresh();
        setBusy(false);
      }}
    >
      Sign out
    </button>
  );
}

/**
 * Replaces the key: a new key with the same calls and plans, the old one refused from that moment. The
 * new key is shown here once; the session follows it, so nobody is signed out.
 */
export function RotateKey() {
  const router = useRouter();
  const [stage, setStage] = useState<'idle' | 'confirm' | 'busy'>('idle');
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function rotate() {
    setStage('busy');
    setError(null);
    try {
      const res = await fetch('/api/session/rotate', { method: 'POST', cache: 'no-store' });
      const body = (await res.json()) as { key?: string; detail?: string };
      if (res.ok && body.key) {
        setKey(body.key);
        router.refresh();
      } else setError(body.detail ?? 'The key could not be replaced. Nothing changed.');
    } catch {
      setError('The server could not be reached. Nothing changed.');
    }
    setStage('idle');
  }

  if (key) {
    return (
      <div className="notice ok" role="status">
        <p>
          <strong>Your new key. Copy it now: it is shown only this once.</strong> The old key no longer works; this page and your reports
          now belong to the new one.
        </p>
        <div className="key-box">
          <code data-testid="rotated-key">{key}</code>
          <CopyButton text={key} label="Copy key" />
        </div>
      </div>
    );
  }
  return (
    <>
      <p>
        If the key may have leaked, or someone who had it should no longer use it, replace it. The new key keeps every call, plan,
        subscription and stored report; the old key is refused at once, everywhere (API, MCP and this site).
      </p>
      {stage === 'confirm' ? (
        <div className="actions">
          <button type="button" className="button" onClick={rotate}>
            Yes, replace my key
          </button>
          <button type="button" className="button secondary" onClick={() => setStage('idle')}>
            Keep the current key
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="button secondary" onClick={() => setStage('confirm')} disabled={stage === 'busy'}>
            {stage === 'busy' ? 'Replacing…' : 'Replace this key'}
          </button>
        </div>
      )}
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
