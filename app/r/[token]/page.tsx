import { notFound } from 'next/navigation';
import { ReportView } from '@/components/report-view/ReportView';
import { getSharedReport } from '@/lib/reports';
import { pageMetadata } from '@/lib/site/metadata';

type Params = { params: Promise<{ token: string }> };

const tokenOf = (params: Params['params']) => params.then((p) => p.token, () => '');

// A report its owner shared: the report and nothing else of the account (no key, no calls left, no history,
// no re-run or share controls). Never indexed: meta robots here, X-Robots-Tag from next.config.ts.
export async function generateMetadata({ params }: Params) {
  return pageMetadata({ path: `/r/${encodeURIComponent(await tokenOf(params))}`, title: 'Shared report', description: 'A report its owner shared by link.', index: false });
}

export default async function SharedReport({ params }: Params) {
  const report = await getSharedReport(await tokenOf(params));
  // Unknown, revoked and replaced links, expired reports and reports of a revoked key look the same: 404.
  if (!report) notFound();
  return (
    <>
      <h1>Shared report</h1>
      <p className="muted">Shared by the person who ran the check.</p>
      <ReportView check={report.operation} body={report.body} level={2} idPrefix="shared" />
    </>
  );
}
