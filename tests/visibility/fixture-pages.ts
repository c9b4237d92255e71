// The pages and site files of a well-run fixture site, shared by the visibility tests: a page that earns
// every rubric point, robots.txt, a sitemap that lists it, llms.txt and llms-full.txt, served over https
// only, with a Markdown copy for clients that ask for text/markdown.
import type { IncomingMessage } from 'node:http';
import type { FixtureResponse, FixtureRoute } from './fixture-site';

const WORDS = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
const JSON_LD = JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [{ '@type': 'Organization', name: 'Site' }, { '@type': 'Article', headline: 'Guide', author: { '@type': 'Person', name: 'Ada' }, datePublished: '2026-11-01' }],
});

export function goodPage(url: string): string {
  return `<!doctype html><html lang="en"><head>
<title>The complete guide to widgets</title>
<meta name="description" content="Everything you need to know about widgets: what they are, how they work and how to pick one.">
<link rel="canonical" href="${url}">
<meta property="og:title" content="Widgets"><meta property="og:description" content="All about widgets">
<meta property="og:image" content="https://site.test/w.png"><meta property="og:url" content="${url}"><meta property="og:type" content="article">
<script type="application/ld+json">${JSON_LD}</script>
</head><body><h1>Widgets</h1><p>${WORDS}</p><script>var notText = 1;</script></body></html>`;
}

export const text = (body: string): FixtureResponse => ({ headers: { 'content-type': 'text/plain; charset=utf-8' }, body });
export const xml = (body: string): FixtureResponse => ({ headers: { 'content-type': 'application/xml' }, body });
const SITEMAP = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://site.test/</loc></url><url><loc>https://site.test/guide</loc></url></urlset>';
export const LLMS = '# Site\n\n> Widgets and guides.\n\n## Docs\n\n- [Guide](https://site.test/guide): the guide\n';
export const ROBOTS = 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\nContent-Signal: ai-train=no, search=yes\n\nSitemap: https://site.test/sitemap.xml\n';

/** `/` over http redirects to https, like a well-run site; everything else is served as given. */
export function httpsOnly(page: FixtureRoute): FixtureRoute {
  return (req: IncomingMessage) => {
    if (req.headers['x-forwarded-proto'] === 'http') return { status: 301, redirect: `https://${req.headers.host}${req.url}` };
    return typeof page === 'function' ? page(req) : page;
  };
}

/** Answers `Accept: text/markdown` with a Markdown copy (as Cloudflare's Markdown for Agents does), anything else with `page`. */
function negotiated(page: FixtureResponse, markdown = '# The complete guide to widgets\n\nAll about widgets.\n'): FixtureRoute {
  return (req: IncomingMessage) =>
    /text\/markdown/.test(req.headers.accept ?? '')
      ? { headers: [['content-type', 'text/markdown; charset=utf-8'], ['vary', 'accept']], body: markdown }
      : page;
}

export function goodRoutes(overrides: Record<string, FixtureRoute> = {}): Record<string, FixtureRoute> {
  return {
    '/': httpsOnly(negotiated({ body: goodPage('https://site.test/') })),
    '/guide': httpsOnly(negotiated({ body: goodPage('https://site.test/guide') })),
    '/robots.txt': text(ROBOTS),
    '/sitemap.xml': xml(SITEMAP),
    '/llms.txt': { headers: { 'content-type': 'text/markdown' }, body: LLMS },
    '/llms-full.txt': text('# Site\n\nFull text of every page.\n'),
    ...overrides,
  };
}
