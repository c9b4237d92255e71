// The comparison of a rendered DOM with the HTML as served (no browser needed), the renderer's settings, and
// `RENDERER=off npm run check`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { extractPage } from '@/lib/checks/visibility/extract';
import { wordsOf } from '@/lib/checks/visibility/words';
import { compareRendering, JS_ONLY_MIN_WORDS, type RenderCapture } from '@/lib/checks/visibility/render/compare';
import { createLimiter } from '@/lib/checks/visibility/render/browser';
import { resolveRendererSettings } from '@/lib/checks/visibility/render/settings';
import { VISIBILITY_LIMITS } from '@/lib/checks/visibility/rubric';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { spaRoutes } from './render-site';

const URL_ = 'https://site.test/';
const served = (body: string) => ({ url: URL_, headers: [['content-type', 'text/html']] as Array<[string, string]>, body, truncated: false });
const rendered = (html: string): RenderCapture => ({ state: 'rendered', html, webMcp: null, requests: 2, refused: 1, durationMs: 900 });
const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const doc = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('wordsOf: the words extractPage counts', () => {
  it.each([
    ['<p>Hello, <b>wor</b>ld - 42</p><li>a</li><li>b</li>', ['hello', 'world', '42', 'a', 'b']],
    ['<p>one</p><script>var x = "not words"</script><noscript>no</noscript><template>t</template><svg><text>s</text></svg><p>two</p>', ['one', 'two']],
    ['<title>Head</title><p>Ünïcode 日本語 — ok</p>', ['ünïcode', '日本語', 'ok']],
  ])('%s', (html, expected) => {
    const text: string[] = [];
    const facts = extractPage(html, URL_, { headerAll: () => [] }, false, text);
    expect(wordsOf(text)).toEqual(expected);
    expect(wordsOf(text)).toHaveLength(facts.wordCount);
  });
});

describe('compareRendering', () => {
  it('counts each served word once: repeated script-made words are script-only past the served copies', () => {
    const { rendering } = compareRendering(served(doc('<title>T</title>', '<p>price price</p>')), rendered(doc('<title>T</title>', `<p>${'price '.repeat(10)}</p>`)));
    expect(rendering).toEqual({ state: 'rendered', title: 'T', h1Count: 0, wordCount: 10, textLength: 59, jsOnlyShare: 0.8, requests: 2, refused: 1, durationMs: 900 });
  });

  it(`needs at least ${JS_ONLY_MIN_WORDS} rendered words and half of them script-only for content-needs-javascript`, () => {
    const shell = served(doc('<title>T</title>', '<div id="app"></div>'));
    const ids = (html: string) => compareRendering(shell, rendered(doc('<title>T</title>', html))).findings.map((f) => f.id);
    expect(ids(`<p>${words(99)}</p>`)).toEqual([]);
    expect(ids(`<p>${words(100)}</p>`)).toEqual(['content-needs-javascript']);
    const half = served(doc('<title>T</title>', `<p>${words(50)}</p>`));
    expect(compareRendering(half, rendered(doc('<title>T</title>', `<p>${words(50)} ${words(50, 'x')}</p>`))).findings.map((f) => f.id)).toEqual(['content-needs-javascript']);
    expect(compareRendering(half, rendered(doc('<title>T</title>', `<p>${words(50)} ${words(49, 'x')}</p>`))).findings).toEqual([]);
  });

  it('reports a noindex a script removes, a changed canonical and a title set only by script', () => {
    const before = served(doc('<meta name="robots" content="noindex"><link rel="canonical" href="https://site.test/a">', '<p>x</p>'));
    const after = rendered(doc('<title>Now</title><link rel="canonical" href="https://site.test/b">', '<p>x</p>'));
    const findings = compareRendering(before, after).findings;
    expect(findings.map((f) => [f.id, f.severity, f.observed])).toEqual([
      ['rendered-robots-differ', 'high', 'robots meta as served: robots: noindex; after JavaScript: (none)'],
      ['rendered-title-differs', 'medium', 'title as served: (none); after JavaScript: "Now"'],
      ['rendered-canonical-differs', 'medium', 'canonical as served: https://site.test/a (1 tag(s)); after JavaScript: https://site.test/b (1 tag(s))'],
    ]);
    expect(findings[0].why).toMatch(/^The HTML as served carries noindex and a script removes it/);
    expect(findings.every((f) => f.rubric === null && f.pointsLost === 0)).toBe(true);
  });

  it('reports no measures, and no findings, for a page that was not rendered', () => {
    const capture: RenderCapture = { state: 'skipped', reason: 'busy', html: null, webMcp: null, requests: 0, refused: 0, durationMs: 12 };
    expect(compareRendering(served('<p>x</p>'), capture)).toEqual({
      rendering: { state: 'skipped', reason: 'busy', title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null, requests: 0, refused: 0, durationMs: 12 },
      webMcp: null,
      findings: [],
    });
  });

  it('draws nothing from a partial rendering, whatever DOM it holds: the missing events pass through, no measures, no findings', () => {
    // A DOM cut off mid-load: no title, no text, as a page whose parser waited on a script reads.
    const capture: RenderCapture = { state: 'partial', reason: 'not loaded', missing: ['load'], html: '<html><head></head><body></body></html>', webMcp: null, requests: 1, refused: 0, durationMs: 12_000 };
    expect(compareRendering(served(`<title>News</title><h1>News</h1><p>${'word '.repeat(150)}</p>`), capture)).toEqual({
      rendering: { state: 'partial', reason: 'not loaded', missing: ['load'], title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null, requests: 1, refused: 0, durationMs: 12_000 },
      webMcp: null,
      findings: [],
    });
  });
});

describe('renderer settings', () => {
  const yes = () => true;
  const no = () => false;
  it('is on when an executable is found, off with the reason otherwise', () => {
    expect(resolveRendererSettings({}, yes)).toEqual({ mode: { on: true, executablePath: '/usr/bin/chromium' }, concurrency: 2, queue: 8, memoryMb: 512 });
    expect(resolveRendererSettings({}, no).mode).toEqual({ on: false, reason: 'Rendering is unavailable: no Chromium executable was found.' });
    expect(resolveRendererSettings({ RENDERER: 'chromium', CHROMIUM_PATH: '/opt/chrome' }, (f) => f === '/opt/chrome').mode).toEqual({ on: true, executablePath: '/opt/chrome' });
    expect(resolveRendererSettings({ CHROMIUM_PATH: '/nope' }, no).mode).toEqual({ on: false, reason: 'Rendering is unavailable: CHROMIUM_PATH (/nope) is not an executable file.' });
    expect(resolveRendererSettings({ RENDERER: 'OFF' }, yes).mode).toEqual({ on: false, reason: 'Rendering is turned off (RENDERER=off).' });
    expect(resolveRendererSettings({ RENDERER: 'firefox', RENDER_CONCURRENCY: '0' }, yes).mode).toEqual({ on: false, reason: 'Rendering is off: invalid setting (RENDERER, RENDER_CONCURRENCY).' });
  });

  it('a limiter grants up to its limit, queues up to its queue, refuses past both, and frees a waiter whose signal aborts', async () => {
    const limiter = createLimiter(1, 1);
    const never = new AbortController().signal;
    const first = await limiter.acquire('a', never);
    const waiting = new AbortController();
    const second = limiter.acquire('b', waiting.signal);
    expect(await limiter.acquire('c', never)).toBe('full');
    expect([limiter.running, limiter.waiting]).toEqual([1, 1]);
    waiting.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    const third = limiter.acquire('d', never);
    (first as () => void)();
    expect(typeof (await third)).toBe('function');
    expect([limiter.running, limiter.waiting]).toEqual([1, 0]);
  });

  it('a limiter gives each owner one slot at a time and serves waiting owners round robin, least recently served first', async () => {
    const limiter = createLimiter(2, 8);
    const never = new AbortController().signal;
    const order: string[] = [];
    const take = (owner: string, n: number) =>
      limiter.acquire(owner, never).then((slot) => {
        order.push(`${owner}${n}`);
        return slot as () => void;
      });
    const a1 = take('A', 1);
    const a = [2, 3, 4].map((n) => take('A', n));
    await a1;
    // A holds one slot and its other pages wait although the second slot is free.
    expect([limiter.running, limiter.waiting]).toEqual([1, 3]);
    const b1 = await take('B', 1);
    const b2 = take('B', 2);
    expect(order).toEqual(['A1', 'B1']);
    (await a1)();
    // A was served before B: B's second page is not next, A's second is (B still holds its slot).
    await a[0];
    b1();
    await b2;
    expect(order).toEqual(['A1', 'B1', 'A2', 'B2']);
    const c1 = take('C', 1);
    (await a[0])();
    // C has never been served: it goes before A's third page.
    await c1;
    expect(order).toEqual(['A1', 'B1', 'A2', 'B2', 'C1']);
  });

  it('a full queue gives the place of the newest waiter of the owner with most waiters to a new owner', async () => {
    const limiter = createLimiter(1, 2);
    const never = new AbortController().signal;
    await limiter.acquire('A', never);
    const a2 = limiter.acquire('A', never);
    const a3 = limiter.acquire('A', never);
    const b1 = limiter.acquire('B', never);
    expect(await a3).toBe('displaced');
    expect([limiter.running, limiter.waiting]).toEqual([1, 2]);
    // Now A and B wait one each: a third owner finds no one with more waiting than it would have.
    expect(await limiter.acquire('C', never)).toBe('full');
    void a2;
    void b1;
  });
});

describe('RENDERER=off npm run check', () => {
  let site: FixtureSite | null = null;
  afterEach(async () => {
    await site?.close();
    site = null;
  });

  it('reports rendering unavailable, with the reason, and today\'s limits', async () => {
    site = await startFixtureSite(spaRoutes());
    const root = path.resolve(__dirname, '../..');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/check.ts', 'https://site.test/'], {
      cwd: root,
      env: { ...process.env, RENDERER: 'off', CHECK_HOST_MAP: site.hostMap(['site.test']) },
    });
    const { report, limits } = JSON.parse(stdout) as { report: { page: { rendering: unknown } }; limits: string[] };
    expect(report.page.rendering).toEqual({
      state: 'unavailable',
      reason: 'Rendering is turned off (RENDERER=off).',
      title: null,
      h1Count: null,
      wordCount: null,
      textLength: null,
      jsOnlyShare: null,
      requests: 0,
      refused: 0,
      durationMs: 0,
    });
    expect(limits).toEqual([...VISIBILITY_LIMITS]);
    expect(site.log.map((r) => r.path)).not.toContain('/app.js');
  }, 90_000);
});
