'use client';

import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { CopyButton } from '../CopyButton';
import { KeyField } from '../check/KeyField';
import { SignInForm } from '../check/SignInForm';
import { signOut } from '../check/session';

/** Signs in on the account page, then renders it again with the session. */
export function SignInAndRefresh({ idPrefix, initialError = null }: { idPrefix: string; initialError?: string | null }) {
  const router = useRouter();
  return <SignInForm idPrefix={idPrefix} page="/account" initialError={initialError} onSignedIn={() => router.refresh()} />;
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
 * new key is shown here once; the session follows it, so nobody is signed out. Within a few minutes of
 * signing in a confirmation is enough; later (`askForKey`, or when the server says so) the current key is
 * asked for, so a borrowed or stolen session cannot swap the key out from under its owner.
 */
export function RotateKey({ askForKey }: { askForKey: boolean }) {
  const router = useRouter();
  return <RotateKeyForm askForKey={askForKey} onRotated={() => router.refresh()} />;
}

/** The form behind RotateKey, without the router (rendered on its own in tests). */
export function RotateKeyForm({ askForKey, onRotated }: { askForKey: boolean; onRotated: () => void }) {
  const [stage, setStage] = useState<'idle' | 'confirm' | 'busy'>('idle');
  const [needsKey, setNeedsKey] = useState(askForKey);
  const [current, setCurrent] = useState('');
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function rotate(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    const sent = current.trim();
    if (needsKey && !sent) {
      setError('Required: paste your current credits key.');
      return;
    }
    setStage('busy');
    setError(null);
    try {
      const res = await fetch('/api/session/rotate', {
        method: 'POST', cache: 'no-store',
        ...(needsKey ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: sent }) } : {}),
      });
      const body = (await res.json()) as { key?: string; detail?: string; type?: string };
      if (res.ok && body.key) {
        setCurrent('');
        setKey(body.key);
        onRotated();
      } else if (res.status === 403 && body.type?.endsWith('/current-key-required')) {
        setNeedsKey(true);
        setError(needsKey ? 'That is not the key you are signed in with. Nothing changed.' : 'Enter your current key to replace it. Nothing changed.');
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
  const intro = (
    <p>
      If the key may have leaked, or someone who had it should no longer use it, replace it. The new key keeps every call, plan,
      subscription and stored report; the old key is refused at once, everywhere (API, MCP and this site).
    </p>
  );
  if (needsKey) {
    return (
      <>
        {intro}
        {/* A method, so a submit before the script runs posts the key in a body (refused there: replacing needs the script), never in the address. */}
        <form className="stack" method="post" action="/api/session/rotate" onSubmit={rotate} noValidate aria-label="Replace your key">
          <KeyField
            id="rotate-current-key" label="Your current credits key" value={current} onChange={setCurrent} error={error}
            hint="(you signed in more than a few minutes ago, so replacing the key needs it)"
          />
          <div className="actions">
            <button type="submit" className="button" disabled={stage === 'busy'}>
              {stage === 'busy' ? 'Replacing…' : 'Replace this key'}
            </button>
          </div>
        </form>
        <noscript>
          <p className="notice warn">Replacing the key needs JavaScript: the new key is shown on this page, once.</p>
        </noscript>
      </>
    );
  }
  return (
    <>
      {intro}
      {stage === 'confirm' ? (
        <div className="actions">
          <button type="button" className="button" onClick={() => rotate()}>
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
