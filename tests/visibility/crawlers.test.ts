import { describe, it, expect } from 'vitest';
import { BROWSER_USER_AGENT, CRAWLERS, CRAWLER_ROLES, crawlerVerdicts, decideCrawlers } from '@/lib/checks/visibility/crawlers';
import { extractProductToken, robotsFromResponse } from '@/lib/checks/visibility/robots';

function verdicts(robotsTxt: string, path = '/') {
  return crawlerVerdicts(robotsFromResponse(200, robotsTxt), path);
}

function byToken(rows: ReturnType<typeof crawlerVerdicts>, token: string) {
  const row = rows.find((r) => r.token === token);
  if (!row) throw new Error(`no row for ${token}`);
  return row;
}

describe('the crawler table', () => {
  it('has exactly 16 crawlers with unique tokens (case-insensitively, as robots.txt compares them)', () => {
    expect(CRAWLERS).toHaveLength(16);
    expect(new Set(CRAWLERS.map((c) => c.token.toLowerCase())).size).toBe(16);
  });

  it('lists the crawlers the research chose', () => {
    expect(CRAWLERS.map((c) => c.token)).toEqual([
      'Googlebot',
      'Bingbot',
      'Applebot',
      'OAI-SearchBot',
      'ChatGPT-User',
      'GPTBot',
      'Claude-SearchBot',
      'Claude-User',
      'ClaudeBot',
      'PerplexityBot',
      'Perplexity-User',
      'Google-Agent',
      'Google-Extended',
      'Applebot-Extended',
      'CCBot',
      'Meta-ExternalAgent',
    ]);
  });

  it('uses tokens a robots.txt user-agent line can name', () => {
    for (const c of CRAWLERS) expect(extractProductToken(c.token), c.token).toBe(c.token);
  });

  it('gives every crawler a valid role, a vendor, a purpose and an https source', () => {
    for (const c of CRAWLERS) {
      expect(CRAWLER_ROLES, c.token).toContain(c.role);
      expect(c.vendor.length, c.token).toBeGreaterThan(0);
      expect(c.purpose.length, c.token).toBeGreaterThan(30);
      expect(new URL(c.source).protocol, c.token).toBe('https:');
      expect(c.evidence.length, c.token).toBeGreaterThan(0);
    }
  });

  it('covers every role', () => {
    for (const role of CRAWLER_ROLES) expect(CRAWLERS.some((c) => c.role === role), role).toBe(true);
  });

  it('gives a fallback to Applebot only, and the fallback is in the table', () => {
    const withFallback = CRAWLERS.filter((c) => c.fallback !== undefined);
    expect(withFallback.map((c) => [c.token, c.fallback])).toEqual([['Applebot', 'Googlebot']]);
    expect(CRAWLERS.some((c) => c.token === 'Googlebot')).toBe(true);
  });

  it('marks the user-triggered fetchers whose vendors do not promise to obey robots.txt', () => {
    expect(CRAWLERS.filter((c) => !c.honorsRobots).map((c) => c.token)).toEqual(['ChatGPT-User', 'Perplexity-User', 'Google-Agent']);
    for (const c of CRAWLERS.filter((x) => !x.honorsRobots)) expect(c.userTriggered, c.token).toBe(true);
  });

  it('marks the control tokens that send no requests', () => {
    expect(CRAWLERS.filter((c) => c.tokenOnly).map((c) => c.token)).toEqual(['Google-Extended', 'Applebot-Extended']);
  });
});

describe('the user agents of the access probes', () => {
  it('every crawler that sends requests has a full user agent naming its own token, and where it comes from; robots.txt-only tokens have none', () => {
    for (const c of CRAWLERS) {
      if (c.tokenOnly) {
        expect([c.token, c.userAgent, c.userAgentSource]).toEqual([c.token, undefined, undefined]);
        continue;
      }
      // A product token with its version, or (Google-Agent, which Google publishes without one) followed by ';'.
      expect(c.userAgent!.toLowerCase()).toMatch(new RegExp(`${c.token.toLowerCase()}[/;]`));
      expect(c.userAgentSource!.length).toBeGreaterThan(0);
    }
    expect(CRAWLERS.filter((c) => c.userAgent !== undefined)).toHaveLength(14);
    expect(BROWSER_USER_AGENT).toMatch(/^Mozilla\/5\.0 \(Windows NT 10\.0; Win64; x64\) AppleWebKit\/537\.36 \(KHTML, like Gecko\) Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/);
  });
});

describe('crawlerVerdicts', () => {
  it('returns one row per crawler in table order, with the members the report publishes', () => {
    const rows = verdicts('User-agent: *\nAllow: /\n');
    expect(rows.map((r) => r.token)).toEqual(CRAWLERS.map((c) => c.token));
    for (const r of rows) {
      const keys = Object.keys(r).sort();
      const expected = ['access', 'allowed', 'group', 'honorsRobots', 'purpose', 'role', 'rule', 'source', 'token', 'vendor'];
      if (r.token === 'Applebot') expected.push('fallback');
      expect(keys).toEqual(expected.sort());
    }
  });

  it('blocks GPTBot alone when only GPTBot is named', () => {
    const rows = verdicts('User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n', '/blog/post');
    expect(byToken(rows, 'GPTBot')).toMatchObject({ allowed: false, rule: 'Disallow: /', group: 'GPTBot' });
    for (const r of rows.filter((x) => x.token !== 'GPTBot')) {
      expect(r, r.token).toMatchObject({ allowed: true, rule: 'Allow: /', group: '*' });
    }
  });

  it('makes Applebot follow a Googlebot group when no group names Applebot', () => {
    const rows = verdicts('User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n', '/private/x');
    expect(byToken(rows, 'Applebot')).toMatchObject({
      allowed: false,
      rule: 'Disallow: /private/',
      group: 'Googlebot',
      fallback: 'Googlebot',
    });
    // Googlebot's group allows what it does not mention, and so then does Applebot's view of it.
    const open = verdicts('User-agent: Googlebot\nDisallow: /private/\n\nUser-agent: *\nDisallow: /\n', '/public');
    expect(byToken(open, 'Applebot')).toMatchObject({ allowed: true, rule: null, group: 'Googlebot' });
    // Only Applebot falls back: Applebot-Extended and the others get the * group.
    expect(byToken(open, 'Applebot-Extended')).toMatchObject({ allowed: false, rule: 'Disallow: /', group: '*' });
  });

  it('gives the deciding line number through decideCrawlers, fallback included', () => {
    const access = robotsFromResponse(200, 'User-agent: *\nAllow: /\n\nUser-agent: Googlebot\nAllow: /\nDisallow: /private/\n');
    const applebot = decideCrawlers(access, '/private/a').crawlers[CRAWLERS.findIndex((c) => c.token === 'Applebot')];
    expect({ ...applebot.verdict, line: applebot.line }).toMatchObject({
      allowed: false,
      rule: 'Disallow: /private/',
      line: 6,
      group: 'Googlebot',
    });
  });

  it("prefers Applebot's own group over the Googlebot one", () => {
    const rows = verdicts('User-agent: Googlebot\nDisallow: /\n\nuser-agent: applebot\nAllow: /\n');
    expect(byToken(rows, 'Applebot')).toMatchObject({ allowed: true, rule: 'Allow: /', group: 'applebot' });
  });

  it('sends Applebot to * when neither it nor Googlebot is named', () => {
    const rows = verdicts('User-agent: *\nDisallow: /x\n', '/x');
    expect(byToken(rows, 'Applebot')).toMatchObject({ allowed: false, rule: 'Disallow: /x', group: '*' });
  });

  it('gives group null when no group applies', () => {
    const rows = verdicts('User-agent: SomeOtherBot\nDisallow: /\n');
    for (const r of rows) expect(r, r.token).toMatchObject({ allowed: true, rule: null, group: null });
  });

  it('separates training from answers for the same vendor', () => {
    const rows = verdicts('User-agent: ClaudeBot\nUser-agent: GPTBot\nUser-agent: Google-Extended\nDisallow: /\n');
    const blocked = rows.filter((r) => !r.allowed).map((r) => r.token);
    expect(blocked).toEqual(['GPTBot', 'ClaudeBot', 'Google-Extended']);
    expect(rows.filter((r) => !r.allowed).every((r) => r.role === 'ai-training')).toBe(true);
  });

  it('applies the robots.txt status to every crawler', () => {
    const down = crawlerVerdicts(robotsFromResponse(503, null), '/');
    for (const r of down) {
      expect(r, r.token).toMatchObject({ allowed: false, group: null });
      expect(r.rule, r.token).toContain('503');
    }
    const missing = crawlerVerdicts(robotsFromResponse(404, null), '/');
    for (const r of missing) expect(r, r.token).toMatchObject({ allowed: true, group: null });
    const unreachable = crawlerVerdicts(robotsFromResponse(null, null), '/');
    expect(unreachable.every((r) => !r.allowed)).toBe(true);
  });

  it('does not read a disallow of a fetcher that may ignore robots.txt as a block', () => {
    const rows = verdicts('User-agent: ChatGPT-User\nUser-agent: Perplexity-User\nUser-agent: Claude-User\nDisallow: /\n');
    // A disallowed row that does not honour robots.txt states the site's wish; only a disallowed row that
    // honours it is a block.
    const chatgpt = byToken(rows, 'ChatGPT-User');
    expect(chatgpt).toMatchObject({ allowed: false, honorsRobots: false });
    expect(byToken(rows, 'Perplexity-User')).toMatchObject({ allowed: false, honorsRobots: false });
    expect(byToken(rows, 'Claude-User')).toMatchObject({ allowed: false, honorsRobots: true });
    expect(byToken(rows, 'GPTBot')).toMatchObject({ allowed: true, honorsRobots: true });
  });
});
