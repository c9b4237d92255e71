'use client';

import { useState, type FormEvent } from 'react';
import Link from 'next/link';
import { KeyField } from './KeyField';
import { signIn, type SessionState } from './session';

/** Signs in with a credits key. `onSignedIn` gets the session; the key is cleared from the form. */
export function SignInForm({ onSignedIn, idPrefix = 'signin' }: { onSignedIn: (s: SessionState) => void; idPrefix?: string }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = key.trim();
    if (!value) {
      setError('Required: paste the credits key you were shown after payment.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const result = await signIn(value);
      if (result.ok) {
        setKey('');
        onSignedIn(result.session);
      } else {
        setError(result.problem.status === 401 ? 'That key is not valid, or it was replaced by a newer key. Check it and try again.' : (result.problem.detail ?? 'Signing in failed. Try again.'));
      }
    } catch {
      setError('The server could not be reached. Try again.');
    }
    setBusy(false);
  }

  return (
    <form className="stack" onSubmit={submit} noValidate aria-labelledby={`${idPrefix}-title`}>
      <h2 id={`${idPrefix}-title`}>Sign in with your credits key</h2>
      <KeyField
        id={`${idPrefix}-key`} label="Credits key" value={key} onChange={setKey} error={error}
        hint="(starts with pac_live_; sent once, then you stay signed in with a cookie that does not hold it)"
      />
      <div className="actions">
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <span className="hint">
          No key yet? <Link href="/pricing">Buy calls</Link>.
        </span>
      </div>
    </form>
  );
}
