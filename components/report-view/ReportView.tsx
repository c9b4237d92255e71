import type { ReactNode } from 'react';
import { SEVERITY_ORDER } from '@/lib/checks/severity';
import { CAPABILITY_RULES } from '@/lib/checks/readiness/rubric';
import { ScoreGauge } from './ScoreGauge';
import { ReportActions } from './ReportActions';
import { ACCESS_LABEL, READINESS_VERDICT, SEVERITY_LABEL, visibilityVerdict } from './labels';
import { reportMarkdown } from '@/lib/reports/markdown';
import { reportKind, type ReadinessBody, type ViewFinding, type VisibilityBody } from './types';
import { TableWrap } from '../TableWrap';

// THE report view: the live result on /check, a stored report on /reports/<id> and the examples on the
// home page all render a check's 200 body through this one component. It has no state and no server-only
// imports, so a server page and a client component can both render it.

type Level = 2 | 3;

function Heading({ level, id, children }: { level: Level | 4; id?: string; children: ReactNode }) {
  const Tag = `h${level}` as 'h2' | 'h3' | 'h4';
  return <Tag id={id}>{children}</Tag>;
}

const sub = (level: Level): 3 | 4 => (level + 1) as 3 | 4;

function Findings({ findings, level, idPrefix }: { findings: ViewFinding[]; level: Level; idPrefix: string }) {
  if (!findings.length) return <p>No findings: every rubric item earned its points.</p>;
  return (
    <>
      {SEVERITY_ORDER.map((severity) => {
        const group = findings.filter((f) => f.severity === severity);
        if (!group.length) return null;
        return (
          // Not a landmark: two reports on one page (the home examples) would name two regions alike ("Low 3
          // findings"); the heading carries the structure.
          <div key={severity} className={`finding-group ${severity}`}>
            <Heading level={sub(level)} id={`${idPrefix}-${severity}`}>
              <span className={`badge ${severity}`}>{SEVERITY_LABEL[severity]}</span> {group.length} finding{group.length === 1 ? '' : 's'}
            </Heading>
            <ul className="findings">
              {group.map((f, i) => (
                <li key={`${f.id}-${i}`}>
                  <p className="finding-what">
                    <code className="nobreak">{f.capability ?? f.id}</code>
                    {f.pointsLost ? <span className="muted"> · {f.pointsLost} point{f.pointsLost === 1 ? '' : 's'} lost</span> : null}
                  </p>
                  {f.observed ? <p>{f.observed}</p> : null}
                  {f.why ? <p className="muted">{f.why}</p> : null}
                  {f.fix ? (
                    <p className="finding-fix">
                      <strong>Fix:</strong> {f.fix}
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </>
  );
}

function yesNo(v: unknown): string {
  return v === true ? 'yes' : v === false ? 'no' : '—';
}

/** A value of a member the view has no special layout for (a newer check's addition): shown, not hidden. */
function plain(value: unknown): ReactNode {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return yesNo(value);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.length ? value.join(', ') : 'none';
  return <code className="json">{JSON.stringify(value)}</code>;
}

function Facts({ rows, label }: { rows: Array<[string, ReactNode]>; label: string }) {
  return (
    <dl className="facts" aria-label={label}>
      {rows.map(([k, v]) => (
        <div key={k} className="fact">
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

const PAGE_KNOWN = new Set([
  'title', 'titleLength', 'metaDescription', 'metaDescriptionLength', 'canonical', 'canonicalCount', 'canonicalIsSelf', 'noindexMeta',
  'noindexHeader', 'robots', 'jsonLd', 'openGraph', 'lang', 'h1Count', 'textLength', 'wordCount', 'truncated',
]);
const SITE_KNOWN = new Set(['requestedUrl', 'redirects', 'https', 'ttfbMs', 'robotsTxt', 'sitemapXml', 'llmsTxt', 'llmsFullTxt']);

/** Extra members (e.g. `page.rendering`, `site.markdown`, `site.access`), one row each, objects one row per member. */
function extraRows(obj: Record<string, unknown>, known: Set<string>): Array<[string, ReactNode]> {
  const rows: Array<[string, ReactNode]> = [];
  for (const [key, value] of Object.entries(obj)) {
    if (known.has(key)) continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) rows.push([`${key} · ${k}`, plain(v)]);
    } else rows.push([key, plain(value)]);
  }
  return rows;
}

function VisibilityReportView({ body, level, idPrefix }: { body: VisibilityBody; level: Level; idPrefix: string }) {
  const r = body.report;
  const page = r.page as Record<string, unknown> & {
    title?: string | null; titleLength?: number; metaDescription?: string | null; metaDescriptionLength?: number; canonical?: string | null;
    canonicalIsSelf?: boolean; noindexMeta?: boolean; noindexHeader?: boolean; lang?: string | null; h1Count?: number; wordCount?: number;
    truncated?: boolean; jsonLd?: { blocks: number; invalid: number; types: string[] }; openGraph?: Record<string, boolean>;
  };
  const site = r.site as Record<string, unknown> & {
    requestedUrl?: string; redirects?: Array<{ url: string; status: number }>; https?: { finalUrlHttps: boolean; httpRedirectsToHttps: boolean | null };
    ttfbMs?: number; robotsTxt?: { state: string; status: number | null; sitemaps: string[]; contentSignals: string[] };
    sitemapXml?: { url: string | null; status: number | null; isSitemap: boolean }; llmsTxt?: string; llmsFullTxt?: string;
  };
  const allowed = r.crawlers.filter((c) => c.allowed).length;
  const withAccess = r.crawlers.some((c) => c.access);
  const verdict = visibilityVerdict(r.score, r.scoreMax, r.findings);
  const og = page.openGraph ? Object.entries(page.openGraph).filter(([, v]) => v).map(([k]) => `og:${k}`) : [];
  const pageRows: Array<[string, ReactNode]> = [
    ['HTTP status', String(r.status)],
    ['Title', page.title ? `${page.title} (${page.titleLength} characters)` : 'missing'],
    ['Description', page.metaDescription ? `${page.metaDescription} (${page.metaDescriptionLength} characters)` : 'missing'],
    ['Canonical', page.canonical ? <span className="url">{page.canonical}{page.canonicalIsSelf ? ' (this page)' : ' (another address)'}</span> : 'missing'],
    ['Indexing', page.noindexMeta || page.noindexHeader ? 'noindex' : 'allowed'],
    ['Language', page.lang ?? 'not declared'],
    ['h1 headings', String(page.h1Count ?? '—')],
    ['Words in the HTML', `${page.wordCount ?? '—'}${page.truncated ? ' (page cut at the size limit)' : ''}`],
    ['JSON-LD', page.jsonLd ? (page.jsonLd.blocks ? `${page.jsonLd.blocks} block(s)${page.jsonLd.invalid ? `, ${page.jsonLd.invalid} invalid` : ''}: ${page.jsonLd.types.join(', ') || 'no types'}` : 'none') : '—'],
    ['Open Graph', og.length ? og.join(', ') : 'none'],
    ...extraRows(page, PAGE_KNOWN),
  ];
  const siteRows: Array<[string, ReactNode]> = [
    ['robots.txt', site.robotsTxt ? `${site.robotsTxt.state}${site.robotsTxt.status !== null ? ` (HTTP ${site.robotsTxt.status})` : ''}` : r.robotsTxt],
    ...(site.robotsTxt?.sitemaps.length ? [['Sitemaps in robots.txt', site.robotsTxt.sitemaps.join(', ')] as [string, ReactNode]] : []),
    ...(site.robotsTxt?.contentSignals.length ? [['Content-Signal', site.robotsTxt.contentSignals.join('; ')] as [string, ReactNode]] : []),
    ['Sitemap', site.sitemapXml ? (site.sitemapXml.isSitemap ? <span className="url">{site.sitemapXml.url}</span> : `not found${site.sitemapXml.status ? ` (HTTP ${site.sitemapXml.status})` : ''}`) : '—'],
    ['llms.txt', site.llmsTxt ?? r.llmsTxt],
    ['llms-full.txt', site.llmsFullTxt ?? '—'],
    ['https', site.https ? `${site.https.finalUrlHttps ? 'yes' : 'no'}; http redirects to https: ${yesNo(site.https.httpRedirectsToHttps)}` : '—'],
    ['Redirects', site.redirects?.length ? site.redirects.map((x) => `${x.status} → ${x.url}`).join(', ') : 'none'],
    ['Time to first byte', site.ttfbMs !== undefined ? `${site.ttfbMs} ms (one sample, not scored)` : '—'],
    ...extraRows(site, SITE_KNOWN),
  ];
  const rubric = new Map(r.rubric.map((item) => [item.id, item]));
  return (
    <>
      <div className="report-head">
        <ScoreGauge score={r.score} max={r.scoreMax} label="Visibility score" />
        <div>
          <Heading level={level} id={`${idPrefix}-title`}>
            AI visibility of <span className="url">{r.checkedUrl}</span>
          </Heading>
          <p className="verdict" data-testid="report-verdict">{verdict}</p>
          <p className="muted">
            {allowed} of {r.crawlers.length} crawlers may fetch this page under robots.txt · {r.findings.length} finding{r.findings.length === 1 ? '' : 's'}
            {body.checkedAt ? <> · checked {new Date(body.checkedAt).toUTCString()}</> : null}
          </p>
        </div>
      </div>

      <Heading level={sub(level)} id={`${idPrefix}-crawlers`}>Crawlers</Heading>
      <TableWrap label="Crawlers">
        <table className="crawler-matrix stack-on-phone" data-testid="crawler-matrix">
          <caption className="visually-hidden">What each crawler may fetch{withAccess ? ', and what the site answered it' : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Crawler</th>
              <th scope="col">Vendor</th>
              <th scope="col">Role</th>
              <th scope="col">robots.txt</th>
              <th scope="col">Deciding rule</th>
              {withAccess ? <th scope="col">Live access</th> : null}
            </tr>
          </thead>
          <tbody>
            {r.crawlers.map((c) => (
              <tr key={c.token}>
                <th scope="row"><code className="nobreak">{c.token}</code></th>
                <td data-label="Vendor">{c.vendor ?? '—'}</td>
                <td data-label="Role">{c.role ?? '—'}</td>
                <td data-label="robots.txt"><span className={`badge ${c.allowed ? 'allowed' : 'refused'}`}>{c.allowed ? 'Allowed' : 'Disallowed'}</span></td>
                <td data-label="Rule">
                  {c.rule ? <code>{c.rule}</code> : <span className="muted">no rule matched</span>}
                  {c.group ? <div className="hint">group <code className="nobreak">{c.group}</code></div> : null}
                </td>
                {withAccess ? (
                  <td data-label="Live access">
                    {c.access ? (
                      <>
                        <span className={`badge access-${c.access.outcome}`}>{ACCESS_LABEL[c.access.outcome] ?? c.access.outcome}</span>
                        {c.access.status !== null ? <span className="hint"> HTTP {c.access.status}</span> : null}
                      </>
                    ) : '—'}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <Heading level={sub(level)} id={`${idPrefix}-findings`}>Findings, most severe first</Heading>
      <Findings findings={r.findings} level={sub(level) as Level} idPrefix={`${idPrefix}-sev`} />

      <div className="grid report-facts">
        <section aria-labelledby={`${idPrefix}-page`}>
          <Heading level={sub(level)} id={`${idPrefix}-page`}>Page facts</Heading>
          <Facts rows={pageRows} label="Page facts" />
        </section>
        <section aria-labelledby={`${idPrefix}-site`}>
          <Heading level={sub(level)} id={`${idPrefix}-site`}>Site files</Heading>
          <Facts rows={siteRows} label="Site files" />
        </section>
      </div>

      <details className="report-more">
        <summary>Score by rubric item (rubric {r.rubricVersion})</summary>
        <TableWrap label="Score by rubric item">
          <table>
            <caption className="visually-hidden">Points earned per rubric item</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Earned</th>
                <th scope="col">Criterion</th>
              </tr>
            </thead>
            <tbody>
              {r.scoring.map((line) => (
                <tr key={line.id}>
                  <th scope="row"><code className="nobreak">{line.id}</code></th>
                  <td>{line.earned} / {line.points}</td>
                  <td>{rubric.get(line.id)?.criterion ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
      <Limits limits={body.limits} />
    </>
  );
}

const CAPABILITY_TITLE = new Map(CAPABILITY_RULES.map((c) => [c.key as string, c.title]));

function ReadinessReportView({ body, level, idPrefix }: { body: ReadinessBody; level: Level; idPrefix: string }) {
  const a = body.assessment;
  return (
    <>
      <div className="report-head">
        <ScoreGauge score={a.score} max={a.scoreMax} label="Readiness score" />
        <div>
          <Heading level={level} id={`${idPrefix}-title`}>
            Payment readiness of “{a.workflow.name}”
          </Heading>
          <p className={`verdict ${a.verdict}`} data-testid="report-verdict">{READINESS_VERDICT[a.verdict] ?? a.verdict}</p>
          <p className="muted">
            {a.workflow.intendedUsers ? <>For {a.workflow.intendedUsers}, targeting {a.workflow.targetEnvironment} · </> : null}
            {a.blockers.length} blocker{a.blockers.length === 1 ? '' : 's'} · {a.findings.length} finding{a.findings.length === 1 ? '' : 's'}
            {body.assessedAt ? <> · assessed {new Date(body.assessedAt).toUTCString()}</> : null}
          </p>
        </div>
      </div>

      <Heading level={sub(level)} id={`${idPrefix}-blockers`}>Blockers</Heading>
      {a.blockers.length ? (
        <ul className="blockers">
          {a.blockers.map((b) => (
            <li key={b}>
              <code className="nobreak">{b}</code> {CAPABILITY_TITLE.get(b) ? <span className="muted">({CAPABILITY_TITLE.get(b)})</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>None: no required capability is missing.</p>
      )}

      <Heading level={sub(level)} id={`${idPrefix}-capabilities`}>Capabilities</Heading>
      <TableWrap label="Capabilities">
        <table className="capability-table stack-on-phone">
          <caption className="visually-hidden">Declared status, requirement and points of each capability</caption>
          <thead>
            <tr>
              <th scope="col">Capability</th>
              <th scope="col">Declared</th>
              <th scope="col">Requirement</th>
              <th scope="col">Points</th>
            </tr>
          </thead>
          <tbody>
            {a.capabilities.map((c) => (
              <tr key={c.key}>
                <th scope="row">
                  <code className="nobreak">{c.key}</code>
                  {CAPABILITY_TITLE.get(c.key) ? <div className="hint">{CAPABILITY_TITLE.get(c.key)}</div> : null}
                </th>
                <td data-label="Declared"><span className={`status ${c.status}`}>{c.status}</span>{c.evidenceCount ? <div className="hint">{c.evidenceCount} evidence line{c.evidenceCount === 1 ? '' : 's'}</div> : null}</td>
                <td data-label="Requirement">{c.requirement ?? '—'}</td>
                <td data-label="Points">{c.pointsEarned} / {c.pointsPossible}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>

      <Heading level={sub(level)} id={`${idPrefix}-findings`}>Findings, most severe first</Heading>
      <Findings findings={a.findings} level={sub(level) as Level} idPrefix={`${idPrefix}-sev`} />
      {a.statement ? <p className="muted">{a.statement}</p> : null}
      <Limits limits={body.limits} />
    </>
  );
}

function Limits({ limits }: { limits?: string[] }) {
  if (!limits?.length) return null;
  return (
    <details className="report-more">
      <summary>What this check cannot see ({limits.length} limits)</summary>
      <ul>
        {limits.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </details>
  );
}

/**
 * Renders one check's 200 body. `level` is the heading level of the report's title (2 on a page of its
 * own, 3 under a page section); `idPrefix` keeps ids unique when a page shows two reports.
 * @example <ReportView body={await res.json()} level={2} idPrefix="result" fileName="report.json" />
 */
export function ReportView({ body, level = 2, idPrefix = 'report', fileName = 'report.json' }: { body: unknown; level?: Level; idPrefix?: string; fileName?: string }) {
  const kind = reportKind(body);
  if (kind === null) return <p className="notice error" role="alert">This report could not be read.</p>;
  const markdown = reportMarkdown(kind === 'visibility' ? 'ai-visibility' : 'readiness', body);
  return (
    <article className="report" aria-labelledby={`${idPrefix}-title`} data-testid="report">
      {kind === 'visibility' ? (
        <VisibilityReportView body={body as VisibilityBody} level={level} idPrefix={idPrefix} />
      ) : (
        <ReadinessReportView body={body as ReadinessBody} level={level} idPrefix={idPrefix} />
      )}
      <ReportActions json={JSON.stringify(body, null, 2)} markdown={markdown} fileName={fileName} />
    </article>
  );
}
