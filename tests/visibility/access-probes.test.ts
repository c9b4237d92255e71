// The live access probes end to end: fixture sites on 127.0.0.1 that answer some crawler user agents
// differently (a WAF, a challenge, pay-per-crawl, a rate limit, another page, a reset), read back from
// the report's crawler items, site.access and the crawler-blocked-by-server finding.
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { checkVisibility, type VisibilityReport } from '@/lib/checks/visibility/check';
import { BROWSER_USER_AGENT, CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { ACCESS_PROBE_CONCURRENCY, PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
import type { LookupFn } from '@/lib/outbound/safe-fetch';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';
import { goodPage, goodRoutes, httpsOnly, text } from './fixture-pages';

const HOSTS = ['site.test', 'www.site.test'];
const sites: FixtureSite[] = [];

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

const OPEN_ROBOTS = 'User-agent: *\nAllow: /\n';
const PAGE = { body: goodPage('https://site.test/guide') };

/** The page as served to each user agent: the first entry whose token the User-Agent names (token + "/"), else the page. */
function byAgent(special: Record<string, FixtureResponse>, fallback: FixtureResponse = PAGE): FixtureRoute {
  return httpsOnly((req: IncomingMessage) => {
    const ua = (req.headers['user-agent'] ?? '').toLowerCase();
    const hit = Object.keys(special).find((token) => ua.includes(`${token.toLowerCase()}/`));
    return hit ? special[hit] : fallback;
  });
}

async function check(page: FixtureRoute, options: { robots?: string; budgetMs?: number; lookup?: LookupFn } = {}) {
  const site = await startFixtureSite(goodRoutes({ '/guide': page, '/robots.txt': text(options.robots ?? OPEN_ROBOTS) }));
  sites.push(site);
  const { report } = await checkVisibility('https://site.test/guide', {
    hostMap: site.hostMap(HOSTS),
    ...(options.budgetMs ? { budgetMs: options.budgetMs } : {}),
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  return { report, site };
}

const accessOf = (report: VisibilityReport, token: string) => report.crawlers.find((c) => c.token === token)!.access;
const uaOf = (token: string) => CRAWLERS.find((c) => c.token === token)!.userAgent;
const finding = (report: VisibilityReport) => report.findings.find((f) => f.id === 'crawler-blocked-by-server');

describe('access probes: what each crawler gets', () => {
  it('every crawler that sends requests gets the page: ok, with the string it was sent as', async () => {
    const { report, site } = await check(byAgent({}));
    for (const c of report.crawlers) {
      const crawler = CRAWLERS.find((x) => x.token === c.token)!;
      if (crawler.tokenOnly) expect(c.access).toEqual({ outcome: 'not-probed', status: null, userAgent: null });
      else expect(c.access).toEqual({ outcome: 'ok', status: 200, userAgent: crawler.userAgent });
    }
    expect(report.site.access).toEqual({
      browserStatus: 200,
      browserUserAgent: BROWSER_USER_AGENT,
      probes: 14,
      // The tests run without WEB_BOT_AUTH_KEY: nothing is signed, and the unsigned repeat is not sent.
      signedAgent: { signed: false, signedStatus: null, unsignedStatus: null, differs: null, words: 'Not compared: this service has no Web Bot Auth key set up, so its requests were not signed.' },
    });
    expect(finding(report)).toBeUndefined();
    // The user agents the server saw on the page: ours three times (the page, the page as Markdown, the one
    // llms.txt link), the browser once, each probed crawler once.
    const agents = site.log.filter((l) => l.path === '/guide').map((l) => l.headers['user-agent']);
    expect(agents).toHaveLength(18);
    expect(new Set(agents).size).toBe(16);
    expect(agents).toEqual(expect.arrayContaining([BROWSER_USER_AGENT, ...PROBED_CRAWLERS.map((c) => c.userAgent)]));
  });

  it('a WAF that answers one crawler 403 marks it blocked and raises a high finding for a search crawler', async () => {
    const { report } = await check(byAgent({ bingbot: { status: 403, headers: { server: 'AkamaiGHost' }, body: '<title>Access Denied</title>' } }));
    expect(accessOf(report, 'Bingbot')).toEqual({ outcome: 'blocked', status: 403, userAgent: uaOf('Bingbot'), verification: 'unverified-user-agent' });
    expect(accessOf(report, 'Googlebot').outcome).toBe('ok');
    expect(accessOf(report, 'Googlebot').verification).toBeUndefined();
    expect(finding(report)).toMatchObject({
      severity: 'high',
      rubric: null,
      pointsLost: 0,
      observed: 'The browser baseline got 200, but robots.txt allows and the server refused: Bingbot: blocked, answered 403 with server: AkamaiGHost',
    });
    expect(finding(report)!.fix).toMatch(/CDN's bot settings.*WAF's AI-bot.*pay-per-crawl/);
    expect(finding(report)!.why).toContain('Our requests only claimed to be the crawlers (access.verification unverified-user-agent): the real ones, from their published addresses or with a Web Bot Auth signature, may be treated otherwise.');
    expect(finding(report)!.why.length).toBeLessThanOrEqual(640);
  });

  it('a cf-mitigated: challenge answer is a challenge, not a block', async () => {
    const { report } = await check(byAgent({ 'Claude-SearchBot': { status: 403, headers: { 'cf-mitigated': 'challenge' }, body: '<title>Just a moment...</title>' } }));
    expect(accessOf(report, 'Claude-SearchBot')).toMatchObject({ outcome: 'challenge', status: 403 });
    expect(finding(report)!.observed).toContain('Claude-SearchBot: challenge, answered 403, cf-mitigated: challenge (Cloudflare)');
  });

  it('a 402 with crawler-price is payment-required and quotes the price', async () => {
    const { report } = await check(byAgent({ PerplexityBot: { status: 402, headers: { 'crawler-price': 'USD 0.01' }, body: '' } }));
    expect(accessOf(report, 'PerplexityBot')).toMatchObject({ outcome: 'payment-required', status: 402 });
    expect(finding(report)).toMatchObject({ severity: 'high' });
    expect(finding(report)!.observed).toContain('PerplexityBot: payment-required, answered 402 with crawler-price: USD 0.01');
  });

  it('a 429 for a training crawler is rate-limited, and training alone makes the finding medium', async () => {
    const { report } = await check(byAgent({ CCBot: { status: 429, headers: { 'retry-after': '3600' }, body: 'slow down' } }));
    expect(accessOf(report, 'CCBot')).toMatchObject({ outcome: 'rate-limited', status: 429 });
    expect(finding(report)).toMatchObject({ severity: 'medium', observed: 'The browser baseline got 200, but robots.txt allows and the server refused: CCBot: rate-limited, answered 429 with retry-after: 3600' });
  });

  it('another page for one user agent is different: another title, or most of the text missing', async () => {
    const { report } = await check(
      byAgent({
        'OAI-SearchBot': { body: '<!doctype html><title>Please enable JavaScript</title><p>This site needs JavaScript.</p>' },
        'Meta-ExternalAgent': { body: goodPage('https://site.test/guide').replace(/word(\d+) /g, (w, n) => (Number(n) < 200 ? '' : w)) },
      }),
    );
    expect(accessOf(report, 'OAI-SearchBot')).toMatchObject({ outcome: 'different', status: 200 });
    expect(accessOf(report, 'Meta-ExternalAgent')).toMatchObject({ outcome: 'different', status: 200 });
    const observed = finding(report)!.observed;
    expect(observed).toContain('OAI-SearchBot: different, answered 200 with the title "please enable javascript" where the browser got "the complete guide to widgets"');
    expect(observed).toMatch(/Meta-ExternalAgent: different, answered 200 with \d+ words where the browser got \d+/);
  });

  it('a connection reset for one user agent, while the browser gets the page, is blocked with no status', async () => {
    const { report } = await check(byAgent({ GPTBot: { reset: true } }));
    expect(accessOf(report, 'GPTBot')).toEqual({ outcome: 'blocked', status: null, userAgent: uaOf('GPTBot'), verification: 'unverified-user-agent' });
    expect(finding(report)!.observed).toContain('GPTBot: blocked, the connection was reset or refused');
  });

  it('a 5xx and a probe that never answers within the budget are errors, not refusals', async () => {
    const { report } = await check(byAgent({ Applebot: { status: 503, body: 'down' }, 'Claude-User': { hang: true } }), { budgetMs: 3_000 });
    expect(accessOf(report, 'Applebot')).toMatchObject({ outcome: 'error', status: 503 });
    expect(accessOf(report, 'Claude-User')).toMatchObject({ outcome: 'error', status: null });
    expect(finding(report)).toBeUndefined();
  });

  it('the site that scored 94 on robots.txt alone: GPTBot 403, ClaudeBot challenged, PerplexityBot asked to pay, CCBot rate-limited', async () => {
    const { report } = await check(
      byAgent({
        GPTBot: { status: 403, headers: { server: 'cloudflare' }, body: 'Forbidden' },
        ClaudeBot: { status: 403, headers: { 'cf-mitigated': 'challenge', server: 'cloudflare' }, body: '<!doctype html><title>Just a moment...</title><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script>' },
        PerplexityBot: { status: 402, headers: { 'crawler-price': 'USD 0.01', server: 'cloudflare' }, body: '' },
        CCBot: { status: 429, headers: { 'retry-after': '60', server: 'cloudflare' }, body: '' },
      }),
    );
    expect(report.crawlers.every((c) => c.allowed)).toBe(true);
    const outcomes = Object.fromEntries(report.crawlers.map((c) => [c.token, c.access.outcome]));
    expect(outcomes).toEqual({
      Googlebot: 'ok',
      Bingbot: 'ok',
      Applebot: 'ok',
      'OAI-SearchBot': 'ok',
      'ChatGPT-User': 'ok',
      GPTBot: 'blocked',
      'Claude-SearchBot': 'ok',
      'Claude-User': 'ok',
      ClaudeBot: 'challenge',
      PerplexityBot: 'payment-required',
      'Perplexity-User': 'ok',
      'Google-Agent': 'ok',
      'Google-Extended': 'not-probed',
      'Applebot-Extended': 'not-probed',
      CCBot: 'rate-limited',
      'Meta-ExternalAgent': 'ok',
    });
    expect(report.crawlers.filter((c) => c.access.status !== 200 && c.access.status !== null).map((c) => [c.token, c.access.status])).toEqual([
      ['GPTBot', 403],
      ['ClaudeBot', 403],
      ['PerplexityBot', 402],
      ['CCBot', 429],
    ]);
    expect(finding(report)).toEqual({
      id: 'crawler-blocked-by-server',
      severity: 'high',
      rubric: null,
      pointsLost: 0,
      observed:
        'The browser baseline got 200, but robots.txt allows and the server refused: GPTBot: blocked, answered 403 with server: cloudflare; ' +
        'ClaudeBot: challenge, answered 403, cf-mitigated: challenge (Cloudflare); ' +
        'PerplexityBot: payment-required, answered 402 with crawler-price: USD 0.01, server: cloudflare; ' +
        'CCBot: rate-limited, answered 429 with retry-after: 60, server: cloudflare',
      why: expect.stringContaining('robots.txt lets GPTBot, ClaudeBot, PerplexityBot, CCBot fetch this page'),
      fix: expect.stringContaining('pay-per-crawl'),
    });
  });

  it('a crawler that robots.txt disallows and the server refuses is consistent: info only', async () => {
    const { report } = await check(byAgent({ GPTBot: { status: 403, body: 'no' } }), { robots: 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n' });
    expect(accessOf(report, 'GPTBot')).toMatchObject({ outcome: 'blocked', status: 403 });
    expect(finding(report)).toMatchObject({ severity: 'info', observed: 'The browser baseline got 200; robots.txt also disallows, consistently: GPTBot: blocked, answered 403' });
  });

  it('no finding when the browser baseline is refused too: the server did not single out crawlers', async () => {
    const refuseBrowser = byAgent({ GPTBot: { status: 403, body: 'no' } });
    const page: FixtureRoute = (req) => (req.headers['user-agent'] === BROWSER_USER_AGENT ? { status: 403, body: 'no' } : (refuseBrowser as (r: IncomingMessage) => FixtureResponse)(req));
    const { report } = await check(page);
    expect(report.site.access.browserStatus).toBe(403);
    expect(accessOf(report, 'GPTBot').outcome).toBe('blocked');
    expect(finding(report)).toBeUndefined();
  });

  it(`sends at most ${ACCESS_PROBE_CONCURRENCY} probes to the host at once`, async () => {
    let inFlight = 0;
    let most = 0;
    const slow: FixtureRoute = httpsOnly((req) => {
      if ((req.headers['user-agent'] ?? '').startsWith('PaidAgentChecks/')) return PAGE;
      inFlight++;
      most = Math.max(most, inFlight);
      // Counted down when the answer leaves: 300 ms later.
      setTimeout(() => inFlight--, 300);
      return { ...PAGE, delayMs: 300 };
    });
    await check(slow);
    expect(most).toBe(ACCESS_PROBE_CONCURRENCY);
  });
});

describe('access probes: the SSRF guard still holds', () => {
  it('a probe redirected to 127.0.0.1 (not in the host map) is refused before any request reaches it', async () => {
    const inside = await startFixtureSite({ '/': { body: 'internal' } });
    sites.push(inside);
    const { report } = await check(byAgent({ GPTBot: { status: 302, redirect: `http://127.0.0.1:${inside.port}/` } }));
    expect(accessOf(report, 'GPTBot')).toEqual({ outcome: 'error', status: null, userAgent: uaOf('GPTBot') });
    expect(inside.requests).toEqual([]);
  });

  it('a probe redirected to a name that resolves to a private address is refused', async () => {
    // Had the guard let it through, connecting to 127.0.0.1:443 would fail as a reset/refused connection: blocked.
    const { report } = await check(byAgent({ ClaudeBot: { status: 302, redirect: 'https://rebind.example/' } }), {
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(accessOf(report, 'ClaudeBot')).toEqual({ outcome: 'error', status: null, userAgent: uaOf('ClaudeBot') });
  });
});
