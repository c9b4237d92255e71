// Visibility-check benchmarks, each a ratio against a baseline measured in the same run.
import { SURFACE_PATHS } from '@/lib/checks/visibility/agent-surfaces';
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { startFixtureSite } from '../visibility/fixture-site';
import { checkVisibility, MAX_REQUESTS_PER_CHECK } from '@/lib/checks/visibility/check';
import { ACCESS_PROBE_CONCURRENCY, PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
import { safeFetch } from '@/lib/outbound/safe-fetch';
import { analyseSite } from '@/lib/checks/visibility/analysis';
import { analyse } from '@/lib/checks/visibility/analysis-pool';
import { decideCrawlers } from '@/lib/checks/visibility/crawlers';
import { parseRobotsTxt, robotsFromResponse, ROBOTS_MATCH_BUDGET } from '@/lib/checks/visibility/robots';
import { HOSTILE_PAGE_PATH, HOSTILE_ROBOTS, hostileRoutes, unclosedFormattingPage } from '../visibility/hostile-site';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const HOSTS = ['site.test'];
const html = (words: number) => `<!doctype html><html lang="en"><head><title>Bench</title></head><body><h1>Bench</h1><p>${'word '.repeat(words)}</p></body></html>`;

/**
 * (1) Independent fetches overlap: wall time of a check, access probes on, vs its longest chain of dependent
 * fetches. With 150 ms per response that chain is the page, then the probes in rounds of
 * ACCESS_PROBE_CONCURRENCY (the browser and 14 crawlers: 4 rounds); the site files and the http -> https
 * redirect (2 responses), the seven agent surfaces and the AI Catalog (robots.txt, then the catalog, then its cards) run beside it. The rendered view is off here: it is not a
 * fetch (the browser is handed the page the check fetched) but a second of Chromium work beside the fetches,
 * which would hide how the fetches overlap; visibility-render measures what rendering adds.
 */
export async function benchConcurrency() {
  const LATENCY = 150;
  const site = await startFixtureSite({
    '/': (req) => (req.headers['x-forwarded-proto'] === 'http' ? { status: 301, redirect: 'https://site.test/', delayMs: LATENCY } : { body: html(300), delayMs: LATENCY }),
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n', delayMs: LATENCY },
    '/sitemap.xml': { headers: { 'content-type': 'application/xml' }, body: '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>', delayMs: LATENCY },
    '/llms.txt': { headers: { 'content-type': 'text/plain' }, body: '# Site\n\n> About.\n\n- [a](https://site.test/a): a page here\n', delayMs: LATENCY },
    '/llms-full.txt': { status: 404, body: 'no', delayMs: LATENCY },
    // The agent surfaces answer as slowly as everything else, so the bench measures that they run beside the rest.
    ...Object.fromEntries(Object.values(SURFACE_PATHS).map((path) => [path, { status: 404, body: 'no', delayMs: LATENCY }])),
  });
  const hostMap = site.hostMap(HOSTS);
  const page = new URL('https://site.test/');
  const probes = PROBED_CRAWLERS.length + 1;
  const renderer = process.env.RENDERER;
  process.env.RENDERER = 'off';
  const rounds = Math.ceil(probes / ACCESS_PROBE_CONCURRENCY);
  try {
    const timed = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      return performance.now() - t;
    };
    // The same dependent structure, fetched by hand: the page, then each round of probes at once.
    const chainOnce = async () => {
      await safeFetch(page, { hostMap });
      for (let r = 0; r < rounds; r++) {
        const inRound = Math.min(ACCESS_PROBE_CONCURRENCY, probes - r * ACCESS_PROBE_CONCURRENCY);
        await Promise.all(Array.from({ length: inRound }, () => safeFetch(page, { hostMap, maxBytes: 64 * 1024 })));
      }
    };
    const chain: number[] = [];
    const check: number[] = [];
    const requests: number[] = [];
    await checkVisibility('https://site.test/', { hostMap }); // starts the analysis threads
    for (let i = 0; i < 5; i++) {
      chain.push(await timed(chainOnce));
      const before = site.requests.length;
      check.push(await timed(() => checkVisibility('https://site.test/', { hostMap })));
      requests.push(site.requests.length - before);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratio = median(check) / median(chain);
    console.log(`[bench] visibility check with ${LATENCY} ms per response, access probes on: ${median(check).toFixed(0)} ms; longest dependent chain (the page, then ${rounds} rounds of ${ACCESS_PROBE_CONCURRENCY} probes: ${1 + rounds} responses): ${median(chain).toFixed(0)} ms`);
    console.log(`[bench] requests per check: ${median(requests)} (${probes} of them probes; stated bound ${MAX_REQUESTS_PER_CHECK}, every redirect followed)`);
    console.log(`[bench] check wall time / longest chain ratio: ${ratio.toFixed(2)} (target <= 1.30)`);
    return { check: median(check), chain: median(chain), ratio, requests: median(requests) };
  } finally {
    if (renderer === undefined) delete process.env.RENDERER;
    else process.env.RENDERER = renderer;
    await site.close();
  }
}

/** (2) Extraction of a 512 KB page vs parse5.parse alone, both as native ESM (tsx would turn parse5 into slow CJS). */
export async function benchExtraction() {
  const outDir = path.join(ROOT, '.bench');
  fs.mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(ROOT, 'lib/checks/visibility/extract.ts')],
    bundle: true, format: 'esm', platform: 'node', packages: 'external', outfile: path.join(outDir, 'extract.mjs'), logLevel: 'silent',
  });
  const child = `
    import { parse } from 'parse5';
    import { extractPage } from './extract.mjs';
    const chunk = '<div class="card"><h2>Item</h2><p>Some words of text here, and a <a href="/x">link</a>.</p><script>var x = 1;</script></div>';
    let body = '';
    while (body.length < 512 * 1024) body += chunk;
    const page = '<!doctype html><html lang="en"><head><title>T</title><meta name="description" content="d"></head><body>' + body + '</body></html>';
    const headers = { headerAll: () => [] };
    const time = (fn) => { const t = performance.now(); fn(); return performance.now() - t; };
    for (let i = 0; i < 5; i++) { parse(page); extractPage(page, 'https://site.test/', headers, false); }
    const p = [], e = [];
    for (let i = 0; i < 15; i++) { p.push(time(() => parse(page))); e.push(time(() => extractPage(page, 'https://site.test/', headers, false))); }
    const med = (xs) => xs.sort((a, b) => a - b)[7];
    console.log(JSON.stringify({ parse: med(p), extract: med(e), bytes: page.length }));
  `;
  fs.writeFileSync(path.join(outDir, 'extract-bench.mjs'), child);
  const { stdout } = await run(process.execPath, [path.join(outDir, 'extract-bench.mjs')], { cwd: ROOT });
  const r = JSON.parse(stdout) as { parse: number; extract: number; bytes: number };
  const ratio = r.extract / r.parse;
  console.log(`[bench] ${Math.round(r.bytes / 1024)} KB page: parse5.parse ${r.parse.toFixed(1)} ms (baseline), extractPage ${r.extract.toFixed(1)} ms`);
  console.log(`[bench] extraction / parse5.parse ratio: ${ratio.toFixed(2)} (target <= 1.50)`);
  return { ...r, ratio };
}

/** (3) A 50 MB page: the checking process grows by less than 40 MB and reads no more than it needs. */
export async function benchHugePage() {
  const SIZE = 50 * 1024 * 1024;
  const site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html' }, stream: { bytes: SIZE, chunk: '<p>' + 'word '.repeat(200) + '</p>' } },
    '/small': { headers: { 'content-type': 'text/html' }, body: html(1000) },
    '/robots.txt': { status: 404, body: '' },
  });
  try {
    const child = `
      import { checkVisibility, MAX_REQUESTS_PER_CHECK } from '@/lib/checks/visibility/check';
import { ACCESS_PROBE_CONCURRENCY, PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
      // Warm up on a small page first so lazily loaded modules and JIT code are not counted as the page's cost.
      await checkVisibility('https://site.test/small', { hostMap: process.env.MAP });
      globalThis.gc?.();
      const base = process.memoryUsage().rss;
      let peak = base;
      const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
      const { report } = await checkVisibility('https://site.test/', { hostMap: process.env.MAP });
      peak = Math.max(peak, process.memoryUsage().rss);
      clearInterval(timer);
      console.log(JSON.stringify({ growth: peak - base, truncated: report.page.truncated }));
    `;
    const file = path.join(ROOT, '.bench', 'huge-page.mts');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, child);
    const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', file], { cwd: ROOT, env: { ...process.env, MAP: site.hostMap(HOSTS) } });
    const r = JSON.parse(stdout.trim().split('\n').pop()!) as { growth: number; truncated: boolean };
    const written = site.log.filter((l) => l.path === '/').reduce((n, l) => n + l.bytesWritten, 0);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    console.log(`[bench] 50 MB page: process grew ${mb(r.growth)} MB (target < 40), server wrote ${mb(written)} MB of ${mb(SIZE)} (${((written / SIZE) * 100).toFixed(1)}%), truncated=${r.truncated}`);
    return { growth: r.growth, written, truncated: r.truncated };
  } finally {
    await site.close();
  }
}

/**
 * (3b) Reading 2 MiB instead of 512 KiB: the heap a parsed page holds (the tree extraction walks) and the time of
 * extractPage, for a page of news-like markup at 2 MiB against the same markup at 512 KiB, as ratios (a linear
 * parse gives about 4), with the nodes each builds against PARSE_MAX_NODES.
 */
export async function benchPageSize() {
  const child = `
    import { parseBounded, PARSE_MAX_NODES, PAGE_READ_MAX_BYTES } from '@/lib/checks/visibility/bounded-parse';
    import { extractPage } from '@/lib/checks/visibility/extract';
    const story = '<div class="story"><h2><a href="/news/2026/11/25/story">Storm warning issued for coastal areas</a></h2><p>Forecasters have issued an amber warning for <b>strong winds</b> along the coast, <a href="/weather">see the forecast</a>.</p><img src="/img/storm.jpg" alt="Waves"></div> ';
    const page = (bytes: number) => { let body = '<!doctype html><html lang="en"><head><title>News</title></head><body>'; while (body.length < bytes - 20) body += story; return body + '</body></html>'; };
    const headers = { headerAll: () => [] as string[] };
    const measure = (html: string) => {
      globalThis.gc!();
      const base = process.memoryUsage().heapUsed;
      const parsed = parseBounded(html);
      const held = process.memoryUsage().heapUsed - base;
      const t = performance.now();
      extractPage(html, 'https://news.test/', headers, false);
      const ms = performance.now() - t;
      return { held, ms, nodes: parsed.nodes, limitHit: parsed.limitHit };
    };
    measure(page(64 * 1024)); // warm-up: JIT and lazily loaded modules
    const small = measure(page(512 * 1024));
    const big = measure(page(PAGE_READ_MAX_BYTES));
    console.log(JSON.stringify({ small, big, maxNodes: PARSE_MAX_NODES }));
  `;
  const file = path.join(ROOT, '.bench', 'page-size.mts');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, child);
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', file], { cwd: ROOT });
  type M = { held: number; ms: number; nodes: number; limitHit: unknown };
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as { small: M; big: M; maxNodes: number };
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  const memoryRatio = r.big.held / r.small.held;
  const timeRatio = r.big.ms / r.small.ms;
  console.log(`[bench] 512 KiB page (baseline): tree ${mb(r.small.held)} MB, ${r.small.nodes} nodes, extractPage ${r.small.ms.toFixed(0)} ms`);
  console.log(`[bench] 2 MiB page: tree ${mb(r.big.held)} MB, ${r.big.nodes} nodes (limit ${r.maxNodes}${r.big.limitHit ? ', reached' : ''}), extractPage ${r.big.ms.toFixed(0)} ms`);
  console.log(`[bench] 2 MiB / 512 KiB ratios: memory ${memoryRatio.toFixed(2)}, time ${timeRatio.toFixed(2)} (linear: about 4)`);
  return { memoryRatio, timeRatio, small: r.small, big: r.big };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** (4) A site whose robots.txt, sitemap and llms.txt are the worst inputs found, vs the same page with plain files. */
export async function benchHostileSite() {
  const routes = hostileRoutes();
  const site = await startFixtureSite({
    ...routes,
    '/plain/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
  });
  const plainSite = await startFixtureSite({
    [HOSTILE_PAGE_PATH]: routes[HOSTILE_PAGE_PATH],
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private/\n' },
    '/sitemap.xml': { headers: { 'content-type': 'application/xml' }, body: '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>' },
    '/llms.txt': { headers: { 'content-type': 'text/plain' }, body: '# Site\n\n> About.\n\n## Docs\n\n- [a](https://site.test/a)\n' },
    '/llms-full.txt': { status: 404, body: '' },
  });
  try {
    const url = `https://site.test${HOSTILE_PAGE_PATH}`;
    const hostile: number[] = [];
    const plain: number[] = [];
    await checkVisibility(url, { hostMap: plainSite.hostMap(HOSTS) }); // starts the analysis threads
    for (let i = 0; i < 5; i++) {
      plain.push(await timed(() => checkVisibility(url, { hostMap: plainSite.hostMap(HOSTS) })));
      hostile.push(await timed(() => checkVisibility(url, { hostMap: site.hostMap(HOSTS) })));
    }
    const ratio = median(hostile) / median(plain);
    console.log(`[bench] hostile site files (500 KiB robots.txt of "Disallow: /*ab", backtracking sitemap and llms.txt): check ${median(hostile).toFixed(0)} ms; same page, plain files (baseline): ${median(plain).toFixed(0)} ms`);
    console.log(`[bench] hostile / plain check time ratio: ${ratio.toFixed(2)} (target <= 10.00: the hostile files are 500 KiB to fetch and parse; parsers that backtrack or rescan take 45 s to hours on them)`);
    return { hostile: median(hostile), plain: median(plain), ratio };
  } finally {
    await site.close();
    await plainSite.close();
  }
}

/** (5) The costliest robots.txt still matched (just under ROBOTS_MATCH_BUDGET) vs parsing that file. */
export async function benchRobotsWorstCase() {
  const rules = HOSTILE_ROBOTS.split('\n').length - 2;
  // The longest path of `a`s whose estimated cost stays within the budget: every rule scans all of it.
  const path = '/' + 'a'.repeat(Math.floor(ROBOTS_MATCH_BUDGET / rules) - 2);
  const access = robotsFromResponse(200, HOSTILE_ROBOTS);
  const parse: number[] = [];
  const match: number[] = [];
  for (let i = 0; i < 7; i++) {
    parse.push(await timed(() => parseRobotsTxt(HOSTILE_ROBOTS)));
    match.push(await timed(() => decideCrawlers(access, path)));
  }
  if (decideCrawlers(access, path).access.state !== 'found') throw new Error('the bench path is over the budget');
  const ratio = median(match) / median(parse);
  console.log(`[bench] robots.txt of ${rules} "Disallow: /*ab" rules: parse ${median(parse).toFixed(0)} ms (baseline); all 16 crawlers decided on a ${path.length}-character path at the work budget: ${median(match).toFixed(0)} ms`);
  console.log(`[bench] worst matched robots.txt / parse ratio: ${ratio.toFixed(2)} (target <= 3.00)`);
  return { parse: median(parse), match: median(match), ratio };
}

/** (6) The analysis of a 512 KB page on the worker pool vs the same analysis on the calling thread. */
export async function benchAnalysisPool() {
  const chunk = '<div class="card"><h2>Item</h2><p>Some words of text here, and a <a href="/x">link</a>.</p></div>';
  let body = '';
  while (body.length < 512 * 1024) body += chunk;
  const page = {
    url: 'https://site.test/',
    status: 200,
    headers: [['content-type', 'text/html']] as Array<[string, string]>,
    body: `<!doctype html><html lang="en"><head><title>T</title></head><body>${body}</body></html>`,
    truncated: false,
    redirects: 0,
  };
  const file = (text: string) => ({ status: 200, contentType: 'text/plain', body: text, bytesRead: text.length, truncated: false });
  const files = {
    robots: file('User-agent: *\nDisallow: /private/\n'),
    sitemap: { ...file('<urlset></urlset>'), url: 'https://site.test/sitemap.xml' },
    llms: file('# Site\n\n> About.\n'),
    llmsFull: { status: 404, contentType: null, body: '', bytesRead: 0, truncated: false },
    sitemapChild: null,
    llmsLinks: [],
    tdmrep: { status: 404, contentType: null, body: '', bytesRead: 0, truncated: false },
    httpRedirectsToHttps: true,
  };
  await analyse({ kind: 'site', page, files }); // starts the threads
  analyseSite(page, files);
  const local: number[] = [];
  const pooled: number[] = [];
  for (let i = 0; i < 9; i++) {
    local.push(await timed(() => analyseSite(page, files)));
    pooled.push(await timed(() => analyse({ kind: 'site', page, files })));
  }
  const ratio = median(pooled) / median(local);
  console.log(`[bench] analysis of a 512 KB page: on the calling thread ${median(local).toFixed(1)} ms (baseline), on the worker pool ${median(pooled).toFixed(1)} ms`);
  console.log(`[bench] worker pool / calling thread analysis ratio: ${ratio.toFixed(2)} (target <= 1.50)`);
  return { local: median(local), pooled: median(pooled), ratio };
}

/**
 * (7) A page whose markup would make the parser build millions of elements (50 unclosed <b> reopened in every
 * paragraph, bounded-parse.ts). The ratio: an ordinary check's time while 20 such pages are analysed at once on the
 * analysis pool, over its time alone. Beside it, for scale: the same check while 20 whole checks of the hostile page
 * run, and while 20 whole checks of an ordinary page of the same size run (the fetching of 20 large pages, which
 * costs the same whatever their markup); and the hostile page's analysis on an idle thread.
 */
export async function benchHostileMarkup() {
  const AT_ONCE = 20;
  const chunk = '<div class="card"><h2>Item</h2><p>Some words of text here, and a <a href="/x">link</a>.</p></div>';
  const ordinaryBody = `<!doctype html><html lang="en"><head><title>T</title></head><body>${chunk.repeat(Math.floor((500 * 1024) / chunk.length))}</body></html>`;
  const hostileBody = unclosedFormattingPage('b');
  const site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html' }, body: html(300) },
    '/hostile': { headers: { 'content-type': 'text/html' }, body: hostileBody },
    '/large': { headers: { 'content-type': 'text/html' }, body: ordinaryBody },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
  });
  const hostMap = site.hostMap(HOSTS);
  const check = (path: string) => checkVisibility(`https://site.test${path}`, { hostMap });
  const page = (body: string) => ({ url: 'https://site.test/', status: 200, headers: [['content-type', 'text/html']] as Array<[string, string]>, body, truncated: false, redirects: 0 });
  const notFetched = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
  const files = { robots: notFetched, sitemap: { ...notFetched, url: null }, sitemapChild: null, llms: notFetched, llmsFull: notFetched, llmsLinks: [], tdmrep: notFetched, httpRedirectsToHttps: null };
  /** The median time of 7 ordinary checks one after another (a failed one counts its time to failure), and how many failed. */
  const ordinaryChecks = async () => {
    const times: number[] = [];
    let failed = 0;
    for (let i = 0; i < 7; i++) times.push(await timed(() => check('/').catch(() => failed++)));
    return { time: median(times), failed };
  };
  /** The ordinary check's median time while AT_ONCE copies of `one` are kept in flight; and how many of them ended truncated. */
  const underLoad = async (one: () => Promise<boolean>) => {
    let loading = true;
    let truncated = 0;
    let other = 0;
    const loop = async () => {
      while (loading) {
        if (await one().catch(() => false)) truncated++;
        else other++;
      }
    };
    const load = Array.from({ length: AT_ONCE }, loop);
    await new Promise((resolve) => setTimeout(resolve, 300)); // let the load fill the threads
    const { time, failed } = await ordinaryChecks();
    loading = false;
    await Promise.all(load);
    return { time, failed, truncated, other };
  };
  try {
    await check('/'); // starts the analysis threads
    const { time: alone } = await ordinaryChecks();
    const analyses = await underLoad(async () => (await analyse({ kind: 'site', page: page(hostileBody), files })).page.truncated);
    const hostileChecks = await underLoad(async () => (await check('/hostile')).report.page.truncated);
    const largeChecks = await underLoad(async () => (await check('/large')).report.page.truncated);

    // The analysis alone, one task at a time on an idle thread: the thread time of each page.
    const hostileThread: number[] = [];
    const ordinaryThread: number[] = [];
    for (let i = 0; i < 7; i++) {
      hostileThread.push(await timed(() => analyse({ kind: 'site', page: page(hostileBody), files })));
      ordinaryThread.push(await timed(() => analyse({ kind: 'site', page: page(ordinaryBody), files })));
    }
    const ratio = analyses.time / alone;
    const kb = (body: string) => Math.round(body.length / 1024);
    const failures = (l: { failed: number }) => (l.failed ? `, ${l.failed} of 7 failed` : '');
    console.log(`[bench] ordinary check alone (baseline): ${alone.toFixed(0)} ms; while ${AT_ONCE} hostile-markup pages (${kb(hostileBody)} KiB) are analysed at once: ${analyses.time.toFixed(0)} ms${failures(analyses)} (${analyses.truncated} analyses reported truncated meanwhile, ${analyses.other} not)`);
    console.log(`[bench] ordinary check while ${AT_ONCE} hostile pages are analysed / alone ratio: ${ratio.toFixed(2)} (target <= 2.00)`);
    console.log(`[bench] for scale, the ordinary check while ${AT_ONCE} whole checks run: of the hostile page ${hostileChecks.time.toFixed(0)} ms (${(hostileChecks.time / alone).toFixed(2)}x alone${failures(hostileChecks)}), of an ordinary ${kb(ordinaryBody)} KB page ${largeChecks.time.toFixed(0)} ms (${(largeChecks.time / alone).toFixed(2)}x alone${failures(largeChecks)})`);
    console.log(`[bench] analysis thread time on an idle thread: hostile-markup page ${median(hostileThread).toFixed(1)} ms, ordinary ${kb(ordinaryBody)} KB page (baseline) ${median(ordinaryThread).toFixed(1)} ms, ratio ${(median(hostileThread) / median(ordinaryThread)).toFixed(2)} (the hostile page must stay under 1 s; unbounded, it ran to the 5 s deadline)`);
    return { alone, analyses, hostileChecks, largeChecks, ratio, hostileThread: median(hostileThread), ordinaryThread: median(ordinaryThread) };
  } finally {
    await site.close();
  }
}
