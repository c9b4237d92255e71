import type { ReactNode } from 'react';
import { ScoreGauge } from './ScoreGauge';
import { ACCESS_LABEL, visibilityVerdict } from './labels';
import { Facts, Findings, Heading, Limits, plain, sub, yesNo, type Level } from './parts';
import type { VisibilityBody } from './types';
import { TableWrap } from '../TableWrap';
import { ColumnHeads } from '@/components/ColumnHeads';

// The AI Visibility Check's report: score, crawler matrix with the deciding rule and the live access probes,
// findings by severity, page and site facts.

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

export function VisibilityReportView({ body, level, idPrefix }: { body: unknown; level: Level; idPrefix: string }) {
  return <VisibilityReport body={body as VisibilityBody} level={level} idPrefix={idPrefix} />;
}

function VisibilityReport({ body, level, idPrefix }: { body: VisibilityBody; level: Level; idPrefix: string }) {
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
            <ColumnHeads names={['Item', 'Earned', 'Criterion']} />
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
