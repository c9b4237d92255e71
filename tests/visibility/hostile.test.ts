// Hostile site files: each is answered with a report in linear time, and a
// parse that runs away anyway is stopped on its worker thread, not on the server's event loop.
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POST } from '@/app/api/agent/ai-visibility/route';
import { isSitemapDocument } from '@/lib/checks/visibility/analysis';
import { replaceAnalysisPool } from '@/lib/checks/visibility/analysis-pool';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { decideCrawlers } from '@/lib/checks/visibility/crawlers';
import { parseRobotsTxt, robotsFromResponse, ROBOTS_MATCH_BUDGET, type RobotsAccess } from '@/lib/checks/visibility/robots';
import { assessLlmsTxt } from '@/lib/checks/visibility/rubric';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { createWorkerPool, TaskDeadlineError } from '@/lib/worker-pool';
import { installTestRuntime, post } from '../support/runtime';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { HOSTILE_LLMS, HOSTILE_PAGE_PATH, HOSTILE_ROBOTS, HOSTILE_SITEMAP, hostileRoutes } from './hostile-site';

/** Counts how often the event loop turns while `work` runs: zero means it was blocked throughout. */
async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  const timer = setInterval(() => turns++, 5);
  try {
    const result = await work();
    return { result, turns };
  } finally {
    clearInterval(timer);
  }
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
    expect(crawlers).toHaveLength(15);
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

  it('gets a report that names each hostile file, while the event loop keeps turning', async () => {
    const { result, turns } = await loopTurnsDuring(() => checkVisibility(`https://site.test${HOSTILE_PAGE_PATH}`, { hostMap: site.hostMap(['site.test']) }));
    const { report } = result;
    expect(turns).toBeGreaterThan(0);
    expect(report.robotsTxt).toBe('unreachable');
    expect(report.site.robotsTxt).toMatchObject({ state: 'unreachable', status: 200 });
    expect(report.findings.map((f) => f.id)).toContain('robots-too-complex');
    expect(report.site.sitemapXml).toEqual({ url: 'https://site.test/sitemap.xml', status: 200, isSitemap: false });
    expect(report.llmsTxt).toBe('found');
    expect(report.scoring.find((s) => s.id === 'site.llms-txt')).toEqual({ id: 'site.llms-txt', points: 2, earned: 1 });
  });
});

describe('the analysis pool', () => {
  // A thread that answers every task at once, except `spin`, which it never finishes.
  const SPINNER = `
    const { parentPort } = require('node:worker_threads');
    parentPort.on('message', ({ id, task }) => {
      if (task === 'spin') for (;;) {}
      parentPort.postMessage({ id, ok: true, value: task });
    });`;
  const spinningPool = (deadlineMs: number) =>
    createWorkerPool<string, string>({ start: () => new Worker(SPINNER, { eval: true }), size: 1, deadlineMs });

  it('terminates a task at its deadline, replaces the thread, and runs the next task, the event loop free throughout', async () => {
    const pool = spinningPool(300);
    try {
      const { result, turns } = await loopTurnsDuring(() => pool.run('spin').then(() => 'finished', (e: unknown) => e));
      expect(result).toBeInstanceOf(TaskDeadlineError);
      expect(turns).toBeGreaterThan(0);
      expect(pool.started).toBe(1);
      expect(await pool.run('next')).toBe('next');
      expect(pool.started).toBe(2);
      expect(await pool.run('again')).toBe('again');
      expect(pool.started).toBe(2);
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
});

describe('a check whose analysis runs away', () => {
  let site: FixtureSite;
  let real: ReturnType<typeof replaceAnalysisPool>;
  const runaway = createWorkerPool<unknown, unknown>({
    start: () => new Worker(`require('node:worker_threads').parentPort.on('message', () => { for (;;) {} });`, { eval: true }),
    size: 1,
    deadlineMs: 300,
  });
  beforeAll(async () => {
    site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html' }, body: '<title>ok</title>' } });
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    real = replaceAnalysisPool(runaway as never);
  });
  afterEach(() => {
    delete process.env.CHECK_HOST_MAP;
  });
  afterAll(async () => {
    replaceAnalysisPool(real);
    await runaway.close();
    await site.close();
  });

  it('answers 422 site-unreachable, charges nothing, and the server keeps answering', async () => {
    const rt = installTestRuntime();
    try {
      const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const { result: res, turns } = await loopTurnsDuring(() =>
        POST(post('http://localhost:3000/api/agent/ai-visibility', { url: 'https://site.test/' }, { authorization: `Bearer ${key}` })),
      );
      expect(turns).toBeGreaterThan(0);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as { type: string; detail: string };
      expect(problem.type).toBe(`${PROBLEM_BASE}site-unreachable`);
      expect(problem.detail).toBe("The site's files took more than 0.3 s to analyse and were abandoned.");
      expect((await balance(rt.store, keyHash)).callsLeft).toBe(25);
    } finally {
      await rt.dispose();
    }
  });
});
