import Link from 'next/link';
import { cookies } from 'next/headers';
import { AccountLookup } from '@/components/AccountLookup';
import { RotateKey, SignInAndRefresh, SignOutButton } from '@/components/account/AccountSession';
import { getConfig } from '@/lib/config';
import { checkById } from '@/lib/checks/registry';
import { isReportCursor, listReports, type ReportListItem } from '@/lib/reports';
import { sessionFromCookies } from '@/lib/session';
import { pageMetadata } from '@/lib/site/metadata';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

export const generateMetadata = () =>
  pageMetadata({ path: '/account', title: 'Account', description: 'Your credits key: calls left, the reports it paid for, key rotation and signing out.', index: false });

const when = (iso: string) => new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

function History({ reports }: { reports: ReportListItem[] }) {
  if (!reports.length) {
    return (
      <p className="muted">
        No reports yet. <Link href="/check">Run a check</Link>: every check paid with this key appears here.
      </p>
    );
  }
  return (
    <TableWrap label="Your reports">
      <table data-testid="history">
        <caption className="visually-hidden">Reports paid with this key, newest first</caption>
        <ColumnHeads names={['When (UTC)', 'Check', 'Target', 'Score']} />
        <tbody>
          {reports.map((r) => (
            <tr key={r.id}>
              <td>
                <Link href={`/reports/${r.id}`}>{when(r.createdAt)}</Link>
              </td>
              <td>{checkById(r.operation)?.label ?? r.operation}</td>
              <td className="url">{r.target}</td>
              <td>{r.score ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

export default async function Account({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const session = await sessionFromCookies(await cookies());
  const days = getConfig().REPORT_RETENTION_DAYS;
  if (!session) {
    return (
      <>
        <h1>Your account</h1>
        <p className="lead">Sign in with your credits key to see the reports it paid for, replace the key, or sign out.</p>
        <SignInAndRefresh idPrefix="account-signin" />
        <h2>Look up a key without signing in</h2>
        <p>Paste a credits key to see the calls left on each of its grants, when they expire, and the state of a monthly subscription.</p>
        <AccountLookup />
        <p className="muted">
          Need more calls? <Link href="/pricing#top-up">Top up a key</Link>. Agents can read the same numbers from{' '}
          <Link href="/docs/api#agentCredits">GET /api/agent/credits</Link>.
        </p>
      </>
    );
  }
  const raw = (await searchParams).cursor;
  // A cursor this site did not give out (edited, truncated, repeated) shows the newest reports.
  const cursor = typeof raw === 'string' && isReportCursor(raw) ? raw : null;
  const page = await listReports(session.keyHash, { limit: 20, cursor });
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
      <History reports={page.reports} />
      {page.nextCursor || cursor ? (
        <p className="actions">
          {cursor ? <Link href="/account#history">Newest reports</Link> : null}
          {page.nextCursor ? <Link href={`/account?cursor=${encodeURIComponent(page.nextCursor)}#history`}>Older reports</Link> : null}
        </p>
      ) : null}

      <h2 id="rotate">Replace your key</h2>
      <RotateKey askForKey={!session.recentSignIn} />

      <h2 id="grants">Grants and billing</h2>
      <p>To see each grant and its expiry, or to manage a subscription, paste the key (it is sent only in the request body).</p>
      <AccountLookup />
    </>
  );
}
