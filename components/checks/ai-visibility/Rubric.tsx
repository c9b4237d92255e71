import type { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { RUBRIC_CHANGES } from '@/lib/checks/visibility/rubric-changes';
import { TableWrap } from '@/components/TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';
import { MAX_ADDRESS_LENGTH, PAGE_READ_MAX_BYTES } from '@/lib/checks/visibility/published';
import { Prose } from '@/components/report-view/Prose';
import { crawlerRoleWords } from '@/lib/checks/visibility/facts';

// The visibility rubric as its free GET publishes it (the entry's `describe()`), laid out for people on
// /docs/checks, with the rubric's changes and the crawlers it reports.

/** What the visibility check's `describe()` publishes. */
type VisibilityDescribed = Pick<ReturnType<typeof visibilityCheckDescription>, 'checkVersion' | 'rubricVersion' | 'scoringRule' | 'severityRule' | 'fetched' | 'rubric' | 'crawlers'>;

export function VisibilityRubric({ described }: { described: unknown }) {
  const d = described as VisibilityDescribed;
  return (
    <>
      <p>
        Check version <code>{d.checkVersion}</code>, rubric version <code>{d.rubricVersion}</code>. <Prose text={d.scoringRule} /> <Prose text={d.severityRule} />
      </p>
      <p>
        Fetched: <Prose text={d.fetched.page} />; then <Prose text={d.fetched.site.join(', ')} />; within {d.fetched.budgetSeconds} seconds in all. The address is
        1-{MAX_ADDRESS_LENGTH} characters (default ports only; IP addresses and internal names are refused), and the page is read to{' '}
        {PAGE_READ_MAX_BYTES / 1024} KB (<code>page.truncated</code> is true past that).
      </p>
      <TableWrap label="Visibility rubric items">
        <table>
          <caption>Rubric items ({d.rubric.reduce((n, i) => n + i.points, 0)} points)</caption>
          <ColumnHeads names={['Item', 'Category', 'Points', 'Criterion']} />
          <tbody>
            {d.rubric.map((item) => (
              <tr key={item.id}>
                <th scope="row">
                  <code>{item.id}</code>
                </th>
                <td>{item.category}</td>
                <td>{item.points}</td>
                <td><Prose text={item.criterion} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="visibility-rubric-changes">
        Rubric {RUBRIC_CHANGES.to}: what changed from {RUBRIC_CHANGES.from} and why
      </h3>
      <p><Prose text={RUBRIC_CHANGES.summary} /></p>
      <TableWrap label={`Changes from rubric ${RUBRIC_CHANGES.from}`}>
        <table>
          <caption>Changes from rubric {RUBRIC_CHANGES.from}</caption>
          <ColumnHeads names={['Item', 'Points before', 'Points now', 'Why']} />
          <tbody>
            {RUBRIC_CHANGES.changes.map((c) => (
              <tr key={c.item}>
                <th scope="row">
                  <code>{c.item}</code>
                </th>
                <td>{c.before ?? 'new'}</td>
                <td>{c.after}</td>
                <td><Prose text={c.why} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h3 id="crawlers">Crawlers</h3>
      <CrawlerTable crawlers={d.crawlers} />
    </>
  );
}

function CrawlerTable({ crawlers }: { crawlers: VisibilityDescribed['crawlers'] }) {
  const d = { crawlers };
  return (
    <TableWrap label="Crawlers">
      <table>
        <caption>The {d.crawlers.length} crawlers reported</caption>
        <ColumnHeads names={['Token', 'Vendor', 'Role', 'Purpose', 'Obeys robots.txt']} />
        <tbody>
          {d.crawlers.map((c) => (
            <tr key={c.token}>
              <th scope="row">
                <code>{c.token}</code>
              </th>
              <td>{c.vendor}</td>
              <td>{crawlerRoleWords(c.role)}</td>
              <td>
                <Prose text={c.purpose} />{' '}
                <a href={c.source} rel="noopener noreferrer">
                  Vendor documentation<span className="visually-hidden"> for {c.token}</span>
                </a>
                {c.fallback ? <div className="hint">Follows the {c.fallback} group when no group names it.</div> : null}
              </td>
              <td>
                {c.honorsRobots ? 'yes' : 'not always'}
                {c.userTriggered ? <div className="hint">user-triggered</div> : null}
                {c.tokenOnly ? <div className="hint">control token only</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
