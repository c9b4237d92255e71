'use client';

import { useState, type FormEvent } from 'react';
import Link from 'next/link';
import { ReportView } from '../report-view/ReportView';
import { ReadinessForm, fieldOfPath, type ReadinessExample } from './ReadinessForm';
import { SignInForm } from './SignInForm';
import { newIdempotencyKey, runCheck, signOut, type Problem, type SessionState } from './session';

type Check = 'ai-visibility' | 'readiness';
type Result = { check: Check; body: unknown; reportPath: string | null } | null;

/** What a refused check means for the person, in words; a 422 or any refusal before the work says nothing was charged. */
function problemMessage(problem: Problem): string {
  const detail = problem.detail ?? problem.title ?? `The server answered ${problem.status}.`;
  if (problem.status === 422) return `${detail} Nothing was charged.`;
  if (problem.status === 402) return 'This key has no calls left. Nothing was charged.';
  if (problem.status === 400) return `${detail} Nothing was charged.`;
  if (problem.status === 429) return `${detail} Nothing was charged; try again in a moment.`;
  return `${detail} Nothing was charged.`;
}

export function CheckApp({ initial, example }: { initial: SessionState | null; example: ReadinessExample }) {
  const [session, setSession] = useState<SessionState | null>(initial);
  const [check, setCheck] = useState<Check>('ai-visibility');
  const [url, setUrl] = useState('');
  const [urlError, setUrlError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ message: string; noCalls: boolean } | null>(null);
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<Result>(null);

  if (!session) {
    return (
      <>
        <SignInForm onSignedIn={setSession} />
        <p className="muted">
          Each check spends one call of the key, and only when it succeeds. You can also look a key up without signing in on the{' '}
          <Link href="/account">account page</Link>.
        </p>
      </>
    );
  }

  async function run(kind: Check, body: unknown) {
    setBusy(true);
    setProblem(null);
    setServerErrors({});
    setResult(null);
    try {
      const outcome = await runCheck(kind, body, newIdempotencyKey());
      if (outcome.ok) {
        setResult({ check: kind, body: outcome.body, reportPath: outcome.reportPath });
        if (outcome.callsLeft !== null) setSession((s) => (s ? { ...s, callsLeft: outcome.callsLeft! } : s));
      } else if (outcome.problem.status === 401) {
        // The session ended (signed out elsewhere, or the key was replaced): sign in again.
        setSession(null);
      } else {
        setProblem({ message: problemMessage(outcome.problem), noCalls: outcome.problem.status === 402 });
        if (outcome.problem.status === 402) setSession((s) => (s ? { ...s, callsLeft: 0 } : s));
        const fields: Record<string, string> = {};
        for (const e of outcome.problem.errors ?? []) {
          const field = kind === 'ai-visibility' ? 'url' : fieldOfPath(e.path);
          if (field) fields[field] = e.message;
        }
        if (kind === 'ai-visibility' && fields.url) setUrlError(fields.url);
        else setServerErrors(fields);
      }
    } catch {
      setProblem({ message: 'The server could not be reached. Nothing was charged; try again.', noCalls: false });
    }
    setBusy(false);
  }

  function submitVisibility(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = url.trim();
    if (!value) return setUrlError('Required: enter the address of a page.');
    if (!/^https?:\/\/[^\s/]+/i.test(value)) return setUrlError('Enter a full address that starts with https:// (or http://).');
    setUrlError(null);
    void run('ai-visibility', { url: value });
  }

  async function leave() {
    await signOut();
    setSession(null);
    setResult(null);
  }

  return (
    <>
      <div className="notice signed-in" role="status">
        <p>
          Signed in with <code>{session.keyPrefix}</code> · <strong data-testid="calls-left">{session.callsLeft}</strong> call{session.callsLeft === 1 ? '' : 's'} left
        </p>
        <div className="actions">
          <Link href="/account">History and key</Link>
          <button type="button" className="button secondary" onClick={leave}>
            Sign out
          </button>
        </div>
      </div>
      {session.callsLeft === 0 ? (
        <p className="notice warn">
          This key has no calls left. <Link href="/pricing#top-up">Top it up</Link> to run more checks.
        </p>
      ) : null}

      <div className="check-tabs" role="group" aria-label="Which check">
        <button type="button" className="button" aria-pressed={check === 'ai-visibility'} onClick={() => setCheck('ai-visibility')}>
          AI Visibility Check
        </button>
        <button type="button" className="button" aria-pressed={check === 'readiness'} onClick={() => setCheck('readiness')}>
          Payment Readiness
        </button>
      </div>

      {check === 'ai-visibility' ? (
        <form className="stack" onSubmit={submitVisibility} noValidate aria-labelledby="visibility-form-title">
          <h2 id="visibility-form-title">AI Visibility Check</h2>
          <p className="muted">
            We fetch the page and its site files (robots.txt, sitemap, llms.txt) and report what 15 search and AI crawlers may read. A page
            that cannot be fetched is not charged.
          </p>
          <div>
            <label htmlFor="visibility-url">Page address</label>
            <input
              id="visibility-url" name="url" type="url" inputMode="url" autoComplete="url" placeholder="https://example.com/pricing" value={url}
              onChange={(e) => setUrl(e.target.value)} aria-invalid={urlError ? true : undefined} aria-describedby={urlError ? 'visibility-url-error' : undefined}
            />
            {urlError ? (
              <p id="visibility-url-error" className="field-error">
                {urlError}
              </p>
            ) : null}
          </div>
          <div>
            <button type="submit" className="button" disabled={busy}>
              {busy ? 'Checking… (up to 20 seconds)' : 'Run the check (1 call)'}
            </button>
          </div>
        </form>
      ) : (
        <ReadinessForm example={example} busy={busy} serverErrors={serverErrors} onSubmit={(body) => void run('readiness', body)} />
      )}

      <div aria-live="polite">
        {busy ? <p className="notice" role="status">Running the check…</p> : null}
        {problem ? (
          <div className="notice error" role="alert" data-testid="check-problem">
            <p>{problem.message}</p>
            {problem.noCalls ? (
              <p>
                <Link href="/pricing#top-up">Top up this key</Link>.
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
      {result ? (
        <section aria-label="Result" className="check-result">
          <p className="notice ok" role="status">
            Done: one call spent, <strong>{session.callsLeft}</strong> left.{' '}
            {result.reportPath ? (
              <>
                Saved to your history: <Link href={result.reportPath}>permanent link to this report</Link>.
              </>
            ) : null}
          </p>
          <ReportView body={result.body} level={2} idPrefix="result" permalink={result.reportPath ? new URL(result.reportPath, window.location.origin).href : undefined} />
        </section>
      ) : null}
    </>
  );
}
