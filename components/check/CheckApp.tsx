'use client';

import { useEffect, useState } from 'react';
import Link from 'next/link';
import { ReportView } from '../report-view/ReportView';
import { checksShown } from '../checks';
import { SignInForm } from './SignInForm';
import { newIdempotencyKey, runCheck, signOut, type Problem, type SessionState } from './session';

// What one check's tab shows under its form: its own last answer, so switching tabs never shows one
// check's result or error under another check's form (an answer that arrives after a switch lands in its
// own check's tab).
interface Shown {
  problem?: { message: string; noCalls: boolean };
  serverErrors?: ReadonlyArray<{ path: string; message: string }>;
  result?: { check: string; body: unknown; reportPath: string | null };
}

/** What a refused check means for the person, in words; a 422 or any refusal before the work says nothing was charged. */
function problemMessage(problem: Problem): string {
  const detail = problem.detail ?? problem.title ?? `The server answered ${problem.status}.`;
  if (problem.status === 422) return `${detail} Nothing was charged.`;
  if (problem.status === 402) return 'This key has no calls left. Nothing was charged.';
  if (problem.status === 400) return `${detail} Nothing was charged.`;
  if (problem.status === 429) return `${detail} Nothing was charged; try again in a moment.`;
  return `${detail} Nothing was charged.`;
}

/** The check page: sign in, then one tab per check the server lists (with its example request), each with its form. */
export function CheckApp({ initial, examples, signInError = null }: { initial: SessionState | null; examples: Record<string, unknown>; signInError?: string | null }) {
  const forms = checksShown(Object.keys(examples));
  const [session, setSession] = useState<SessionState | null>(initial);
  const [check, setCheck] = useState<string>(forms[0]?.report.id ?? '');
  const [busy, setBusy] = useState<string | null>(null);
  const [shown, setShown] = useState<Record<string, Shown>>({});
  const show = (id: string, value: Shown) => setShown((all) => ({ ...all, [id]: value }));
  // Counts the reports that arrived, so the page brings each new one to the reader (and not one shown again by a
  // switch of tab).
  const [arrived, setArrived] = useState(0);
  useEffect(() => {
    if (!arrived) return;
    const title = document.getElementById('result-title');
    if (!title) return;
    // The report's title to the top of the screen and the focus on it, so a screen reader reads the result next;
    // without motion for a reader who asked for less.
    const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    title.scrollIntoView({ behavior: still ? 'auto' : 'smooth', block: 'start' });
    title.focus({ preventScroll: true });
  }, [arrived]);

  if (!session) {
    return (
      <>
        <SignInForm onSignedIn={setSession} page="/check" initialError={signInError} />
        <p className="muted">
          Each check spends one call of the key, and only when it succeeds. You can also look a key up without signing in on the{' '}
          <Link href="/account">account page</Link>.
        </p>
      </>
    );
  }

  async function run(id: string, body: unknown) {
    setBusy(id);
    show(id, {});
    try {
      const outcome = await runCheck(id, body, newIdempotencyKey());
      if (outcome.ok) {
        show(id, { result: { check: id, body: outcome.body, reportPath: outcome.reportPath } });
        setArrived((n) => n + 1);
        if (outcome.callsLeft !== null) setSession((s) => (s ? { ...s, callsLeft: outcome.callsLeft! } : s));
      } else if (outcome.problem.status === 401) {
        // The session ended (signed out elsewhere, or the key was replaced): sign in again.
        setSession(null);
      } else {
        show(id, { problem: { message: problemMessage(outcome.problem), noCalls: outcome.problem.status === 402 }, serverErrors: outcome.problem.errors ?? [] });
        if (outcome.problem.status === 402) setSession((s) => (s ? { ...s, callsLeft: 0 } : s));
      }
    } catch {
      show(id, { problem: { message: 'The server could not be reached. Nothing was charged; try again.', noCalls: false } });
    }
    setBusy(null);
  }

  async function leave() {
    await signOut();
    setSession(null);
    setShown({});
  }

  const active = forms.find((f) => f.report.id === check);
  const { problem, serverErrors = [], result } = shown[check] ?? {};

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
        {forms.map(({ report }) => (
          <button key={report.id} type="button" className="button" aria-pressed={check === report.id} onClick={() => setCheck(report.id)}>
            {report.label}
          </button>
        ))}
      </div>

      {active ? (
        // Keyed by the check: each form starts from its own state.
        <active.Form key={check} example={examples[check]} busy={busy !== null} serverErrors={serverErrors} onSubmit={(body) => void run(check, body)} />
      ) : null}

      <div aria-live="polite">
        {busy === check ? <p className="notice" role="status">Running the check…</p> : null}
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
          <ReportView check={result.check} body={result.body} level={2} idPrefix="result" permalink={result.reportPath ? new URL(result.reportPath, window.location.origin).href : undefined} />
        </section>
      ) : null}
    </>
  );
}
