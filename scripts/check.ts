// Operator and CI CLI: the AI Visibility Check locally without payment, or through a deployed service with a
// prepaid credits key.
//   npm run check -- <url>                          prints { report, limits } as JSON (local, unpaid)
//   npm run check -- <url> --pretty                 prints a readable summary (local, unpaid)
//   npm run check -- <url> --api <base> [--key <key>]   one paid call to the service, the readable summary
//   npm run check -- --urls <file> --api <base>     one paid call per listed page, one table
//   npm run check -- --sitemap <url> [--limit N] --api <base>   the sitemap's first N pages (default 10)
//   --fail-under <score>                            a gate: exit 1 when a score is under it
// The key may come from PAC_KEY instead of --key, so a CI log or process list never shows it.
// Exit codes: 0 report(s) printed (and every score at or above --fail-under), 2 bad usage, or the check or the
// service refused or failed (400 invalid-url, 401 invalid-credits-key, 422 site-unreachable, …), 1 a score
// under --fail-under, 4 anything unexpected. CHECK_HOST_MAP works as in the service (never in production).
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { checkVisibility, type VisibilityResult } from '@/lib/checks/visibility/check';
import { closeRenderer, closeRendererOnSignals } from '@/lib/checks/visibility/render';
import { ProblemError } from '@/lib/problems';
import { visibilityProblem } from '@/lib/checks/visibility/entry';
import { checkThroughService, EXIT, gateExit, refusalText, reportGist, type ServiceAnswer, type ServiceTarget } from './check/remote';
import { checkPages, PageListError, pagesTable, pageUrlsOfList, sitemapPageUrls } from './check/pages';

const USAGE = [
  'Usage: npm run check -- <url> [--pretty] [--fail-under <score>]',
  '       npm run check -- <url> --api <base> [--key <key>] [--fail-under <score>]',
  '       npm run check -- (--urls <file> | --sitemap <url> [--limit N]) --api <base> [--key <key>] [--fail-under <score>]',
  'The key may be set as PAC_KEY instead of --key.',
].join('\n');
/** Pages a --sitemap run checks unless --limit says otherwise, and the most it will (each one is a paid call). */
const SITEMAP_DEFAULT_LIMIT = 10;
const SITEMAP_MAX_LIMIT = 100;
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

/** The readable summary of a service's 200 body: the --pretty one, or its gist when the body is of another check version. */
function serviceSummary(answer: Extract<ServiceAnswer, { kind: 'report' }>): string {
  let summary: string;
  try {
    summary = formatPretty(answer.body as unknown as VisibilityResult);
  } catch {
    const { verdict, topFinding } = reportGist(answer.body);
    summary = `AI Visibility Check of ${answer.url}\nScore: ${answer.score}\nVerdict: ${verdict}\nTop finding: ${topFinding}`;
  }
  const after = [
    answer.reportUrl ? `Report: ${answer.reportUrl}` : null,
    answer.reportApiUrl && answer.reportApiUrl !== answer.reportUrl ? `JSON: ${answer.reportApiUrl}` : null,
    answer.creditsRemaining === null ? null : `Credits remaining: ${answer.creditsRemaining}`];
  return [summary, ...after.filter((l) => l !== null)].join('\n');
}

function usageError(message: string): number {
  console.error(`${message}\n${USAGE}`);
  return EXIT.refused;
}

/** A number option in [min, max] (an integer if asked), or the words saying what it must be. */
function numberOption(name: string, raw: string | undefined, min: number, max: number, integer: boolean): number | undefined | string {
  if (raw === undefined) return undefined;
  const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max) || (integer && !Number.isInteger(n))) return `--${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, not ${JSON.stringify(raw)}`;
  return n;
}

/** A 429 the CLI waits out, said on stderr so a CI log shows why the run pauses. */
function sayWait(seconds: number, refusal: string): void {
  console.error(`${refusal.split('\n')[0]}\n  waiting ${seconds} s, then asking again`);
}

async function runThroughService(target: ServiceTarget, pages: { url?: string; urls?: string; sitemap?: string; limit?: number }, failUnder: number | undefined): Promise<number> {
  if (pages.url !== undefined) {
    const answer = await checkThroughService(target, pages.url, sayWait);
    if (answer.kind === 'refused') {
      console.error(refusalText(answer));
      return EXIT.refused;
    }
    console.log(serviceSummary(answer));
    const code = gateExit([answer], failUnder);
    if (code === EXIT.belowThreshold) console.error(`Score ${answer.score} is under --fail-under ${failUnder}.`);
    return code;
  }
  let urls: string[];
  try {
    if (pages.urls !== undefined) {
      let text: string;
      try {
        text = fs.readFileSync(pages.urls, 'utf8');
      } catch (error) {
        throw new PageListError(`The URL list ${pages.urls} could not be read: ${(error as Error).message}`);
      }
      urls = pageUrlsOfList(text);
      if (urls.length === 0) throw new PageListError(`The URL list ${pages.urls} names no URL (one per line; # starts a comment)`);
    } else {
      urls = await sitemapPageUrls(pages.sitemap!, pages.limit ?? SITEMAP_DEFAULT_LIMIT);
    }
  } catch (error) {
    if (error instanceof PageListError) {
      console.error(error.message);
      return EXIT.refused;
    }
    throw error;
  }
  const rows = await checkPages(target, urls, sayWait);
  console.log(pagesTable(rows, failUnder));
  const answers = rows.map((r) => r.answer);
  const reports = answers.filter((a) => a.kind === 'report');
  const below = failUnder === undefined ? 0 : reports.filter((a) => a.score < failUnder).length;
  const credits = reports.map((a) => a.creditsRemaining).filter((c) => c !== null);
  console.log(
    `${rows.length} page${rows.length === 1 ? '' : 's'}: ${reports.length} checked, ${rows.length - reports.length} refused (not charged)` +
      `${failUnder === undefined ? '' : `, ${below} under ${failUnder}`}${credits.length > 0 ? `; credits remaining: ${Math.min(...credits)}` : ''}`,
  );
  return gateExit(answers, failUnder);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        pretty: { type: 'boolean', default: false },
        api: { type: 'string' },
        key: { type: 'string' },
        'fail-under': { type: 'string' },
        urls: { type: 'string' },
        sitemap: { type: 'string' },
        limit: { type: 'string' },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [url, ...extra] = positionals;
  const sources = [url, values.urls, values.sitemap].filter((s) => s !== undefined).length;
  if (extra.length > 0 || sources !== 1) return usageError('Name one page, or one --urls file, or one --sitemap.');
  const failUnder = numberOption('fail-under', values['fail-under'], 0, 100, false);
  if (typeof failUnder === 'string') return usageError(failUnder);
  const limit = numberOption('limit', values.limit, 1, SITEMAP_MAX_LIMIT, true);
  if (typeof limit === 'string') return usageError(limit);
  if (limit !== undefined && values.sitemap === undefined) return usageError('--limit goes with --sitemap.');

  if (values.api !== undefined) {
    const key = values.key ?? process.env.PAC_KEY;
    if (!key) return usageError('--api needs a prepaid credits key: --key <key>, or PAC_KEY in the environment.');
    if (!/^https?:\/\/[^/]/i.test(values.api)) return usageError(`--api must be the service's http(s) address, not ${JSON.stringify(values.api)}`);
    return runThroughService({ base: values.api, key }, { url, urls: values.urls, sitemap: values.sitemap, limit }, failUnder);
  }
  if (url === undefined) return usageError('--urls and --sitemap check pages through a service: add --api <base>.');
  if (values.key !== undefined) return usageError('--key goes with --api.');

  closeRendererOnSignals();
  try {
    const result = await checkVisibility(url);
    console.log(values.pretty ? formatPretty(result) : JSON.stringify(result, null, 2));
    if (failUnder !== undefined && result.report.score < failUnder) {
      console.error(`Score ${result.report.score} is under --fail-under ${failUnder}.`);
      return EXIT.belowThreshold;
    }
    return EXIT.ok;
  } catch (thrown) {
    const error = visibilityProblem(thrown);
    if (error instanceof ProblemError) {
      console.error(`${error.problem.status} ${error.problem.title}: ${error.problem.detail}`);
      return EXIT.refused;
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
    process.exitCode = EXIT.unexpected;
  },
);
