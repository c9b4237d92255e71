'use client';

import { useEffect, useState } from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { CopyButton } from './CopyButton';
import { signIn } from './check/session';
import { CodeBlock } from './CodeBlock';

type Status =
  | { status: 'pending'; plan: string }
  | { status: 'fulfilled'; kind: 'new-key'; plan: string; key: string; callsLeft: number; revealed: true }
  | { status: 'fulfilled'; kind: 'new-key'; plan: string; revealed: false; detail: string }
  | { status: 'fulfilled'; kind: 'top-up'; plan: string; key: string; callsLeft: number };

type View = { state: 'waiting'; slow: boolean } | { state: 'done'; result: Exclude<Status, { status: 'pending' }> } | { state: 'error'; message: string };

const POLL_MS = 1000;
const SLOW_AFTER = 20;
const GIVE_UP_AFTER = 300;

// One poll loop per session per page load, shared by every mount: the key can be taken only once, so a
// remount (React strict mode, fast refresh) must see the answer the first loop got rather than ask again.
const loops = new Map<string, Promise<View>>();

function pollUntilDone(sessionId: string, onSlow: () => void): Promise<View> {
  let loop = loops.get(sessionId);
  if (!loop) {
    loop = (async (): Promise<View> => {
      for (let attempt = 0; attempt < GIVE_UP_AFTER; attempt++) {
        if (attempt === SLOW_AFTER) onSlow();
        try {
          const res = await fetch(`/api/billing/session?session_id=${encodeURIComponent(sessionId)}`, { cache: 'no-store' });
          const body = (await res.json()) as Status & { detail?: string };
          if (!res.ok) return { state: 'error', message: body.detail ?? 'This purchase could not be found.' };
          if (body.status === 'fulfilled') return { state: 'done', result: body };
        } catch {
          // A dropped connection while waiting is not an answer; keep polling.
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      return { state: 'error', message: 'Payment confirmation is taking unusually long. Your payment is safe: reload this page in a few minutes.' };
    })();
    loops.set(sessionId, loop);
  }
  return loop;
}

export function PurchaseStatus({ sessionId, exampleBody, examplePath }: { sessionId: string | null; exampleBody: string; examplePath: string }) {
  const [view, setView] = useState<View>({ state: 'waiting', slow: false });

  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    void pollUntilDone(sessionId, () => live && setView((v) => (v.state === 'waiting' ? { state: 'waiting', slow: true } : v))).then((v) => {
      if (live) setView(v);
    });
    return () => {
      live = false;
    };
  }, [sessionId]);

  if (!sessionId) {
    return (
      <p className="notice error" role="alert">
        This page needs the purchase reference that the checkout adds to its address. Go to <Link href="/pricing">pricing</Link> to buy a plan.
      </p>
    );
  }
  if (view.state === 'waiting') {
    return (
      <div role="status" aria-live="polite" className="notice">
        <p>
          <strong>Confirming your payment…</strong>
        </p>
        <p>This usually takes a few seconds. Keep this page open: your key appears here once.</p>
        {view.slow ? <p>Still waiting for the payment processor. Nothing is lost if it takes a while.</p> : null}
      </div>
    );
  }
  if (view.state === 'error') {
    return (
      <p className="notice error" role="alert">
        {view.message}
      </p>
    );
  }
  const r = view.result;
  if (r.kind === 'top-up') {
    return (
      <div className="notice ok" role="status" aria-live="polite">
        <h2>Your calls were added</h2>
        <p>
          Key <code>{r.key}</code> now has <strong data-testid="calls-left">{r.callsLeft}</strong> calls left. Nothing changes in how you use it.
        </p>
        <p>
          <Link href="/account">See every purchase and when its calls expire on your account page</Link>.
        </p>
      </div>
    );
  }
  if (!r.revealed) {
    return (
      <div className="notice warn" role="status">
        <h2>This key was already shown</h2>
        <p>
          A new key is shown exactly once, on the first visit after payment, and we keep only a hash of it, so it cannot be shown again. If
          you did not save it, <Link href="/contact">contact support</Link> with the date of your purchase.
        </p>
        <p>
          Have it? <Link href="/account">Check its balance on the account page</Link>.
        </p>
      </div>
    );
  }
  // Only ever rendered in the browser, after the poll: window exists and no server markup is hydrated here.
  const origin = window.location.origin;
  const curl = [
    `export KEY=${r.key}`,
    `curl -s ${origin}/api/agent/credits -H "Authorization: Bearer $KEY"`,
    `curl -s ${origin}${examplePath} \\`,
    '  -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: first-call-0001" \\',
    `  -d '${exampleBody}'`,
  ].join('\n');
  return (
    <div role="status" aria-live="polite">
      <div className="notice ok">
        <h2>Your credits key</h2>
        <p>
          <strong>Copy it now: it is shown only this once.</strong> We store only a hash of it, so nobody, us included, can show it again.
        </p>
        <div className="key-box">
          <code data-testid="new-key">{r.key}</code>
          <CopyButton text={r.key} label="Copy key" />
        </div>
        <p>
          It holds <strong>{r.callsLeft}</strong> calls. Each fulfilled request to any check spends one.
        </p>
        <SignInWithNewKey keyValue={r.key} />
      </div>
      <h3>Or call the API</h3>
      <CodeBlock label="curl example">{curl}</CodeBlock>
      <p>
        <Link href="/docs/payments#quick-start-prepaid">Quick start with a prepaid key</Link>
      </p>
    </div>
  );
}

/**
 * Signs this browser in with the key just bought and opens the checks, so a buyer runs a check without pasting
 * the key anywhere. The key is sent once, in the sign-in request's body, as the sign-in form sends it.
 */
function SignInWithNewKey({ keyValue }: { keyValue: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="actions">
      <button
        type="button" className="button" disabled={busy}
        onClick={async () => {
          setBusy(true);
          setError(null);
          const result = await signIn(keyValue).catch(() => null);
          if (result?.ok) {
            router.push('/check');
            return;
          }
          setError(result ? (result.problem.detail ?? result.problem.title ?? 'Signing in failed.') : 'The server could not be reached. Try again.');
          setBusy(false);
        }}
      >
        {busy ? 'Signing in…' : 'Sign in with this key and run a check'}
      </button>
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
