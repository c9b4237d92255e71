'use client';

import { useState, type FormEvent } from 'react';
import { PLANS } from '@/lib/credits/plans';
import { formatUsd } from '@/lib/price';

interface Problem {
  detail?: string;
  title?: string;
}

/**
 * Adds a plan to an existing key. Signed in, it is the session's key and none is asked for; otherwise the key goes
 * in the POST body only. With JavaScript the request is sent as JSON and errors show here; without, the form posts
 * and the server redirects to checkout.
 */
export function TopUpForm({ signedInAs }: { signedInAs?: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const res = await fetch('/api/billing/checkout', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plan: data.get('plan'), topUp: true, ...(signedInAs ? {} : { key: String(data.get('key') ?? '').trim() }) }),
      });
      const body = (await res.json()) as { url?: string } & Problem;
      if (res.ok && body.url) {
        window.location.assign(body.url);
        return;
      }
      setError(body.detail ?? body.title ?? 'The top-up could not be started.');
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    }
    setBusy(false);
  }

  return (
    <form className="stack" method="post" action="/api/billing/checkout" onSubmit={submit} aria-describedby="topup-help">
      <input type="hidden" name="topUp" value="true" />
      {signedInAs ? (
        <p id="topup-help" className="muted">
          The calls are added to the key you are signed in with, <code>{signedInAs}</code>; it stays the same key. To top up
          another key, sign out first.
        </p>
      ) : (
        <>
          <p id="topup-help" className="muted">
            The calls are added to the key you already use; it stays the same key. Your key is sent only to us, in the body of
            this form, and never to the payment processor.
          </p>
          <div>
            <label htmlFor="topup-key">
              Credits key <span className="hint">(starts with pac_live_)</span>
            </label>
            <input id="topup-key" name="key" type="password" required autoComplete="off" spellCheck={false} pattern="\s*pac_live_[0-9A-Za-z]{32,64}\s*" aria-invalid={error ? true : undefined} aria-errormessage={error ? 'topup-error' : undefined} />
          </div>
        </>
      )}
      <fieldset>
        <legend>Plan to add</legend>
        {PLANS.map((plan, i) => (
          <label key={plan.id} className="radio">
            <input type="radio" name="plan" value={plan.id} defaultChecked={i === 0} /> {plan.name}: {formatUsd(plan.priceCents)} USD
            {plan.billing === 'monthly' ? ' a month' : ''}
          </label>
        ))}
      </fieldset>
      {error ? (
        <p id="topup-error" className="notice error" role="alert">
          {error}
        </p>
      ) : null}
      <div>
        <button type="submit" className="button" disabled={busy}>
          {busy ? 'Starting checkout…' : signedInAs ? 'Top up my key' : 'Top up this key'}
        </button>
      </div>
    </form>
  );
}
