import { checkMarkdown } from '@/lib/checks/entry';
import { ReportActions } from './ReportActions';
import type { Level } from './parts';
import { reportViewOf } from './views';

// THE report view: the live result on /check, a stored report on /reports/<id> and the examples on the
// home page all render a check's 200 body through this one component, with the view its check registered
// (views.tsx). It has no state and no server-only imports, so a server page and a client component can both
// render it.

/**
 * Renders one check's 200 body. `level` is the heading level of the report's title (2 on a page of its
 * own, 3 under a page section); `idPrefix` keeps ids unique when a page shows two reports.
 * @example <ReportView body={await res.json()} level={2} idPrefix="result" fileName="report.json" />
 */
export function ReportView({ body, level = 2, idPrefix = 'report', fileName = 'report.json' }: { body: unknown; level?: Level; idPrefix?: string; fileName?: string }) {
  const view = reportViewOf(body);
  if (!view) return <p className="notice error" role="alert">This report could not be read.</p>;
  const markdown = checkMarkdown(view.report, body);
  return (
    <article className="report" aria-labelledby={`${idPrefix}-title`} data-testid="report">
      <view.View body={body} level={level} idPrefix={idPrefix} />
      <ReportActions json={JSON.stringify(body, null, 2)} markdown={markdown} fileName={fileName} />
    </article>
  );
}
