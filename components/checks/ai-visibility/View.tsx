import { accessWords, crawlerNeedsAttention, crawlerRoleWords, findingTitle, visibilityFacts } from '@/lib/checks/visibility/facts';
import { visibilityCategoryAnchor, visibilityPassed, visibilityScoreGroups } from '@/lib/checks/visibility/rubric-labels';
import { Facts, Findings, Heading, Limits, PassedAudits, sub, type Level } from '@/components/report-view/parts';
import { TableWrap } from '@/components/TableWrap';
import type { CheckViewProps } from '../types';
import type { ViewCrawler, VisibilityBody } from './types';
import './ai-visibility.css';
import { ColumnHeads } from '@/components/ColumnHeads';
import { Prose } from '@/components/report-view/Prose';

// The AI Visibility Check's report below its header, category scores and top fixes: the findings folded, most
// severe first, the passed audits, the crawlers that do not get the page (all of them one click away, grouped by
// vendor), the facts in words, the score per rubric item by category (each category the target of its gauge),
// the limits.

export function VisibilityReportView({ body, level, idPrefix }: CheckViewProps) {
  return <VisibilityReport body={body as VisibilityBody} level={level} idPrefix={idPrefix} />;
}

function CrawlerRow({ c, withAccess, showVendor }: { c: ViewCrawler; withAccess: boolean; showVendor: boolean }) {
  return (
    <tr>
      <th scope="row"><code className="nobreak">{c.token}</code>{showVendor && c.vendor ? <div className="hint">{c.vendor}</div> : null}</th>
      <td data-label="Role">{c.role ? crawlerRoleWords(c.role) : '—'}</td>
      <td data-label="robots.txt"><span className={`badge ${c.allowed ? 'allowed' : 'refused'}`}>{c.allowed ? 'Allowed' : 'Disallowed'}</span></td>
      <td data-label="Rule">
        {c.rule ? <code>{c.rule}</code> : <span className="muted">no rule matched</span>}
        {c.group ? <div className="hint">group <code className="nobreak">{c.group}</code></div> : null}
      </td>
      {withAccess ? (
        <td data-label="Live access">
          {c.access ? (
            <>
              <span className={`badge access-${c.access.outcome}`}>{accessWords(c.access.outcome)}</span>
              {c.access.status !== null ? <span className="hint"> HTTP {c.access.status}</span> : null}
            </>
          ) : '—'}
        </td>
      ) : null}
    </tr>
  );
}

function CrawlerTable({ crawlers, withAccess, caption, testId, byVendor }: { crawlers: ViewCrawler[]; withAccess: boolean; caption: string; testId: string; byVendor: boolean }) {
  const vendors = byVendor ? [...new Set(crawlers.map((c) => c.vendor ?? 'Other'))] : [null];
  return (
    <TableWrap label={caption}>
      <table className="crawler-matrix stack-on-phone" data-testid={testId}>
        <caption className="visually-hidden">{caption}</caption>
        <ColumnHeads names={['Crawler', 'Role', 'robots.txt', 'Deciding rule', ...(withAccess ? ['Live access'] : [])]} />
        {vendors.map((vendor) => (
          <tbody key={vendor ?? 'all'}>
            {vendor !== null ? (
              <tr className="vendor-row">
                <th scope="rowgroup" colSpan={withAccess ? 5 : 4}>{vendor}</th>
              </tr>
            ) : null}
            {crawlers.filter((c) => vendor === null || (c.vendor ?? 'Other') === vendor).map((c) => <CrawlerRow key={c.token} c={c} withAccess={withAccess} showVendor={!byVendor} />)}
          </tbody>
        ))}
      </table>
    </TableWrap>
  );
}

function VisibilityReport({ body, level, idPrefix }: { body: VisibilityBody; level: Level; idPrefix: string }) {
  const r = body.report;
  const withAccess = r.crawlers.some((c) => c.access);
  const attention = r.crawlers.filter((c) => crawlerNeedsAttention(c as unknown as Record<string, unknown>));
  const sections = visibilityFacts(r as unknown as Record<string, unknown>);
  const groups = visibilityScoreGroups(body);
  return (
    <>
      <Heading level={sub(level)} id={`${idPrefix}-findings`}>Findings, most severe first</Heading>
      <Findings findings={r.findings} idPrefix={idPrefix} titleOf={(f) => findingTitle(f.id)} />
      <PassedAudits passed={visibilityPassed(body)} idPrefix={idPrefix} />

      <Heading level={sub(level)} id={`${idPrefix}-crawlers`}>Crawlers</Heading>
      {attention.length ? (
        <>
          <p>{attention.length} of {r.crawlers.length} crawlers do not get this page: robots.txt refuses them, or the site answered their own request otherwise.</p>
          <CrawlerTable crawlers={attention} withAccess={withAccess} caption="Crawlers that do not get the page" testId="crawler-attention" byVendor={false} />
        </>
      ) : (
        <p>All {r.crawlers.length} crawlers may fetch this page under robots.txt{withAccess ? ', and the site served each one that was asked' : ''}.</p>
      )}
      <details className="report-more crawlers-all">
        <summary>All {r.crawlers.length} crawlers, by vendor</summary>
        <CrawlerTable crawlers={r.crawlers} withAccess={withAccess} caption={`What each crawler may fetch${withAccess ? ', and what the site answered it' : ''}`} testId="crawler-matrix" byVendor />
      </details>

      <div className="report-facts">
        {sections.map((s) => (
          // Folded under their titles, so the whole report stays a few screens long; print opens them.
          <details key={s.id} className="report-more facts-section" id={`${idPrefix}-facts-${s.id}`}>
            <summary>{s.title} <span className="muted">· {s.facts.length} fact{s.facts.length === 1 ? '' : 's'}</span></summary>
            <Facts facts={s.facts} label={s.title} />
          </details>
        ))}
      </div>

      {/* One fold for the whole table; each category's part is the target of its bar under the header. */}
      <details className="report-more score-table" id={`${idPrefix}-score`}>
        <summary>Score by rubric item, by category (rubric {r.rubricVersion})</summary>
        {groups.map((g) => (
          <TableWrap key={g.key} label={`Score for ${g.label.toLowerCase()}`}>
            <table className="stack-on-phone" id={`${idPrefix}-${visibilityCategoryAnchor(g.key)}`}>
              <caption>{g.label}: {g.earned} / {g.max} points</caption>
              <ColumnHeads names={['Item', 'Earned', 'Criterion']} />
              <tbody>
                {g.items.map((item) => (
                  <tr key={item.id}>
                    <th scope="row">{item.label}</th>
                    <td data-label="Earned" className="nobreak">{item.earned} / {item.points}</td>
                    <td data-label="Criterion"><Prose text={item.criterion} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        ))}
      </details>
      <Limits limits={body.limits} />
    </>
  );
}
