import Link from 'next/link';
import { exampleBody } from '@/lib/checks/entry';
import { checkById, checks } from '@/lib/checks/registry';
import { ReportView } from '@/components/report-view/ReportView';
import { checksShown } from '@/components/checks';
import { pageMetadata } from '@/lib/site/metadata';

export const generateMetadata = () =>
  pageMetadata({ path: '/examples', title: 'Example reports', description: 'An example report of each check, shown exactly as a paid report is.' });

// The full example report of each check; the home page shows each one's first screen and links here.
export default function Examples() {
  const shown = checksShown(checks().map((c) => c.id)).map(({ report, showcase }) => {
    const check = checkById(report.id)!;
    const body = exampleBody(check);
    return { id: check.id, check, body, source: showcase.source(body) };
  });
  return (
    <>
      <h1>Example reports</h1>
      <p className="lead">
        One report of each check, shown exactly as a paid report is. <Link href="/check">Run a check</Link> to get one of your own.
      </p>
      {shown.map(({ id, check, body, source }) => (
        <section key={id} id={`example-${id}`} className="example-report" aria-label={`Example ${check.label} report`}>
          <p className="example-label">Example · {check.service}</p>
          <p className="muted">The {check.label} report is {source}.</p>
          <ReportView check={id} body={body} level={2} idPrefix={`example-${id}`} />
        </section>
      ))}
    </>
  );
}
