'use client';

import { useState, type FormEvent } from 'react';
import { GrantsTable, day } from './account/AccountTables';

interface Grant {
  id: string;
  plan: string;
  calls: number;
  used: number;
  reserved: number;
  callsLeft: number;
  expiresAt: string;
  expired: boolean;
}
interface Subscription {
  id: string;
  status: 'active' | 'ended';
  currentPeriodEnd: string;
  endedAt: string | null;
}
interface Summary {
  key: string;
  callsLeft: number;
  grants: Grant[];
  subscriptions: Subscription[];
  billingPortal: boolean;
}


/** Posts the key in the body, or (signed in: key null) an empty body the server answers for the session's key. */
async function postKey(path: string, key: string | null): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(key === null ? {} : { key }), cache: 'no-store' });
  return { ok: res.ok, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The subscription and billing of a key. Signed in, one button asks for the session's key; otherwise the key is
 * typed and sent in a POST body (never the address bar, history or logs).
 */
export function AccountLookup({ signedIn = false }: { signedIn?: boolean }) {
  const [key, setKey] = useState('');
  const [summary, setSummary] = useState<Summary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'lookup' | 'portal' | null>(null);

  async function lookup(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy('lookup');
    setError(null);
    try {
      const { ok, body } = await postKey('/api/billing/account', signedIn ? null : key.trim());
      if (ok) setSummary(body as unknown as Summary);
      else {
        setSummary(null);
        setError(String(body.detail ?? 'That key could not be looked up.'));
      }
    } catch {
      setError('The server could not be reached. Try again.');
    }
    setBusy(null);
  }

  async function openPortal() {
    setBusy('portal');
    setError(null);
    try {
      const { ok, body } = await postKey('/api/billing/portal', signedIn ? null : key.trim());
      if (ok && typeof body.url === 'string') {
        window.location.assign(body.url);
        return;
      }
      setError(String(body.detail ?? 'The billing portal could not be opened.'));
    } catch {
      setError('The server could not be reached. Try again.');
    }
    setBusy(null);
  }

  return (
    <>
      <form className="stack" method="post" action="/api/billing/account" onSubmit={lookup}>
        {signedIn ? null : (
          <div>
            <label htmlFor="account-key">
              Credits key <span className="hint">(starts with pac_live_; sent only to us, in the request body)</span>
            </label>
            <input
              id="account-key" name="key" type="password" required autoComplete="off" spellCheck={false} value={key}
              onChange={(e) => setKey(e.target.value)} aria-invalid={error ? true : undefined} aria-errormessage={error ? 'account-error' : undefined}
            />
          </div>
        )}
        <div>
          <button type="submit" className="button" disabled={busy !== null}>
            {busy === 'lookup' ? 'Looking up…' : signedIn ? 'Show subscription and billing' : 'Show calls left'}
          </button>
        </div>
      </form>
      <noscript>
        <p className="notice warn">Without JavaScript the answer opens as raw data (JSON). Your key still travels only in the request body, never in the address.</p>
      </noscript>
      {error ? (
        <p id="account-error" className="notice error" role="alert">
          {error}
        </p>
      ) : null}
      {summary ? (
        <section aria-labelledby="summary-title" aria-live="polite">
          <h2 id="summary-title">
            <code>{summary.key}</code>: <span data-testid="account-calls-left">{summary.callsLeft}</span> calls left
          </h2>
          <GrantsTable grants={summary.grants} />
          <h3>Subscription</h3>
          {summary.subscriptions.length === 0 ? (
            <p className="muted">No subscription was bought with this key.</p>
          ) : (
            <ul>
              {summary.subscriptions.map((s) => (
                <li key={s.id} data-testid="subscription-state">
                  {s.status === 'active'
                    ? `Active: the allowance resets to 50 calls on ${day(s.currentPeriodEnd)}.`
                    : `Ended${s.endedAt ? ` on ${day(s.endedAt)}` : ''}: calls left stay usable until ${day(s.currentPeriodEnd)}; it does not renew.`}
                </li>
              ))}
            </ul>
          )}
          {summary.billingPortal ? (
            <div className="actions">
              <button type="button" className="button secondary" onClick={openPortal} disabled={busy !== null}>
                {busy === 'portal' ? 'Opening…' : 'Manage billing and subscription'}
              </button>
              <span className="hint">Invoices, payment method and cancellation, at our payment processor.</span>
            </div>
          ) : (
            <p className="muted">This key was not bought by card here, so there is no billing account to manage.</p>
          )}
        </section>
      ) : null}
    </>
  );
}
