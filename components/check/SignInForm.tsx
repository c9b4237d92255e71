'use client';

import { useState, type FormEvent } from 'react';
import Link from 'next/link';
import { KeyField } from './KeyField';
import { signIn, signInRefusal, type SessionState, type SignInPage } from './session';

/**
 * Signs in with a credits key. With its script, the key goes to POST /api/session as JSON and `onSignedIn` gets the
 * session; the key is cleared from the form. Before the script runs (a slow network) or without it, the browser
 * posts the same form there as an HTML form and is sent back to `page` signed in: the form has a method, so the key
 * never goes into the address bar, the history or an access log. `initialError` is what such a post came back with.
 */
export function SignInForm({ onSignedIn, page, idPrefix = 'signin', initialError = null }: { onSignedIn: (s: SessionState) => void; page: SignInPage; idPrefix?: string; initialError?: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(initialError);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = key.trim();
    if (!value) {
      setError(signInRefusal('missing-key'));
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
        setError(result.problem.status === 401 ? signInRefusal('invalid-key') : (result.problem.detail ?? signInRefusal('failed')));
      }
    } catch {
      setError('The server could not be reached. Try again.');
    }
    setBusy(false);
  }

  return (
    <form className="stack" method="post" action="/api/session" onSubmit={submit} noValidate aria-labelledby={`${idPrefix}-title`}>
      <h2 id={`${idPrefix}-title`}>Sign in with your credits key</h2>
      <input type="hidden" name="return" value={page} />
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
