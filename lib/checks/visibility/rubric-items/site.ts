// The site around the page: https (technical), the sitemap and llms.txt (discovery).

import type { LlmsLinkOutcome } from '../site-signals';
import type { RubricItem } from './types';

const LINK_OUTCOME: Record<LlmsLinkOutcome, string> = {
  ok: 'works',
  'http-error': 'answered an error',
  'html-not-markdown': 'answered an HTML page instead of Markdown',
  'no-answer': 'got no answer',
  refused: 'points at a private or internal address (not fetched)',
  'not-sent': "not fetched: this check's request limits for that site were reached",
};

/**
 * The technical and discovery items, in published order.
 * @example SITE_ITEMS.map((item) => item.id) // ['site.https', 'site.sitemap', 'site.sitemap-lists-page', 'site.llms-txt', 'site.llms-txt-links']
 */
export const SITE_ITEMS: readonly RubricItem[] = [
  {
    id: 'site.https',
    category: 'technical',
    points: 3,
    criterion:
      'The final address is https (2 points) and http://<host>/ redirects to https or is not served over http at all (1 point).',
    evaluate(input, points) {
      const { finalUrlHttps, httpRedirectsToHttps } = input.https;
      if (!finalUrlHttps) {
        return {
          earned: 0,
          finding: {
            id: 'not-https',
            severity: 'medium',
            observed: `the page is served at ${input.finalUrl}`,
            why: 'Search engines prefer https addresses, and browsers mark http pages as not secure.',
            fix: 'Serve the site over https and redirect every http address to its https equivalent with a 301.',
          },
        };
      }
      if (httpRedirectsToHttps !== false) return { earned: points };
      let host = '';
      try {
        host = new URL(input.finalUrl).host;
      } catch {
        // finalUrl is always absolute; an empty host only weakens the message.
      }
      return {
        earned: 2,
        finding: {
          id: 'http-not-redirected',
          severity: 'low',
          observed: `GET http://${host}/ is served over http without redirecting to https`,
          why: 'An http copy of the site splits signals between two addresses and can be indexed instead of the https one.',
          fix: `Redirect http://${host}/* to https://${host}/* with a 301 (and consider HSTS).`,
        },
      };
    },
  },
  {
    id: 'site.sitemap',
    category: 'discovery',
    points: 2,
    criterion:
      '/sitemap.xml, or else the first Sitemap: of robots.txt, answers 2xx with a <urlset> or <sitemapindex> document.',
    evaluate(input, points) {
      const s = input.sitemapXml;
      if (s.isSitemap) return { earned: points };
      return {
        earned: 0,
        finding: {
          id: 'sitemap-missing',
          severity: 'low',
          observed:
            s.url === null
              ? 'no sitemap found'
              : s.status === null
                ? `GET ${s.url} got no HTTP answer`
                : `GET ${s.url} answered ${s.status}${s.status >= 200 && s.status < 300 ? ' without a <urlset> or <sitemapindex> document' : ''}`,
          why: 'A sitemap lists the pages you want crawled and when they changed, which helps crawlers find new and updated pages.',
          fix: 'Publish an XML sitemap at /sitemap.xml (or anywhere, announced with a "Sitemap: https://.../sitemap.xml" line in robots.txt).',
        },
      };
    },
  },
  {
    id: 'site.sitemap-lists-page',
    category: 'discovery',
    points: 1,
    criterion:
      'The sitemap does not leave the page out: no entry equals the page address only when the whole sitemap was read (for an index, its first child, when it is the only one). No sitemap, or a sitemap too large to tell: full points (site.sitemap scores its absence).',
    evaluate(input, points) {
      if (input.signals.sitemapListsPage !== false) return { earned: points };
      return {
        earned: 0,
        finding: {
          id: 'page-not-in-sitemap',
          severity: 'low',
          observed: `${input.sitemapXml.url ?? 'the sitemap'} has no <loc> equal to ${input.finalUrl}`,
          why: 'A sitemap is the list of pages a site wants crawled; a page missing from it is found later, or only through links, and can look less important than the pages listed.',
          fix: `Add <url><loc>${input.finalUrl}</loc></url> to the sitemap (with the exact address the page answers at, scheme and trailing slash included), or, if the page should not be indexed, mark it noindex.`,
        },
      };
    },
  },
  {
    id: 'site.llms-txt',
    category: 'discovery',
    points: 2,
    criterion:
      '/llms.txt follows llmstxt.org: an H1 first, a > summary, and an H2 section with at least one [name](url) link (present with an H1 but incomplete: 1 point).',
    evaluate(input, points) {
      const l = input.llmsTxt;
      if (l.level === 'valid') return { earned: points };
      const partial = l.level === 'partial';
      return {
        earned: partial ? 1 : 0,
        finding: {
          id: l.level === 'missing' || l.level === 'error' ? 'llms-txt-missing' : partial ? 'llms-txt-incomplete' : 'llms-txt-invalid',
          severity: 'low',
          observed: l.problems.join('; ') || `/llms.txt: ${l.level}`,
          why: 'llms.txt is a proposed (llmstxt.org), not a standard, Markdown index that helps language models find a site\'s key pages; no major crawler is documented to rely on it, hence its low weight.',
          fix: 'Serve /llms.txt as text/markdown: "# Site name", a "> one-line summary", then "## Section" headings with "- [Page](https://...): note" link lists.',
        },
      };
    },
  },
  {
    id: 'site.llms-txt-links',
    category: 'discovery',
    points: 1,
    criterion:
      'None of the first 5 links of /llms.txt is broken: each answers below 400, a link to a .md, .markdown, .mdx or .txt file does not answer with an HTML page, and none points at a private or internal address. No llms.txt or no links: full points (site.llms-txt scores its absence).',
    evaluate(input, points) {
      const { llmsTxtLinks } = input.signals;
      if (llmsTxtLinks.broken === 0) return { earned: points };
      const broken = llmsTxtLinks.links.filter((l) => l.outcome !== 'ok' && l.outcome !== 'not-sent');
      return {
        earned: 0,
        finding: {
          id: 'llms-txt-broken-links',
          severity: 'low',
          observed: `${llmsTxtLinks.broken} of ${llmsTxtLinks.checked} links checked: ${broken.map((l) => `${l.url} ${LINK_OUTCOME[l.outcome]}${l.status === null ? '' : ` (HTTP ${l.status})`}`).join('; ')}`,
          why: 'llms.txt exists to point language models at a site\'s key pages; a link that fails, or answers with an HTML page where it promises Markdown, sends them to a dead end.',
          fix: 'Fix or remove the broken links in /llms.txt: every link should answer 200, and links to .md files should serve Markdown (text/markdown or text/plain), not the HTML page or a soft 404.',
        },
      };
    },
  },
];
