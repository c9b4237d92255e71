// The visibility check is not a traffic amplifier. An attacker owning a wildcard domain (*.attacker.test) points
// checks at a victim every way a check can be pointed: its pages redirect to the victim, its probes are sent
// there by user agent, its llms.txt links and sitemap child live there, and its page's scripts fetch the victim.
// A counting victim server must receive no more than the per-domain budget a minute across all those checks,
// and one check no more than THIRD_PARTY_REQUESTS_PER_DOMAIN as a third party. A failing page costs one request.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility, OutboundBudgetSpent, SiteUnreachable, visibilityCheckDescription, type VisibilityResult } from '@/lib/checks/visibility/check';
import { addressKey, createOutboundGate, MAX_LOOKUPS_PER_CHECK, registrableDomain, THIRD_PARTY_REQUESTS_PER_DOMAIN, type OutboundTarget } from '@/lib/outbound/outbound';
import { FetchRefusedError, safeFetch } from '@/lib/outbound/safe-fetch';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { spendOutbound } from '@/lib/paid-call/host-budget';
import { openSqliteStore } from '@/lib/store/sqlite';
import type { Store } from '@/lib/store';
import { chromiumSettings } from '../support/chromium';
import { renderWithChromium } from '../support/chromium-suite';
import { goodPage, goodRoutes } from '../visibility/fixture-pages';
import { startFixtureSite, type FixtureResponse, type FixtureSite } from '../visibility/fixture-site';

const sites: FixtureSite[] = [];
afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

async function site(routes: Parameters<typeof startFixtureSite>[0]): Promise<FixtureSite> {
  const s = await startFixtureSite(routes);
  sites.push(s);
  return s;
}

const OURS = /^PaidAgentChecks\//;
const ATTACKER_HOSTS = Array.from({ length: 12 }, (_, i) => `a${i}.attacker.test`);
const html = (body: string): FixtureResponse => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body });

/** The victim: answers everything with a small page, and counts. */
const victimRoutes = () => new Proxy({}, { get: () => () => html(goodPage('https://victim.test/')) });

/**
 * The attacker's site, the same under every subdomain: scripts that fetch the victim 30 times, llms.txt links and a
 * sitemap child on the victim, every probe (any user agent but ours) redirected to the victim. `/away` redirects the
 * page itself to the victim.
 */
function attackerRoutes(): Record<string, FixtureResponse | ((req: IncomingMessage) => FixtureResponse)> {
  const script = `for (let i = 0; i < 30; i++) fetch('https://victim.test/script-' + i).catch(() => {});`;
  const page = goodPage('https://a0.attacker.test/').replace('</head>', `<script>${script}</script></head>`);
  return new Proxy(
    {
      '/': (req: IncomingMessage) => (OURS.test(req.headers['user-agent'] ?? '') ? html(page) : { status: 302, redirect: 'https://victim.test/probe' }),
      '/away': { status: 302, redirect: 'https://victim.test/landing' },
      '/llms.txt': {
        headers: { 'content-type': 'text/markdown' },
        body: `# Site\n\n> About.\n\n## Docs\n\n${Array.from({ length: 5 }, (_, i) => `- [doc ${i}](https://victim.test/doc${i}.md)`).join('\n')}\n`,
      },
      '/sitemap.xml': {
        headers: { 'content-type': 'application/xml' },
        body: '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://victim.test/child.xml</loc></sitemap></sitemapindex>',
      },
    } as Record<string, FixtureResponse | ((req: IncomingMessage) => FixtureResponse)>,
    { get: (routes, p: string) => routes[p] ?? { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' } },
  );
}

describe('registrable domains', () => {
  it('counts every name under a domain as that domain, a hosting tenant as itself, an IP literal or a bare name as itself', () => {
    expect(registrableDomain('a1.attacker.test')).toBe('attacker.test');
    expect(registrableDomain('deep.a1.Attacker.test.')).toBe('attacker.test');
    expect(registrableDomain('www.example.co.uk')).toBe('example.co.uk');
    expect(registrableDomain('someone.github.io')).toBe('someone.github.io');
    expect(registrableDomain('203.0.113.7')).toBe('203.0.113.7');
    expect(registrableDomain('localhost')).toBe('localhost');
  });

  it('the per-site check budget of the paid route is keyed by the registrable domain of the address asked for', () => {
    expect(visibilityCheck.targetHost!({ url: 'https://a7.attacker-example.com/x' })).toBe('attacker-example.com');
    expect(visibilityCheck.targetHost!({ url: 'https://www.example.co.uk/' })).toBe('example.co.uk');
  });
});

describe('the outbound gate in safeFetch', () => {
  it('refuses a hop past the per-check cap for a third party before sending it, including a redirect hop', async () => {
    const victim = await site(victimRoutes());
    const attacker = await site({ '/': { status: 302, redirect: 'https://victim.test/hop' } });
    const hostMap = `${attacker.hostMap(['a0.attacker.test'])},${victim.hostMap(['victim.test'])}`;
    const gate = createOutboundGate({ own: ['a0.attacker.test'], thirdPartyCap: 2 });
    await safeFetch(new URL('https://victim.test/1'), { hostMap, outbound: gate });
    await safeFetch(new URL('https://victim.test/2'), { hostMap, outbound: gate });
    // The attacker's own page is sent; its redirect to the victim is the third hop to victim.test and is refused.
    const refused = await safeFetch(new URL('https://a0.attacker.test/'), { hostMap, outbound: gate }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FetchRefusedError);
    expect((refused as FetchRefusedError).code).toBe('third-party-cap');
    expect(victim.requests).toEqual(['/1', '/2']);
    expect(attacker.requests).toEqual(['/']);
    expect(gate.summary()).toEqual({
      requests: 3,
      refused: { budget: 0, thirdPartyCap: 1, lookupCap: 0 },
      lookups: 0,
      domains: 2,
      addresses: 2,
      byDomain: [
        { domain: 'victim.test', sent: 2, refused: { budget: 0, thirdPartyCap: 1, lookupCap: 0 } },
        { domain: 'attacker.test', sent: 1, refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 } },
      ],
    });
  });
});

describe('names are resolved only for requests the gate lets through, once each, and at most MAX_LOOKUPS_PER_CHECK', () => {
  // Every answer is private, so no connection is ever attempted: what is measured is the DNS queries alone.
  const countingLookup = () => {
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      return [{ address: '10.0.0.1', family: 4 as const }];
    };
    return { asked, lookup };
  };

  it('a page aiming 40 requests at random subdomains of a third party: 8 lookups, not 40', async () => {
    const { asked, lookup } = countingLookup();
    const gate = createOutboundGate({ own: ['site.test'] });
    for (let i = 0; i < 40; i++) {
      await safeFetch(new URL(`https://r${i}.victim.com/x`), { lookup, outbound: gate }).catch(() => {});
    }
    expect(asked).toHaveLength(THIRD_PARTY_REQUESTS_PER_DOMAIN);
    expect(gate.summary().refused.thirdPartyCap).toBe(40 - THIRD_PARTY_REQUESTS_PER_DOMAIN);
  });

  it('past the lookup cap a name is not resolved and its request is refused as lookup-cap; a name already resolved is not asked again', async () => {
    const { asked, lookup } = countingLookup();
    const gate = createOutboundGate({ own: ['site.test'], maxLookups: 3 });
    const fetchOne = (host: string) => safeFetch(new URL(`https://${host}/x`), { lookup, outbound: gate }).catch((e: unknown) => e);
    for (const host of ['a.one.com', 'b.two.com', 'c.three.com', 'a.one.com']) await fetchOne(host);
    const refused = await fetchOne('d.four.com');
    expect(asked).toEqual(['a.one.com', 'b.two.com', 'c.three.com']);
    expect(refused).toBeInstanceOf(FetchRefusedError);
    expect((refused as FetchRefusedError).code).toBe('lookup-cap');
    expect(gate.summary()).toMatchObject({ lookups: 3, refused: { budget: 0, thirdPartyCap: 0, lookupCap: 1 } });
    expect(MAX_LOOKUPS_PER_CHECK).toBe(40);
  });
});

describe('the per-check cap counts addresses as well as domains', () => {
  it('twelve third-party names of twelve domains at one address: the address gets 8 of their requests', async () => {
    const victim = await site(victimRoutes());
    const own = await site(victimRoutes());
    const names = Array.from({ length: 12 }, (_, i) => `v${i}.victim${i}.test`);
    const hostMap = `${own.hostMap(['site.test'])},${victim.hostMap(names)}`;
    const gate = createOutboundGate({ own: ['site.test'] });
    await safeFetch(new URL('https://site.test/'), { hostMap, outbound: gate });
    const outcomes = [];
    for (const name of names) outcomes.push(await safeFetch(new URL(`https://${name}/`), { hostMap, outbound: gate }).then(() => 'sent', (e: FetchRefusedError) => e.code));
    expect(victim.requests).toHaveLength(THIRD_PARTY_REQUESTS_PER_DOMAIN);
    expect(outcomes).toEqual([...Array(8).fill('sent'), ...Array(4).fill('third-party-cap')]);
    expect(gate.summary()).toMatchObject({ requests: 9, addresses: 2, refused: { thirdPartyCap: 4 } });
  });

  it('a third party\'s name that leads to the checked page\'s own address is the site itself: no per-check cap', async () => {
    const own = await site(victimRoutes());
    const names = Array.from({ length: 12 }, (_, i) => `alias${i}.test`);
    const hostMap = own.hostMap(['site.test', ...names]);
    const gate = createOutboundGate({ own: ['site.test'] });
    await safeFetch(new URL('https://site.test/'), { hostMap, outbound: gate });
    for (const name of names) await safeFetch(new URL(`https://${name}/`), { hostMap, outbound: gate });
    expect(own.requests).toHaveLength(13);
  });

  it('counts IPv6 by its /64, IPv4-mapped IPv6 as its IPv4, and a mapped stand-in by its port', () => {
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:db8:1:2:ffff::9'));
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('127.0.0.1', 4100)).toBe('127.0.0.1:4100');
    expect(addressKey('::1', 4100)).toBe('[::1]:4100');
  });
});

describe('a failing page costs its site one request', () => {
  it('a page that resets the connection: the attacker host gets exactly one request, the victim none, and the check is 422', async () => {
    const victim = await site(victimRoutes());
    const attacker = await site(new Proxy({}, { get: () => ({ reset: true }) }));
    const hostMap = `${attacker.hostMap(['a0.attacker.test'])},${victim.hostMap(['victim.test'])}`;
    await expect(checkVisibility('https://a0.attacker.test/', { hostMap })).rejects.toBeInstanceOf(SiteUnreachable);
    expect(attacker.requests).toEqual(['/']);
    expect(victim.requests).toEqual([]);
  });

  it('a page that answers 404: one request, a report that says the site files and probes were not fetched', async () => {
    const s = await site({ ...goodRoutes(), '/gone': { status: 404, body: '<!doctype html><title>Not found</title>' } });
    const { report, limits } = await checkVisibility('https://site.test/gone', { hostMap: s.hostMap(['site.test']) });
    expect(s.requests).toEqual(['/gone']);
    expect(report.status).toBe(404);
    expect(report.findings.map((f) => f.id)).toContain('page-status');
    expect(report.findings.map((f) => f.id)).not.toContain('robots-unreachable');
    expect(report.crawlers.every((c) => c.access.outcome === 'not-probed' && c.rule === 'robots.txt was not requested: the page answered 404')).toBe(true);
    expect(limits).toContain(
      'The page answered 404, so nothing else was requested: robots.txt, the sitemap, llms.txt, llms-full.txt, tdmrep.json, the well-known agent surfaces, the AI Catalog, the RSL licence, http://, the path that cannot exist, the Markdown variants and the crawler probes were not fetched, and the report makes no finding about them (their states read unreachable, missing or not-probed only because they were not asked for).',
    );
    expect(report.site.outbound).toEqual({
      requests: 1,
      refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 },
      lookups: 0,
      domains: 1,
      addresses: 1,
      byDomain: [{ domain: 'site.test', sent: 1, refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 } }],
    });
  });
});

describe('many checks from an attacker\'s wildcard domain against one victim', () => {
  const BUDGET = 20;
  // One fixed-window minute for every check: the store's windows are decided on this clock, never the wall's.
  const NOW = Date.UTC(2026, 10, 23, 12, 0, 10);
  let dir: string;
  let store: Store;
  const settings = chromiumSettings();
  renderWithChromium(settings);

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-outbound-'));
    store = openSqliteStore(dir);
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!settings)(
    'the victim receives no more than the per-domain budget a minute, whichever way 12 attacker subdomains point their checks at it',
    async () => {
      const victim = await site(victimRoutes());
      const attacker = await site(attackerRoutes());
      const hostMap = `${attacker.hostMap(ATTACKER_HOSTS)},${victim.hostMap(['victim.test'])}`;
      // Shared by every check, as the paid operation's is: the store's fixed window, on a frozen clock. The
      // attacker's own domain gets room to spare, as an attacker with many domains of its own would have: the
      // victim's bound must hold whatever the attacker's budget.
      const spend = (target: OutboundTarget) =>
        spendOutbound(store, target, target.key === 'victim.test' ? { domain: BUDGET, address: 1_000_000 } : { domain: 1_000_000, address: 1_000_000 }, NOW);

      const results: Array<VisibilityResult | unknown> = [];
      for (const [i, host] of ATTACKER_HOSTS.entries()) {
        // Every third check's page redirects to the victim; the others are served by the attacker and aim the
        // probes, the site files and the page's scripts at the victim.
        const url = i % 3 === 0 ? `https://${host}/away` : `https://${host}/`;
        results.push(await checkVisibility(url, { hostMap, spendOutbound: spend }).catch((e: unknown) => e));
      }

      expect(victim.requests.length).toBeLessThanOrEqual(BUDGET);
      // The budget was used up, and the store says so: the 21st request of the minute is refused.
      expect((await store.hitRateLimit('outbound:victim.test', BUDGET, 60_000, NOW)).allowed).toBe(false);

      const reports = results.filter((r): r is VisibilityResult => !(r instanceof Error)).map((r) => r.report);
      const stopped = results.filter((r): r is OutboundBudgetSpent => r instanceof OutboundBudgetSpent);
      // Checks whose page lands on the victim once its budget is out stop uncharged (429 at the edge).
      expect(stopped.length).toBeGreaterThan(0);
      expect(stopped.every((e) => e.domain === 'victim.test')).toBe(true);
      expect(results.every((r) => !(r instanceof Error) || r instanceof OutboundBudgetSpent)).toBe(true);
      // The attacker-served checks go on, with the victim's requests refused and reported.
      const onVictim = reports.map((r) => r.site.outbound.byDomain.find((d) => d.domain === 'victim.test'));
      const refused = onVictim.reduce((n, d) => n + (d ? d.refused.budget + d.refused.thirdPartyCap : 0), 0);
      expect(refused).toBeGreaterThan(0);
      expect(onVictim.some((d) => (d?.refused.budget ?? 0) > 0)).toBe(true);
      for (const d of onVictim) expect(d?.sent ?? 0).toBeLessThanOrEqual(THIRD_PARTY_REQUESTS_PER_DOMAIN);
      // What the reports say they sent the victim is within what it received.
      expect(onVictim.reduce((n, d) => n + (d?.sent ?? 0), 0)).toBeLessThanOrEqual(victim.requests.length);
    },
    120_000,
  );

  it.skipIf(!settings)('one check sends a third party at most THIRD_PARTY_REQUESTS_PER_DOMAIN, its page\'s render subrequests included, and reports the rest', async () => {
    const victim = await site(victimRoutes());
    const attacker = await site(attackerRoutes());
    const hostMap = `${attacker.hostMap(['a0.attacker.test'])},${victim.hostMap(['victim.test'])}`;
    const { report, limits } = await checkVisibility('https://a0.attacker.test/', { hostMap });

    expect(report.page.rendering.state).toBe('rendered');
    expect(victim.requests).toHaveLength(THIRD_PARTY_REQUESTS_PER_DOMAIN);
    const onVictim = report.site.outbound.byDomain.find((d) => d.domain === 'victim.test');
    expect(onVictim?.sent).toBe(THIRD_PARTY_REQUESTS_PER_DOMAIN);
    // 30 script fetches, 15 probe redirects, 5 llms.txt links and the sitemap child wanted the victim.
    expect(onVictim?.refused).toEqual({ budget: 0, thirdPartyCap: 30 + 15 + 5 + 1 - THIRD_PARTY_REQUESTS_PER_DOMAIN, lookupCap: 0 });
    expect(report.page.rendering.refused).toBeGreaterThan(0);
    expect(limits.some((l) => l.includes(`at most ${THIRD_PARTY_REQUESTS_PER_DOMAIN} requests`))).toBe(true);
    expect(visibilityCheckDescription().fetched.thirdPartyRequestsPerDomain).toBe(THIRD_PARTY_REQUESTS_PER_DOMAIN);
  }, 60_000);
});
