// A site built to make the visibility report as large as it can: every value the report echoes back (title,
// description, addresses, robots tags and rules, JSON-LD types, sitemaps, Content-Signal lines, llms.txt
// links, licensing values, redirects) is as long and as many as the fetch caps let it be.
import type { FixtureRoute } from './fixture-site';

const letters = (i: number) => String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26));
const many = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i)).join('');

/** The address asked for; it redirects five times, each hop through a long address (the check refuses one over 2,000 characters), to BLOAT_PAGE_PATH. */
export const BLOAT_START_PATH = '/start/' + 's'.repeat(1_900);
/** The page after the redirects: long, so each crawler's deciding robots.txt rule quotes a long line. */
export const BLOAT_PAGE_PATH = '/page/' + 'p'.repeat(1_950);
const HOPS = 5;
const hopPath = (i: number) => `/hop${i}/` + 'h'.repeat(1_950);

const CRAWLER_TOKENS = [
  'Googlebot', 'Bingbot', 'Applebot', 'Applebot-Extended', 'Google-Extended', 'GPTBot', 'OAI-SearchBot', 'ChatGPT-User',
  'ClaudeBot', 'Claude-SearchBot', 'Claude-User', 'PerplexityBot', 'Perplexity-User', 'CCBot', 'Meta-ExternalAgent',
];

const BLOAT_PAGE = [
  `<!doctype html><html lang="${'l'.repeat(5_000)}"><head>`,
  `<title>${'T'.repeat(60_000)}</title>`,
  `<meta name="description" content="${'D'.repeat(60_000)}">`,
  `<link rel="canonical" href="/canonical/${'c'.repeat(8_000)}">`,
  `<link rel="alternate" type="text/markdown" href="/md/${'m'.repeat(8_000)}.md">`,
  `<meta name="tdm-reservation" content="1"><meta name="tdm-policy" content="https://site.test/policy/${'q'.repeat(8_000)}">`,
  many(120, (i) => `<meta name="robots" content="noai, noarchive, ${many(60, (j) => `x${i}-${j}-${'d'.repeat(20)}, `)}max-snippet:${i}">`),
  '<script type="application/ld+json">',
  JSON.stringify({
    '@context': 'https://schema.org',
    '@graph': [
      { '@type': 'FAQPage', mainEntity: Array.from({ length: 300 }, () => ({ '@type': 'Question' })) },
      ...Array.from({ length: 40 }, () => ({ '@type': 'Product' })),
      ...Array.from({ length: 400 }, (_, i) => ({ '@type': `Type${i}${'t'.repeat(200)}` })),
    ],
  }),
  '</script></head><body><h1>Bloat</h1><p>', 'word '.repeat(300), '</p></body></html>',
].join('');

const BLOAT_ROBOTS = [
  // One group per crawler, each with the deciding rule quoting the whole long page path.
  many(CRAWLER_TOKENS.length, (i) => `User-agent: ${CRAWLER_TOKENS[i]}\nDisallow: ${BLOAT_PAGE_PATH}\nContent-Signal: search=no, ai-train=no, ai-input=no, ${'z'.repeat(3_000)}=yes\n\n`),
  // Many user-agents with long names (letters only: robots.txt product tokens stop at a digit), each with Content-Signal lines.
  many(60, (i) => `User-agent: agent-${letters(i)}-${'u'.repeat(1_000)}\nContent-Signal: ai-train=no, ${'v'.repeat(400)}=yes\nAllow: /\n\n`),
  many(40, (i) => `Sitemap: https://site.test/sitemap-${i}-${'s'.repeat(3_000)}.xml\n`),
  `License: https://site.test/license/${'L'.repeat(12_000)}.xml\n`,
].join('');

const BLOAT_LLMS = '# Bloat\n\n> Links as long as they come.\n\n## Docs\n\n' + many(8, (i) => `- [Doc ${i}](https://site.test/doc${i}/${'k'.repeat(8_000)}.md): a doc\n`);

/** Routes serving the bloat site on any host the check is pointed at. */
export function bloatRoutes(): Record<string, FixtureRoute> {
  const routes: Record<string, FixtureRoute> = {
    [BLOAT_START_PATH]: { status: 301, redirect: hopPath(1) },
    [BLOAT_PAGE_PATH]: {
      headers: [
        ['content-type', 'text/html; charset=utf-8'],
        ...Array.from({ length: 6 }, (_, i): [string, string] => [`x-robots-tag`, `bot${i}${'b'.repeat(200)}: noarchive, ${'n'.repeat(1_200)}`]),
        ['tdm-reservation', '1'],
      ],
      body: BLOAT_PAGE,
    },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: BLOAT_ROBOTS },
    '/sitemap.xml': { status: 404, body: '' },
    '/llms.txt': { headers: { 'content-type': 'text/plain' }, body: BLOAT_LLMS },
    '/llms-full.txt': { status: 404, body: '' },
    '/.well-known/tdmrep.json': { status: 404, body: '' },
  };
  // The start and four hops through long addresses, then the page: five redirects, the most a check follows.
  for (let i = 1; i < HOPS; i++) routes[hopPath(i)] = { status: 301, redirect: i + 1 < HOPS ? hopPath(i + 1) : BLOAT_PAGE_PATH };
  return routes;
}
