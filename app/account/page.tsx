import Link from 'next/link';
import { cookies } from 'next/headers';
import { AccountLookup } from '@/components/AccountLookup';
import { signInRefusal } from '@/components/check/session';
import { RotateKey, SignInAndRefresh, SignOutButton } from '@/components/account/AccountSession';
import { getConfig } from '@/lib/config';
import { checkById, checks } from '@/lib/checks/registry';
import { isReportCursor, listReports, type ReportListItem } from '@/lib/reports';
import { sessionAccount, sessionFromCookies } from '@/lib/session';
import { RerunButton } from '@/components/reports/RerunButton';
import { VerdictBadge } from '@/components/reports/VerdictBadge';
import { GrantsTable, UsageList, When } from '@/components/account/AccountTables';
import { pageMetadata } from '@/lib/site/metadata';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

export const generateMetadata = () =>
  pageMetadata({ path: '/account', title: 'Account', description: 'Your credits key: calls left, the reports it paid for, key rotation and signing out.', index: false });

function History({ reports, check }: { reports: ReportListItem[]; check: string | null }) {
  if (!reports.length) {
    return (
      <p className="muted">
        {check ? 'No reports of this check on this page. ' : 'No reports yet. '}
        <Link href="/check">Run a check</Link>: every check paid with this key appears here.
      </p>
    );
  }
  return (
    <TableWrap label="Your reports">
      <table data-testid="history">
        <caption className="visually-hidden">Reports paid with this key, newest first</caption>
        <ColumnHeads names={['Address or workflow', 'Check', 'Score', 'Verdict', 'When', 'Again']} />
        <tbody>
          {reports.map((r) => {
            const label = checkById(r.check)?.label ?? r.check;
            return (
              <tr key={r.id} data-check={r.check}>
                <td className="url">
                  <Link href={`/reports/${r.id}`}>{r.target || 'Untitled'}</Link>
                </td>
                <td>{label}</td>
                <td>{r.score ?? '—'}</td>
                <td>
                  <VerdictBadge check={r.check} verdict={r.verdict} />
                </td>
                <td>
                  <When iso={r.createdAt} />
                </td>
                <td>
                  <RerunButton reportId={r.id} label={`${label}, ${r.target}`} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** Filters the history by check: a plain GET form, so it works before any script runs. */
function CheckFilter({ check }: { check: string | null }) {
  return (
    <form method="get" action="/account#history" className="history-filter" aria-label="Filter your reports">
      <label htmlFor="history-check">Check</label>{' '}
      <select id="history-check" name="check" defaultValue={check ?? ''}>
        <option value="">All checks</option>
        {checks().map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>{' '}
      <button type="submit" className="button secondary">
        Show reports
      </button>
    </form>
  );
}

export default async function Account({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const session = await sessionFromCookies(await cookies());
  const days = getConfig().REPORT_RETENTION_DAYS;
  if (!session) {
    return (
      <>
        <h1>Your account</h1>
        <p className="lead">
          Sign in with your credits key to see the calls left of each purchase, every call it spent (with a CSV download), the reports it paid for,
          and to replace the key or sign out.
        </p>
        <SignInAndRefresh idPrefix="account-signin" initialError={signInRefusal((await searchParams)['sign-in'])} />
        <p className="muted">
          Need more calls? <Link href="/pricing#top-up">Top up a key</Link>. Agents can read the same numbers from{' '}
          <Link href="/docs/api#agentCredits">GET /api/agent/credits</Link>.
        </p>
      </>
    );
  }
  const query = await searchParams;
  const raw = query.cursor;
  // A cursor this site did not give out (edited, truncated, repeated) shows the newest reports.
  const cursor = typeof raw === 'string' && isReportCursor(raw) ? raw : null;
  // A check no entry has shows every check.
  const check = typeof query.check === 'string' && checkById(query.check) ? query.check : null;
  const [page, account] = await Promise.all([listReports(session.keyHash, { limit: 20, cursor, check }), sessionAccount(session.keyHash)]);
  const also = check ? `check=${encodeURIComponent(check)}&` : '';
  return (
    <>
      <h1>Your account</h1>
      <div className="notice signed-in">
        <p>
          Signed in with <code data-testid="key-prefix">{session.keyPrefix}</code> · <strong data-testid="account-session-calls">{session.callsLeft}</strong>{' '}
          call{session.callsLeft === 1 ? '' : 's'} left
        </p>
        <div className="actions">
          <Link className="button" href="/check">
            Run a check
          </Link>
          <SignOutButton />
        </div>
      </div>

      <h2 id="history">Your reports</h2>
      <p className="muted">Every check paid with this key, newest first. Reports are kept for {days} days.</p>
      <CheckFilter check={check} />
      <History reports={page.reports} check={check} />
      {page.nextCursor || cursor ? (
        <p className="actions">
          {cursor ? <Link href={`/account?${also}#history`}>Newest reports</Link> : null}
          {page.nextCursor ? <Link href={`/account?${also}cursor=${encodeURIComponent(page.nextCursor)}#history`}>Older reports</Link> : null}
        </p>
      ) : null}

      <h2 id="usage">Calls spent</h2>
      <UsageList rows={account.usage} csv={account.usageCsv} labels={Object.fromEntries(checks().map((c) => [c.operationId, c.label]))} />

      <h2 id="rotate">Replace your key</h2>
      <RotateKey askForKey={!session.recentSignIn} />

      <h2 id="grants">Calls bought, and when they expire</h2>
      <GrantsTable grants={account.balance.grants} />
      <h3>Subscription and billing</h3>
      <p>The state of a monthly subscription, and the billing portal for invoices, the card and cancelling.</p>
      <AccountLookup signedIn />
    </>
  );
}
