// The pure readers behind the v2 site signals: sitemap entries, llms.txt links, Content-Signal per group
// and its contradictions with robots.txt, TDMRep and RSL, Markdown negotiation.
import { describe, expect, it } from 'vitest';
import { robotsFromResponse, parseRobotsTxt } from '@/lib/checks/visibility/robots';
import { crawlerVerdicts } from '@/lib/checks/visibility/crawlers';
import { analyseSite } from '@/lib/checks/visibility/analysis';
import {
  assessLlmsLinks,
  contentSignalConflicts,
  contentUsage,
  firstSitemapChild,
  licensing,
  llmsTxtLinkTargets,
  markdownIsPage,
  markdownOffer,
  rslLicense,
  sitemapEntries,
  sitemapListsPage,
  tdmFromFile,
  tdmFromPairs,
} from '@/lib/checks/visibility/site-signals';

describe('sitemap entries', () => {
  it('reads <loc> values with namespace prefixes, entities and CDATA, skipping comments', () => {
    const xml = '<?xml version="1.0"?>\n<!-- <loc>https://s.test/commented</loc> -->\n<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">' +
      '<sm:url><sm:loc> https://s.test/a?x=1&amp;y=2 </sm:loc></sm:url><url><loc><![CDATA[https://s.test/b]]></loc></url><url><loc>https://s.test/&#x63;</loc></url></sm:urlset>';
    expect(sitemapEntries(xml)).toEqual({ index: false, locs: ['https://s.test/a?x=1&y=2', 'https://s.test/b', 'https://s.test/c'] });
  });

  it('recognises an index and its first child', () => {
    const xml = '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>/maps/one.xml</loc></sitemap><sitemap><loc>https://s.test/two.xml</loc></sitemap></sitemapindex>';
    expect(sitemapEntries(xml).index).toBe(true);
    expect(firstSitemapChild(xml, 'https://s.test/sitemap.xml')).toBe('https://s.test/maps/one.xml');
    expect(firstSitemapChild('<urlset><url><loc>https://s.test/</loc></url></urlset>', 'https://s.test/sitemap.xml')).toBeNull();
    expect(firstSitemapChild('<sitemapindex><sitemap><loc>ftp://s.test/x.xml</loc></sitemap></sitemapindex>', 'https://s.test/sitemap.xml')).toBeNull();
  });

  it('stays linear on a hostile body (a million unclosed tags is one pass)', () => {
    const hostile = '<urlset>' + '<loc'.repeat(200_000) + '<loc>'.repeat(50_000);
    const entries = sitemapEntries(hostile);
    expect(entries.index).toBe(false);
    expect(entries.locs).toEqual([]);
  });

  const map = (locs: string[], truncated = false) => ({ isSitemap: true, body: `<urlset>${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`, truncated });
  const index = (children: string[]) => ({ isSitemap: true, body: `<sitemapindex>${children.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('')}</sitemapindex>`, truncated: false });

  it.each([
    ['listed exactly', map(['https://s.test/a', 'https://s.test/guide']), null, true],
    ['listed with an upper-case host and the default port', map(['https://S.TEST:443/guide']), null, true],
    ['absent from a whole sitemap', map(['https://s.test/a', 'https://s.test/guide/']), null, false],
    ['absent from a sitemap cut at its cap', map(['https://s.test/a'], true), null, null],
    ['no sitemap', { isSitemap: false, body: null, truncated: false }, null, null],
    ['listed in the first child of an index', index(['https://s.test/1.xml', 'https://s.test/2.xml']), map(['https://s.test/guide']), true],
    ['absent from the only child of an index', index(['https://s.test/1.xml']), map(['https://s.test/a']), false],
    ['absent from the first of several children', index(['https://s.test/1.xml', 'https://s.test/2.xml']), map(['https://s.test/a']), null],
    ['an index whose child could not be fetched', index(['https://s.test/1.xml']), null, null],
  ] as const)('%s', (_name, sitemap, child, expected) => {
    expect(sitemapListsPage('https://s.test/guide', sitemap, child)).toBe(expected);
  });
});

describe('llms.txt links', () => {
  it('takes the first five distinct http(s) links, resolved, in file order', () => {
    const body = '# Site\n> x\n## Docs\n- [A](/a.md): a\n- [A again](https://site.test/a.md#top)\n- [Mail](mailto:x@site.test)\n- [B](b.md "title") and [C](https://other.test/c)\n- [D](/d)\n- [E](/e)\n- [F](/f)\n';
    expect(llmsTxtLinkTargets(body, 'https://site.test/llms.txt')).toEqual([
      'https://site.test/a.md', 'https://site.test/b.md', 'https://other.test/c', 'https://site.test/d', 'https://site.test/e',
    ]);
  });

  it('classifies each link: error status, HTML where Markdown is promised, no answer, refused', () => {
    const result = assessLlmsLinks([
      { url: 'https://s.test/ok.md', status: 200, contentType: 'text/markdown', body: '# Ok', refused: false },
      { url: 'https://s.test/page', status: 200, contentType: 'text/html', body: '<!doctype html>', refused: false },
      { url: 'https://s.test/gone.md', status: 404, contentType: 'text/plain', body: 'no', refused: false },
      { url: 'https://s.test/soft.md', status: 200, contentType: 'text/plain', body: '<!DOCTYPE html><title>Home</title>', refused: false },
      { url: 'https://s.test/slow.md', status: null, contentType: null, body: null, refused: false },
      { url: 'http://10.0.0.1/x.md', status: null, contentType: null, body: null, refused: true },
    ]);
    expect(result.checked).toBe(6);
    expect(result.broken).toBe(4);
    expect(result.links.map((l) => l.outcome)).toEqual(['ok', 'ok', 'http-error', 'html-not-markdown', 'no-answer', 'refused']);
  });

  it("does not count a link the check's own request limits held back as checked or broken", () => {
    const result = assessLlmsLinks([
      { url: 'https://s.test/ok.md', status: 200, contentType: 'text/markdown', body: '# Ok', refused: false },
      { url: 'https://third.test/a.md', status: null, contentType: null, body: null, refused: false, notSent: true },
      { url: 'https://s.test/gone.md', status: 404, contentType: 'text/plain', body: 'no', refused: false },
    ]);
    expect(result.checked).toBe(2);
    expect(result.broken).toBe(1);
    expect(result.links.map((l) => l.outcome)).toEqual(['ok', 'not-sent', 'http-error']);
  });
});

describe('Content-Signal per robots.txt group', () => {
  it('parses each group\'s lines, keys as written, yes/no only, no winning within a group', () => {
    const robots = parseRobotsTxt(
      'Content-Signal: ai-input=yes\nUser-agent: *\nUser-agent: Bingbot\nContent-Signal: search=yes, ai-train=no, use=reference\nContent-Signal: search=no, ai-input=maybe\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n',
    );
    expect(contentUsage(robots)).toEqual([
      { userAgent: '*', signals: { search: 'no', 'ai-input': 'yes', 'ai-train': 'no' }, lines: [1, 4, 5] },
      { userAgent: 'Bingbot', signals: { search: 'no', 'ai-input': null, 'ai-train': 'no' }, lines: [4, 5] },
    ]);
    expect(contentUsage(null)).toEqual([]);
  });

  const conflicts = (text: string) => {
    const access = robotsFromResponse(200, text);
    return contentSignalConflicts(access, crawlerVerdicts(access, '/guide'));
  };

  it('search=no while search crawlers may fetch the page is a contradiction', () => {
    expect(conflicts('User-agent: *\nContent-Signal: search=no, ai-train=yes\nAllow: /\n')).toEqual([
      { key: 'search', tokens: ['Googlebot', 'Bingbot', 'Applebot'], lines: [2] },
    ]);
  });

  it('ai-train=no while training crawlers may fetch is one; the ones with their own group are not addressed', () => {
    const found = conflicts('User-agent: *\nContent-Signal: search=yes, ai-train=no\nAllow: /\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nUser-agent: Google-Extended\nUser-agent: Applebot-Extended\nDisallow: /\n');
    expect(found).toEqual([{ key: 'ai-train', tokens: ['Meta-ExternalAgent'], lines: [2] }]);
  });

  it('Cloudflare\'s managed robots.txt (training bots disallowed in their own groups) has none', () => {
    const text = 'User-agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\n\n' +
      ['Amazonbot', 'Applebot-Extended', 'Bytespider', 'CCBot', 'ClaudeBot', 'Google-Extended', 'GPTBot', 'meta-externalagent'].map((t) => `User-agent: ${t}\nDisallow: /\n`).join('\n');
    expect(conflicts(text)).toEqual([]);
  });

  it('yes for a use whose crawlers are disallowed, and a no for a path the page is not on, are not contradictions', () => {
    expect(conflicts('User-agent: *\nContent-Signal: search=yes\nDisallow: /\n')).toEqual([]);
    expect(conflicts('User-agent: *\nContent-Signal: ai-input=no\nDisallow: /guide\n')).toEqual([]);
  });

  it('ai-input=no while the AI answer crawlers are allowed names them, not the user-triggered fetchers', () => {
    expect(conflicts('User-agent: *\nContent-Signal: ai-input=no\n')).toEqual([
      { key: 'ai-input', tokens: ['OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot'], lines: [2] },
    ]);
  });

  it('Applebot reads the Googlebot group it falls back to', () => {
    expect(conflicts('User-agent: Googlebot\nContent-Signal: search=no\nAllow: /\n\nUser-agent: *\nDisallow: /\n')).toEqual([
      { key: 'search', tokens: ['Googlebot', 'Applebot'], lines: [2] },
    ]);
  });
});

describe('licensing: TDMRep and RSL', () => {
  it('reads the first tdmrep.json rule whose location matches the path', () => {
    const file = JSON.stringify([
      { location: '/free/*', 'tdm-reservation': 0 },
      { location: '/', 'tdm-reservation': 1, 'tdm-policy': 'https://s.test/policy.json' },
    ]);
    expect(tdmFromFile(file, '/free/a')).toEqual({ reservation: 0, policy: null });
    expect(tdmFromFile(file, '/guide')).toEqual({ reservation: 1, policy: 'https://s.test/policy.json' });
    expect(tdmFromFile('{"not":"a list"}', '/')).toBeNull();
    expect(tdmFromFile('not json', '/')).toBeNull();
  });

  it('meta beats header beats file', () => {
    const file = { reservation: 0 as const, policy: null };
    const header = tdmFromPairs('1', null);
    const meta = tdmFromPairs(' 0 ', 'https://s.test/p.json');
    expect(licensing({ file, header, meta }, null)).toEqual({ tdmReservation: 0, tdmPolicy: 'https://s.test/p.json', tdmSource: 'meta', rslLicense: null });
    expect(licensing({ file, header, meta: null }, null)).toMatchObject({ tdmReservation: 1, tdmSource: 'header' });
    expect(licensing({ file, header: null, meta: null }, null)).toMatchObject({ tdmReservation: 0, tdmSource: 'file' });
    expect(licensing({ file: null, header: null, meta: null }, null)).toEqual({ tdmReservation: null, tdmPolicy: null, tdmSource: null, rslLicense: null });
    expect(tdmFromPairs('yes', null)).toBeNull();
  });

  it('reads the RSL License: line of robots.txt, comments dropped', () => {
    expect(rslLicense('User-agent: *\n# License: https://no.test/\nLICENSE:  https://s.test/license.xml # terms\nAllow: /\n')).toBe('https://s.test/license.xml');
    expect(rslLicense('User-agent: *\nAllow: /\n')).toBeNull();
  });
});

describe('Markdown for agents', () => {
  it('is offered by negotiation or by an alternate link', () => {
    expect(markdownOffer({ status: 200, contentType: 'text/markdown; charset=utf-8' }, null)).toEqual({ offered: true, contentType: 'text/markdown; charset=utf-8', alternate: null, matchesPage: null });
    expect(markdownOffer({ status: 200, contentType: 'text/html' }, 'https://s.test/index.md').offered).toBe(true);
    expect(markdownOffer({ status: 404, contentType: 'text/markdown' }, null).offered).toBe(false);
    expect(markdownOffer({ status: null, contentType: null }, null)).toEqual({ offered: false, contentType: null, alternate: null, matchesPage: null });
  });

  it('counts a Markdown answer only when it is the page: its title, or most of its words', () => {
    const page = { title: 'Storm warning issued', text: ['<p>', 'Forecasters issued an amber warning for strong winds along the coast.'] };
    expect(markdownIsPage('---\ntitle: Storm  Warning issued\n---\n', page)).toBe(true);
    expect(markdownIsPage('# 404\n\nNot found: the coast warning.', page)).toBe(false);
    const many = 'forecasters issued an amber warning for strong winds along the coast and also ten more unknown words here today again';
    expect(markdownIsPage(many, page)).toBe(true); // 11 of its 20 distinct words are the page's
    expect(markdownIsPage(`${many} x1 x2 x3 x4 x5`, page)).toBe(false); // 11 of 25
    const offer = markdownOffer({ status: 200, contentType: 'text/markdown', body: '# Not found' }, null, page);
    expect(offer).toEqual({ offered: false, contentType: 'text/markdown', alternate: null, matchesPage: false });
  });
});

describe('Content-Signal on a hostile robots.txt', () => {
  it('a group of 15,000 user-agents over 15,000 signal lines is merged per group and capped in the report', () => {
    // Letters only, so each line names a distinct product token.
    const name = (i: number) => `bot${i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)])}`;
    const text = Array.from({ length: 15_000 }, (_, i) => `User-agent: ${name(i)}\n`).join('') + 'Content-Signal: search=no\n'.repeat(15_000) + 'Allow: /\n';
    const access = robotsFromResponse(200, text);
    const usage = contentUsage(access.state === 'found' ? access.robots : null);
    expect(usage).toHaveLength(30);
    expect(usage[0].lines).toHaveLength(10);
    expect(usage[0].signals.search).toBe('no');
    // The crawlers in the table are not named by this group: they follow no group, so nothing applies to them.
    expect(contentSignalConflicts(access, crawlerVerdicts(access, '/'))).toEqual([]);
  });
});

describe('analyseSite: probe outcomes reach the crawler items and the score', () => {
  const file = (status: number | null, body = '', contentType = 'text/plain') => ({ status, contentType, body, bytesRead: body.length, truncated: false });
  const page = { url: 'https://site.test/', status: 200, headers: [['content-type', 'text/html']] as Array<[string, string]>, body: '<!doctype html><title>Home page of the site</title>', truncated: false, redirects: 0 };
  const files = {
    robots: file(200, 'User-agent: *\nAllow: /\n'),
    sitemap: { ...file(404), url: 'https://site.test/sitemap.xml' },
    sitemapChild: null,
    llms: file(404),
    llmsFull: file(404),
    llmsLinks: [],
    tdmrep: file(404),
    httpRedirectsToHttps: true,
  };

  it('a crawler whose probe was refused carries its access and loses its points; without probes nothing changes', () => {
    const plain = analyseSite(page, files);
    const answer = { headers: [] as Array<[string, string]>, body: page.body, failure: null };
    const probes = {
      browser: { ...answer, userAgent: 'Mozilla/5.0 Chrome', status: 200 },
      crawlers: [{ ...answer, token: 'PerplexityBot', userAgent: 'PerplexityBot/1.0', status: 402, body: '' }],
    };
    const probed = analyseSite(page, files, { status: 200, contentType: 'text/html' }, probes);
    expect(plain.crawlers.find((c) => c.token === 'PerplexityBot')).toMatchObject({ access: { outcome: 'not-probed', status: null } });
    expect(probed.crawlers.find((c) => c.token === 'PerplexityBot')).toMatchObject({ allowed: true, access: { outcome: 'payment-required', status: 402 } });
    expect(plain.scoring.find((s) => s.id === 'crawl.ai-answers-allowed')!.earned).toBe(12);
    expect(probed.scoring.find((s) => s.id === 'crawl.ai-answers-allowed')!.earned).toBe(8);
    expect(probed.score).toBe(plain.score - 4);
  });
});
