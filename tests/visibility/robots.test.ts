import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, expect } from 'vitest';
import { decideCrawlers } from '@/lib/checks/visibility/crawlers';
import {
  ROBOTS_IGNORED_LINES_MAX,
  ROBOTS_MATCH_BUDGET,
  ROBOTS_MAX_BYTES,
  appliedGroups,
  extractProductToken,
  matchCost,
  namesAgent,
  normalisePercentEncoding,
  parseRobotsTxt,
  pathAndQueryOf,
  patternMatches,
  robotsFromResponse,
  robotsSummary,
  robotsVerdict,
  verdictFor,
} from '@/lib/checks/visibility/robots';

// ---------------------------------------------------------------------------------------------
// Google's reference cases (tests/fixtures/README.md)
// ---------------------------------------------------------------------------------------------

interface GoogleCase {
  test: string;
  googleSpecific: boolean;
  derived?: boolean;
  robotsTxt: string;
  userAgent: string;
  url: string;
  expectedAllowed: boolean;
}

const cases: GoogleCase[] = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'google-robots-cases.json'), 'utf8'),
);

// A case id is the upstream TEST name plus the case's position among that test's assertions,
// so ids survive reordering of whole tests in the fixture.
const seen = new Map<string, number>();
const identified = cases.map((c) => {
  const n = seen.get(c.test) ?? 0;
  seen.set(c.test, n + 1);
  return { id: `${c.test}[${n}]`, ...c };
});

/**
 * Cases we fail on purpose. Each must really fail: a fix moves it out of this list, and a
 * regression anywhere else fails the suite.
 */
const KNOWN_FAILURES: Record<string, string> = {
  'ID_Encoding[2]':
    'URL with a raw "ツ": Google expects callers to pre-encode URLs and so does not match; RFC 9309 2.2.2 says both sides MUST be %-encoded before comparison, which we do, so it matches',
  'ID_Encoding[4]':
    'same as ID_Encoding[2] with the rule written as %E3%83%84: we encode the raw URL, Google leaves it raw',
};

const MIN_PASSING = 151;

function runCase(c: GoogleCase): boolean {
  return robotsVerdict(parseRobotsTxt(c.robotsTxt), c.userAgent, pathAndQueryOf(c.url)).allowed;
}

describe("Google's robots.txt reference cases", () => {
  it('has the 156 cases the fixture promises, with unique ids', () => {
    expect(identified).toHaveLength(156);
    expect(new Set(identified.map((c) => c.id)).size).toBe(156);
  });

  it.each(identified)('$id: $userAgent on $url', (c) => {
    const allowed = runCase(c);
    if (c.id in KNOWN_FAILURES) {
      expect(allowed, `${c.id} is listed as a known failure but now passes: remove it`).toBe(!c.expectedAllowed);
    } else {
      expect(allowed).toBe(c.expectedAllowed);
    }
  });

  it(`passes at least ${MIN_PASSING} cases, and fails only the listed ones`, () => {
    const failing = identified.filter((c) => runCase(c) !== c.expectedAllowed).map((c) => c.id);
    const passCount = identified.length - failing.length;
    expect(passCount).toBeGreaterThanOrEqual(MIN_PASSING);
    expect(passCount).toBe(154);
    expect(failing.sort()).toEqual(Object.keys(KNOWN_FAILURES).sort());
  });

  it('every known failure names an existing case and explains itself', () => {
    for (const [id, why] of Object.entries(KNOWN_FAILURES)) {
      expect(identified.some((c) => c.id === id), id).toBe(true);
      expect(why.length).toBeGreaterThan(20);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Our own cases
// ---------------------------------------------------------------------------------------------

const SITE = [
  '# example',
  'User-agent: *',
  'Disallow: /private/',
  'Allow: /private/open',
  '',
  'User-agent: GPTBot',
  'User-agent: CCBot',
  'Disallow: /',
  '',
  'Sitemap: https://example.com/sitemap.xml',
  'User-agent: gptbot',
  'Allow: /blog/',
  'Disallow: /blog/drafts',
].join('\n');

describe('which rule and group decided', () => {
  const robots = parseRobotsTxt(SITE);

  it('reports the deciding line, its number and the group token as written', () => {
    expect(robotsVerdict(robots, 'Googlebot', '/private/x')).toEqual({
      allowed: false,
      rule: 'Disallow: /private/',
      line: 3,
      group: '*',
    });
    expect(robotsVerdict(robots, 'GPTBot', '/blog/drafts/1')).toEqual({
      allowed: false,
      rule: 'Disallow: /blog/drafts',
      line: 13,
      group: 'gptbot',
    });
    expect(robotsVerdict(robots, 'GPTBot', '/about')).toEqual({
      allowed: false,
      rule: 'Disallow: /',
      line: 8,
      group: 'GPTBot',
    });
  });

  it('gives the group but no rule when a group applies and nothing matches', () => {
    expect(robotsVerdict(robots, 'Googlebot', '/public')).toEqual({ allowed: true, rule: null, line: null, group: '*' });
  });

  it('gives neither when no group applies', () => {
    const only = parseRobotsTxt('User-agent: GPTBot\nDisallow: /\n');
    expect(robotsVerdict(only, 'Googlebot', '/')).toEqual({ allowed: true, rule: null, line: null, group: null });
  });

  it('quotes the line as written, comment included', () => {
    const r = parseRobotsTxt('User-agent: *\nDisallow: /tmp/   # scratch\n');
    expect(robotsVerdict(r, 'x', '/tmp/a').rule).toBe('Disallow: /tmp/   # scratch');
  });

  it('keeps rule text and 1-based line numbers in the parsed groups', () => {
    expect(robots.groups).toHaveLength(3);
    expect(robots.groups[1].userAgents.map((u) => [u.token, u.line])).toEqual([
      ['GPTBot', 6],
      ['CCBot', 7],
    ]);
    expect(robots.groups[0].rules.map((r) => [r.kind, r.text, r.line])).toEqual([
      ['disallow', 'Disallow: /private/', 3],
      ['allow', 'Allow: /private/open', 4],
    ]);
  });
});

describe('group selection', () => {
  it('merges every group naming the agent, case-insensitively', () => {
    const robots = parseRobotsTxt(SITE);
    // /blog/ is allowed by the second GPTBot group, which beats the first group's Disallow: /.
    expect(robotsVerdict(robots, 'gptbot', '/blog/post')).toMatchObject({ allowed: true, rule: 'Allow: /blog/', group: 'gptbot' });
    // CCBot is only in the first group.
    expect(robotsVerdict(robots, 'ccbot', '/blog/post')).toMatchObject({ allowed: false, rule: 'Disallow: /', group: 'CCBot' });
  });

  it('lets a named group replace * even when none of its rules match', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\n\nUser-agent: GPTBot\nDisallow: /nothing-here\n');
    expect(robotsVerdict(robots, 'GPTBot', '/page')).toEqual({ allowed: true, rule: null, line: null, group: 'GPTBot' });
  });

  it('falls back to *, merging several * groups', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /a\n\nUser-agent: Foo\nAllow: /\n\nUser-agent: *\nDisallow: /b\n');
    expect(robotsVerdict(robots, 'Bar', '/b/x')).toMatchObject({ allowed: false, rule: 'Disallow: /b', line: 8, group: '*' });
    expect(robotsVerdict(robots, 'Bar', '/a/x')).toMatchObject({ allowed: false, line: 2 });
  });

  it('reads the product token at the start of a user-agent value', () => {
    const robots = parseRobotsTxt('User-agent: Googlebot/2.1 (+http://www.google.com/bot.html)\nDisallow: /\n');
    expect(robotsVerdict(robots, 'Googlebot', '/')).toMatchObject({ allowed: false, group: 'Googlebot' });
    expect(extractProductToken('GPTBot/1.2; +https://openai.com/gptbot')).toBe('GPTBot');
    expect(extractProductToken('Meta-ExternalAgent')).toBe('Meta-ExternalAgent');
  });

  it('does not prefix-match tokens', () => {
    const robots = parseRobotsTxt('User-agent: Googlebot-News\nDisallow: /\n');
    expect(robotsVerdict(robots, 'Googlebot', '/').allowed).toBe(true);
    expect(namesAgent(robots, 'Googlebot')).toBe(false);
    expect(namesAgent(robots, 'googlebot-news')).toBe(true);
  });

  it('treats "* something" as the global agent', () => {
    const robots = parseRobotsTxt('User-agent: * all robots\nDisallow: /x\n');
    expect(robotsVerdict(robots, 'Any', '/x')).toMatchObject({ allowed: false, group: '*' });
  });

  it('ignores rules that come before any user-agent line', () => {
    const robots = parseRobotsTxt('Disallow: /\nUser-agent: *\nAllow: /a\n');
    expect(robotsVerdict(robots, 'x', '/b').allowed).toBe(true);
  });

  it('does not close a group on Sitemap or unknown lines', () => {
    const robots = parseRobotsTxt('User-agent: A\nSitemap: https://e.com/s.xml\nContent-Signal: search=yes\nUser-agent: B\nDisallow: /\n');
    expect(robots.groups).toHaveLength(1);
    expect(robotsVerdict(robots, 'A', '/').allowed).toBe(false);
  });
});

describe('longest match', () => {
  it('lets Allow win a tie with Disallow of the same length', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /page\nAllow: /page\n');
    expect(robotsVerdict(robots, 'x', '/page.html')).toMatchObject({ allowed: true, rule: 'Allow: /page', line: 3 });
    const reversed = parseRobotsTxt('User-agent: *\nAllow: /page\nDisallow: /page\n');
    expect(robotsVerdict(reversed, 'x', '/page.html')).toMatchObject({ allowed: true, rule: 'Allow: /page', line: 2 });
  });

  it('lets the longer pattern win regardless of order', () => {
    const robots = parseRobotsTxt('User-agent: *\nAllow: /shop/\nDisallow: /shop/cart\n');
    expect(robotsVerdict(robots, 'x', '/shop/cart/1')).toMatchObject({ allowed: false, rule: 'Disallow: /shop/cart' });
    expect(robotsVerdict(robots, 'x', '/shop/item')).toMatchObject({ allowed: true, rule: 'Allow: /shop/' });
  });

  it('treats an empty Disallow as allowing everything', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow:\n');
    expect(robotsVerdict(robots, 'x', '/anything')).toMatchObject({ allowed: true, rule: 'Disallow:' });
  });

  it('always allows /robots.txt', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\n');
    expect(robotsVerdict(robots, 'x', '/robots.txt').allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/robots.txt.bak').allowed).toBe(false);
  });
});

describe('wildcards', () => {
  it('$ anchors the end only as the last character', () => {
    expect(patternMatches('/a.pdf', '/*.pdf$')).toBe(true);
    expect(patternMatches('/a.pdf?x=1', '/*.pdf$')).toBe(false);
    expect(patternMatches('/a$b', '/a$b')).toBe(true);
    expect(patternMatches('/ab', '/a$b')).toBe(false);
    expect(patternMatches('/', '/$')).toBe(true);
    // The anchored tail may not overlap what the earlier segments consumed.
    expect(patternMatches('/a', '/a*a$')).toBe(false);
    expect(patternMatches('/aa', '/a*a$')).toBe(true);
    expect(patternMatches('/x', '/$')).toBe(false);
  });

  it('* matches any run, including an empty one', () => {
    expect(patternMatches('/shop/item/reviews', '/shop/*/reviews')).toBe(true);
    expect(patternMatches('/shop//reviews', '/shop/*/reviews')).toBe(true);
    expect(patternMatches('/shop/reviews', '/shop/*/reviews')).toBe(false);
    expect(patternMatches('/a?sessionid=1', '/*sessionid')).toBe(true);
    expect(patternMatches('/anything', '*')).toBe(true);
    expect(patternMatches('/a/b/c.php', '/*/*.php$')).toBe(true);
  });

  // How long these take is measured by `npm run bench -- robots-adversarial`, against a literal pattern.
  it('decides adversarial wildcard patterns correctly, matching and not', () => {
    const pattern = `/${'*a'.repeat(2000)}b`;
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: ${pattern}\n`);
    expect(robotsVerdict(robots, 'x', '/' + 'a'.repeat(5000)).allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/' + 'a'.repeat(1999) + 'b')).toMatchObject({ allowed: true });
    expect(robotsVerdict(robots, 'x', '/' + 'a'.repeat(2000) + 'b')).toMatchObject({ allowed: false, rule: `Disallow: ${pattern}` });
  });

  // Speed on this file is measured by `npm run bench -- visibility-robots`; here, the bound on the work.
  it('bounds the work on adversarial patterns: estimated before matching, never matched over the budget', () => {
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: /${'*a'.repeat(2000)}b\n`);
    const path = '/' + 'a'.repeat(5000);
    // Greedy leftmost placement of each segment still gives the right answer when matched directly.
    expect(robotsVerdict(robots, 'x', path).allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', path + 'b').allowed).toBe(false);
    // The literal `/`, then one scan of the path per `*`.
    expect(matchCost(appliedGroups(robots, 'x'), path)).toBe(1 + 2000 * 5001);
    expect(ROBOTS_MATCH_BUDGET).toBeLessThan(2000 * 5001);
    expect(decideCrawlers({ state: 'found', status: 200, robots }, path).access).toMatchObject({
      state: 'unreachable',
      status: 200,
      tooComplex: { rules: 1, pathLength: 5001, cost: 1 + 2000 * 5001 },
    });
    // A rule whose literal prefix does not start the path costs that comparison only, whatever follows.
    const shop = parseRobotsTxt(`User-agent: *\nDisallow: /shop/${'*a'.repeat(2000)}\n`);
    expect(matchCost(appliedGroups(shop, 'x'), '/blog/' + 'a'.repeat(5000))).toBe('/shop/'.length + 1);
  });

  it('is case-sensitive on the path', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /Admin\n');
    expect(robotsVerdict(robots, 'x', '/admin').allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/Admin').allowed).toBe(false);
  });
});

describe('percent-encoding', () => {
  it('encodes non-ASCII in patterns and uppercases escapes', () => {
    expect(normalisePercentEncoding('/café')).toBe('/caf%C3%A9');
    expect(normalisePercentEncoding('/a%2fb')).toBe('/a%2Fb');
    expect(normalisePercentEncoding('/100%')).toBe('/100%');
  });

  it('matches an encoded URL against a raw UTF-8 rule and a lower-case escape', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /café\nDisallow: /x%2fy\n');
    expect(robotsVerdict(robots, 'x', pathAndQueryOf('https://e.com/café/menu'))).toMatchObject({ allowed: false, rule: 'Disallow: /café' });
    expect(robotsVerdict(robots, 'x', '/x%2Fy').allowed).toBe(false);
    expect(robotsVerdict(robots, 'x', '/x%2fy').allowed).toBe(false);
  });

  it('does not decode unreserved characters written encoded', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /%62az\n');
    expect(robotsVerdict(robots, 'x', '/baz').allowed).toBe(true);
  });

  it('measures match length on the encoded pattern', () => {
    // "/é" is 2 characters but 7 octets once encoded, so it outranks the 4 of "/*ab".
    const robots = parseRobotsTxt('User-agent: *\nAllow: /é\nDisallow: /*ab\n');
    expect(robotsVerdict(robots, 'x', '/%C3%A9ab')).toMatchObject({ allowed: true, rule: 'Allow: /é' });
  });

  it('drops the fragment and keeps the query', () => {
    expect(pathAndQueryOf('https://e.com/a/b?c=d#frag')).toBe('/a/b?c=d');
    expect(pathAndQueryOf('not a url')).toBe('/');
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /*?c=\n');
    expect(robotsVerdict(robots, 'x', '/a#?c=').allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/a?c=1').allowed).toBe(false);
  });
});

describe('lenient syntax, as Google reads it', () => {
  it('accepts a missing colon when the line has exactly two words', () => {
    const robots = parseRobotsTxt('user-agent FooBot\ndisallow /x\ndisallow /y z\n');
    expect(robotsVerdict(robots, 'FooBot', '/x').allowed).toBe(false);
    expect(robotsVerdict(robots, 'FooBot', '/y').allowed).toBe(true);
  });

  it('accepts the typos Google accepts', () => {
    for (const key of ['disalow', 'dissallow', 'dissalow', 'diasllow', 'disallaw']) {
      const robots = parseRobotsTxt(`useragent: *\n${key}: /x\n`);
      expect(robotsVerdict(robots, 'y', '/x').allowed, key).toBe(false);
    }
    expect(parseRobotsTxt('Site-map: https://e.com/s.xml\n').sitemaps).toEqual(['https://e.com/s.xml']);
  });

  it('skips a leading byte-order mark but not one mid-file', () => {
    expect(robotsVerdict(parseRobotsTxt('\uFEFFUser-agent: *\nDisallow: /\n'), 'x', '/').allowed).toBe(false);
    expect(robotsVerdict(parseRobotsTxt('User-agent: *\n\uFEFFDisallow: /\n'), 'x', '/').allowed).toBe(true);
  });

  it('counts CRLF as one line and CR alone as a line break', () => {
    const robots = parseRobotsTxt('User-agent: *\r\n\r\nDisallow: /a\rDisallow: /b');
    expect(robots.groups[0].rules.map((r) => r.line)).toEqual([3, 4]);
  });
});

describe('size limits', () => {
  it(`parses only the first ${ROBOTS_MAX_BYTES} bytes and drops a cut line`, () => {
    let body = 'User-agent: *\nDisallow: /early\n';
    const filler = '# ' + 'x'.repeat(98) + '\n';
    while (body.length + filler.length + 2 <= ROBOTS_MAX_BYTES - 15) body += filler;
    body += '#'.repeat(ROBOTS_MAX_BYTES - 15 - body.length - 1) + '\n';
    // The limit falls after "Disallow: /stra", 15 bytes into this line.
    body += 'Disallow: /straddles-the-limit\nDisallow: /late\n';
    const robots = parseRobotsTxt(body);
    expect(robots.truncated).toBe(true);
    expect(robotsVerdict(robots, 'x', '/early').allowed).toBe(false);
    expect(robotsVerdict(robots, 'x', '/late').allowed).toBe(true);
    // Kept, the half line would be "Disallow: /stra" and block /strange too.
    expect(robotsVerdict(robots, 'x', '/strange').allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/straddles-the-limit').allowed).toBe(true);
  });

  it('keeps the last line whole when the limit falls exactly on a line break', () => {
    const last = 'Disallow: /edge';
    let body = 'User-agent: *\n';
    const filler = '# ' + 'x'.repeat(98) + '\n';
    while (body.length + filler.length + 2 <= ROBOTS_MAX_BYTES - last.length) body += filler;
    body += '#'.repeat(ROBOTS_MAX_BYTES - last.length - body.length - 1) + '\n' + last;
    expect(body.length).toBe(ROBOTS_MAX_BYTES);
    const robots = parseRobotsTxt(body + '\nDisallow: /late\n');
    expect(robots.truncated).toBe(true);
    expect(robotsVerdict(robots, 'x', '/edge').allowed).toBe(false);
    expect(robotsVerdict(robots, 'x', '/late').allowed).toBe(true);
  });

  it('counts bytes, not characters', () => {
    // 3-byte characters: 200,000 of them are 600,000 bytes although only 200,000 characters.
    const body = 'User-agent: *\nDisallow: /a\n' + '#' + '€'.repeat(200_000) + '\nDisallow: /late\n';
    const robots = parseRobotsTxt(body);
    expect(robots.truncated).toBe(true);
    expect(robotsVerdict(robots, 'x', '/late').allowed).toBe(true);
    expect(robotsVerdict(robots, 'x', '/a').allowed).toBe(false);
  });

  it('does not flag a file under the limit', () => {
    expect(parseRobotsTxt(SITE).truncated).toBe(false);
  });
});

describe('sitemaps and Content-Signal', () => {
  const body = [
    'Sitemap: https://example.com/sitemap.xml',
    'User-Agent: *',
    'Content-Signal: ai-train=no, search=yes, ai-input=yes',
    'Allow: /',
    'User-agent: GPTBot',
    'content-signal: ai-train=no # training off',
    'Disallow: /',
    'SITEMAP: https://example.com/news.xml',
  ].join('\n');
  const robots = parseRobotsTxt(body);

  it('collects every Sitemap line, inside or outside groups', () => {
    expect(robots.sitemaps).toEqual(['https://example.com/sitemap.xml', 'https://example.com/news.xml']);
  });

  it('keeps the raw text of each Content-Signal line, with its line and group', () => {
    expect(robots.contentSignals).toEqual([
      'Content-Signal: ai-train=no, search=yes, ai-input=yes',
      'content-signal: ai-train=no # training off',
    ]);
    expect(robots.contentSignalLines.map((l) => [l.line, l.group])).toEqual([
      [3, 0],
      [6, 1],
    ]);
  });

  it('does not let Content-Signal affect crawling', () => {
    expect(robotsVerdict(robots, 'Googlebot', '/')).toMatchObject({ allowed: true, rule: 'Allow: /' });
    expect(robotsVerdict(robots, 'GPTBot', '/')).toMatchObject({ allowed: false, rule: 'Disallow: /' });
  });

  it('reports them in the site summary only when robots.txt was found', () => {
    expect(robotsSummary(robotsFromResponse(200, body))).toEqual({
      state: 'found',
      status: 200,
      sitemaps: robots.sitemaps,
      contentSignals: robots.contentSignals,
      ignoredLines: robots.ignoredLines,
    });
    expect(robotsSummary(robotsFromResponse(404, 'Sitemap: https://e.com/x.xml'))).toEqual({
      state: 'missing',
      status: 404,
      sitemaps: [],
      contentSignals: [],
      ignoredLines: [],
    });
  });
});

describe('availability (RFC 9309 2.3.1)', () => {
  it('parses a 2xx body', () => {
    const access = robotsFromResponse(200, 'User-agent: *\nDisallow: /x\n');
    expect(access.state).toBe('found');
    expect(verdictFor(access, 'GPTBot', '/x')).toEqual({ allowed: false, rule: 'Disallow: /x', line: 2, group: '*' });
    expect(verdictFor(robotsFromResponse(204, null), 'GPTBot', '/x')).toEqual({ allowed: true, rule: null, line: null, group: null });
  });

  it('allows everything on 4xx', () => {
    for (const status of [400, 401, 403, 404, 410]) {
      const access = robotsFromResponse(status, '<html>Not found</html>');
      expect(access.state).toBe('missing');
      const v = verdictFor(access, 'GPTBot', '/anything');
      expect(v).toMatchObject({ allowed: true, line: null, group: null });
      expect(v.rule).toContain(`robots.txt answered ${status}`);
    }
  });

  it('disallows everything on 5xx, with the status in the explanation', () => {
    const access = robotsFromResponse(503, 'User-agent: *\nAllow: /\n');
    expect(access).toEqual({ state: 'unreachable', status: 503, robots: null });
    expect(verdictFor(access, 'GPTBot', '/')).toEqual({
      allowed: false,
      rule: 'robots.txt answered 503: RFC 9309 treats the site as fully disallowed',
      line: null,
      group: null,
    });
  });

  it('disallows everything when robots.txt could not be fetched', () => {
    const access = robotsFromResponse(null, null);
    expect(access.state).toBe('unreachable');
    const v = verdictFor(access, 'Googlebot', '/');
    expect(v.allowed).toBe(false);
    expect(v.rule).toMatch(/could not be fetched/);
  });

  it('treats 429 like a server error, as Google documents', () => {
    const v = verdictFor(robotsFromResponse(429, null), 'Googlebot', '/');
    expect(v.allowed).toBe(false);
    expect(v.rule).toContain('429');
  });

  it('treats a redirect the fetcher gave up on as unavailable', () => {
    const access = robotsFromResponse(301, null);
    expect(access.state).toBe('missing');
    expect(verdictFor(access, 'x', '/').allowed).toBe(true);
  });
});

describe('ignoredLines: the lines parsers ignore', () => {
  it('lists a rule before any User-agent, a pattern that is not a path and an unknown directive, with line numbers', () => {
    const robots = parseRobotsTxt(
      'Disallow: /early\nUser-agent: *\nDisallow: private\nDisallow: *.pdf$\nDisallow:\nCrawl-delay: 5\nContent-Signal: ai-train=no\nNoindex: /x\nDissallow: /typo\nUser agent: GPTBot\nAllow: /\n',
    );
    expect(robots.ignoredLines).toEqual([
      { line: 1, reason: 'rule-before-user-agent' },
      { line: 3, reason: 'pattern-not-a-path' },
      { line: 8, reason: 'unknown-directive' },
    ]);
  });

  // Where we agree with Google's robots library (google/robotstxt): its ID_LineSyntax_Groups case (in
  // tests/fixtures/google-robots-cases.json) ignores "allow: /foo/bar/" before the first user-agent, and a
  // pattern without a leading / never matches there either, since matching is anchored at the path's "/". Where
  // we differ: Google's parser ignores Crawl-delay, but Bing and Yandex honour it, so it is not listed as ignored;
  // for a site owner that is the right call, as the line does something for those crawlers.
  it('agrees with Google on what the ignored rules do: nothing', () => {
    const robots = parseRobotsTxt('allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n');
    expect(robots.ignoredLines).toEqual([{ line: 1, reason: 'rule-before-user-agent' }]);
    expect(robotsVerdict(robots, 'FooBot', '/foo/bar/').allowed).toBe(false);
    const notAPath = parseRobotsTxt('User-agent: *\nDisallow: private\n');
    expect(robotsVerdict(notAPath, 'Googlebot', '/private').allowed).toBe(true);
    expect(robotsVerdict(notAPath, 'Googlebot', '/privately').allowed).toBe(true);
  });

  it(`lists at most ${ROBOTS_IGNORED_LINES_MAX}`, () => {
    const robots = parseRobotsTxt('User-agent: *\n' + 'Nonsense: 1\n'.repeat(50));
    expect(robots.ignoredLines).toHaveLength(ROBOTS_IGNORED_LINES_MAX);
    expect(robots.ignoredLines[0]).toEqual({ line: 2, reason: 'unknown-directive' });
  });
});
