// Hostile site files: each is answered with a report in linear time, and a
// parse that runs away anyway is stopped on its worker thread, not on the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isSitemapDocument, runAnalysisTask, type AnalysisResult, type AnalysisTask } from '@/lib/checks/visibility/analysis';
import { analysisPool, replaceAnalysisPool } from '@/lib/checks/visibility/analysis-pool';
import { checkVisibility, SiteUnreachable } from '@/lib/checks/visibility/check';
import { decideCrawlers } from '@/lib/checks/visibility/crawlers';
import { parseRobotsTxt, robotsFromResponse, ROBOTS_MATCH_BUDGET, type RobotsAccess } from '@/lib/checks/visibility/robots';
import { assessLlmsTxt } from '@/lib/checks/visibility/rubric';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { createWorkerPool, TaskDeadlineError, TaskQueueTimeoutError, TaskThreadError, type WorkerPool } from '@/lib/worker-pool';
import { installTestRuntime, post } from '../support/runtime';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { HOSTILE_LLMS, HOSTILE_PAGE_PATH, HOSTILE_ROBOTS, HOSTILE_SITEMAP, hostileRoutes, NESTED_TABLES_PAGE, unclosedFormattingPage } from './hostile-site';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('ai-visibility');

// Whether the event loop stays free while analysis runs is shown by ordering, not by timing: an ordinary HTTP
// request to a tiny local server is sent as a task starts, and must be answered before that task settles. With the
// loop blocked while the task runs, the answer could only arrive after.
let probeServer: http.Server;
let probeUrl: string;
beforeAll(async () => {
  probeServer = http.createServer((_req, res) => res.end('pong'));
  await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
  probeUrl = `http://127.0.0.1:${(probeServer.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => probeServer.close(resolve));
});

/** Starts `work`, sends one ordinary request at once, and says whether it was answered before `work` settled. */
async function probedWhile<T>(work: () => Promise<T>): Promise<{ result: T; answeredFirst: boolean }> {
  const running = work();
  let answered = false;
  const probe = fetch(probeUrl).then(async (res) => {
    expect(await res.text()).toBe('pong');
    answered = true;
  });
  let answeredFirst = false;
  const result = await running.finally(() => {
    answeredFirst = answered;
  });
  await probe;
  return { result, answeredFirst };
}

type AnyPool = WorkerPool<AnalysisTask, AnalysisResult>;

const WORKER_POOL = path.join(__dirname, '../../lib/worker-pool.ts');

/**
 * A pool thread's script for `new Worker(script, { eval: true })`: `body` (plain JavaScript, `parentPort` in
 * scope) after `startupMs` of busy start-up, then the ready message every pool thread posts once it has loaded.
 */
function poolThread(body: string, startupMs = 0): string {
  return `
    require('tsx/cjs');
    const { parentPort } = require('node:worker_threads');
    const { announceReady } = require(${JSON.stringify(WORKER_POOL)});
    for (const end = Date.now() + ${startupMs}; Date.now() < end; ) {}
    ${body}
    announceReady(parentPort);`;
}

/**
 * Puts a pool in front of `pool` that probes the event loop as it runs each task (probedWhile), and returns what
 * each task kind showed: `{ kind, answeredFirst }` in the order the tasks settled.
 */
function probingPool(pool: AnyPool): { pool: AnyPool; seen: Array<{ kind: string; answeredFirst: boolean }> } {
  const seen: Array<{ kind: string; answeredFirst: boolean }> = [];
  return {
    seen,
    pool: {
      async run(task, options) {
        let failure: unknown = null;
        const { result, answeredFirst } = await probedWhile(() => pool.run(task, options).catch((e: unknown) => ((failure = e), null)));
        seen.push({ kind: task.kind, answeredFirst });
        if (failure) throw failure;
        return result!;
      },
      get started() {
        return pool.started;
      },
      close: () => pool.close(),
    },
  };
}

describe('sitemap root', () => {
  it('reads a prolog of 48 comments without a root in linear time, and still finds roots after any prolog', () => {
    expect(isSitemapDocument(200, HOSTILE_SITEMAP)).toBe(false);
    expect(isSitemapDocument(200, '<?a?> '.repeat(5_000))).toBe(false);
    expect(isSitemapDocument(200, HOSTILE_SITEMAP + '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>')).toBe(true);
    expect(isSitemapDocument(200, '\uFEFF<?xml version="1.0"?>\n<!-- a -- b --><!DOCTYPE x [ <!ENTITY e "]"> ]\n><sm:sitemapindex xmlns:sm="x">')).toBe(true);
    expect(isSitemapDocument(200, '<!doctype urlset><URLSET/>')).toBe(true);
    expect(isSitemapDocument(200, '<!DOCTYPE x [ never closed <urlset>')).toBe(false);
    expect(isSitemapDocument(200, '<?xml version="1.0"?><urlsetx>')).toBe(false);
    expect(isSitemapDocument(404, '<urlset>')).toBe(false);
  });
});

describe('llms.txt links', () => {
  it('searches a 16 KB line of unclosed links in linear time, and still finds a link', () => {
    expect(assessLlmsTxt(200, 'text/plain', HOSTILE_LLMS)).toMatchObject({ level: 'partial', problems: ['no H2 section with a [name](url) link list'] });
    expect(assessLlmsTxt(200, 'text/plain', HOSTILE_LLMS.replace(/\n$/, '[docs](https://site.test/docs)\n')).level).toBe('valid');
  });
});

describe('robots.txt matching work', () => {
  it('treats 500 KiB of "Disallow: /*ab" against a 1,900-character path as too costly: unreachable, with the measure', () => {
    const { access, crawlers } = decideCrawlers(robotsFromResponse(200, HOSTILE_ROBOTS), HOSTILE_PAGE_PATH);
    expect(access).toMatchObject({ state: 'unreachable', status: 200, robots: null, tooComplex: { rules: 34_000, pathLength: 1_900 } });
    expect((access as { tooComplex: { cost: number } }).tooComplex.cost).toBeGreaterThan(ROBOTS_MATCH_BUDGET);
    expect(crawlers).toHaveLength(16);
    for (const { verdict } of crawlers) {
      expect(verdict.allowed).toBe(false);
      expect(verdict.rule).toMatch(/34000 rules whose wildcards would need more matching work .* treated as unreachable/);
    }
  });

  it('matches the same file normally when the path is short, and a short file against the long path', () => {
    expect(decideCrawlers(robotsFromResponse(200, HOSTILE_ROBOTS), '/xab').crawlers[0]).toMatchObject({ verdict: { allowed: false, rule: 'Disallow: /*ab' }, line: 2 });
    expect(decideCrawlers(robotsFromResponse(200, 'User-agent: *\nDisallow: /*ab\n'), HOSTILE_PAGE_PATH).access.state).toBe('found');
  });

  it('decides crawlers that share their groups with one pass over the rules (plus the estimate), not one per crawler', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /private\nAllow: /private/ok\n\nUser-agent: GPTBot\nDisallow: /\n');
    const passes = new Map<number, number>();
    robots.groups.forEach((group, i) => {
      const rules = group.rules;
      group.rules = new Proxy(rules, {
        get(target, key, receiver) {
          if (key === Symbol.iterator) passes.set(i, (passes.get(i) ?? 0) + 1);
          return Reflect.get(target, key, receiver);
        },
      });
    });
    const access: RobotsAccess = { state: 'found', status: 200, robots };
    const { crawlers } = decideCrawlers(access, '/private/ok/x');
    expect(crawlers.find((c) => c.verdict.token === 'GPTBot')!.verdict.allowed).toBe(false);
    expect(crawlers.find((c) => c.verdict.token === 'ClaudeBot')).toMatchObject({ verdict: { allowed: true, rule: 'Allow: /private/ok' }, line: 3 });
    // 14 crawlers follow `*` and one follows GPTBot: each group is estimated once and matched once.
    expect(Object.fromEntries(passes)).toEqual({ 0: 2, 1: 2 });
  });
});

describe('a hostile site behind the check', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite(hostileRoutes());
  });
  afterAll(async () => {
    await site.close();
  });

  it('gets a report that names each hostile file, an ordinary request answered while each file is analysed', async () => {
    const probing = probingPool(analysisPool());
    const real = replaceAnalysisPool(probing.pool);
    let report;
    try {
      ({ report } = await checkVisibility(`https://site.test${HOSTILE_PAGE_PATH}`, { hostMap: site.hostMap(['site.test']) }));
    } finally {
      replaceAnalysisPool(real);
    }
    // The robots.txt is read in the sitemap plan and matched in the site's analysis, the two longest tasks.
    expect(probing.seen.filter((t) => t.kind === 'sitemap-plan' || t.kind === 'site')).toEqual([
      { kind: 'sitemap-plan', answeredFirst: true },
      { kind: 'site', answeredFirst: true },
    ]);
    expect(report.robotsTxt).toBe('unreachable');
    expect(report.site.robotsTxt).toMatchObject({ state: 'unreachable', status: 200 });
    expect(report.findings.map((f) => f.id)).toContain('robots-too-complex');
    expect(report.site.sitemapXml).toEqual({ url: 'https://site.test/sitemap.xml', status: 200, isSitemap: false });
    expect(report.llmsTxt).toBe('found');
    expect(report.scoring.find((s) => s.id === 'site.llms-txt')).toEqual({ id: 'site.llms-txt', points: 2, earned: 1 });
  });
});

describe('a page whose markup makes the parser build far more than the page (unclosed formatting, deep nesting)', () => {
  let site: FixtureSite;
  const html = (body: string) => ({ headers: { 'content-type': 'text/html' }, body });
  const PAGES: Record<string, string> = {
    '/b': unclosedFormattingPage('b'),
    '/a': unclosedFormattingPage('a'),
    '/i': unclosedFormattingPage('i'),
    '/font': unclosedFormattingPage('font'),
    '/tables': NESTED_TABLES_PAGE,
  };
  beforeAll(async () => {
    site = await startFixtureSite({
      ...Object.fromEntries(Object.entries(PAGES).map(([path, body]) => [path, html(body)])),
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    });
  });
  afterEach(() => {
    delete process.env.CHECK_HOST_MAP;
  });
  afterAll(async () => {
    await site.close();
  });

  it.each(Object.keys(PAGES))('%s: the check answers a report, the page truncated with the finding that names the parse limit', async (path) => {
    const { report } = await checkVisibility(`https://site.test${path}`, { hostMap: site.hostMap(['site.test']) });
    expect(report.status).toBe(200);
    expect(report.page.truncated).toBe(true);
    expect(report.page.title).toBe('Hostile markup');
    const ids = report.findings.map((f) => f.id);
    expect(ids).toContain('page-markup-too-complex');
    expect(ids).not.toContain('page-truncated');
  });

  it('behind the paid endpoint: 200 and charged one call, like any page that produced a report', async () => {
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    const rt = installTestRuntime();
    try {
      const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const res = await POST(post('http://localhost:3000/api/agent/ai-visibility', { url: 'https://site.test/b' }, { authorization: `Bearer ${key}` }));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { report: { page: { truncated: boolean }; findings: Array<{ id: string }> } };
      expect(body.report.page.truncated).toBe(true);
      expect(body.report.findings.map((f) => f.id)).toContain('page-markup-too-complex');
      expect((await balance(rt.store, keyHash)).callsLeft).toBe(24);
    } finally {
      await rt.dispose();
    }
  });
});

describe('the probe of the event loop', () => {
  it('sees a loop blocked by analysis run on it: the answer comes only after the analysis', async () => {
    const onTheLoop: AnyPool = {
      run: async (task) => runAnalysisTask(task),
      started: 0,
      close: async () => {},
    };
    const probing = probingPool(onTheLoop);
    const page = { url: 'https://site.test/', status: 200, headers: [], body: unclosedFormattingPage('b'), truncated: false, redirects: 0 };
    const notFetched = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
    const files = { robots: notFetched, sitemap: { ...notFetched, url: null }, sitemapChild: null, llms: notFetched, llmsFull: notFetched, llmsLinks: [], tdmrep: notFetched, httpRedirectsToHttps: null };
    await probing.pool.run({ kind: 'site', page, files }, {});
    expect(probing.seen).toEqual([{ kind: 'site', answeredFirst: false }]);
  });
});

describe('the analysis pool', () => {
  // A thread that answers every task at once, except `spin`, which it never finishes, and `sleep:<ms>`, which
  // holds the thread that long without using a core (as a thread that a busy machine does not schedule).
  const SPINNER_BODY = `
    parentPort.on('message', ({ id, task }) => {
      if (task === 'spin') for (;;) {}
      if (task.startsWith('sleep:')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(task.slice(6)));
      parentPort.postMessage({ id, ok: true, value: task });
    });`;
  const SPINNER = poolThread(SPINNER_BODY);
  // A machine running the suites on two cores can give a thread less than a quarter of a core, so tests of the
  // processor-time budget set a wall-clock backstop far out of reach: what stops their tasks is the budget alone.
  const BACKSTOP_OUT_OF_REACH_MS = 60_000;
  const spinningPool = (cpuBudgetMs: number, wallDeadlineMs: number = BACKSTOP_OUT_OF_REACH_MS) =>
    createWorkerPool<string, string>({ start: () => new Worker(SPINNER, { eval: true }), size: 1, cpuBudgetMs, wallDeadlineMs });

  it('terminates a task at its deadline, replaces the thread, and runs the next task, the event loop free throughout', async () => {
    const pool = spinningPool(300);
    try {
      const { result, answeredFirst } = await probedWhile(() => pool.run('spin').then(() => 'finished', (e: unknown) => e));
      expect(result).toBeInstanceOf(TaskDeadlineError);
      expect(answeredFirst).toBe(true);
      expect(pool.started).toBe(1);
      expect(await pool.run('next')).toBe('next');
      expect(pool.started).toBe(2);
      expect(await pool.run('again')).toBe('again');
      expect(pool.started).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('gives up a task that waits for a thread past its queue deadline, unrun, before the running task ends, and runs the next', async () => {
    const pool = createWorkerPool<string, string>({ start: () => new Worker(SPINNER, { eval: true }), size: 1, cpuBudgetMs: 2_000, queueDeadlineMs: 100 });
    try {
      const settled: string[] = [];
      const first = pool.run('spin').then(
        () => 'finished',
        (e: unknown) => (settled.push('spin'), e),
      );
      const waiting = pool.run('waits').then(
        () => 'ran',
        (e: unknown) => (settled.push('waits'), e),
      );
      const waited = await waiting;
      expect(waited).toBeInstanceOf(TaskQueueTimeoutError);
      expect(waited).toMatchObject({ waitedMs: 100 });
      expect(await first).toBeInstanceOf(TaskDeadlineError);
      expect(settled).toEqual(['waits', 'spin']);
      // A task that finds a thread free does not wait, and so never meets the queue deadline.
      expect(await pool.run('next')).toBe('next');
    } finally {
      await pool.close();
    }
  });

  it('takes a queued task out when its caller gives up, and runs the others in turn', async () => {
    const pool = spinningPool(300);
    try {
      const controller = new AbortController();
      const first = pool.run('spin').catch((e: unknown) => e);
      const dropped = pool.run('dropped', { signal: controller.signal }).catch((e: unknown) => e);
      const kept = pool.run('kept');
      controller.abort(new Error('client went away'));
      expect(await dropped).toMatchObject({ message: 'client went away' });
      expect(await first).toBeInstanceOf(TaskDeadlineError);
      expect(await kept).toBe('kept');
    } finally {
      await pool.close();
    }
  });

  it("does not count a thread's start-up against its task: a thread that loads for longer than the budget runs a quick task", async () => {
    const pool = createWorkerPool<string, string>({ start: () => new Worker(poolThread(SPINNER_BODY, 1_500), { eval: true }), size: 1, cpuBudgetMs: 500, wallDeadlineMs: BACKSTOP_OUT_OF_REACH_MS });
    try {
      expect(await pool.run('quick')).toBe('quick');
      expect(pool.started).toBe(1);
      // The same thread, loaded, still stops a task that burns its budget.
      expect(await pool.run('spin').catch((e: unknown) => e)).toMatchObject({ name: 'TaskDeadlineError', limit: 'cpu', deadlineMs: 500 });
    } finally {
      await pool.close();
    }
  });

  it('counts the processor time a task uses, not the time it holds its thread: a task given no core past its budget completes, one that burns it is stopped', async () => {
    const pool = spinningPool(300);
    try {
      // 900 ms on the thread and almost no processor time: what an honest task sees on a machine too busy to run it.
      expect(await pool.run('sleep:900')).toBe('sleep:900');
      expect(pool.started).toBe(1);
      const stopped = await pool.run('spin').catch((e: unknown) => e);
      expect(stopped).toBeInstanceOf(TaskDeadlineError);
      expect(stopped).toMatchObject({ limit: 'cpu', deadlineMs: 300, message: 'the task was stopped after 300 ms of processor time' });
    } finally {
      await pool.close();
    }
  });

  it('stops a task that holds its thread to the wall-clock backstop (4 × the budget), however little processor time it used, and replaces the thread', async () => {
    const pool = spinningPool(200, 800);
    try {
      expect(await pool.run('sleep:5000').catch((e: unknown) => e)).toMatchObject({ name: 'TaskDeadlineError', limit: 'wall', deadlineMs: 800 });
      expect(await pool.run('next')).toBe('next');
      expect(pool.started).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('fails a task whose thread cannot load as a start failure, not as one of its own', async () => {
    const pool = createWorkerPool<string, string>({ start: () => new Worker(poolThread(`throw new Error('broken module');`), { eval: true }), size: 1, cpuBudgetMs: 300 });
    try {
      const failed = await pool.run('quick').catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(TaskThreadError);
      expect(failed).toMatchObject({ starting: true, message: "the task's thread failed to start: broken module" });
    } finally {
      await pool.close();
    }
  });
});

describe('a check whose analysis runs away', () => {
  let site: FixtureSite;
  let real: ReturnType<typeof replaceAnalysisPool>;
  const runaway = createWorkerPool<unknown, unknown>({
    start: () => new Worker(poolThread(`parentPort.on('message', () => { for (;;) {} });`), { eval: true }),
    size: 1,
    cpuBudgetMs: 300,
    // Out of reach on a busy machine, so the processor-time budget is what stops the runaway.
    wallDeadlineMs: 60_000,
  });
  beforeAll(async () => {
    site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html' }, body: '<title>ok</title>' } });
    real = replaceAnalysisPool(runaway as never);
  });
  beforeEach(() => {
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  });
  afterEach(() => {
    delete process.env.CHECK_HOST_MAP;
  });
  afterAll(async () => {
    replaceAnalysisPool(real);
    await runaway.close();
    await site.close();
  });

  it('fails a check cleanly, not counted as costly (the service is busy, the caller did nothing), when its analysis waits past the queue deadline behind a busy thread', async () => {
    const busy = createWorkerPool<unknown, unknown>({
      start: () => new Worker(poolThread(`parentPort.on('message', () => { for (;;) {} });`), { eval: true }),
      size: 1,
      cpuBudgetMs: 5_000,
      queueDeadlineMs: 100,
    });
    const previous = replaceAnalysisPool(busy as never);
    try {
      // The check's first two analysis steps start together: one takes the only thread, the other waits.
      const failure = await checkVisibility('https://site.test/', { hostMap: site.hostMap(['site.test']) }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(SiteUnreachable);
      expect(failure).toMatchObject({ message: "The service is busy: the site's files waited more than 0.1 s for analysis. Retry shortly.", costly: false });
    } finally {
      replaceAnalysisPool(previous);
      await busy.close();
    }
  });

  it('answers a key that loops such checks 429 after RATE_LIMIT_COSTLY_FAILURES (3) failures, before any work, nothing charged', async () => {
    const rt = installTestRuntime();
    try {
      expect(rt.config.RATE_LIMIT_COSTLY_FAILURES).toBe(3);
      const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const check = (bearer: string, ip = '203.0.113.7') =>
        POST(post('http://localhost:3000/api/agent/ai-visibility', { url: 'https://site.test/' }, { authorization: `Bearer ${bearer}`, 'x-forwarded-for': ip }));
      for (let i = 0; i < 3; i++) expect((await check(key)).status).toBe(422);
      const threads = runaway.started;
      const refused = await check(key);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const problem = (await refused.json()) as { type: string; detail: string };
      expect(problem.type).toBe(`${PROBLEM_BASE}rate-limited`);
      expect(problem.detail).toMatch(/^3 checks from this caller failed uncharged in the last 60 s \(their site never answered, or they used up their analysis time\), the most allowed in that window\. Retry in \d+ s\. Nothing was charged\.$/);
      // Refused before the work: no analysis ran, so no thread was stopped and replaced.
      expect(runaway.started).toBe(threads);
      expect((await balance(rt.store, keyHash)).callsLeft).toBe(25);
      // The same key from another address is still refused (its key's budget), and so is another key from this
      // address (the address's budget); another caller is not.
      const other = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      expect((await check(key, '198.51.100.9')).status).toBe(429);
      expect((await check(other.key)).status).toBe(429);
      expect((await check(other.key, '198.51.100.9')).status).toBe(422);
      expect(rt.logs.filter((l) => l.event === 'costly-failure')).toHaveLength(4);
    } finally {
      await rt.dispose();
    }
  });

  it('answers 422 site-unreachable, charges nothing, and the server keeps answering', async () => {
    const rt = installTestRuntime();
    try {
      const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const { result: res, answeredFirst } = await probedWhile(() =>
        POST(post('http://localhost:3000/api/agent/ai-visibility', { url: 'https://site.test/' }, { authorization: `Bearer ${key}` })),
      );
      expect(answeredFirst).toBe(true);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as { type: string; detail: string };
      expect(problem.type).toBe(`${PROBLEM_BASE}site-unreachable`);
      expect(problem.detail).toBe("The site's files took more than 0.3 s of processor time to analyse and were abandoned.");
      expect((await balance(rt.store, keyHash)).callsLeft).toBe(25);
    } finally {
      await rt.dispose();
    }
  });
});
