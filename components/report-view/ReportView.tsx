import { checkMarkdown, type ReportHeadline } from '@/lib/checks/entry';
import { ReportActions } from './ReportActions';
import { CategoryScores, ReportHeader, TopFixes, type Level } from './parts';
import { OpenFoldedTarget } from './OpenFoldedTarget';
import { checkComponents } from '@/components/checks';

// THE report view: the live result on /check, a stored report on /reports/<id> and the examples all render a
// check's 200 body through this one component. Every report opens the same way, in Lighthouse's shape (the header
// from the check's headline with the exports, the score by category, the fixes to make first with their order
// rule) and goes on with its check's own view (components/checks/<id>/View.tsx: the folded findings, the passed
// audits, the facts), found by the check's id that every stored report and every answer carries. `excerpt`, the
// address of the full report, stops after the fixes and links them there (the home page's short examples).
// It has no state and no server-only imports, so a server page and a client
// component can both render it.

/** The downloaded file's name: the check, what was checked (its host, or the workflow's name) and the day. */
function exportFileName(checkId: string, headline: ReportHeadline | null): string {
  let target = headline?.target ?? '';
  if (headline?.targetIsUrl) {
    try {
      target = new URL(target).host;
    } catch {
      // Not an address after all: its words make the name.
    }
  }
  const slug = target.toLowerCase().replace(/[^a-z0-9.]+/g, '-').replace(/^-|-$/g, '').slice(0, 60);
  const day = headline?.at && !Number.isNaN(Date.parse(headline.at)) ? new Date(headline.at).toISOString().slice(0, 10) : '';
  return `${[checkId, slug, day].filter(Boolean).join('-')}.json`;
}

/**
 * Renders one check's 200 body; `check` is the check's id (the stored report's check, the tab it came from).
 * `level` is the heading level of the report's title (2 on a page of its own, 3 under a page section); `idPrefix`
 * keeps ids unique when a page shows two reports; `permalink` is the report's absolute permanent address, when it
 * has one (copied, and carried in the Markdown); `excerpt` the address of the full report, to show only its first
 * screen (header, categories, top fixes) linking there; `har` the address of its requests as HAR, when it lists them and the
 * reader may fetch them (its owner's page).
 * @example <ReportView check="ai-visibility" body={await res.json()} level={2} idPrefix="result" permalink="https://…/reports/rep_…" />
 */
export function ReportView({ check, body, level = 2, idPrefix = 'report', permalink, har, excerpt }: { check: string; body: unknown; level?: Level; idPrefix?: string; permalink?: string; har?: string; excerpt?: string }) {
  const view = checkComponents(check);
  const headline = view?.report.headline?.(body) ?? null;
  // A check that heads its reports and finds no headline in this body cannot read the rest of it either.
  if (!view || (view.report.headline && !headline)) return <p className="notice error" role="alert">This report could not be read.</p>;
  const actions = excerpt !== undefined ? null : (
    <ReportActions
      json={JSON.stringify(body, null, 2)}
      markdown={checkMarkdown(view.report, body, permalink)}
      fileName={exportFileName(view.report.id, headline)}
      permalink={permalink}
      har={har}
    />
  );
  const generic = headline !== null;
  return (
    <article className="report" aria-labelledby={`${idPrefix}-title`} data-testid="report">
      {generic ? <ReportHeader headline={headline} level={level} idPrefix={idPrefix}>{actions}</ReportHeader> : actions}
      {generic ? <CategoryScores categories={view.report.categories?.(body) ?? []} idPrefix={idPrefix} page={excerpt} /> : null}
      {generic ? <TopFixes fixes={view.report.topFixes?.(body) ?? []} order={view.report.topFixesOrder} level={level} idPrefix={idPrefix} page={excerpt} /> : null}
      {/* An excerpt is the header's part; a check that draws no shared header shows its own view whole. */}
      {excerpt !== undefined && generic ? null : <view.View body={body} level={level} idPrefix={idPrefix} />}
      {excerpt !== undefined ? null : <OpenFoldedTarget />}
    </article>
  );
}
