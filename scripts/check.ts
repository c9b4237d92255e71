// Operator CLI: run the AI Visibility Check locally, without payment.
//   npm run check -- <url>            prints { report, limits } as JSON
//   npm run check -- <url> --pretty   prints a readable summary
// Exit codes: 0 report printed, 2 bad usage or the check refused/failed (400 invalid-url, 422
// site-unreachable), 1 anything unexpected. CHECK_HOST_MAP works as in the service (never in production).
import { parseArgs } from 'node:util';
import { checkVisibility, type VisibilityResult } from '@/lib/checks/visibility/check';
import { closeRenderer, closeRendererOnSignals } from '@/lib/checks/visibility/render';
import { ProblemError } from '@/lib/problems';
import { visibilityProblem } from '@/lib/checks/visibility/entry';

const USAGE = 'Usage: npm run check -- <url> [--pretty]';
const TOP_FINDINGS = 8;

/** One row per crawler: what robots.txt says, and what the server answered the crawler's own request. */
function crawlerTable(report: VisibilityResult['report']): string[] {
  const { access } = report.site;
  const allowed = report.crawlers.filter((c) => c.allowed).length;
  const rows = report.crawlers.map((c) => [
    c.token,
    c.role,
    c.allowed ? 'allowed' : `disallowed: ${c.rule ?? 'blocked'}${c.group ? ` (group ${c.group})` : ''}`,
    c.access.outcome === 'not-probed' ? '- (robots.txt token only)' : `${c.access.outcome}${c.access.status === null ? '' : ` ${c.access.status}`}`,
  ]);
  const header = ['crawler', 'role', 'robots.txt', 'server'];
  const width = (i: number) => Math.max(header[i].length, ...rows.map((r) => r[i].length));
  const line = (cells: string[]) => `  ${cells.map((cell, i) => (i < cells.length - 1 ? cell.padEnd(width(i)) : cell)).join('  ')}`;
  return [
    `Crawlers (${allowed}/${report.crawlers.length} allowed by robots.txt; server column: our request as that crawler, the browser baseline got ${access.browserStatus ?? 'no answer'}):`,
    line(header),
    ...rows.map(line),
  ];
}

/** The WebMCP part of the agent-surfaces line: not rendered, none, or the tools and how many are invalid. */
function webMcpLine(webMcp: VisibilityResult['report']['site']['agentSurfaces']['webMcp']): string {
  if (webMcp === null) return 'not observed (page not rendered)';
  const forms = `${webMcp.formCount} form${webMcp.formCount === 1 ? '' : 's'}`;
  if (webMcp.status === 'missing') return `no tools${webMcp.imperativeObserved ? '' : ' declared (script tools not readable)'}, ${forms}`;
  const invalid = webMcp.tools.filter((t) => t.problem !== null).length;
  return `${webMcp.toolCount} tool${webMcp.toolCount === 1 ? '' : 's'} (${webMcp.source}: ${webMcp.tools.map((t) => t.name).join(', ')}${webMcp.toolCount > webMcp.tools.length ? ', …' : ''})${invalid > 0 ? `, ${invalid} invalid` : ''}, ${forms}`;
}

function formatPretty({ report }: VisibilityResult): string {
  const lines: string[] = [];
  lines.push(`AI Visibility Check of ${report.checkedUrl}`);
  if (report.site.requestedUrl !== report.checkedUrl) lines.push(`  requested ${report.site.requestedUrl} (${report.site.redirects.length} redirect(s))`);
  lines.push(`Score: ${report.score}/${report.scoreMax} (rubric ${report.rubricVersion})`);
  lines.push(`Page: HTTP ${report.status}, ${report.page.wordCount} words served, title ${report.page.title === null ? '(none)' : JSON.stringify(report.page.title)}`);
  const r = report.page.rendering;
  lines.push(
    r.state === 'rendered'
      ? `Rendered: ${r.wordCount} words, ${Math.round((r.jsOnlyShare ?? 0) * 100)}% only after JavaScript; ${r.requests} request(s) fetched, ${r.refused} refused, ${r.durationMs} ms`
      : `Rendering: ${r.state}${r.reason ? ` (${r.reason})` : ''}`,
  );
  lines.push(`robots.txt: ${report.robotsTxt}; llms.txt: ${report.llmsTxt}; sitemap: ${report.site.sitemapXml.isSitemap ? 'yes' : 'no'}; https: ${report.site.https.finalUrlHttps ? 'yes' : 'no'}`);

  lines.push(...crawlerTable(report));

  const site = report.site;
  const links = site.llmsTxtLinks;
  const usage = site.contentUsage.map((u) => `${u.userAgent}: ${Object.entries(u.signals).filter(([, v]) => v !== null).map(([k, v]) => `${k}=${v}`).join(', ') || '(no known keys)'}`);
  const lic = site.licensing;
  lines.push(
    `Agents: markdown ${site.markdown.offered ? `offered${site.markdown.alternate ? ` (alternate ${site.markdown.alternate})` : ` (${site.markdown.contentType})`}` : 'not offered'}; ` +
      `llms.txt links ${links.checked === 0 ? 'none checked' : `${links.checked - links.broken}/${links.checked} ok`}; ` +
      `sitemap lists page: ${site.sitemapListsPage === null ? 'unknown' : site.sitemapListsPage ? 'yes' : 'no'}; ` +
      `text/HTML ratio ${report.page.textToHtmlRatio}`,
  );
  for (const l of links.links.filter((x) => x.outcome !== 'ok')) lines.push(`  - broken llms.txt link ${l.url}: ${l.outcome}${l.status === null ? '' : ` (HTTP ${l.status})`}`);
  if (usage.length > 0) lines.push(`Content-Signal: ${usage.join('; ')}`);
  if (lic.tdmReservation !== null || lic.rslLicense !== null) {
    lines.push(`Licensing: ${[lic.tdmReservation === null ? null : `TDMRep reservation ${lic.tdmReservation} from ${lic.tdmSource}${lic.tdmPolicy ? `, policy ${lic.tdmPolicy}` : ''}`, lic.rslLicense === null ? null : `RSL ${lic.rslLicense}`].filter(Boolean).join('; ')}`);
  }
  const surfaces = site.agentSurfaces;
  const surfaceKinds = ['apiCatalog', 'mcpServerCard', 'a2aAgentCard', 'oauthAuthorizationServer', 'oauthProtectedResource', 'webBotAuthDirectory'] as const;
  lines.push(
    `Agent surfaces: ${surfaceKinds.map((k) => `${k} ${surfaces[k].status}${surfaces[k].entries !== null && surfaces[k].status !== 'missing' ? ` (${surfaces[k].entries})` : ''}`).join(', ')}; ` +
      `Link rels ${surfaces.linkHeaders.length === 0 ? 'none' : [...new Set(surfaces.linkHeaders.map((l) => l.rel))].join(', ')}; WebMCP ${webMcpLine(surfaces.webMcp)}`,
  );
  const use = site.aiUse;
  const aiUseLine = (name: string, a: typeof use.train) => `${name} ${a.decision}${a.sources.length > 0 ? ` (${[...new Set(a.sources.map((x) => x.source))].join(', ')})` : ''}${a.conflicts.length > 0 ? ' CONFLICT' : ''}`;
  lines.push(`AI use: ${aiUseLine('train', use.train)}; ${aiUseLine('search', use.search)}; ${aiUseLine('ai-input', use.aiInput)}`);
  const rsl = lic.rsl;
  lines.push(
    rsl === null
      ? 'RSL licence: none named'
      : `RSL licence: ${rsl.url} ${rsl.status}${rsl.valid ? `; permits ${rsl.permits.join(',') || '-'}; prohibits ${rsl.prohibits.join(',') || '-'}; payment ${rsl.payment === null ? 'none' : `${rsl.payment.type}${rsl.payment.amount !== null ? ` ${rsl.payment.currency ?? ''} ${rsl.payment.amount}` : ''}`}` : rsl.problem ? ` (${rsl.problem})` : ''}`,
  );
  const pay = site.commerce;
  lines.push(
    pay.challenges.length === 0
      ? 'Commerce: no payment asked'
      : `Commerce: ${pay.challenges.map((c) => `${c.source} ${c.protocol}${c.amount !== null ? ` ${c.currency ?? ''} ${c.amount}`.replace(/ {2}/g, ' ') : ''}${c.error ? ` (${c.error})` : ''}`).join('; ')}`,
  );
  if (report.page.jsonLd.problems.length > 0) {
    lines.push(`JSON-LD incomplete: ${report.page.jsonLd.problems.map((p) => `${p.type} (missing ${p.missing.join(', ')})`).join('; ')}`);
  }

  const costly = report.findings.filter((f) => f.severity !== 'info' || f.pointsLost > 0);
  lines.push(`Findings (${report.findings.length}, top ${Math.min(TOP_FINDINGS, costly.length)} shown):`);
  for (const f of costly.slice(0, TOP_FINDINGS)) {
    lines.push(`  [${f.severity}] ${f.id}${f.pointsLost > 0 ? ` -${f.pointsLost}` : ''}: ${f.observed}`);
    lines.push(`      fix: ${f.fix}`);
  }
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { pretty: { type: 'boolean', default: false } } });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const [url, ...extra] = parsed.positionals;
  if (!url || extra.length > 0) {
    console.error(USAGE);
    return 2;
  }
  closeRendererOnSignals();
  try {
    const result = await checkVisibility(url);
    console.log(parsed.values.pretty ? formatPretty(result) : JSON.stringify(result, null, 2));
    return 0;
  } catch (thrown) {
    const error = visibilityProblem(thrown);
    if (error instanceof ProblemError) {
      console.error(`${error.problem.status} ${error.problem.title}: ${error.problem.detail}`);
      return 2;
    }
    throw error;
  } finally {
    // The shared browser (RENDERER, CHROMIUM_PATH: the same settings as the service) would keep the process alive.
    await closeRenderer();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
