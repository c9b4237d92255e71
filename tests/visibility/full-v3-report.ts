import { visibilityExample } from '../support/example-bodies';

/**
 * The home page's example body with every version-3 member filled in (none null, none empty): a report in which
 * each fact the label table knows has something to say.
 */
export function fullV3Body() {
  const body = structuredClone(visibilityExample()) as unknown as { checkedAt: string; report: Record<string, unknown> & { page: Record<string, unknown>; site: Record<string, unknown>; crawlers: Array<Record<string, unknown>> }; limits: string[] };
  const { page, site } = body.report;
  const surface = (path: string, name: string, entries: number) => ({ url: `https://shop.example${path}`, httpStatus: 200, name, entries, problems: [], status: 'found', valid: true });
  Object.assign(page, {
    robots: { ...(page.robots as object), meta: [{ bot: null, directives: ['max-snippet:80'], raw: '<meta name="robots" content="max-snippet:80">' }], unavailableAfter: '2020-01-01', unavailableAfterPassed: true },
    headBrokenAt: { element: 'iframe', line: 12 },
    incomplete: ['wordCount', 'jsonLd'],
    truncated: true,
    jsonLd: { blocks: 2, invalid: 1, types: ['Product'], keyTypes: ['Product'], problems: [{ type: 'Product', missing: ['offers'] }] },
    rendering: { state: 'rendered', reason: null, title: 'Teapots', h1Count: 1, wordCount: 318, textLength: 1800, jsOnlyShare: 0.12, requests: 9, refused: 1, durationMs: 840 },
  });
  Object.assign(site, {
    redirects: [{ url: 'https://shop.example/teapots', status: 301 }],
    robotsTxt: { state: 'found', status: 200, sitemaps: ['https://shop.example/sitemap.xml'], contentSignals: ['Content-Signal: search=yes, ai-train=no'], ignoredLines: [{ line: 3, reason: 'rule-before-user-agent' }] },
    markdown: { offered: true, contentType: 'text/markdown; charset=utf-8', alternate: 'https://shop.example/teapots.md', matchesPage: false },
    llmsTxtLinks: { checked: 3, broken: 1, links: [{ url: 'https://shop.example/a.md', status: 404, outcome: 'http-error' }] },
    contentUsage: [{ userAgent: '*', signals: { search: 'yes', 'ai-input': null, 'ai-train': 'no' }, lines: [4] }],
    licensing: {
      tdmReservation: 1, tdmPolicy: 'https://shop.example/tdm-policy.json', tdmSource: 'file', rslLicense: 'https://shop.example/license.xml', tdmPolicyReachable: false,
      rsl: { url: 'https://shop.example/license.xml', status: 'found', valid: true, httpStatus: 200, permits: ['search', 'ai-input'], prohibits: ['ai-train'], payment: { type: 'crawl', amount: '0.01', currency: 'USD' }, problem: null },
    },
    agentSurfaces: {
      linkHeaders: [{ rel: 'api-catalog', href: 'https://shop.example/.well-known/api-catalog', type: 'application/linkset+json' }],
      apiCatalog: surface('/.well-known/api-catalog', 'Shop API', 2),
      mcpServerCard: surface('/.well-known/mcp/server-card', 'shop-mcp', 4),
      a2aAgentCard: { ...surface('/.well-known/agent-card.json', 'Shop agent', 1), status: 'invalid', valid: false, problems: ['no skills member'] },
      oauthAuthorizationServer: surface('/.well-known/oauth-authorization-server', 'https://shop.example', 0),
      oauthProtectedResource: surface('/.well-known/oauth-protected-resource', 'https://shop.example/api', 1),
      webBotAuthDirectory: surface('/.well-known/http-message-signatures-directory', '', 2),
      webMcp: [{ name: 'add_to_cart' }],
    },
    aiUse: {
      train: { decision: 'refused', sources: [{ source: 'content-signal', says: 'refused', detail: 'ai-train=no (line 4)' }, { source: 'rsl', says: 'refused', detail: 'prohibits ai-train' }], conflicts: [] },
      search: { decision: 'allowed', sources: [{ source: 'content-signal', says: 'allowed', detail: 'search=yes (line 4)' }], conflicts: [] },
      aiInput: { decision: 'refused', sources: [{ source: 'tdmrep', says: 'refused', detail: 'tdm-reservation 1' }], conflicts: ['rsl: permits ai-input'] },
    },
    commerce: { challenges: [{ source: 'GPTBot', protocol: 'pay-per-crawl', httpStatus: 402, amount: '0.01', currency: 'USD', network: null, error: null }, { source: 'page', protocol: 'x402', httpStatus: 402, amount: '10000', currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', network: 'eip155:8453', error: null }], payPerCrawl: 1, x402: true, mpp: true },
  });
  body.report.crawlers = body.report.crawlers.map((c) => (c.token === 'ClaudeBot' ? { ...c, access: { outcome: 'challenge', status: 403, userAgent: 'ClaudeBot/1.0' } } : c));
  return body;
}
