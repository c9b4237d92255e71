import { cookies } from 'next/headers';
import { notFound } from 'next/navigation';
import Link from 'next/link';
import { ReportView } from '@/components/report-view/ReportView';
import { SignInAndRefresh } from '@/components/account/AccountSession';
import { ComparePanel } from '@/components/reports/ComparePanel';
import { checkComponents } from '@/components/checks';
import { RerunButton } from '@/components/reports/RerunButton';
import { SharePanel } from '@/components/reports/SharePanel';
import { compareWithPrevious, getReport, hasRequestList, REPORT_ID_PATTERN, reportIdParam, reportIsShared } from '@/lib/reports';
import { checkById } from '@/lib/checks/registry';
import { sessionFromCookies } from '@/lib/session';
import { pageMetadata, publicOrigin } from '@/lib/site/metadata';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params) {
  const id = await reportIdParam(params);
  // A report is private: never indexed, and its title names no site.
  return pageMetadata({ path: `/reports/${encodeURIComponent(id)}`, title: 'Report', description: 'A stored report, visible only to the key that paid for it.', index: false });
}

export default async function StoredReport({ params }: Params) {
  const id = await reportIdParam(params);
  const session = await sessionFromCookies(await cookies());
  if (!session) {
    return (
      <>
        <h1>Sign in to see this report</h1>
        <p className="lead">A report can be opened only by the key that paid for it. Sign in with that key to see it.</p>
        <SignInAndRefresh idPrefix="report-signin" />
      </>
    );
  }
  const report = REPORT_ID_PATTERN.test(id) ? await getReport(session.keyHash, id) : null;
  // Unknown, expired and another key's report look the same: whether an id exists is not ours to tell.
  if (!report) notFound();
  const [comparison, shared] = await Promise.all([compareWithPrevious(session.keyHash, report), reportIsShared(id)]);
  const label = checkById(report.operation)?.label ?? report.operation;
  return (
    <>
      <h1>Your report</h1>
      <p className="muted">
        <Link href="/account#history">All your reports</Link> · <Link href="/check">Run another check</Link>
      </p>
      <ReportView
        check={report.operation}
        body={report.body}
        level={2}
        idPrefix="stored"
        permalink={`${publicOrigin()}/reports/${encodeURIComponent(id)}`}
        har={hasRequestList(report) ? `/api/reports/${encodeURIComponent(id)}/har` : undefined}
      />
      {/* After the report, so its header and top fixes keep the first screen. */}
      {report.input !== null ? (
        <div className="actions">
          <RerunButton reportId={id} label={`${label}, ${report.target}`} />
        </div>
      ) : null}
      {/* A check of an address compares addresses; the readiness check names a workflow, not an address. */}
      <ComparePanel comparison={comparison} target={checkComponents(report.operation)?.report.headline?.(report.body)?.targetIsUrl === false ? 'workflow' : 'address'} />
      <SharePanel reportId={id} shared={shared} />
    </>
  );
}
